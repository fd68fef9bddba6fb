#!/usr/bin/env bash
# lab/gpu/last.sh: a short device call (carry build/bin, build/ab,
# build/gpu): the worker's DGEMM reference tests (its GPU unit test
# against the naive kernel, t_reference's sweep); on an H200 the contract
# A/B of the old and new h200.h (3 rounds, paired floors).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
T0=$SECONDS LOG=$OUT/log.txt
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$LOG"
tar xzf build/gpu/pack.tgz
step reference
timeout 40 build/tests/gpu_test_worker_gpu build/tests/test_kernels.cubin >"$OUT/worker_gpu.log" 2>&1
echo "gpu_test_worker_gpu exit $?" | tee -a "$LOG"; tail -n 1 "$OUT/worker_gpu.log" | tee -a "$LOG"
grep "^not ok" "$OUT/worker_gpu.log" | tee -a "$LOG"
timeout 40 bash tests/gpu/t_reference.sh >"$OUT/t_reference.log" 2>&1
echo "t_reference exit $?" | tee -a "$LOG"; tail -n 1 "$OUT/t_reference.log" | tee -a "$LOG"
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) ;;
*) step done; exit 0 ;;
esac
step probe; build/bin/gemmtab probe --db /tmp/fl.db >>"$LOG" 2>&1
for t in new old; do
	step "contract $t"
	timeout 40 build/ab/gemmtab-$t bench --table $([ $t = new ] && echo runtime/tables/h200.h || echo build/ab/h200.h) \
		--space search_spaces/h200_loads.yaml --rounds 3 --paired --floors /tmp/fl.db \
		--format md --out "$OUT/contract_$t.md" >>"$LOG" 2>&1
	echo "contract $t exit $?" | tee -a "$LOG"; tail -n 3 "$OUT/contract_$t.md" | tee -a "$LOG"
done
step done
