/*
 * lt.h: one cuBLASLt matmul Y[m, n] = X[m, k] * W[n, k]^T (bf16 in and
 * out, FP32 compute), named by an orientation and its algorithm's
 * attributes (DESIGN.md: never by a heuristic's rank). Shared by the
 * tuner (tmpl_lt.c's candidates, the worker's STEP_LT) and the runtime,
 * so both run the same call from the same numbers. Descriptors live in
 * struct lt_call itself (the Opaque types, initialised in place): building
 * one allocates nothing.
 */
#ifndef GT_LT_H
#define GT_LT_H

#include <cublasLt.h>
#include <stddef.h>

/*
 * LT_ORIENT_T:   the baseline's own view (column-major): C[n, m] =
 *                op(A)[n, k] * X[k, m], A being W's k x n column-major
 *                view and op its transpose (TRANSA = T), so op(A) is W.
 * LT_ORIENT_ROW: row-major layouts (CUBLASLT_ORDER_ROW): D[m, n] =
 *                X[m, k] * W^T[k, n], X as A and W as B (TRANSB = T).
 * LT_ORIENT_N:   column-major like T, but A is W^T prepared once (K x N
 *                row-major, RELAYOUT_TRANSPOSE: an n x k column-major
 *                matrix), not transposed by the op (TRANSA = N).
 * Same product, same output layout; the library picks other kernels.
 */
enum lt_orient { LT_ORIENT_T = 0, LT_ORIENT_ROW = 1, LT_ORIENT_N = 2, LT_NORIENTS };

/* The attributes an algorithm is stored by, in this order (the values of
 * CUBLASLT_ALGO_CONFIG_ID, _TILE_ID, _STAGES_ID, _SPLITK_NUM,
 * _REDUCTION_SCHEME, _CTA_SWIZZLING, _CUSTOM_OPTION, _INNER_SHAPE_ID,
 * _CLUSTER_SHAPE_ID). */
#define LT_NATTRS 9
extern const char *const lt_attr_names[LT_NATTRS];

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
/* Up to max algorithms the heuristic proposes for orientation o at m
 * within ws_limit, best first, as attributes; *found their count (0 when
 * the orientation has none). */
cublasStatus_t lt_heuristic(cublasLtHandle_t h, int orient, int n, int k, int m,
			    size_t ws_limit, int max, long (*out)[LT_NATTRS], int *found);
/* What lt_vary tries besides the heuristic's proposals: each proposal
 * again at every split-K count of splitk[] it does not have (without a
 * reduction at 1; above 1 with its own reduction scheme, or else
 * CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE), and with one of the attributes
 * in what (LT_VARY_*) changed to each value its algorithm takes: the
 * tile and stages ids its capabilities list (none when there are more
 * than 1024), the cluster shapes of ids CUBLASLT_CLUSTER_SHAPE_1x1x1 to
 * _1x16x1, the power-of-two ones up to 16 blocks (cuBLASLt lists none),
 * the custom options 0 to its maximum. */
enum { LT_VARY_TILE = 1, LT_VARY_STAGES = 2, LT_VARY_CLUSTER = 4, LT_VARY_CUSTOM = 8 };
struct lt_variation {
	int nsplitk;
	int splitk[16];
	unsigned what;
};
/* Algorithms first .. *count - 1 of attrs (orientation o at m) varied as
 * v says; a variant is appended when cublasLtMatmulAlgoCheck accepts it
 * within ws_limit and no algorithm before it has the same attributes,
 * until *count reaches cap. */
cublasStatus_t lt_vary(cublasLtHandle_t h, int orient, int n, int k, int m, size_t ws_limit,
		       const struct lt_variation *v, long (*attrs)[LT_NATTRS], int first,
		       int *count, int cap);
/* Append seed (attributes in lt_attr_names order, orientation o at m) to
 * attrs as lt_vary appends a variant: when cuBLASLt accepts it within
 * ws_limit, no algorithm before it has the same attributes and *count is
 * below cap. A seed it refuses is left out, not an error. */
cublasStatus_t lt_seed(cublasLtHandle_t h, int orient, int n, int k, int m, size_t ws_limit,
		       const long seed[LT_NATTRS], long (*attrs)[LT_NATTRS], int *count,
		       int cap);
/* The attributes of algo, in lt_attr_names order. The 32-bit ones come
 * back as signed values: none of today's reaches 2^31 (lt_algo_init and
 * tmpl_lt.c refuse what does). */
cublasStatus_t lt_algo_attrs(const cublasLtMatmulAlgo_t *algo, long out[LT_NATTRS]);

#endif
