/*
 * lt_call.h: one cuBLASLt matmul Y[m, n] = X[m, k] * W[n, k]^T (bf16 in and
 * out, FP32 compute), named by an orientation and its algorithm's
 * attributes (DESIGN.md: never by a heuristic's rank). Shared by the
 * tuner (blas_lt's candidates, the worker's STEP_LT) and the runtime,
 * so both run the same call from the same numbers. Descriptors live in
 * struct lt_call itself (the Opaque types, initialised in place): building
 * one allocates nothing.
 */
#ifndef GT_LT_CALL_H
#define GT_LT_CALL_H

#include <cublasLt.h>
#include <stddef.h>

#include "lt_attrs.h"

/* Return the status of a cuBLASLt call that did not succeed (for the
 * functions here and the tuner's, which return cublasStatus_t). */
#define LT_TRY(call)                                    \
	do {                                            \
		cublasStatus_t lt_st_ = (call);         \
		if (lt_st_ != CUBLAS_STATUS_SUCCESS)    \
			return lt_st_;                  \
	} while (0)

struct lt_call {
	cublasLtMatmulDescOpaque_t op;
	cublasLtMatrixLayoutOpaque_t a, b, c;
	cublasLtMatmulAlgo_t algo;
	int orient;
};

/* The descriptors of the product in orientation o at m tokens. */
cublasStatus_t lt_describe(struct lt_call *c, int orient, int n, int k, int m);
/* c->algo from the attributes (after lt_describe). */
cublasStatus_t lt_algo_init(cublasLtHandle_t h, struct lt_call *c, const long attrs[LT_NATTRS]);
/* cublasLtMatmulAlgoCheck of c->algo; CUBLAS_STATUS_NOT_SUPPORTED too
 * when it needs more than ws_limit bytes of workspace. */
cublasStatus_t lt_algo_check(cublasLtHandle_t h, const struct lt_call *c, size_t ws_limit);
/* Enqueue the product on stream (capturable). w is W as given, or for
 * LT_ORIENT_N the prepared W^T. */
cublasStatus_t lt_run(cublasLtHandle_t h, const struct lt_call *c, const void *w, const void *x,
		      void *y, void *ws, size_t ws_bytes, cudaStream_t stream);
/* The attributes of algo, in lt_attr_names order. The 32-bit ones come
 * back as signed values: none of today's reaches 2^31 (lt_algo_init and
 * tmpl_lt.c refuse what does). */
cublasStatus_t lt_algo_attrs(const cublasLtMatmulAlgo_t *algo, long out[LT_NATTRS]);

#endif
