/*
 * bench/host_cost.c (make bench-host; needs a GPU): what libgemmtab costs
 * the host outside graphs, for engines that call eagerly.
 *
 *   1. gt_weight_prepare_on of the six reference weights together
 *      (docs/workload.md's families), timed on the host from the first
 *      call to the last return, ROUNDS times (the first round also pays
 *      the first use of each kernel; goal: <= 100 ms).
 *   2. gt_linear's host time per call, against one cublasGemmEx of the
 *      same shape (the baseline's call, as runtime/blas.c makes it, on a
 *      handle of its own with the same workspace): BATCH calls enqueued
 *      back to back, the host clock read around the enqueue only, then
 *      the stream synchronized; the median of BATCHES batches (goal:
 *      gt_linear at most 1 us more). The GPU work of a batch fits the
 *      launch queue, so no call waits for the GPU. For the router the
 *      cublasGemmEx is the FP32 GEMM alone (X already in FP32); the
 *      library's baseline converts X first.
 * Prints a Markdown report. Weights are zeros: the figures are host
 * times, and the kernels' speed does not depend on the values.
 */
#include <gemmtab.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 3
#define BATCH 200
#define BATCHES 21
#define WS_BYTES (32u << 20)

struct family {
	const char *name;
	int n, k;
	gt_dtype w, y;
};

/* docs/workload.md's table */
static const struct family fam[] = {
	{"qkv", 2304, 8192, GT_BF16, GT_BF16},
	{"oproj", 8192, 1024, GT_BF16, GT_BF16},
	{"pooler", 4096, 8192, GT_BF16, GT_BF16},
	{"unpooler", 8192, 4096, GT_BF16, GT_BF16},
	{"unpooler_slice", 1024, 4096, GT_BF16, GT_BF16},
	{"router", 256, 8192, GT_FP32, GT_FP32},
};
#define NFAM (int)(sizeof(fam) / sizeof(fam[0]))
static const int ms[] = {1, 8, 32, 128};
#define NMS (int)(sizeof(ms) / sizeof(ms[0]))
#define MAX_M 128

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static size_t elem(gt_dtype t)
{
	return t == GT_FP32 ? 4 : 2;
}

#define CU(call)                                                                              \
	do {                                                                                  \
		cudaError_t e_ = (call);                                                      \
		if (e_ != cudaSuccess) {                                                      \
			fprintf(stderr, "host_cost: %s: %s\n", #call, cudaGetErrorString(e_)); \
			exit(1);                                                              \
		}                                                                             \
	} while (0)
#define GT(call)                                                                              \
	do {                                                                                  \
		int s_ = (call);                                                              \
		if (s_ != GT_OK) {                                                            \
			fprintf(stderr, "host_cost: %s: %s\n", #call, gt_status_string(s_));  \
			exit(1);                                                              \
		}                                                                             \
	} while (0)
#define BL(call)                                                                              \
	do {                                                                                  \
		cublasStatus_t b_ = (call);                                                   \
		if (b_ != CUBLAS_STATUS_SUCCESS) {                                            \
			fprintf(stderr, "host_cost: %s: cuBLAS status %d\n", #call, (int)b_);  \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

/* the median host time per call of BATCH gt_linear calls */
static double time_gt(gt_weight *wt, const void *x, int m, void *y, cudaStream_t s)
{
	double per[BATCHES];
	for (int i = 0; i < BATCH; i++)   /* warm-up */
		GT(gt_linear(wt, x, m, y, s));
	CU(cudaStreamSynchronize(s));
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_us();
		for (int i = 0; i < BATCH; i++)
			GT(gt_linear(wt, x, m, y, s));
		per[b] = (now_us() - t0) / BATCH;
		CU(cudaStreamSynchronize(s));
	}
	return median(per, BATCHES);
}

/* the same for the baseline's cublasGemmEx: Y = X * W^T */
static double time_blas(cublasHandle_t h, const struct family *f, const void *w, const void *x,
			int m, void *y, cudaStream_t s)
{
	const float one = 1.0f, zero = 0.0f;
	cudaDataType_t wt = f->w == GT_FP32 ? CUDA_R_32F : CUDA_R_16BF;
	cudaDataType_t yt = f->y == GT_FP32 ? CUDA_R_32F : CUDA_R_16BF;
	double per[BATCHES];
	for (int b = -1; b < BATCHES; b++) {   /* b = -1: warm-up */
		double t0 = now_us();
		for (int i = 0; i < BATCH; i++)
			BL(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, f->n, m, f->k, &one, w, wt, f->k,
					x, wt, f->k, &zero, y, yt, f->n, CUBLAS_COMPUTE_32F,
					CUBLAS_GEMM_DEFAULT));
		if (b >= 0)
			per[b] = (now_us() - t0) / BATCH;
		CU(cudaStreamSynchronize(s));
	}
	return median(per, BATCHES);
}

int main(void)
{
	void *w[NFAM], *y = NULL, *x = NULL, *ws = NULL;
	gt_weight *wt[NFAM];
	gt_context *ctx;
	cudaStream_t s;
	cublasHandle_t h;
	struct cudaDeviceProp prop;

	CU(cudaSetDevice(0));
	CU(cudaGetDeviceProperties(&prop, 0));
	GT(gt_context_create(0, &ctx));
	CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int f = 0; f < NFAM; f++) {
		CU(cudaMalloc(&w[f], (size_t)fam[f].n * fam[f].k * elem(fam[f].w)));
		CU(cudaMemset(w[f], 0, (size_t)fam[f].n * fam[f].k * elem(fam[f].w)));
	}
	/* X in FP32 is big enough for every family's bf16 X as well */
	CU(cudaMalloc(&x, (size_t)MAX_M * 8192 * 4));
	CU(cudaMemset(x, 0, (size_t)MAX_M * 8192 * 4));
	CU(cudaMalloc(&y, (size_t)MAX_M * 8192 * 4));
	CU(cudaMalloc(&ws, WS_BYTES));
	CU(cudaDeviceSynchronize());

	printf("# libgemmtab host cost (%s, gemmtab %s)\n\n", prop.name, gt_version());
	printf("table: %s\n\n", gt_table_description());
	printf("## gt_weight_prepare_on, the six reference weights together\n\n");
	printf("| round | ms |\n|---|---|\n");
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_us();
		for (int f = 0; f < NFAM; f++)
			GT(gt_weight_prepare_on(ctx, w[f], fam[f].n, fam[f].k, fam[f].w, GT_BF16,
						fam[f].y, s, &wt[f]));
		double t1 = now_us();
		printf("| %d | %.1f |\n", r + 1, (t1 - t0) / 1e3);
		if (r + 1 < ROUNDS)
			for (int f = 0; f < NFAM; f++)
				GT(gt_weight_destroy(wt[f]));
	}

	BL(cublasCreate(&h));
	BL(cublasSetStream(h, s));
	BL(cublasSetWorkspace(h, ws, WS_BYTES));
	printf("\n## host time per call (us), median of %d batches of %d calls\n\n", BATCHES,
	       BATCH);
	printf("| family | M | gt_linear | cublasGemmEx | difference | dispatch |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int f = 0; f < NFAM; f++)
		for (int i = 0; i < NMS; i++) {
			char line[512];
			int m = ms[i];
			double g = time_gt(wt[f], x, m, y, s);
			double b = time_blas(h, &fam[f], w[f], x, m, y, s);
			gt_weight_explain(wt[f], m, line, sizeof(line));
			char *colon = strchr(line, ':');
			printf("| %s | %d | %.2f | %.2f | %+.2f | %.60s |\n", fam[f].name, m, g, b, g - b,
			       colon ? colon + 2 : line);
		}
	BL(cublasDestroy(h));
	for (int f = 0; f < NFAM; f++) {
		GT(gt_weight_destroy(wt[f]));
		CU(cudaFree(w[f]));
	}
	CU(cudaFree(x));
	CU(cudaFree(y));
	CU(cudaFree(ws));
	GT(gt_context_destroy(ctx));
	return 0;
}
