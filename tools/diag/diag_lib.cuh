/*
 * tools/diag/diag_lib.cuh: what the diagnostics that time the library's
 * own call beside their forms share (frag32, skew2, ktconst; they link
 * build/lib/libgemmtab.a): the library's weights on every copy, its call
 * and the probe's streaming read as diag_cases, and the FP32 check of a
 * form's bf16 Y against the reference of W packed in mma_frag's 8 x 32
 * tiles. Not part of gemmtab.
 */
#pragma once

#include "diag.cuh"
#include "gemmtab.h"

#include <cuda_bf16.h>

#include <cmath>

/* The library's prepared weights, one per copy of W (n x k bf16). */
struct diag_lib {
	gt_context *ctx = nullptr;
	std::vector<gt_weight *> wt;
};

static void diag_lib_open(diag_lib &l, __nv_bfloat16 *const *w, int copies, int n, int k,
			  cudaStream_t s)
{
	if (gt_context_create(0, &l.ctx) != 0) {
		fprintf(stderr, "gt_context_create failed\n");
		exit(1);
	}
	l.wt.resize(copies);
	for (int c = 0; c < copies; c++)
		if (gt_weight_prepare_on(l.ctx, w[c], n, k, GT_BF16, GT_BF16, GT_BF16, s, &l.wt[c]) !=
		    0) {
			fprintf(stderr, "gt_weight_prepare failed\n");
			exit(1);
		}
}

static void diag_lib_close(diag_lib &l)
{
	for (gt_weight *w : l.wt)
		gt_weight_destroy(w);
	gt_context_destroy(l.ctx);
}

/* "lib: <which entry runs at m and why>" */
static void diag_lib_explain(const diag_lib &l, int m)
{
	char why[256];
	gt_weight_explain(l.wt[0], m, why, sizeof why);
	printf("lib: %s\n", why);
}

/* copies bf16 weight matrices (n x k, N(0, 0.02^2), seeds wseed + c) and
 * as many activation matrices (m x k, N(0, 1), seeds xseed + c), allocated
 * and filled on s: the inputs of a diagnostic's batch. */
static void diag_inputs(__nv_bfloat16 **w, __nv_bfloat16 **x, int copies, int n, int k, int m,
			uint64_t wseed, uint64_t xseed, cudaStream_t s)
{
	for (int c = 0; c < copies; c++) {
		CHECK(cudaMalloc(&w[c], (size_t)n * k * 2));
		CHECK(cudaMalloc(&x[c], (size_t)m * k * 2));
		diag_fill_bf16(w[c], (size_t)n * k, 0.02f, wseed + c, s);
		diag_fill_bf16(x[c], (size_t)m * k, 1.0f, xseed + c, s);
	}
}

/* The library's call at m tokens on copy c (x the same for every copy,
 * or one per copy when xs has more than one). */
static diag_case diag_lib_case(const char *name, const diag_lib &l,
			       std::vector<const __nv_bfloat16 *> xs, int m, __nv_bfloat16 *y)
{
	return { name, [&l, xs, m, y](int c, cudaStream_t st) {
			if (gt_linear(l.wt[c], xs[xs.size() > 1 ? c : 0], m, y, st) != 0) {
				fprintf(stderr, "gt_linear failed\n");
				exit(1);
			}
		} };
}

/* The probe's streaming read of copy c's bytes (8 blocks an SM). */
static diag_case diag_stream_case(const char *name, __nv_bfloat16 *const *w, size_t bytes,
				  unsigned *sink)
{
	return { name, [w, bytes, sink](int c, cudaStream_t st) {
			CHECK(harness_stream_read(w[c], bytes, sink, 8 * diag_sms(), 8, st));
		}, nullptr, (double)bytes };
}

/* A batch's first two cases: the probe's read of copy c's wbytes
 * (stream_name) and the library's call at m on copy c with its own tokens
 * x[c] (lib_name). */
static std::vector<diag_case> diag_lib_cases(const char *stream_name, const char *lib_name,
					     const diag_lib &l, __nv_bfloat16 *const *w,
					     size_t wbytes, __nv_bfloat16 *const *x, int copies,
					     int m, __nv_bfloat16 *y)
{
	unsigned *sink;         /* never freed: the process ends with its batches */
	CHECK(cudaMalloc(&sink, 64));
	return { diag_stream_case(stream_name, w, wbytes, sink),
		 diag_lib_case(lib_name, l, { x, x + copies }, m, y) };
}

/* FP32 reference of Y (m x n) from W packed in 8 x 32 tiles
 * (RELAYOUT_TILES rows 8 cols 32: mma_frag's layout) and row-major X: one
 * thread per (token, row). */
__global__ void diag_ref_frag_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, float *R,
				     int m, int n, int k)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= m * n)
		return;
	const int t = i / n, r = i % n, g = r % 8;
	float s = 0.0f;
	for (int kk = 0; kk < k; kk++) {
		const int q = (kk % 32) / 8;
		const size_t e = ((size_t)(r / 8) * (k / 32) + kk / 32) * 256 + 32 * g +
				 8 * (q ^ ((g >> 1) & 3)) + kk % 8;
		s += __bfloat162float(W[e]) * __bfloat162float(X[(size_t)t * k + kk]);
	}
	R[i] = s;
}

__global__ void diag_bf16_to_f32_kernel(const __nv_bfloat16 *a, float *b, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = __bfloat162float(a[i]);
}

/* Relative L2 error of y against r (INFINITY at a NaN or Inf in y). */
static double diag_rel_err(const std::vector<float> &y, const std::vector<float> &r)
{
	double num = 0, den = 0;
	for (size_t i = 0; i < y.size(); i++) {
		if (!std::isfinite(y[i]))
			return INFINITY;
		num += (double)(y[i] - r[i]) * (y[i] - r[i]);
		den += (double)r[i] * r[i];
	}
	return std::sqrt(num / den);
}

/* The FP32 reference of copy 0 (packed W, X) on the host. */
static std::vector<float> diag_ref_frag(const __nv_bfloat16 *w, const __nv_bfloat16 *x, int m,
					int n, int k, cudaStream_t s)
{
	float *ref;
	CHECK(cudaMalloc(&ref, (size_t)m * n * sizeof(float)));
	diag_ref_frag_kernel<<<(m * n + 255) / 256, 256, 0, s>>>(w, x, ref, m, n, k);
	std::vector<float> r((size_t)m * n);
	CHECK(cudaMemcpyAsync(r.data(), ref, r.size() * 4, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaFree(ref));
	return r;
}

/* A form's bf16 Y (m x n, on the device) against the reference r:
 * "check NAME rel err E". got: m x n floats of scratch. */
static void diag_check_bf16(const char *name, const __nv_bfloat16 *y, float *got,
			    const std::vector<float> &r, cudaStream_t s)
{
	const int count = (int)r.size();
	diag_bf16_to_f32_kernel<<<(count + 255) / 256, 256, 0, s>>>(y, got, count);
	CHECK(cudaGetLastError());
	std::vector<float> v(r.size());
	CHECK(cudaMemcpyAsync(v.data(), got, v.size() * 4, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	printf("check %-26s rel err %.2e\n", name, diag_rel_err(v, r));
}
