/*
 * tools/diag/diag_lib.cuh: what the diagnostics that time the library's
 * own call beside their forms share (frag32, skew2, ktconst, tail,
 * partner, clock; they link build/lib/libgemmtab.a and cuBLAS): the
 * library's weights on every copy, its call and cuBLAS's as the baseline
 * makes it, the batch of the probe's read, its call and a tool's forms,
 * and the FP32 reference of W packed in mma_frag's 8 x 32 tiles. Not part
 * of gemmtab.
 */
#pragma once

#include "diag.cuh"
#include "gemmtab.h"

#include <cublas_v2.h>

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

/* A cuBLAS handle on stream s. */
static cublasHandle_t diag_cublas_open(cudaStream_t s)
{
	cublasHandle_t h;
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "cannot set up cuBLAS\n");
		exit(1);
	}
	return h;
}

/* cuBLAS's call as the baseline makes it (cublasGemmEx, default algorithm,
 * FP32 compute, bf16 in and out): Y (m x n) = X (m x k) W^T (n x k), on
 * h's stream. */
static void diag_cublas_call(cublasHandle_t h, const __nv_bfloat16 *w, const __nv_bfloat16 *x,
			     int m, int n, int k, __nv_bfloat16 *y)
{
	const float one = 1.0f, zero = 0.0f;
	if (cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, w, CUDA_R_16BF, k, x,
			 CUDA_R_16BF, k, &zero, y, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
			 CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "cublasGemmEx failed\n");
		exit(1);
	}
}

/* The batch frag32, skew2 and tail time beside the library, three times
 * under title: the probe's read of copy c's n x k weights (stream_name),
 * the library's call at m on copy c with its own tokens x[c] (lib_name;
 * which entry it runs printed first), then every form f as run(f, c,
 * stream), named f.name. */
template <typename F, typename R>
static void diag_lib_batch(const char *title, const char *stream_name, const char *lib_name,
			   __nv_bfloat16 *const *w, __nv_bfloat16 *const *x, int copies, int n,
			   int k, int m, __nv_bfloat16 *y, const std::vector<F> &forms, const R &run,
			   int reps, cudaStream_t s)
{
	diag_lib lib;
	diag_lib_open(lib, w, copies, n, k, s);
	diag_lib_explain(lib, m);
	unsigned *sink;         /* never freed: the process ends with its batches */
	CHECK(cudaMalloc(&sink, 64));
	std::vector<diag_case> cs = { diag_stream_case(stream_name, w, (size_t)n * k * 2, sink),
				      diag_lib_case(lib_name, lib, { x, x + copies }, m, y) };
	for (const F &f : forms)
		cs.push_back({ f.name, [&run, &f](int c, cudaStream_t st) { run(f, c, st); } });
	for (int i = 0; i < 3; i++)
		diag_time(title, cs, copies, reps, s);
	diag_lib_close(lib);
}

/* The chunk row g's 16-byte chunk q of a packed 8 x 32 tile lands on:
 * runtime/pack.cuh's gt_tile_swizzle(4, g, q), as templates/mma_frag.cuh
 * writes it too (pack.cuh also defines a kernel that tuner/harness.cu,
 * linked here, already holds). */
__host__ __device__ inline int diag_frag_swizzle(int g, int q)
{
	return q ^ ((g >> 1) & 3);
}

/* Adds to s the float2 of a[p][tok][r], a[p][tok][r + 1] for every p
 * (a[PARTS][TOKS][LD] FP32: the warps' or the blocks' partial sums, a
 * token's row padded to LD floats), in order of p as templates/mma_frag.cuh
 * adds its warps'. */
template <int PARTS, int TOKS, int LD>
__device__ __forceinline__ void diag_part_add(float2 &s, const float *a, int tok, int r)
{
#pragma unroll
	for (int p = 0; p < PARTS; p++) {
		const float2 v = *reinterpret_cast<const float2 *>(a + ((size_t)p * TOKS + tok) * LD + r);
		s.x += v.x;
		s.y += v.y;
	}
}

/* The same sum from zero. */
template <int PARTS, int TOKS, int LD>
__device__ __forceinline__ float2 diag_part_sum(const float *a, int tok, int r)
{
	float2 s = make_float2(0.0f, 0.0f);
	diag_part_add<PARTS, TOKS, LD>(s, a, tok, r);
	return s;
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
				 8 * diag_frag_swizzle(g, q) + kk % 8;
		s += __bfloat162float(W[e]) * __bfloat162float(X[(size_t)t * k + kk]);
	}
	R[i] = s;
}

/* The FP32 reference of copy 0 (packed W, X) on the host. */
static std::vector<float> diag_ref_frag(const __nv_bfloat16 *w, const __nv_bfloat16 *x, int m,
					int n, int k, cudaStream_t s)
{
	float *ref;
	CHECK(cudaMalloc(&ref, (size_t)m * n * sizeof(float)));
	diag_ref_frag_kernel<<<(m * n + 255) / 256, 256, 0, s>>>(w, x, ref, m, n, k);
	CHECK(cudaGetLastError());
	std::vector<float> r = diag_host(ref, (size_t)m * n, s);
	CHECK(cudaFree(ref));
	return r;
}
