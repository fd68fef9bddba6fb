#!/usr/bin/env bash
# run 270 (session 19): branch ring-all after its resumed re-tune (run 269)
set -u
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
SECONDS=0
{ time make test-gpu PREBUILT=1; } >$OUT/testgpu.txt 2>&1
echo "test-gpu done $SECONDS s" >>$OUT/diag.txt
mkdir -p /tmp/ab && OUT=/tmp/ab bash tools/ab_bench.sh run 4 >>$OUT/diag.txt 2>&1
tar czf $OUT/ab.tgz -C /tmp/ab .
echo "ab done $SECONDS s" >>$OUT/diag.txt
$G probe --db /tmp/fl.db >$OUT/bench.log 2>&1
$G bench --table runtime/tables/h200.h --rounds 3 --floors /tmp/fl.db --paired --format md --out $OUT/bench.md >>$OUT/bench.log 2>&1
$G bench --table runtime/tables/h200.h --space tests/spaces/diag_lines.yaml --rounds 8 --floors /tmp/fl.db --paired >$OUT/lines.txt 2>&1
echo "bench done $SECONDS s" >>$OUT/diag.txt
