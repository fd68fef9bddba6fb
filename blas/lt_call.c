/*
 * lt_call.c: one cuBLASLt matmul by orientation and algorithm attributes
 * (see lt_call.h). No allocation, no printing: callers turn statuses into
 * their own errors.
 */
#include "lt_call.h"

#include <stdint.h>
#include <string.h>

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
