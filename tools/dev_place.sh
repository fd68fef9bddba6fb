#!/usr/bin/env bash
# tools/dev_place.sh: one device call (carry build/), session 9's run 119:
# does a point's figure move between processes more than within one? The
# three small-M points of tests/spaces/diag_lines.yaml benched in six
# processes, then six rounds in one; lines in $OUT/place.txt.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
$G probe --db $OUT/floors.db > $OUT/probe.txt 2>&1
for i in 1 2 3 4 5 6; do
  $G bench --space tests/spaces/diag_lines.yaml --pairs 400 --format md --out /tmp/p.md >/dev/null 2>&1
  echo "proc $i: $(grep -E '^\| (qkv|unpooler_slice|router) \|' /tmp/p.md | awk -F'|' '{printf "%s %s lib %s spread %s; ", $2,$3,$5,$7}')" >> $OUT/place.txt
done
$G bench --space tests/spaces/diag_lines.yaml --pairs 400 --rounds 6 --format md --out $OUT/rounds6.md > /dev/null 2>&1
echo "rounds 6 (one process): $(grep -E '^\| (qkv|unpooler_slice|router) \|' $OUT/rounds6.md | awk -F'|' '{printf "%s %s lib %s spread %s; ", $2,$3,$5,$7}')" >> $OUT/place.txt
cat $OUT/place.txt
