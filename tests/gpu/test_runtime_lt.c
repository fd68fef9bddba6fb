/*
 * test_runtime_lt.c: libgemmtab with a table of this test's own (it links
 * the runtime's objects without the tables and defines rt_compiled_tables), on
 * an H200. The table holds two cuBLASLt entries for qkv (n 2304, k 8192,
 * bf16): M 33..40 names an algorithm id cuBLASLt does not have, M 41..48
 * the committed table's algorithm 66 (tile 188, split-K 4). Prepare must
 * refuse the first, saying so in gt_weight_explain, and keep the second;
 * gt_linear must run the baseline at 33..40 and the entry at 41..48, both
 * within docs/workload.md's bound against the tuner's FP64 reference, with
 * no call counted as misaligned or refused.
 *
 * Usage: gpu_test_runtime_lt [ignored]   (tests/run.sh passes a cubin path)
 */
#include "check.h"
#include "gemmtab.h"
#include "harness.h"
#include "rt.h"
#include "types.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 2304
#define K 8192
#define MAX_M 48
#define TOL 1e-2

static const struct gt_table_entry entries[] = {
	/* orient t, algo 99999: no such algorithm */
	{ N, K, 0, 0, 0, 33, 40, "blas_lt", { 0, 99999, 188, 35, 4, 2, 0, 0, 0, 2 },
	  0, { 0 }, 1.0, 200 },
	{ N, K, 0, 0, 0, 41, 48, "blas_lt", { 0, 66, 188, 35, 4, 2, 0, 0, 0, 2 },
	  0, { 0 }, 1.0, 200 },
};
static char gpu_name[256], cublaslt[32];
static struct gt_table table = {
	.generated_by = "test_runtime_lt.c (a test table)",
	.arch = "sm_90a",
	.cuda = "13.0",
	.source_hash = "test",
	.nentries = 2,
	.entries = entries,
};

/* The runtime's compiled-in tables, replaced by this one (no kernels of
 * its own): the device's own name, SM count and cuBLASLt version, set
 * below, so that the table applies. */
static const struct rt_cubin no_cubins[] = { { 0, 0 } };
static const struct rt_kernel_name no_names[] = { { -1, 0 } };
static const int no_kernels = 0;
static const struct rt_compiled compiled = {
	"test_runtime_lt.c", &table, no_cubins, no_names, &no_kernels,
};
const struct rt_compiled *const rt_compiled_tables[] = { &compiled, NULL };

static cudaStream_t stream;

#define CU(call) cu_check((call), #call, __LINE__)
static int cu_check(cudaError_t e, const char *what, int line)
{
	if (e == cudaSuccess)
		return 0;
	fprintf(stderr, "  line %d: %s: %s\n", line, what, cudaGetErrorString(e));
	check_failed_ = 1;
	return -1;
}

/* The global relative L2 error of y (m x N bf16) against r; -1 on error. */
static double error_of(const void *y, const double *r, int m, double *err2, double *ref2,
		       unsigned *nonfinite)
{
	double h_err2[MAX_M], h_ref2[MAX_M], e2 = 0, r2 = 0;
	unsigned h_nf[MAX_M], bad = 0;
	if (CU(harness_row_errors(y, GT_BF16, r, m, N, err2, ref2, nonfinite, stream)) ||
	    CU(cudaMemcpyAsync(h_err2, err2, m * sizeof(double), cudaMemcpyDeviceToHost, stream)) ||
	    CU(cudaMemcpyAsync(h_ref2, ref2, m * sizeof(double), cudaMemcpyDeviceToHost, stream)) ||
	    CU(cudaMemcpyAsync(h_nf, nonfinite, m * sizeof(unsigned), cudaMemcpyDeviceToHost,
			       stream)) ||
	    CU(cudaStreamSynchronize(stream)))
		return -1;
	for (int i = 0; i < m; i++) {
		e2 += h_err2[i];
		r2 += h_ref2[i];
		bad += h_nf[i];
	}
	return bad || !(r2 > 0) ? INFINITY : sqrt(e2 / r2);
}

TEST(refused_algorithm_runs_the_baseline)
{
	struct cudaDeviceProp prop;
	if (CU(cudaGetDeviceProperties(&prop, 0)))
		return;
	snprintf(gpu_name, sizeof(gpu_name), "%s", prop.name);
	version_text(cublasLtGetVersion(), cublaslt, sizeof(cublaslt));
	table.gpu_name = gpu_name;
	table.sm_count = prop.multiProcessorCount;
	table.cublaslt = cublaslt;

	gt_context *ctx = NULL;
	gt_weight *wt = NULL;
	void *w = NULL, *x = NULL, *y = NULL;
	double *r = NULL, *err2 = NULL, *ref2 = NULL;
	unsigned *nonfinite = NULL;
	char why[512];
	CHECK_INT(gt_context_create(0, &ctx), GT_OK);
	if (!ctx || CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) ||
	    CU(cudaMalloc(&w, (size_t)N * K * 2)) || CU(cudaMalloc(&x, (size_t)MAX_M * K * 2)) ||
	    CU(cudaMalloc(&y, (size_t)MAX_M * N * 2)) ||
	    CU(cudaMalloc((void **)&r, (size_t)MAX_M * N * sizeof(double))) ||
	    CU(cudaMalloc((void **)&err2, MAX_M * sizeof(double))) ||
	    CU(cudaMalloc((void **)&ref2, MAX_M * sizeof(double))) ||
	    CU(cudaMalloc((void **)&nonfinite, MAX_M * sizeof(unsigned))) ||
	    CU(harness_fill_normal(w, GT_BF16, (size_t)N * K, 0.02f, 7, stream)) ||
	    CU(cudaStreamSynchronize(stream)))
		goto out;
	CHECK_INT(gt_weight_prepare(ctx, w, N, K, GT_BF16, GT_BF16, GT_BF16, &wt), GT_OK);
	if (!wt)
		goto out;
	CHECK_INT(gt_weight_explain(wt, 33, why, sizeof(why)), GT_OK);
	printf("# %s\n", why);
	CHECK(strstr(why, "m=33: baseline") == why);
	CHECK(strstr(why, "entry 0 (blas_lt") != NULL);
	CHECK(strstr(why, "not used: cuBLASLt refuses its algorithm at m=33") != NULL);
	CHECK_INT(gt_weight_explain(wt, 44, why, sizeof(why)), GT_OK);
	printf("# %s\n", why);
	CHECK(strstr(why, "m=44: entry 1 (blas_lt") == why);

	const int ms[] = { 33, 36, 40, 41, 44, 48 };
	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		int m = ms[i];
		if (CU(harness_fill_activations(x, GT_BF16, m, K, 100 + m, stream)) ||
		    CU(harness_reference(w, GT_BF16, x, GT_BF16, r, m, N, K, stream)) ||
		    CU(cudaMemsetAsync(y, 0xFF, (size_t)m * N * 2, stream)))
			goto out;
		CHECK_INT(gt_linear(wt, x, m, y, stream), GT_OK);
		double e = error_of(y, r, m, err2, ref2, nonfinite);
		printf("# m=%d: relative L2 error %.3g (bound %g)\n", m, e, TOL);
		CHECK(e >= 0 && e <= TOL);
	}
	/* neither kind of fallback counted: the refused entry is not a route
	 * the calls took, and the other ran */
	CHECK_INT(gt_weight_explain(wt, 44, why, sizeof(why)), GT_OK);
	CHECK(strstr(why, "calls so far") == NULL && strstr(why, "refused its step") == NULL);
out:
	gt_weight_destroy(wt);
	gt_context_destroy(ctx);
	cudaFree(w);
	cudaFree(x);
	cudaFree(y);
	cudaFree(r);
	cudaFree(err2);
	cudaFree(ref2);
	cudaFree(nonfinite);
	if (stream)
		cudaStreamDestroy(stream);
}

TESTS(T(refused_algorithm_runs_the_baseline))
