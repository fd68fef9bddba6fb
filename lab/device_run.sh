#!/usr/bin/env bash
# lab/device_run.sh: everything one device call does, in order, on the
# H200 machine, over a tree built here (build/ carried). Steps:
#   test-gpu        make test-gpu PREBUILT=1
#   probe           gemmtab probe into $DB
#   sweep SPACE     gemmtab sweep SPACE into $DB (resumable; bounded by $SWEEP_S)
#   report          gemmtab report of $DB (text and md)
#   bench           gemmtab bench of the compiled-in table (runtime/tables/h200.h)
#                   as bench/h200.md is made (the contract's 90 points of
#                   $BENCH_SPACE, search_spaces/h200_loads.yaml, of the table
#                   $BENCH_TABLE, runtime/tables/h200.h, which the carried
#                   build must have compiled in; BENCH_ARGS adds options,
#                   e.g. "--range-step 4"): $ROUNDS rounds (3), floor
#                   fractions from a probe of this machine ($FLOORS, probed
#                   on first use) and --paired
#   ab              lab/ab_bench.sh run $AB_ROUNDS (4): this tree's table
#                   against the one `lab/ab_bench.sh prep REF` put in
#                   build/ab (carry build/ab), packed into ab.tgz;
#                   BENCH_ARGS (e.g. "--range-step 4") goes to its benches
#   host            build/bench/host_cost (make bench-host's program)
#   pygraph         bench/python_graph.py qkv 1 32 (the package installed
#                   with pip --no-build-isolation into a scratch folder)
# The sweep step: $SWEEP_S seconds at most (--time-limit, then a hard
# stop 30 s later); a db/NAME.db missing but tracked gzipped is unpacked
# first; CACHE_XZ=FILE (a tar.xz of a cubin cache made here with `gemmtab
# compile --space SPACE --cache DIR`) is unpacked and passed as --cache,
# which saves the sweep its compiles (11,267 instantiations take ~110 s
# on the device's 16 cores); CACHE_DIR=DIR names one already unpacked.
# Logs and the database come back under $OUT (the device brings back 8
# files at most: test-gpu's logs come packed); a database over 16 MiB
# comes back gzipped.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
DB=${DB:-db/quick.db}
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab
FLOORS=${FLOORS:-/tmp/gemmtab-floors.db}
# the floors the bench step reports against: one probe a call
floors() {
	[ -s "$FLOORS" ] || $G probe --db "$FLOORS" >"$OUT/floors.txt" 2>&1
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
while [ $# -gt 0 ]; do
	step=$1; shift
	t0=$SECONDS
	case $step in
	test-gpu) make test-gpu PREBUILT=1 2>&1 | tee "$OUT/test-gpu.log" | tail -n 40
		tar czf "$OUT/gpu-logs.tgz" build/tests/logs 2>/dev/null ;;
	probe) wrote_db=1
		$G probe --db "$DB" --space "${SPACE:-search_spaces/quick.yaml}" 2>&1 | tee "$OUT/probe.txt" ;;
	sweep) space=$1; shift; wrote_db=1
		[ -f "$DB" ] || [ ! -f "$DB.gz" ] || gzip -dc "$DB.gz" >"$DB"
		cache=()
		if [ -n "${CACHE_DIR:-}" ]; then
			cache=(--cache "$CACHE_DIR")
		elif [ -n "${CACHE_XZ:-}" ]; then
			mkdir -p /tmp/gt-cache
			{ xz -dc "$CACHE_XZ" 2>/dev/null || python3 -c 'import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$CACHE_XZ"; } | tar xf - -C /tmp/gt-cache
			cache=(--cache "/tmp/gt-cache/$(ls /tmp/gt-cache | head -n 1)")
			echo "cache: $(find /tmp/gt-cache -type f | wc -l) files"
		fi
		s=${SWEEP_S:-420}
		timeout -s INT $((s + 30)) $G sweep --space "$space" --db "$DB" "${cache[@]}" \
			--time-limit "${s}s" >"$OUT/sweep.log" 2>&1
		echo "sweep exit $?"; tail -n 12 "$OUT/sweep.log" ;;
	host) timeout 90 build/bench/host_cost >"$OUT/host.md" 2>&1; echo "exit $?" >>"$OUT/host.md"
		cat "$OUT/host.md" ;;
	pygraph) site=/tmp/gt-site; rm -rf "$site"
		timeout 60 python3 -m pip install --no-build-isolation --no-deps --no-compile -q \
			--disable-pip-version-check --target "$site" ./python
		GEMMTAB_LIB=$PWD/build/lib/libgemmtab.so PYTHONPATH=$site timeout 120 \
			python3 bench/python_graph.py qkv 1 32 >"$OUT/pygraph.md" 2>&1
		echo "exit $?" >>"$OUT/pygraph.md"; cat "$OUT/pygraph.md" ;;
	report) $G report --db "$DB" 2>&1 | tee "$OUT/report.txt"
		$G report --db "$DB" --format md >"$OUT/report.md" 2>&1 ;;
	bench) floors
		# shellcheck disable=SC2086 # BENCH_ARGS is words
		timeout "${BENCH_S:-200}" $G bench --table "${BENCH_TABLE:-runtime/tables/h200.h}" \
			--space "${BENCH_SPACE:-search_spaces/h200_loads.yaml}" ${BENCH_ARGS:-} \
			--rounds "${ROUNDS:-3}" --floors "$FLOORS" \
			--paired --format md --out "$OUT/h200.md" >"$OUT/bench.txt" 2>&1
		tail -n 12 "$OUT/h200.md" ;;
	ab) ab=$(mktemp -d)
		OUT=$ab bash lab/ab_bench.sh run "${AB_ROUNDS:-4}" && cat "$ab/scores.txt"
		tar czf "$OUT/ab.tgz" -C "$ab" . ;;
	*) echo "device_run: unknown step $step" >&2 ;;
	esac
	echo "== $step took $((SECONDS - t0)) s"
done
# the database when a step wrote it
if [ -n "${wrote_db:-}" ]; then
	# a sweep stopped by the hard stop may leave its WAL: fold it in
	if [ -s "$DB-wal" ]; then
		python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$DB"
	fi
	for f in "$DB" "$DB-wal"; do
		[ -f "$f" ] || continue
		if [ "$(wc -c <"$f")" -gt $((16 << 20)) ]; then
			gzip -1 -c "$f" >"$OUT/$(basename "$f").gz"
		else
			cp "$f" "$OUT/"
		fi
	done
fi
exit 0
