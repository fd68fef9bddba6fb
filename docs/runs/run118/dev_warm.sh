export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv,noheader -lms 20 > $OUT/clocks.csv 2>&1 &
SMI=$!
$G probe --db $OUT/floors.db > $OUT/probe.txt 2>&1
for r in 1 2 3; do
 for w in 0 400; do
  echo "== round $r warm $w $(date +%T.%N)" >> $OUT/lines.txt
  GEMMTAB_WARM_FLUSHES=$w $G bench --space tests/spaces/diag_lines.yaml --rounds 3 --floors $OUT/floors.db --format md --out /tmp/l.md >/dev/null 2>&1
  grep -E "^\| (qkv|unpooler_slice|router) \|" /tmp/l.md | awk -F'|' '{print $2,$3,$4,$5,$6,$8}' >> $OUT/lines.txt
 done
done
for w in 0 400; do
  echo "== full bench warm $w $(date +%T.%N)" >> $OUT/lines.txt
  GEMMTAB_WARM_FLUSHES=$w $G bench --table runtime/tables/h200.h --floors $OUT/floors.db --format md --out $OUT/full_w$w.md >/dev/null 2>&1
  grep -E "^score|slower" $OUT/full_w$w.md >> $OUT/lines.txt
  grep -E "^\| (qkv \| 32|unpooler_slice \| 8|router \| 32) \|" $OUT/full_w$w.md | awk -F'|' '{print $2,$3,$4,$5,$6,$8}' >> $OUT/lines.txt
done
kill $SMI
cat $OUT/lines.txt
