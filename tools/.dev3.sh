set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/oneshot.txt
for i in 1 2 3; do timeout 120 build/diag/oneshot 300 'stream 8/SM x256|cp  256 x128 L16|cpc 256|cpc1 256|cpa 256 x128 L16|cpcx 256' >> $OUT/oneshot.txt 2>&1; echo "== $i $SECONDS s" >> $OUT/oneshot.txt; done
cat $OUT/oneshot.txt
