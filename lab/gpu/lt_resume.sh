#!/usr/bin/env bash
# lab/gpu/lt_resume.sh: one device call over a tree built here (carry
# build/bin, build/gpu): unpack db/*.db.gz; resume db/h100.db with
# search_spaces/h200.yaml (the cuBLASLt half, and the variant rows of the
# current template text), bounded by SWEEP_S; prune db/h200.db with the
# sweep's compile cache (the gemv tail text's variant refresh); the tails
# sanitizer test; both databases come back gzipped under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab T0=$SECONDS LOG=$OUT/log.txt
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
tar xzf build/gpu/pack.tgz
for f in db/h100.db db/h200.db; do [ -f $f ] || gunzip -k $f.gz; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
step dry-run
$G sweep --space search_spaces/h200.yaml --db db/h100.db --dry-run 2>&1 | grep -E "^(total|estimate|resume)" | tee -a "$LOG"
step sweep
s=${SWEEP_S:-330}
timeout -s INT $((s + 30)) $G sweep --space search_spaces/h200.yaml --db db/h100.db \
	--time-limit "${s}s" >"$OUT/sweep.log" 2>&1
echo "sweep exit $?" | tee -a "$LOG"; tail -n 8 "$OUT/sweep.log"
step prune-h200
timeout ${PRUNE_S:-120} $G prune --db db/h200.db >"$OUT/prune.log" 2>&1
echo "prune exit $?" | tee -a "$LOG"; tail -n 5 "$OUT/prune.log"
step tails
timeout ${TAILS_S:-90} bash tests/gpu/t_tails_sanitizer.sh >"$OUT/tails.log" 2>&1
echo "tails exit $?" | tee -a "$LOG"; tail -n 2 "$OUT/tails.log"; grep "^not ok" "$OUT/tails.log" | head -5
step pack
for f in db/h100.db db/h200.db; do
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' $f
	gzip -c $f >"$OUT/$(basename $f).gz"
done
step done
