#!/usr/bin/env bash
# lab/gpu/ab.sh: one device call over a tree built here (carry build/bin,
# build/ab: gemmtab-old and gemmtab-new, the binaries with the old and the
# new table compiled in, and the old table as h200.h; build/gpu): the A/B of the H200 table, old against new, at
# the contract's 90 points (3 rounds, paired floors) and at every M of
# 1..512 (ROUNDS rounds), alternating old and new; the benches come back
# under $OUT as md.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
T0=$SECONDS LOG=$OUT/log.txt R=${ROUNDS:-2}
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
step probe; build/bin/gemmtab probe --db /tmp/fl.db >>"$LOG" 2>&1
bench() { # NAME BINARY TABLE SPACE ROUNDS [--paired]
	step "bench $1"
	timeout 240 $2 bench --table $3 --space $4 --rounds $5 ${6:-} ${7:-} --floors /tmp/fl.db \
		--format md --out "$OUT/$1.md" >>"$LOG" 2>&1
	echo "bench $1 exit $?" | tee -a "$LOG"; tail -n 3 "$OUT/$1.md" | tee -a "$LOG"
}
bench contract_new build/bin/gemmtab runtime/tables/h200.h search_spaces/h200_loads.yaml 3 --paired
bench contract_old build/ab/gemmtab-old build/ab/h200.h search_spaces/h200_loads.yaml 3 --paired
bench everym_old build/ab/gemmtab-old build/ab/h200.h search_spaces/h200.yaml $R "" "--recheck 2"
bench everym_new build/bin/gemmtab runtime/tables/h200.h search_spaces/h200.yaml $R "" "--recheck 2"
step done
