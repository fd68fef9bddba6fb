/*
 * test_kernels.cu: small candidate kernels, right and deliberately wrong,
 * that test_worker_gpu.c loads from a cubin the way the worker loads a
 * template's: to prove the validation catches each kind of wrong output,
 * the pruning catches static limits, a fault is seen as sticky, and
 * mma_frag's guard on the K its KC was compiled for traps.
 * Built with: nvcc -cubin -gencode=arch=compute_90a,code=sm_90a
 */
#include <cuda_bf16.h>

/* Output o (row-major M x N) of X W^T in FP32: row o / n of X with row
 * o % n of W. */
__device__ float dot_bf16(const __nv_bfloat16 *w, const __nv_bfloat16 *x, long long o, int n,
			  int k)
{
	int row = (int)(o / n), col = (int)(o % n);
	float acc = 0.0f;
	for (int c = 0; c < k; c++)
		acc += __bfloat162float(x[(size_t)row * k + c]) * __bfloat162float(w[(size_t)col * k + c]);
	return acc;
}

/* Y = X W^T, bf16, one thread per output, FP32 accumulation. */
extern "C" __global__ void naive_bf16(const __nv_bfloat16 *w, const __nv_bfloat16 *x,
				      __nv_bfloat16 *y, int m, int n, int k)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (long long)m * n)
		return;
	y[o] = __float2bfloat16(dot_bf16(w, x, o, n, k));
}

/* The same, but the last row is never written. */
extern "C" __global__ void skip_last_row(const __nv_bfloat16 *w, const __nv_bfloat16 *x,
					 __nv_bfloat16 *y, int m, int n, int k)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (long long)(m - 1) * n)
		return;
	y[o] = __float2bfloat16(dot_bf16(w, x, o, n, k));
}

/* Right, and also writes one element past the end of y. */
extern "C" __global__ void overrun(const __nv_bfloat16 *w, const __nv_bfloat16 *x,
				   __nv_bfloat16 *y, int m, int n, int k)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o > (long long)m * n)
		return;
	if (o == (long long)m * n) {
		y[o] = __float2bfloat16(1.0f);
		return;
	}
	y[o] = __float2bfloat16(dot_bf16(w, x, o, n, k));
}

/* FP32 weights, bf16 X, FP32 Y: split-K over gridDim.y slices, partials
 * added atomically, so y must be zeroed first (a memset step). */
extern "C" __global__ void splitk_atomic_f32(const float *w, const __nv_bfloat16 *x, float *y,
					     int m, int n, int k)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (long long)m * n)
		return;
	int row = (int)(o / n), col = (int)(o % n);
	int slice = (k + gridDim.y - 1) / gridDim.y;
	int c0 = blockIdx.y * slice, c1 = min(k, c0 + slice);
	float acc = 0.0f;
	for (int c = c0; c < c1; c++)
		acc += __bfloat162float(x[(size_t)row * k + c]) * w[(size_t)col * k + c];
	atomicAdd(&y[o], acc);
}

/* Writes far outside any allocation: an illegal address (sticky). */
extern "C" __global__ void fault(int *p, int n)
{
	p[((size_t)1 << 40) + threadIdx.x] = n;
}

/* An array indexed at run time lives in local memory (a stack frame). */
extern "C" __global__ void uses_local(int *p, int i)
{
	int a[64];
	for (int j = 0; j < 64; j++)
		a[j] = p[j];
	a[i & 63] += i;
	a[(i >> 6) & 63] *= 3;
	p[threadIdx.x] = a[(i + threadIdx.x) & 63];
}

/* naive_bf16 launched in compiled-in clusters of two blocks: plan_waves
 * counts its clusters, not its blocks. */
extern "C" __global__ void __cluster_dims__(2, 1, 1)
naive_bf16_pairs(const __nv_bfloat16 *w, const __nv_bfloat16 *x, __nv_bfloat16 *y, int m, int n,
		 int k)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= (long long)m * n)
		return;
	y[o] = __float2bfloat16(dot_bf16(w, x, o, n, k));
}

/* naive_bf16 that also sets a counter (ARG_SYNC) and never clears it: a
 * plan's counters left non-zero after a call must fail validation. */
extern "C" __global__ void naive_bf16_sync(const __nv_bfloat16 *w, const __nv_bfloat16 *x,
					   __nv_bfloat16 *y, int m, int n, int k,
					   unsigned *sync)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o == 0 && sync)
		*sync = 1;
	if (o >= (long long)m * n)
		return;
	y[o] = __float2bfloat16(dot_bf16(w, x, o, n, k));
}

/* templates/mma_frag.cuh with KC fixed for K = 256 (4 warps of 2 chunks of
 * 32 k, one group of 8 rows, 8 tokens): test_worker_gpu.c's
 * kfix_traps_on_another_k launches it at K = 256 and at K = 512, where its
 * guard must stop it (without the guard it would read half of K and store
 * a wrong Y). Loaded by its C++ name, _Z15mma_frag_kernel... below. */
#include "../../templates/mma_frag.cuh"

template __global__ void mma_frag_kernel<4, 1, 8, 1, MMA_FRAG_CACHE_NA, 2>(
	const __nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16 *, int, int, int);
