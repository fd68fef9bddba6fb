#!/usr/bin/env bash
# lab/device_h200.sh: the H200 work of the every-M re-tune, in two
# device calls of at most 10 minutes each, with one step here between them.
#
#   bash lab/device_h200.sh prep      (here) make tests, then pack the GPU
#       test programs into build/gpu/pack.tgz and compile the default
#       space's cubins into build/gpu/cache.tar.xz (11,267 instantiations:
#       ~11 min on 2 cores, 216 MB, 9 MB packed), which the sweep would
#       otherwise compile on the device (~110 s of its time)
#   bash lab/device_h200.sh call1     (device; carry build/bin, build/lib,
#       build/examples, build/rt-prefix, build/jit-cache, build/gpu,
#       build/bench) make test-gpu, the host cost (build/bench/host_cost),
#       gemmtab.Linear in a graph (bench/python_graph.py), then the sweep
#       of search_spaces/h200.yaml's ranges resuming db/h200.db for the
#       time left (--time-limit); the database comes back as h200.db.gz.
#       Resumable: copy the returned h200.db.gz to build/gpu/ and run it
#       again until the sweep's log says it finished. Not an H200:
#       tests/gpu/t_python.sh only.
#   (here) gunzip the database into db/h200.db, `gemmtab emit --db
#       db/h200.db --out runtime/tables/h200.h --incumbent
#       runtime/tables/h200_incumbent.h` (cp runtime/tables/h200.h
#       runtime/tables/h200_incumbent.h first), make, then
#       `lab/ab_bench.sh prep HEAD` (a: the new table, b: the committed
#       one) and `bash lab/device_h200.sh prep` again (the GPU test
#       programs now carry the new table)
#   bash lab/device_h200.sh call2     (device; carry the same and build/ab)
#       the runtime's GPU test of the new table, the A/B of the two tables over
#       every M to 64 and every 4th above (AB_ROUNDS, 2), and the new
#       table's contract bench (bench/h200.md's method); under $OUT the
#       scores, both tables' last reports, h200.md and the logs
# Then make db-pack, commit the database, the table, bench/h200.md (and
# redraw bench/h200.svg: gemmtab bench --from bench/h200.md --plot
# bench/h200.svg) when the A/B holds (new/old >= 0.99 on the score).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
T0=$SECONDS

gpu_name() { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1; }

# make test-gpu PREBUILT=1 over the packed test programs, its logs packed
# only when a test failed (8 files come back from a call at most)
test_gpu() {
	tar xzf build/gpu/pack.tgz
	timeout 200 make test-gpu PREBUILT=1 >"$OUT/test-gpu.log" 2>&1
	echo "test-gpu exit $? ($((SECONDS - T0)) s)"
	tail -n 2 "$OUT/test-gpu.log"
	grep -E "^not ok|^ *skip" "$OUT/test-gpu.log" | head -n 20
	if grep -q "^not ok" "$OUT/test-gpu.log"; then
		tar czf "$OUT/gpu-logs.tgz" build/tests/logs 2>/dev/null
	fi
}

case "${1:-}" in
prep)
	make -j"$(nproc)" all tests >/dev/null || exit 1
	mkdir -p build/gpu
	tar czf build/gpu/pack.tgz build/tests/gpu_test_* build/tests/test_kernels.cubin \
		build/tests/gemmtab build/tests/fake_worker
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	build/bin/gemmtab compile --space search_spaces/h200.yaml --cache "$tmp/cache" \
		--jobs "$(nproc)" --quiet || exit 1
	tar cf - -C "$tmp" cache | xz -6 -T"$(nproc)" >build/gpu/cache.tar.xz
	ls -la build/gpu ;;
call1)
	mkdir -p "$OUT"
	name=$(gpu_name)
	echo "$name"
	case $name in
	*H200*) ;;
	*)	# another card runs the H200 table's entries as cuBLAS: only the
		# package's tests say anything there
		echo "not an H200: tests/gpu/t_python.sh only"
		timeout 120 bash tests/gpu/t_python.sh >"$OUT/t_python.log" 2>&1
		tail -n 3 "$OUT/t_python.log"; grep -E "^not ok" "$OUT/t_python.log" | head
		exit 0 ;;
	esac
	test_gpu
	DB=db/h200.db bash lab/device_run.sh host pygraph 2>&1 | tee "$OUT/log.txt"
	# a database an earlier call1 brought back (cp OUT/h200.db.gz build/gpu/)
	# is resumed, not the tracked one
	if [ -f build/gpu/h200.db.gz ]; then
		gzip -dc build/gpu/h200.db.gz >db/h200.db && echo "resuming build/gpu/h200.db.gz"
	fi
	mkdir -p /tmp/gt-cache
	tar xJf build/gpu/cache.tar.xz -C /tmp/gt-cache 2>/dev/null ||
		python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' \
			build/gpu/cache.tar.xz | tar xf - -C /tmp/gt-cache
	# the sweep stops starting work at --time-limit and is stopped 30 s later;
	# the database is copied out after that: CALL_S (520) is the second of
	# the call by which the sweep must stop starting work
	left=$((${CALL_S:-520} - (SECONDS - T0)))
	echo "sweep for $left s" | tee -a "$OUT/log.txt"
	DB=db/h200.db CACHE_DIR=/tmp/gt-cache/cache SWEEP_S=$left \
		bash lab/device_run.sh sweep search_spaces/h200.yaml 2>&1 | tee -a "$OUT/log.txt"
	rm -f "$OUT/gpu.txt"
	echo "done ($((SECONDS - T0)) s)" ;;
call2)
	mkdir -p "$OUT"
	name=$(gpu_name)
	echo "$name"
	case $name in *H200*) ;; *) echo "not an H200: stop"; exit 0 ;; esac
	# the compiled-in (new) table's every entry against the FP64 reference
	tar xzf build/gpu/pack.tgz
	timeout 120 build/tests/gpu_test_runtime_gpu >"$OUT/runtime_gpu.log" 2>&1
	echo "gpu_test_runtime_gpu exit $? ($((SECONDS - T0)) s)"; tail -n 2 "$OUT/runtime_gpu.log"
	rounds=${AB_ROUNDS:-2}
	BENCH_ARGS="--range-step 4" OUT=/tmp/ab timeout 280 bash lab/ab_bench.sh run "$rounds" 2>&1 |
		tail -n 6 | tee "$OUT/log.txt"
	cp /tmp/ab/scores.txt /tmp/ab/a_"$rounds".md /tmp/ab/b_"$rounds".md "$OUT/" 2>/dev/null
	BENCH_S=$((570 - (SECONDS - T0))) ROUNDS=3 bash lab/device_run.sh bench 2>&1 | tee -a "$OUT/log.txt"
	cat "$OUT/bench.txt" >>"$OUT/log.txt"
	rm -f "$OUT/gpu.txt" "$OUT/floors.txt" "$OUT/bench.txt"
	echo "done ($((SECONDS - T0)) s)" ;;
*)
	echo "usage: lab/device_h200.sh prep | call1 | call2" >&2
	exit 2 ;;
esac
