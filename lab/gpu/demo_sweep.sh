#!/usr/bin/env bash
# lab/gpu/demo_sweep.sh: one device call: probe, then the dense sweep of
# lab/spaces/h100_demo.yaml into db/h100_demo.db (resumable: an existing
# database is carried in and continued), bounded by SWEEP_S; report; the
# database and logs come back under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
G=build/bin/gemmtab DB=${DB:-db/h100_demo.db} SPACE=${SPACE:-lab/spaces/h100_demo.yaml}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee "$OUT/gpu.txt"
t0=$SECONDS
$G probe --db "$DB" --space "$SPACE" >"$OUT/probe.txt" 2>&1; echo "probe exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
s=${SWEEP_S:-400}
timeout -s INT $((s + 30)) $G sweep --space "$SPACE" --db "$DB" --time-limit "${s}s" >"$OUT/sweep.log" 2>&1
echo "sweep exit $? in $((SECONDS - t0)) s"; tail -n 15 "$OUT/sweep.log"
$G report --db "$DB" >"$OUT/report.txt" 2>&1
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$DB"
cp "$DB" "$OUT/"
