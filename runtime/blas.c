/*
 * blas.c: the baseline every M without a usable table entry runs, exactly
 * the call the tuner measured against (tuner/worker/baseline.c), which is what
 * PyTorch's F.linear runs: one cublasGemmEx, default algorithm,
 * CUBLAS_COMPUTE_32F, Y (m x n row-major) as the column-major n x m
 * product of W (stored n x k row-major, so op T) and X. BF16 weights take
 * X as is; FP32 weights (the router) take X converted to FP32 first, a
 * fixed number of rows at a time, and run the FP32 GEMM without TF32.
 *
 * Each weight owns its cuBLAS handle and workspace, so distinct weights
 * may run from distinct threads, and cuBLAS never allocates inside a
 * captured graph.
 */
#include "rt.h"

int rt_blas_init(struct gt_weight *wt)
{
	int status = rt_blas_status(cublasCreate(&wt->blas));
	if (status != GT_OK) {
		wt->blas = NULL;
		return status;
	}
	status = rt_blas_status(cublasLtCreate(&wt->lt));
	if (status != GT_OK) {
		wt->lt = NULL;
		return status;
	}
	/* default math: no TF32 for the FP32 router baseline, as PyTorch */
	status = rt_blas_status(cublasSetMathMode(wt->blas, CUBLAS_DEFAULT_MATH));
	if (status == GT_OK)
		status = rt_cuda_status(cudaMalloc(&wt->blas_ws, RT_BLAS_WS_BYTES));
	if (status == GT_OK)
		status = rt_blas_status(cublasSetWorkspace(wt->blas, wt->blas_ws,
							   RT_BLAS_WS_BYTES));
	if (status == GT_OK && wt->shape.w == DT_FP32)
		status = rt_cuda_status(cudaMalloc((void **)&wt->x32, (size_t)RT_X32_CHUNK_ROWS *
						   (size_t)wt->shape.k * sizeof(float)));
	return status;
}

void rt_blas_free(struct gt_weight *wt)
{
	if (wt->blas)
		(void)cublasDestroy(wt->blas);
	if (wt->lt)
		(void)cublasLtDestroy(wt->lt);
	wt->lt = NULL;
	if (wt->blas_ws)
		(void)cudaFree(wt->blas_ws);
	if (wt->x32)
		(void)cudaFree(wt->x32);
	wt->blas = NULL;
	wt->blas_ws = NULL;
	wt->x32 = NULL;
}

static cudaDataType_t cuda_type(enum dtype t)
{
	return t == DT_FP32 ? CUDA_R_32F : CUDA_R_16BF;
}

/* One GEMM of m rows, Y (+)= X * A^T on the weight's handle: A is an
 * N x K matrix of a_type, x holds the rows in x_type, beta 0 or 1. */
static int gemm(struct gt_weight *wt, const void *a, cudaDataType_t a_type, const void *x,
		cudaDataType_t x_type, int m, void *y, float beta)
{
	const struct shape *s = &wt->shape;
	const float one = 1.0f;
	return rt_blas_status(cublasGemmEx(wt->blas, CUBLAS_OP_T, CUBLAS_OP_N, s->n, m, s->k,
					   &one, a, a_type, s->k, x, x_type, s->k, &beta, y,
					   cuda_type(s->y), s->n, CUBLAS_COMPUTE_32F,
					   CUBLAS_GEMM_DEFAULT));
}

int rt_blas_use_stream(struct gt_weight *wt, cudaStream_t stream)
{
	int status = rt_blas_status(cublasSetStream(wt->blas, stream));
	if (status == GT_OK)
		status = rt_blas_status(cublasSetWorkspace(wt->blas, wt->blas_ws,
							   RT_BLAS_WS_BYTES));
	return status;
}

int rt_blas_gemm_bf16(struct gt_weight *wt, const struct rt_route *r,
		      const struct launch_step *st, const void *x, int m, void *y)
{
	const unsigned short *p = (const unsigned short *)r->prep + st->w_offset;
	return gemm(wt, p, CUDA_R_16BF, x, CUDA_R_16BF, m, y, st->beta ? 1.0f : 0.0f);
}

int rt_blas_run(struct gt_weight *wt, const void *x, int m, void *y, cudaStream_t stream)
{
	const struct shape *s = &wt->shape;
	int status = rt_blas_use_stream(wt, stream);
	if (status != GT_OK)
		return status;
	if (s->w != DT_FP32)
		return gemm(wt, wt->w, cuda_type(s->w), x, cuda_type(s->x), m, y, 0.0f);

	/* the chunks share one buffer; the stream orders each conversion after
	 * the GEMM that read the previous chunk */
	const char *xb = x;
	char *yb = y;
	for (int row = 0; row < m && status == GT_OK; row += RT_X32_CHUNK_ROWS) {
		int rows = m - row < RT_X32_CHUNK_ROWS ? m - row : RT_X32_CHUNK_ROWS;
		size_t x_off = (size_t)row * (size_t)s->k * dtype_size(s->x);
		size_t y_off = (size_t)row * (size_t)s->n * dtype_size(s->y);
		status = rt_cuda_status(rt_bf16_to_fp32(xb + x_off, wt->x32,
							(size_t)rows * (size_t)s->k, stream));
		if (status == GT_OK)
			status = gemm(wt, wt->w, CUDA_R_32F, wt->x32, CUDA_R_32F, rows, yb + y_off,
				      0.0f);
	}
	return status;
}

_Static_assert(RT_BLAS_WS_BYTES >= STEP_LT_WS_BYTES,
	       "cuBLASLt steps run in the cuBLAS workspace: as large as the tuner gave them");

int rt_lt_check(struct gt_weight *wt)
{
	for (int i = 0; i < wt->nroutes; i++) {
		struct rt_route *r = &wt->routes[i];
		const int ms[2] = { r->e->m_lo, r->e->m_hi };
		int built = 0;
		for (int j = 0; j < 2 && r->usable; j++) {
			struct launch_plan plan;
			if (rt_plan(r, &wt->shape, ms[j], wt->nkernels, wt->ws_bytes, &plan)) {
				rt_route_disable(r, "no well-formed launch plan at m=%d", ms[j]);
				break;
			}
			for (int k = 0; k < plan.nsteps; k++) {
				const struct launch_step *st = &plan.steps[k];
				struct lt_call c;
				if (st->kind != STEP_LT)
					continue;
				cublasStatus_t e = lt_describe(&c, (int)st->lt[0], wt->shape.n,
							       wt->shape.k, ms[j]);
				/* the attributes do not depend on m: built once,
				 * then reused for the other end of the range */
				if (e == CUBLAS_STATUS_SUCCESS) {
					if (!built++)
						e = lt_algo_init(wt->lt, &c, &st->lt[1]);
					else
						c.algo = r->lt_algo;
				}
				if (e == CUBLAS_STATUS_SUCCESS) {
					r->lt_algo = c.algo;
					e = lt_algo_check(wt->lt, &c, RT_BLAS_WS_BYTES);
				}
				if (e != CUBLAS_STATUS_SUCCESS) {
					rt_route_disable(r, "cuBLASLt refuses its algorithm at m=%d: %s",
							 ms[j], cublasGetStatusString(e));
					break;
				}
			}
		}
	}
	return GT_OK;
}

int rt_lt_run(struct gt_weight *wt, const struct rt_route *r, const struct launch_step *st,
	      const void *x, int m, void *y, cudaStream_t stream)
{
	struct lt_call c;
	cublasStatus_t e = lt_describe(&c, (int)st->lt[0], wt->shape.n, wt->shape.k, m);
	if (e != CUBLAS_STATUS_SUCCESS)
		return rt_blas_status(e);
	c.algo = r->lt_algo;
	/* orientation n reads the W^T prepared for the route */
	const void *w = st->lt[0] == LT_ORIENT_N ? r->prep : wt->w;
	if (!w)
		return GT_ERR_CUBLAS;   /* cannot happen: prepare made it; the baseline runs */
	return rt_blas_status(lt_run(wt->lt, &c, w, x, y, wt->blas_ws, RT_BLAS_WS_BYTES,
				     stream));
}
