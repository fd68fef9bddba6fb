/*
 * baseline.h: the cuBLAS and cuBLASLt baselines a candidate is timed
 * against (baseline.c).
 */
#ifndef GT_BASELINE_H
#define GT_BASELINE_H

#include "gpu.h"

/* NULL when cuBLAS can run the shape's dtypes, else why not. */
const char *baseline_unsupported(const struct shape *s);
/* 1 when the baseline reads X converted to FP32 (the router). */
int baseline_needs_x32(const struct shape *s);

/* Capture Y = X W^T by cublasGemmEx (F.linear's path) after one eager
 * warm-up call; x is the FP32 copy when baseline_needs_x32. */
int baseline_capture(struct gpu *g, const struct shape *s, int m, const void *w,
		     const void *x, void *y, cudaGraphExec_t *out);

/* The cuBLASLt heuristic's top algorithm for one problem. */
struct lt_plan {
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t a, b, c;
	cublasLtMatmulAlgo_t algo;
	char desc[256];                 /* its attributes, "algo=..,tile=..,..." */
};
/* Returns 0, 1 when the heuristic has no algorithm (desc says so; nothing
 * to destroy), or -1 on error. */
int lt_plan_create(struct gpu *g, const struct shape *s, int m, struct lt_plan *p);
void lt_plan_destroy(struct lt_plan *p);
/* Capture the algorithm's matmul over w, x, y after one eager call. */
int lt_capture(struct gpu *g, const struct lt_plan *p, const void *w, const void *x,
	       void *y, cudaGraphExec_t *out);

/* "13.0.2"-style versions of the cuBLAS and cuBLASLt libraries in use. */
int blas_versions(struct gpu *g, char *cublas, char *cublaslt, size_t len);

#endif
