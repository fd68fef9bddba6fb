#!/usr/bin/env bash
# lab/gpu/tune.sh: one device call over a tree built here (carry build/bin,
# build/gpu: pack.tgz, kit.tgz (lab/gpu/mkkit.sh), CACHE_TGZ, a cubin
# cache compiled here by `gemmtab compile`): the worker's DGEMM reference
# tests (REF=1), then SPACE swept into DB with the new search (resumable:
# DB comes in gzipped and goes back out gzipped), bounded by SWEEP_S; once
# complete, emit (INCUMBENT as incumbent, if given), compile the table
# into gemmtab and libgemmtab (build/gpu/relink_CARD.sh), and bench it:
# every M (STEP above 64, ROUNDS rounds) and, when CONTRACT=1, the
# contract's 90 points (3 rounds, paired floors). The whole stays under
# LIMIT_S.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab T0=$SECONDS LOG=$OUT/log.txt LIMIT_S=${LIMIT_S:-580}
left() { local l=$((LIMIT_S - (SECONDS - T0))); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) C=h200 ;;
*) C=h100 ;;
esac
DB=${DB/CARD/$C} INCUMBENT=${INCUMBENT:-}; INCUMBENT=${INCUMBENT/CARD/$C}
[ -f build/gpu/pack.tgz ] && tar xzf build/gpu/pack.tgz; tar xzf build/gpu/kit.tgz; tar xzf "$CACHE_TGZ"
CACHE=$(tar tzf "$CACHE_TGZ" | head -n 1 | cut -d/ -f1-2)
if [ "${REF:-0}" = 1 ]; then
	step reference
	timeout 40 build/tests/gpu_test_worker_gpu build/tests/test_kernels.cubin >"$OUT/worker_gpu.log" 2>&1
	echo "gpu_test_worker_gpu exit $?" | tee -a "$LOG"; tail -n 1 "$OUT/worker_gpu.log" | tee -a "$LOG"
	grep "^not ok" "$OUT/worker_gpu.log" | tee -a "$LOG"
	GEMMTAB=$PWD/build/bin/gemmtab timeout 40 bash tests/gpu/t_reference.sh >"$OUT/t_reference.log" 2>&1
	echo "t_reference exit $?" | tee -a "$LOG"; tail -n 1 "$OUT/t_reference.log" | tee -a "$LOG"
fi
if [ -f build/gpu/proto.tgz ]; then
	step worker-proto
	tar xzf build/gpu/proto.tgz
	timeout 60 build/tests/gpu_test_worker_proto build/tests/test_kernels.cubin >/tmp/proto.log 2>&1
	echo "gpu_test_worker_proto exit $?" | tee -a "$LOG"; grep -E "^(ok|not ok)|passed" /tmp/proto.log | tee -a "$LOG"
fi
[ -f "$DB" ] || { [ -f "$DB.gz" ] && gunzip -k "$DB.gz"; }
step dry-run
$G sweep --space "$SPACE" --db "$DB" --search new --dry-run 2>&1 | grep -E "^(estimate|resume)" | tee -a "$LOG"
$G sweep --space "$SPACE" --db "$DB" --search new --dry-run --device-profile $C 2>&1 | grep -E "^estimate" | tee -a "$LOG"
step sweep
s=$(left "${SWEEP_S:-330}")
timeout -s INT $((s + 30)) $G sweep --space "$SPACE" --db "$DB" --search new --cache "$CACHE" \
	--time-limit "${s}s" >/tmp/sweep.log 2>&1
rc=$?; step "sweep exit $rc"; grep -v progress /tmp/sweep.log >"$OUT/sweep.log"; tail -n 8 "$OUT/sweep.log" | tee -a "$LOG"
if [ $rc = 0 ]; then
	step emit
	$G emit --db "$DB" --out build/newtab/$C.h --cache "$CACHE" ${INCUMBENT:+--incumbent $INCUMBENT} >/tmp/emit.log 2>&1
	echo "emit exit $?" | tee -a "$LOG"; cat /tmp/emit.log >>"$LOG"
	cp build/newtab/$C.h build/newtab/${C}_kernels.cu "$OUT/"
	step relink
	bash build/gpu/relink_$C.sh >/tmp/relink.log 2>&1; echo "relink exit $?" | tee -a "$LOG"
	tail -n 5 /tmp/relink.log >>"$LOG"
	step probe; $G probe --db /tmp/fl.db --space "$SPACE" >>"$LOG" 2>&1
	if [ "${CONTRACT:-0}" = 1 ]; then
		step bench-contract
		timeout "$(left 90)" build/gpu/gemmtab-tab bench --table build/newtab/$C.h \
			--space search_spaces/h200_loads.yaml --rounds 3 --floors /tmp/fl.db --paired \
			--format md --out "$OUT/contract.md" >>"$LOG" 2>&1
		echo "bench exit $?" | tee -a "$LOG"; tail -n 3 "$OUT/contract.md" | tee -a "$LOG"
	fi
	step bench-every-m
	r=${ROUNDS:-2}; [ "$(left 400)" -lt 200 ] && r=1
	echo "every M: $r rounds" | tee -a "$LOG"
	timeout "$(left 400)" build/gpu/gemmtab-tab bench --table build/newtab/$C.h --space "$SPACE" \
		--rounds "$r" --recheck "${RECHECK:-2}" --range-step "${STEP:-1}" --floors /tmp/fl.db --format md \
		--out "$OUT/everym.md" --plot "$OUT/everym.svg" >>"$LOG" 2>&1
	echo "bench exit $?" | tee -a "$LOG"; tail -n 6 "$OUT/everym.md" | tee -a "$LOG"
fi
step pack
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$DB"
gzip -c "$DB" >"$OUT/$(basename "$DB").gz"
step done
