#!/usr/bin/env bash
# tools/diag/run_oneshot.sh: one device call (carry build/): the one-shot
# read variants of tools/diag/oneshot.cu twice, then ncu (clocks left
# alone) of the committed qkv kernels at M = 8, 16, 32 and of the probe's
# streaming read, for L2 and DRAM throughput. Outputs under $OUT.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv > "$OUT/oneshot.txt"
for i in 1 2; do build/diag/oneshot 300 >> "$OUT/oneshot.txt" 2>&1; done
cat "$OUT/oneshot.txt"
echo "== oneshot $SECONDS s"
M="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
for m in 8 16 32; do
	rm -f /tmp/n.db*
	ncu --clock-control none --target-processes all -k regex:mma_skinny -c 1 $M \
		build/bin/gemmtab sweep --space tests/spaces/diag_ncu_qkv$m.yaml --db /tmp/n.db \
		--no-retest > "$OUT/ncu_qkv$m.txt" 2>&1
	echo "== ncu qkv $m $SECONDS s"
done
ncu --clock-control none -k regex:diag_stream -c 1 $M build/diag/oneshot 3 > "$OUT/ncu_stream.txt" 2>&1
ncu --clock-control none -k regex:k_cp -c 1 $M build/diag/oneshot 3 > "$OUT/ncu_cp.txt" 2>&1
echo "== ncu stream $SECONDS s"
for f in "$OUT"/ncu_*.txt; do echo "## $f"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Waves" "$f"; done
