/*
 * lt.h: the cuBLASLt algorithms the tuner asks for: the heuristic's
 * proposals, their variants and the database's seeds, named by their
 * attributes (DESIGN: never by a heuristic's rank). The call itself, which
 * the runtime shares, is blas/lt_call.h.
 */
#ifndef GT_LT_H
#define GT_LT_H

#include "lt_call.h"

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

#endif
