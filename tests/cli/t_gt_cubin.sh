# CLI: tools/gt_cubin (the build step that compiles a table's kernels with
# the tuner's NVRTC path) compiles each kernel from the template file its
# line in the kernels file names, as gemmtab emit writes it: a reduce
# kernel whose name does not start with its template's stem
# (mma_splitk_reduce, run 16 in lab/notes.md), a second adapter of one
# file (mma_hilo_kernel lives in mma_skinny.cuh), a gemv kernel; it
# refuses a file that is no template's source, and a line out of order.
. "$(dirname "$0")/lib.sh"

CUBIN=build/tools/gt_cubin
run_cubin() { env CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" "$CUBIN" "$TMP/out.c" "$1" "$TMP/cache"; }
cat >"$TMP/k.cu" <<'K'
extern "C" const void *const gt_table_kernels[] = {
	/* 0 templates/gemv.cuh */ (const void *)&gemv_splitk_reduce<float>,
	/* 1 templates/mma_skinny.cuh */ (const void *)&mma_hilo_kernel<64, 16, 64, 4, 4, 8, 0, 1>,
	/* 2 templates/mma_skinny.cuh */ (const void *)&mma_splitk_reduce,
};
K
expect_exit "three kernels of two template files: exit 0" 0 run_cubin "$TMP/k.cu"
n=$(grep -c '^	{ [01], "_Z[^"]*" },   /\* [0-2]: ' "$TMP/out.c")
check "three lowered names, one per kernel ($n)" test "$n" = 3
# gemv's file is cubin 0, mma_skinny.cuh's (both mma kernels) cubin 1
check "mma_splitk_reduce is kernel 2, from mma_skinny.cuh's cubin" \
	grep -q '{ 1, "_Z17mma_splitk_reduce[^"]*" },   /\* 2: mma_splitk_reduce \*/' "$TMP/out.c"

printf '\t/* 0 templates/none.cuh */ (const void *)&mma_splitk_reduce,\n' >"$TMP/bad.cu"
expect_exit "a file that is no template's source: exit 1" 1 run_cubin "$TMP/bad.cu"
check "the error names it" grep -q "kernel 0: templates/none.cuh is no template's source" "$TMP/err"
printf '\t/* 1 templates/gemv.cuh */ (const void *)&gemv_splitk_reduce<float>,\n' >"$TMP/gap.cu"
expect_exit "a line out of order: exit 1" 1 run_cubin "$TMP/gap.cu"
check "the error quotes the line" grep -q "cannot parse" "$TMP/err"
finish
