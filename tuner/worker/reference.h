/*
 * reference.h: the FP64 reference of Y = X W^T that validation holds a
 * candidate's output to from REFERENCE_DGEMM_MIN_M tokens on
 * (reference.c): W and X converted to FP64 on the GPU, then cuBLAS DGEMM,
 * a slab of W's rows at a time.
 */
#ifndef GT_REFERENCE_H
#define GT_REFERENCE_H

#include "gpu.h"

/* The worker's reference is the DGEMM from this many tokens on, and
 * harness_reference's naive kernel below it: at M = 1 the naive kernel
 * reads W once (2 bytes an element) where the DGEMM's conversion and
 * read move 18. The crossing of the two prices in
 * tuner/sweep/costmodel.h (COST_REF_DGEMM_MIN_M, the same number). */
#define REFERENCE_DGEMM_MIN_M 6

/* W's FP64 copy is made and multiplied a slab of rows at a time, each at
 * most this many bytes (whole rows; one row when a row is larger), so a
 * bench's copy stays bounded whatever the shape. */
#define REFERENCE_SLAB_BYTES ((size_t)256 << 20)

/* Doubles of the slab buffer reference_dgemm needs for W of n x k:
 * whole rows of W that fit in REFERENCE_SLAB_BYTES, at least 1 and at
 * most n of them. */
size_t reference_slab_elems(int n, int k);

/*
 * r (m x n doubles, row-major) = X W^T over the exact values of w (n x k
 * row-major, w_dtype) and x (m x k row-major, x_dtype), enqueued on
 * g->stream: x converted into x64 (m*k doubles); then for each slab of
 * as many rows of W as w64 holds (w64_elems doubles, at least k), the
 * slab converted into w64 and one DGEMM (g->blas) writing that slab's
 * columns of r. Products and sums are native FP64: only the summation
 * order differs from harness_reference's. Returns 0 or -1 (printed and
 * recorded: gpu_error).
 */
int reference_dgemm(struct gpu *g, const void *w, int w_dtype, const void *x, int x_dtype,
		    int m, int n, int k, double *w64, size_t w64_elems, double *x64, double *r);

#endif
