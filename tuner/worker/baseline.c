/*
 * baseline.c: the score baseline, what PyTorch's F.linear runs: one
 * cublasGemmEx, default algorithm, FP32 compute, BF16 in and out (the
 * router: FP32 weights, activations converted to FP32 beforehand, FP32
 * out, no TF32). Y (m x n row-major) is the column-major n x m product
 * W^T-as-stored times X. Also the cuBLASLt heuristic's top algorithm for
 * the same problem, described by its attributes.
 */
#include "gpu.h"
#include "baseline.h"
#include "lt.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

const char *baseline_unsupported(const struct shape *s)
{
	if (s->w == DT_BF16 && s->x == DT_FP32)
		return "no baseline for bf16 weights with fp32 activations";
	if (s->w == DT_FP32 && s->y != DT_FP32)
		return "no baseline for fp32 weights with a bf16 output";
	return NULL;
}

int baseline_needs_x32(const struct shape *s)
{
	return s->w == DT_FP32 && s->x == DT_BF16;
}

static cudaDataType_t cuda_type(enum dtype t)
{
	return t == DT_FP32 ? CUDA_R_32F : CUDA_R_16BF;
}

/* The type of X the baseline reads: the weights' type (X is converted to
 * FP32 for FP32 weights). */
static cudaDataType_t x_type(const struct shape *s)
{
	return s->w == DT_FP32 ? CUDA_R_32F : cuda_type(s->x);
}

static int gemm(struct gpu *g, const struct shape *s, int m, const void *w, const void *x,
		void *y)
{
	const float one = 1.0f, zero = 0.0f;
	return CUBLAS_CHECK(cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, s->n, m, s->k, &one,
					 w, cuda_type(s->w), s->k, x, x_type(s), s->k, &zero, y,
					 cuda_type(s->y), s->n, CUBLAS_COMPUTE_32F,
					 CUBLAS_GEMM_DEFAULT));
}

int baseline_capture(struct gpu *g, const struct shape *s, int m, const void *w,
		     const void *x, void *y, cudaGraphExec_t *out)
{
	*out = NULL;
	/* eager first: cuBLAS loads its kernels lazily, outside the capture */
	if (gemm(g, s, m, w, x, y) || gpu_capture_begin(g))
		return -1;
	int failed = gemm(g, s, m, w, x, y) != 0;
	return gpu_capture_end(g, failed, out);
}

/* The attributes DESIGN.md stores a cuBLASLt choice by (lt.h's order and
 * names), then the workspace it asked for. */
static int describe_algo(const cublasLtMatmulAlgo_t *algo, size_t ws, char *desc, size_t len)
{
	long attrs[LT_NATTRS];
	if (CUBLAS_CHECK(lt_algo_attrs(algo, attrs)))
		return -1;
	size_t used = 0;
	desc[0] = '\0';
	for (int i = 0; i < LT_NATTRS && used < len; i++)
		used += (size_t)snprintf(desc + used, len - used, "%s%s=%ld", i ? "," : "",
					 lt_attr_names[i], attrs[i]);
	if (used < len)
		snprintf(desc + used, len - used, ",ws=%zu", ws);
	return 0;
}

int lt_plan_create(struct gpu *g, const struct shape *s, int m, struct lt_plan *p)
{
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res;
	const int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	const uint64_t ws = GPU_BLAS_WS_BYTES;
	int found = 0, rc = -1;
	memset(p, 0, sizeof(*p));
	memset(&res, 0, sizeof(res));

	if (CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
	    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
							sizeof(ta))) ||
	    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
							sizeof(tb))) ||
	    /* the same column-major views as the cublasGemmEx call */
	    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, cuda_type(s->w), s->k, s->n, s->k)) ||
	    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->b, x_type(s), s->k, m, s->k)) ||
	    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->c, cuda_type(s->y), s->n, m, s->n)) ||
	    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref)) ||
	    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
		    pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws))))
		goto cleanup;
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(g->lt, p->op, p->a, p->b, p->c, p->c,
							   pref, 1, &res, &found);
	if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && found < 1)) {
		snprintf(p->desc, sizeof(p->desc), "none: the heuristic returned no algorithm");
		rc = 1;
		goto cleanup;
	}
	if (CUBLAS_CHECK(st))
		goto cleanup;
	p->algo = res.algo;
	if (describe_algo(&p->algo, res.workspaceSize, p->desc, sizeof(p->desc)))
		goto cleanup;
	rc = 0;
cleanup:
	if (pref)
		(void)CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
	if (rc) {
		char desc[sizeof(p->desc)];
		memcpy(desc, p->desc, sizeof(desc));
		lt_plan_destroy(p);
		memcpy(p->desc, desc, sizeof(desc));
	}
	return rc;
}

void lt_plan_destroy(struct lt_plan *p)
{
	if (p->c)
		(void)CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(p->c));
	if (p->b)
		(void)CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(p->b));
	if (p->a)
		(void)CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(p->a));
	if (p->op)
		(void)CUBLAS_CHECK(cublasLtMatmulDescDestroy(p->op));
	memset(p, 0, sizeof(*p));
}

static int lt_matmul(struct gpu *g, const struct lt_plan *p, const void *w, const void *x,
		     void *y)
{
	const float one = 1.0f, zero = 0.0f;
	return CUBLAS_CHECK(cublasLtMatmul(g->lt, p->op, &one, w, p->a, x, p->b, &zero, y, p->c,
					   y, p->c, &p->algo, g->blas_ws, GPU_BLAS_WS_BYTES,
					   g->stream));
}

int lt_capture(struct gpu *g, const struct lt_plan *p, const void *w, const void *x,
	       void *y, cudaGraphExec_t *out)
{
	*out = NULL;
	if (lt_matmul(g, p, w, x, y) || gpu_capture_begin(g))
		return -1;
	int failed = lt_matmul(g, p, w, x, y) != 0;
	return gpu_capture_end(g, failed, out);
}

/* The cuBLAS and cuBLASLt versions as the runtime compares them
 * (version_text, shared with runtime/context.c). */
int blas_versions(struct gpu *g, char *cublas, char *cublaslt, size_t len)
{
	int v = 0;
	if (CUBLAS_CHECK(cublasGetVersion(g->blas, &v)))
		return -1;
	version_text((size_t)v, cublas, len);
	version_text(cublasLtGetVersion(), cublaslt, len);
	return 0;
}
