#!/usr/bin/env bash
# lab/gpu/call31.sh: session 31's call (carry build/bin, build/ab,
# build/llama/bin, build/gpu/fillbench, build/tests/gpu_test_worker_gpu,
# build/tests/test_kernels.cubin). Both cards: the worker's GPU tests (the
# FP32 fill's moments among them), the fill benchmark
# (lab/gpu/fillbench.cu) and tests/gpu/t_lt_refusal.sh. On an H200 the
# A/B of its every-M table against the 67-entry one (lab/gpu/ab.sh); on
# an H100 the Llama-3-8B table of run 293 (examples/llama-3-8b/h100.h,
# compiled into build/llama/bin/gemmtab) benched at every M to 64 and
# every 4th above with --recheck 2, floors probed on its own space.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
LOG=$OUT/log.txt T0=$SECONDS
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
step worker-gpu
timeout 60 build/tests/gpu_test_worker_gpu build/tests/test_kernels.cubin >"$OUT/worker_gpu.log" 2>&1
echo "gpu_test_worker_gpu exit $?" | tee -a "$LOG"; tail -n 1 "$OUT/worker_gpu.log" | tee -a "$LOG"
grep "^not ok" "$OUT/worker_gpu.log" | tee -a "$LOG"
step fillbench; timeout 60 build/gpu/fillbench 2>&1 | tee -a "$LOG"
step lt-refusal
GEMMTAB=$PWD/build/bin/gemmtab timeout 60 bash tests/gpu/t_lt_refusal.sh >"$OUT/lt_refusal.log" 2>&1
echo "t_lt_refusal exit $?" | tee -a "$LOG"; tail -n 1 "$OUT/lt_refusal.log" | tee -a "$LOG"
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) ROUNDS=${ROUNDS:-2} bash lab/gpu/ab.sh; exit ;;
esac
G=build/llama/bin/gemmtab S=examples/llama-3-8b/space.yaml
step probe; $G probe --db /tmp/fl.db --space $S >>"$LOG" 2>&1
step bench-llama
timeout 420 $G bench --table examples/llama-3-8b/h100.h --space $S --rounds 2 --recheck 2 \
	--range-step 4 --floors /tmp/fl.db --format md --out "$OUT/llama_everym.md" \
	--plot "$OUT/llama_everym.svg" >>"$LOG" 2>&1
echo "bench exit $?" | tee -a "$LOG"; tail -n 7 "$OUT/llama_everym.md" | tee -a "$LOG"
step done
