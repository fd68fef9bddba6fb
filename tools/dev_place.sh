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
