# CLI: tools/gt_cubin (the build step that compiles a table's kernels with
# the tuner's NVRTC path) finds each kernel's template by the source that
# defines it: a reduce kernel whose name does not start with its template's
# stem (mma_splitk_reduce, run 16 in docs/notes.md), a second adapter of one
# file (mma_hilo_kernel lives in mma_skinny.cuh), a gemv kernel; and it
# refuses a kernel no template defines, naming it.
. "$(dirname "$0")/lib.sh"

CUBIN=build/tools/gt_cubin
cat >"$TMP/k.cu" <<'K'
extern "C" const void *const gt_table_kernels[] = {
	/* 0 */ (const void *)&gemv_splitk_reduce<float>,
	/* 1 */ (const void *)&mma_hilo_kernel<64, 16, 64, 4, 4, 8, 0, 0, 1>,
	/* 2 */ (const void *)&mma_splitk_reduce,
};
K
expect_exit "three kernels of two template files: exit 0" 0 \
	env CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" "$CUBIN" "$TMP/out.c" "$TMP/k.cu" "$TMP/cache"
n=$(grep -c '^	{ [01], "_Z[^"]*" },   /\* [0-2]: ' "$TMP/out.c")
check "three lowered names, one per kernel ($n)" test "$n" = 3
# gemv's file is cubin 0, mma_skinny.cuh's (both mma kernels) cubin 1
check "mma_splitk_reduce is kernel 2, from mma_skinny.cuh's cubin" \
	grep -q '{ 1, "_Z17mma_splitk_reduce[^"]*" },   /\* 2: mma_splitk_reduce \*/' "$TMP/out.c"

cat >"$TMP/bad.cu" <<'K'
extern "C" const void *const gt_table_kernels[] = {
	/* 0 */ (const void *)&mma_splitk_reduce_extra,
};
K
expect_exit "a kernel no template defines: exit 1" 1 \
	env CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" "$CUBIN" "$TMP/out2.c" "$TMP/bad.cu" "$TMP/cache"
check "the error names it" grep -q "no template source defines 'mma_splitk_reduce_extra'" "$TMP/err"
finish
