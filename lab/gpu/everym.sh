#!/usr/bin/env bash
# lab/gpu/everym.sh: one device call over a tree built here (carry
# build/bin): resume this card's database with search_spaces/h200.yaml
# (every M), bounded by SWEEP_S; once the sweep is complete, emit this
# card's table into $OUT (the committed one as incumbent) and bench it at
# the contract's 90 points (3 rounds, paired floors). The database comes
# back gzipped under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab T0=$SECONDS LOG=$OUT/log.txt
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) DB=db/h200.db C=h200 ;;
*) DB=db/h100.db C=h100 ;;
esac
[ -f $DB ] || gunzip -k $DB.gz
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
step dry-run
$G sweep --space search_spaces/h200.yaml --db $DB --dry-run 2>&1 | grep -E "^(estimate|resume)" | tee -a "$LOG"
step sweep
s=${SWEEP_S:-330}
timeout -s INT $((s + 30)) $G sweep --space search_spaces/h200.yaml --db $DB \
	--time-limit "${s}s" >"$OUT/sweep.log" 2>&1
rc=$?; echo "sweep exit $rc" | tee -a "$LOG"; tail -n 6 "$OUT/sweep.log"
if [ $rc = 0 ]; then
	step emit
	$G emit --db $DB --out "$OUT/$C.h" --incumbent runtime/tables/$C.h >"$OUT/emit.log" 2>&1
	echo "emit exit $?" | tee -a "$LOG"; tail -n 3 "$OUT/emit.log"
	step probe; $G probe --db /tmp/fl.db >>"$LOG" 2>&1
	step bench-contract
	timeout 90 $G bench --table "$OUT/$C.h" --space search_spaces/h200_loads.yaml --rounds 3 \
		--floors /tmp/fl.db --paired --format md --out "$OUT/contract_new.md" >>"$LOG" 2>&1
	echo "bench exit $?" | tee -a "$LOG"; tail -n 3 "$OUT/contract_new.md"
fi
step pack
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' $DB
gzip -c $DB >"$OUT/$(basename $DB).gz"
step done
