/*
 * reference.c: the FP64 reference by cuBLAS DGEMM (reference.h), on the
 * FP64 tensor cores. The naive kernel (harness_reference, one warp per
 * output) runs at 0.744 ms per 1e9 multiply-adds of N*K*M on the H200
 * (COST_REF_NAIVE_S_PER_GMAC, tuner/sweep/costmodel.h): 200 ms for a
 * 128256 x 4096 W at M = 512, where the DGEMM's data-sheet price is 11.
 *
 * docs/workload.md draws fresh weights for every check, so W's FP64 copy
 * is converted afresh for every eval as well (one read of W and one write
 * of its copy, beside the DGEMM's read of the copy): none is kept across
 * evals, and the slab buffer's size bounds its memory.
 */
#include "gpu.h"
#include "reference.h"
#include "harness.h"
#include "types.h"

size_t reference_slab_elems(int n, int k)
{
	size_t rows = REFERENCE_SLAB_BYTES / ((size_t)k * sizeof(double));
	if (rows < 1)
		rows = 1;
	if (rows > (size_t)n)
		rows = (size_t)n;
	return rows * (size_t)k;
}

/*
 * cuBLAS is column-major: row-major R (m x n) is the column-major n x m
 * matrix R^T = W X^T. Row-major W (n x k) is the column-major k x n
 * matrix W^T (lda k), taken transposed; row-major X (m x k) is the
 * column-major k x m matrix X^T (ldb k), taken as it is. A slab of rows
 * n0 .. n0 + rows - 1 of W gives rows n0 .. of R^T: columns n0 .. of each
 * row of R, at r + n0 with ldc n. CUBLAS_COMPUTE_64F on g->blas, whose
 * math mode (CUBLAS_DEFAULT_MATH, gpu.c) allows no fixed-point emulation:
 * the products and sums are native FP64.
 */
static int dgemm_slab(struct gpu *g, const double *w64, int rows, const double *x64, int m,
		      int k, double *r, int n)
{
	const double one = 1.0, zero = 0.0;
	return CUBLAS_CHECK(cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, rows, m, k, &one,
					 w64, CUDA_R_64F, k, x64, CUDA_R_64F, k, &zero, r,
					 CUDA_R_64F, n, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT));
}

int reference_dgemm(struct gpu *g, const void *w, int w_dtype, const void *x, int x_dtype,
		    int m, int n, int k, double *w64, size_t w64_elems, double *x64, double *r)
{
	if (m < 1 || n < 1 || k < 1 || w64_elems < (size_t)k)
		return gpu_fail("reference: bad sizes m=%d n=%d k=%d (slab of %zu doubles)", m, n,
				k, w64_elems);
	int slab = (int)(w64_elems / (size_t)k < (size_t)n ? w64_elems / (size_t)k : (size_t)n);
	size_t w_size = dtype_size((enum dtype)w_dtype);
	if (CUDA_CHECK(harness_to_double(x, x_dtype, x64, (size_t)m * k, g->stream)))
		return -1;
	for (int n0 = 0; n0 < n; n0 += slab) {
		int rows = n - n0 < slab ? n - n0 : slab;
		const char *wr = (const char *)w + (size_t)n0 * k * w_size;
		if (CUDA_CHECK(harness_to_double(wr, w_dtype, w64, (size_t)rows * k, g->stream)) ||
		    dgemm_slab(g, w64, rows, x64, m, k, r + n0, n))
			return -1;
	}
	return 0;
}
