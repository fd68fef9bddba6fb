#!/usr/bin/env bash
# run 268 (session 19): main's committed table (run 266) on another lease
set -u
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
$G probe --db /tmp/fl.db >$OUT/bench.log 2>&1
$G bench --table runtime/tables/h200.h --rounds 3 --floors /tmp/fl.db --paired --format md --out $OUT/bench.md >>$OUT/bench.log 2>&1
for i in 1 2; do
	$G bench --table runtime/tables/h200.h --space tests/spaces/diag_lines.yaml --rounds 8 --floors /tmp/fl.db --paired >$OUT/lines$i.txt 2>&1
done
