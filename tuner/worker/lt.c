/*
 * lt.c: the cuBLASLt algorithms the tuner asks for (see lt.h): the
 * heuristic's proposals, their variants and the database's seeds.
 */
#include "lt.h"

#include <stdint.h>
#include <string.h>

/* At most this many heuristic results are asked for at once. */
#define LT_HEURISTIC_MAX 64

cublasStatus_t lt_heuristic(cublasLtHandle_t h, int orient, int n, int k, int m,
			    size_t ws_limit, int max, long (*out)[LT_NATTRS], int *found)
{
	struct lt_call c;
	cublasLtMatmulPreferenceOpaque_t pref;
	cublasLtMatmulHeuristicResult_t res[LT_HEURISTIC_MAX];
	const uint64_t ws = ws_limit;
	*found = 0;
	if (max < 1)
		return CUBLAS_STATUS_SUCCESS;
	if (max > LT_HEURISTIC_MAX)
		max = LT_HEURISTIC_MAX;
	LT_TRY(lt_describe(&c, orient, n, k, m));
	LT_TRY(cublasLtMatmulPreferenceInit(&pref));
	LT_TRY(cublasLtMatmulPreferenceSetAttribute(&pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
						    &ws, sizeof(ws)));
	int got = 0;
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
		h, (cublasLtMatmulDesc_t)&c.op, (cublasLtMatrixLayout_t)&c.a,
		(cublasLtMatrixLayout_t)&c.b, (cublasLtMatrixLayout_t)&c.c,
		(cublasLtMatrixLayout_t)&c.c, &pref, max, res, &got);
	if (st == CUBLAS_STATUS_NOT_SUPPORTED)
		return CUBLAS_STATUS_SUCCESS;   /* this orientation has none */
	LT_TRY(st);
	for (int i = 0; i < got; i++) {
		if (res[i].state != CUBLAS_STATUS_SUCCESS)
			continue;
		LT_TRY(lt_algo_attrs(&res[i].algo, out[*found]));
		(*found)++;
	}
	return CUBLAS_STATUS_SUCCESS;
}

/* Attribute indices in lt_attr_names order. */
enum { LT_ATTR_TILE = 1, LT_ATTR_STAGES = 2, LT_ATTR_SPLITK = 3, LT_ATTR_REDUCTION = 4,
       LT_ATTR_CUSTOM = 6, LT_ATTR_CLUSTER = 8 };

/* The most values one varied attribute takes (tile ids: a few hundred). */
#define LT_VALUES_MAX 1024

static int same_attrs(const long *a, const long *b)
{
	for (int i = 0; i < LT_NATTRS; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Append v to attrs unless it is there already or cuBLASLt refuses it. */
static cublasStatus_t try_variant(cublasLtHandle_t h, struct lt_call *c, size_t ws_limit,
				  const long v[LT_NATTRS], long (*attrs)[LT_NATTRS], int *count)
{
	for (int q = 0; q < *count; q++)
		if (same_attrs(v, attrs[q]))
			return CUBLAS_STATUS_SUCCESS;
	cublasStatus_t st = lt_algo_init(h, c, v);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = lt_algo_check(h, c, ws_limit);
	if (st == CUBLAS_STATUS_INVALID_VALUE || st == CUBLAS_STATUS_NOT_SUPPORTED ||
	    st == CUBLAS_STATUS_ARCH_MISMATCH)
		return CUBLAS_STATUS_SUCCESS;   /* not a configuration of this device */
	LT_TRY(st);
	memcpy(attrs[(*count)++], v, sizeof(long) * LT_NATTRS);
	return CUBLAS_STATUS_SUCCESS;
}

/* The values attribute idx of algorithm a may take (LT_VARY_* bit), at
 * most LT_VALUES_MAX; *n their count. */
static cublasStatus_t values_of(const cublasLtMatmulAlgo_t *a, unsigned bit, uint32_t *out, int *n)
{
	size_t written = 0;
	int32_t custom_max = 0;
	*n = 0;
	switch (bit) {
	case LT_VARY_TILE:
	case LT_VARY_STAGES: {
		const cublasLtMatmulAlgoCapAttributes_t cap =
			bit == LT_VARY_TILE ? CUBLASLT_ALGO_CAP_TILE_IDS : CUBLASLT_ALGO_CAP_STAGES_IDS;
		/* the list's size first: one longer than out is refused whole */
		LT_TRY(cublasLtMatmulAlgoCapGetAttribute(a, cap, NULL, 0, &written));
		if (written > sizeof(uint32_t) * LT_VALUES_MAX)
			return CUBLAS_STATUS_SUCCESS;   /* more ids than we try: none */
		LT_TRY(cublasLtMatmulAlgoCapGetAttribute(a, cap, out, written, &written));
		*n = (int)(written / sizeof(uint32_t));
		return CUBLAS_STATUS_SUCCESS;
	}
	case LT_VARY_CLUSTER:
		for (uint32_t id = CUBLASLT_CLUSTER_SHAPE_1x1x1; id <= CUBLASLT_CLUSTER_SHAPE_1x16x1; id++)
			out[(*n)++] = id;
		return CUBLAS_STATUS_SUCCESS;
	default:
		LT_TRY(cublasLtMatmulAlgoCapGetAttribute(a, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX,
							 &custom_max, sizeof(custom_max), &written));
		for (int32_t o = 0; o <= custom_max && *n < LT_VALUES_MAX; o++)
			out[(*n)++] = (uint32_t)o;
		return CUBLAS_STATUS_SUCCESS;
	}
}

cublasStatus_t lt_seed(cublasLtHandle_t h, int orient, int n, int k, int m, size_t ws_limit,
		       const long seed[LT_NATTRS], long (*attrs)[LT_NATTRS], int *count,
		       int cap)
{
	struct lt_call c;
	if (*count >= cap)
		return CUBLAS_STATUS_SUCCESS;
	LT_TRY(lt_describe(&c, orient, n, k, m));
	return try_variant(h, &c, ws_limit, seed, attrs, count);
}

cublasStatus_t lt_vary(cublasLtHandle_t h, int orient, int n, int k, int m, size_t ws_limit,
		       const struct lt_variation *v, long (*attrs)[LT_NATTRS], int first,
		       int *count, int cap)
{
	static const struct {
		unsigned bit;
		int idx;
	} varied[] = {
		{ LT_VARY_TILE, LT_ATTR_TILE }, { LT_VARY_STAGES, LT_ATTR_STAGES },
		{ LT_VARY_CLUSTER, LT_ATTR_CLUSTER }, { LT_VARY_CUSTOM, LT_ATTR_CUSTOM },
	};
	uint32_t values[LT_VALUES_MAX];
	struct lt_call c;
	const int proposals = *count;
	LT_TRY(lt_describe(&c, orient, n, k, m));
	for (int i = first; i < proposals; i++) {
		for (int j = 0; j < v->nsplitk && *count < cap; j++) {
			long a[LT_NATTRS];
			memcpy(a, attrs[i], sizeof(a));
			a[LT_ATTR_SPLITK] = v->splitk[j];
			if (v->splitk[j] == 1)
				a[LT_ATTR_REDUCTION] = CUBLASLT_REDUCTION_SCHEME_NONE;
			else if (a[LT_ATTR_REDUCTION] == CUBLASLT_REDUCTION_SCHEME_NONE)
				a[LT_ATTR_REDUCTION] = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
			LT_TRY(try_variant(h, &c, ws_limit, a, attrs, count));
		}
		for (size_t b = 0; b < sizeof(varied) / sizeof(varied[0]); b++) {
			if (!(v->what & varied[b].bit))
				continue;
			int nv;
			LT_TRY(lt_algo_init(h, &c, attrs[i]));
			LT_TRY(values_of(&c.algo, varied[b].bit, values, &nv));
			for (int j = 0; j < nv && *count < cap; j++) {
				long a[LT_NATTRS];
				memcpy(a, attrs[i], sizeof(a));
				a[varied[b].idx] = values[j];
				LT_TRY(try_variant(h, &c, ws_limit, a, attrs, count));
			}
		}
	}
	return CUBLAS_STATUS_SUCCESS;
}
