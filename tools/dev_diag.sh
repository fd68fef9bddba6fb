#!/usr/bin/env bash
# tools/dev_diag.sh: one device call of diagnosis (carry build/). Steps,
# each skipped when its variable is 0:
#   TESTGPU=1      make test-gpu PREBUILT=1
#   SANITIZE=1     compute-sanitizer memcheck over SANITIZE_SPACE
#                  (default tests/spaces/mma_fault.yaml, the ptxas fault)
#   PROFILE=1      ncu (clocks left alone) of the first KERNEL kernel
#                  (regex, default mma_skinny) of a sweep of PROFILE_SPACE
#                  (default tests/spaces/mma_best.yaml): speed of light,
#                  memory, warp states, occupancy, launch, scheduler
# Outputs under $OUT (test-gpu.txt, sanitizer.txt, ncu.txt).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
if [ "${TESTGPU:-1}" = 1 ]; then
	( make test-gpu PREBUILT=1 2>&1 | tail -n 40 ) > "$OUT/test-gpu.txt" 2>&1
	echo "== test-gpu done $SECONDS s"; tail -3 "$OUT/test-gpu.txt"
fi
if [ "${SANITIZE:-1}" = 1 ]; then
	rm -f /tmp/f.db /tmp/f.db-wal /tmp/f.db-shm     # a sweep resumes: start empty
	compute-sanitizer --target-processes all --tool memcheck --report-api-errors no \
		$G sweep --space "${SANITIZE_SPACE:-tests/spaces/mma_fault.yaml}" --db /tmp/f.db \
		--no-retest > "$OUT/sanitizer.txt" 2>&1
	echo "== sanitizer $SECONDS s"; head -c 6000 "$OUT/sanitizer.txt"
fi
if [ "${PROFILE:-1}" = 1 ]; then
	rm -f /tmp/b.db /tmp/b.db-wal /tmp/b.db-shm
	ncu --clock-control none --target-processes all -k "regex:${KERNEL:-mma_skinny}" -c 1 \
		--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
		--section ComputeWorkloadAnalysis \
		--section Occupancy --section LaunchStats --section SchedulerStats \
		$G sweep --space "${PROFILE_SPACE:-tests/spaces/mma_best.yaml}" --db /tmp/b.db \
		--no-retest > "$OUT/ncu.txt" 2>&1
	echo "== ncu $SECONDS s"; grep -v "^==PROF==" "$OUT/ncu.txt" | tail -c 7000
fi
