set -u
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
( make test-gpu PREBUILT=1 2>&1 | tail -n 40 ) > $OUT/test-gpu.txt 2>&1
echo "== test-gpu done $SECONDS s"; tail -3 $OUT/test-gpu.txt
compute-sanitizer --target-processes all --tool memcheck $G sweep --space tests/spaces/mma_fault.yaml --db /tmp/f.db --no-retest > $OUT/sanitizer.txt 2>&1
echo "== sanitizer $SECONDS s"; head -c 6000 $OUT/sanitizer.txt
ncu --clock-control none --target-processes all -k regex:mma_skinny -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats $G sweep --space tests/spaces/mma_best.yaml --db /tmp/b.db --no-retest > $OUT/ncu.txt 2>&1
echo "== ncu $SECONDS s"; grep -v "^==PROF==" $OUT/ncu.txt | tail -c 7000
