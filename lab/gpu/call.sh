#!/usr/bin/env bash
# lab/gpu/call.sh: the next step for whichever card comes: on an H200 the
# A/B of its table (lab/gpu/ab.sh), on an H100 the worker's DGEMM
# reference test, then (if it passes) every M of db/h100.db with the
# cuBLASLt search (lab/gpu/everym.sh).
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) exec bash lab/gpu/ab.sh ;;
esac
OUT=${OUT:-out}; mkdir -p "$OUT"
tar xzf build/gpu/pack.tgz
timeout 60 build/tests/gpu_test_worker_gpu build/tests/test_kernels.cubin >"$OUT/worker_gpu.log" 2>&1
rc=$?; echo "gpu_test_worker_gpu exit $rc"; tail -n 2 "$OUT/worker_gpu.log"; grep "^not ok" "$OUT/worker_gpu.log"
[ $rc = 0 ] && exec bash lab/gpu/everym.sh
