# CLI: every instantiation in search_spaces/tiny.yaml compiles under NVRTC
# for the build's GPU_ARCH (sm_90a), on this CPU-only machine; a second run
# is served from the cubin cache. So does every tail instantiation of
# tests/spaces/gpu_tails.yaml (gemv_tail_kernel, N and K tails).
. "$(dirname "$0")/lib.sh"

expect_exit "compile tiny.yaml: exit 0" 0 "$GEMMTAB" compile --space search_spaces/tiny.yaml --cache "$TMP/cache" --quiet
check "summary says none failed" grep -qE '^[0-9]+ instantiations, [0-9]+ compiled, 0 failed$' "$TMP/out"
n=$(sed -n 's/^\([0-9]*\) instantiations.*/\1/p' "$TMP/out")
check "tiny has instantiations ($n)" test "${n:-0}" -gt 0
check "every line reports registers" bash -c "! grep '^ok ' '$TMP/out' | grep -q 'regs=-1'"
expect_exit "second compile: exit 0" 0 "$GEMMTAB" compile --space search_spaces/tiny.yaml --cache "$TMP/cache"
check "second compile is all cached" grep -qE "^compiled $n instantiations \\($n from cache, 0 failed\\)" "$TMP/err"

expect_exit "compile gpu_tails.yaml: exit 0" 0 "$GEMMTAB" compile --space tests/spaces/gpu_tails.yaml --cache "$TMP/cache" --quiet
check "tails: none failed" grep -qE '^[0-9]+ instantiations, [0-9]+ compiled, 0 failed$' "$TMP/out"
check "tails: 32 bf16 and 32 fp32 tail kernels and the split reduce of each" \
	test "$(grep -c '^ok gemv_tail_kernel<__nv_bfloat16' "$TMP/out")/$(grep -c '^ok gemv_tail_kernel<float' "$TMP/out")/$(grep -c '^ok gemv_splitk_reduce' "$TMP/out")" = 32/32/2
check "tails: no shape of it runs the untailed kernel" bash -c "! grep -q '^ok gemv_kernel<' '$TMP/out'"
finish
