#!/usr/bin/env bash
# lab/gpu/lt_resume.sh: one device call over a tree built here (carry
# build/bin, build/gpu): unpack db/*.db.gz; on an H200 first the contract
# bench of the committed h200.h (3 rounds, paired floors); resume this
# card's database (db/h100.db or db/h200.db) with search_spaces/h200.yaml
# (on the H100 the cuBLASLt half; on the H200 every M; both record the
# variant rows of the current template text), bounded by SWEEP_S; prune
# the other database with the sweep's compile cache (the gemv tail text's
# variant refresh); the tails sanitizer test; both databases come back
# gzipped under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab T0=$SECONDS LOG=$OUT/log.txt
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
tar xzf build/gpu/pack.tgz
for f in db/h100.db db/h200.db; do [ -f $f ] || gunzip -k $f.gz; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) DB=db/h200.db OTHER=db/h100.db
	step probe; $G probe --db /tmp/fl.db >>"$LOG" 2>&1
	step bench-contract
	timeout 90 $G bench --table runtime/tables/h200.h --space search_spaces/h200_loads.yaml --rounds 3 \
		--floors /tmp/fl.db --paired --format md --out "$OUT/contract.md" >>"$LOG" 2>&1
	echo "bench exit $?" | tee -a "$LOG"; tail -n 4 "$OUT/contract.md" ;;
*) DB=db/h100.db OTHER=db/h200.db ;;
esac
step dry-run
$G sweep --space search_spaces/h200.yaml --db $DB --dry-run 2>&1 | grep -E "^(total|estimate|resume)" | tee -a "$LOG"
step sweep
s=${SWEEP_S:-330}
timeout -s INT $((s + 30)) $G sweep --space search_spaces/h200.yaml --db $DB \
	--time-limit "${s}s" >"$OUT/sweep.log" 2>&1
echo "sweep exit $?" | tee -a "$LOG"; tail -n 8 "$OUT/sweep.log"
step prune-other
timeout ${PRUNE_S:-120} $G prune --db $OTHER >"$OUT/prune.log" 2>&1
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
