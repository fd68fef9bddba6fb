/*
 * planted.cuh: test-only kernels with the gemv signature that plant the
 * outcomes the tuner must survive: a correct but slow product (ok), an
 * illegal-address fault that leaves a sticky CUDA error (fault), and a
 * kernel that never finishes in time and never writes Y (hang). They exist
 * so tests can prove that validation, crash isolation and deadlines work;
 * no search space meant for real tuning should name them.
 *
 * Launch (plan/tmpl_planted.c builds the plan):
 *   ok:          grid (ceil(N/PLANTED_THREADS), min(M, 65535)), block PLANTED_THREADS
 *   fault, hang: grid 1, block 32
 */
#pragma once

#include <cuda_bf16.h>

#define PLANTED_OK 0
#define PLANTED_FAULT 1
#define PLANTED_HANG 2

/* Threads per block of the ok mode; the adapter launches this many. */
#define PLANTED_THREADS 128

/* How long hang spins: long past any candidate deadline, yet bounded, so a
 * GPU whose driver never kills a hung kernel still comes back. */
#define PLANTED_HANG_NS 60000000000ull

__device__ __forceinline__ unsigned long long planted_globaltimer()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

template <typename T>
__device__ __forceinline__ float planted_to_float(T v)
{
	if constexpr (sizeof(T) == 2)
		return __bfloat162float(v);
	else
		return v;
}

template <typename TY>
__device__ __forceinline__ TY planted_from_float(float v)
{
	if constexpr (sizeof(TY) == 2)
		return __float2bfloat16_rn(v);
	else
		return v;
}

template <typename TW, typename TY, int MODE>
__global__ void __launch_bounds__(PLANTED_THREADS)
planted_kernel(const TW *W, const __nv_bfloat16 *X, TY *Y, float *ws, int M, int N, int K)
{
	static_assert(MODE >= PLANTED_OK && MODE <= PLANTED_HANG, "mode must be in [0, 2]");
	(void)ws;

	if constexpr (MODE == PLANTED_OK) {
		/* one thread per output element, a plain FP32 dot product */
		const int n = blockIdx.x * blockDim.x + threadIdx.x;
		if (n >= N)
			return;
		for (int m = blockIdx.y; m < M; m += gridDim.y) {
			const TW *w = W + (size_t)n * K;
			const __nv_bfloat16 *x = X + (size_t)m * K;
			float sum = 0.0f;
			for (int k = 0; k < K; k++)
				sum = fmaf(planted_to_float(w[k]), planted_to_float(x[k]), sum);
			Y[(size_t)m * N + n] = planted_from_float<TY>(sum);
		}
	} else if constexpr (MODE == PLANTED_FAULT) {
		/* an address no allocation can have: raises an illegal-address error */
		volatile float *bad = reinterpret_cast<volatile float *>(0x10);
		bad[threadIdx.x] = 1.0f;
	} else {
		const unsigned long long start = planted_globaltimer();
		while (planted_globaltimer() - start < PLANTED_HANG_NS)
			;
	}
}
