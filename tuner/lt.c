/*
 * lt.c: one cuBLASLt matmul by orientation and algorithm attributes (see
 * lt.h). No allocation, no printing: callers turn statuses into their
 * own errors.
 */
#include "lt.h"
#include "tmpl.h"

#include <stdint.h>
#include <string.h>

_Static_assert(STEP_LT_VALUES == 1 + LT_NATTRS, "a STEP_LT holds the orientation and the attributes");
_Static_assert(STEP_LT_ORIENTS == LT_NORIENTS, "tmpl.h counts the orientations");

const char *const lt_attr_names[LT_NATTRS] = {
	"algo", "tile", "stages", "splitk", "reduction", "swizzle", "custom", "inner", "cluster",
};

/* Each attribute's config key and width (2 or 4 bytes); the first, the
 * algorithm id, is read-only: cublasLtMatmulAlgoInit sets it. */
static const struct {
	cublasLtMatmulAlgoConfigAttributes_t key;
	size_t size;
} attr_keys[LT_NATTRS] = {
	{ CUBLASLT_ALGO_CONFIG_ID, sizeof(int32_t) },
	{ CUBLASLT_ALGO_CONFIG_TILE_ID, sizeof(uint32_t) },
	{ CUBLASLT_ALGO_CONFIG_STAGES_ID, sizeof(uint32_t) },
	{ CUBLASLT_ALGO_CONFIG_SPLITK_NUM, sizeof(int32_t) },
	{ CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, sizeof(uint32_t) },
	{ CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, sizeof(uint32_t) },
	{ CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, sizeof(uint32_t) },
	{ CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, sizeof(uint16_t) },
	{ CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, sizeof(uint16_t) },
};

#define LT_TRY(call)                                    \
	do {                                            \
		cublasStatus_t lt_st_ = (call);         \
		if (lt_st_ != CUBLAS_STATUS_SUCCESS)    \
			return lt_st_;                  \
	} while (0)

static cublasStatus_t layout(cublasLtMatrixLayoutOpaque_t *l, uint64_t rows, uint64_t cols,
			     int64_t ld, int row_major)
{
	LT_TRY(cublasLtMatrixLayoutInit(l, CUDA_R_16BF, rows, cols, ld));
	if (!row_major)
		return CUBLAS_STATUS_SUCCESS;
	const int32_t order = CUBLASLT_ORDER_ROW;
	return cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order,
						sizeof(order));
}

cublasStatus_t lt_describe(struct lt_call *c, int orient, int n, int k, int m)
{
	if (orient < 0 || orient >= LT_NORIENTS || n < 1 || k < 1 || m < 1)
		return CUBLAS_STATUS_INVALID_VALUE;
	memset(c, 0, sizeof(*c));
	c->orient = orient;
	const int32_t t = CUBLAS_OP_T, no = CUBLAS_OP_N;
	LT_TRY(cublasLtMatmulDescInit(&c->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	if (orient == LT_ORIENT_T || orient == LT_ORIENT_N) {
		/* C[n, m] = op(A)[n, k] * B[k, m], all column-major; B is X's
		 * k x m view. T: A is W's k x n view, transposed. N: A is the
		 * prepared W^T, an n x k matrix as it stands. */
		const int32_t ta = orient == LT_ORIENT_T ? t : no;
		LT_TRY(cublasLtMatmulDescSetAttribute(&c->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
						      sizeof(ta)));
		LT_TRY(cublasLtMatmulDescSetAttribute(&c->op, CUBLASLT_MATMUL_DESC_TRANSB, &no,
						      sizeof(no)));
		if (orient == LT_ORIENT_T)
			LT_TRY(layout(&c->a, (uint64_t)k, (uint64_t)n, k, 0));
		else
			LT_TRY(layout(&c->a, (uint64_t)n, (uint64_t)k, n, 0));
		LT_TRY(layout(&c->b, (uint64_t)k, (uint64_t)m, k, 0));
		return layout(&c->c, (uint64_t)n, (uint64_t)m, n, 0);
	}
	/* D[m, n] = A[m, k] * op(B)[k, n], all row-major: A is X, B is W
	 * (n x k), transposed */
	LT_TRY(cublasLtMatmulDescSetAttribute(&c->op, CUBLASLT_MATMUL_DESC_TRANSA, &no,
					      sizeof(no)));
	LT_TRY(cublasLtMatmulDescSetAttribute(&c->op, CUBLASLT_MATMUL_DESC_TRANSB, &t, sizeof(t)));
	LT_TRY(layout(&c->a, (uint64_t)m, (uint64_t)k, k, 1));
	LT_TRY(layout(&c->b, (uint64_t)n, (uint64_t)k, k, 1));
	return layout(&c->c, (uint64_t)m, (uint64_t)n, n, 1);
}

cublasStatus_t lt_algo_init(cublasLtHandle_t h, struct lt_call *c, const long attrs[LT_NATTRS])
{
	for (int i = 0; i < LT_NATTRS; i++)
		if (attrs[i] < 0 || attrs[i] > (attr_keys[i].size == 2 ? 0xffffL : 0x7fffffffL))
			return CUBLAS_STATUS_INVALID_VALUE;
	LT_TRY(cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
				      CUDA_R_16BF, CUDA_R_16BF, (int)attrs[0], &c->algo));
	for (int i = 1; i < LT_NATTRS; i++) {
		uint32_t v32 = (uint32_t)attrs[i];
		uint16_t v16 = (uint16_t)attrs[i];
		const void *v = attr_keys[i].size == 2 ? (const void *)&v16 : (const void *)&v32;
		LT_TRY(cublasLtMatmulAlgoConfigSetAttribute(&c->algo, attr_keys[i].key, v,
							    attr_keys[i].size));
	}
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t lt_algo_check(cublasLtHandle_t h, const struct lt_call *c, size_t ws_limit)
{
	cublasLtMatmulHeuristicResult_t res;
	memset(&res, 0, sizeof(res));
	LT_TRY(cublasLtMatmulAlgoCheck(h, (cublasLtMatmulDesc_t)&c->op,
				       (cublasLtMatrixLayout_t)&c->a, (cublasLtMatrixLayout_t)&c->b,
				       (cublasLtMatrixLayout_t)&c->c, (cublasLtMatrixLayout_t)&c->c,
				       &c->algo, &res));
	return res.workspaceSize > ws_limit ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t lt_run(cublasLtHandle_t h, const struct lt_call *c, const void *w, const void *x,
		      void *y, void *ws, size_t ws_bytes, cudaStream_t stream)
{
	const float one = 1.0f, zero = 0.0f;
	const void *a = c->orient == LT_ORIENT_ROW ? x : w;
	const void *b = c->orient == LT_ORIENT_ROW ? w : x;
	return cublasLtMatmul(h, (cublasLtMatmulDesc_t)&c->op, &one, a,
			      (cublasLtMatrixLayout_t)&c->a, b, (cublasLtMatrixLayout_t)&c->b,
			      &zero, y, (cublasLtMatrixLayout_t)&c->c, y,
			      (cublasLtMatrixLayout_t)&c->c, &c->algo, ws, ws_bytes, stream);
}

cublasStatus_t lt_algo_attrs(const cublasLtMatmulAlgo_t *algo, long out[LT_NATTRS])
{
	for (int i = 0; i < LT_NATTRS; i++) {
		uint32_t v32 = 0;
		uint16_t v16 = 0;
		size_t written = 0;
		void *v = attr_keys[i].size == 2 ? (void *)&v16 : (void *)&v32;
		LT_TRY(cublasLtMatmulAlgoConfigGetAttribute(algo, attr_keys[i].key, v,
							    attr_keys[i].size, &written));
		out[i] = attr_keys[i].size == 2 ? (long)v16 : (long)(int32_t)v32;
	}
	return CUBLAS_STATUS_SUCCESS;
}

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
