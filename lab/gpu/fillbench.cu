// lab/gpu/fillbench.cu: times the worker's fresh-input fill of W, its
// harness_fill_normal (FP32 Box-Muller, two draws per hash), against the
// FP64 draw per element it replaced (fill64, copied from
// tuner/worker/harness.cu at 7cb8f10), on 1 GiB of bf16 (lm_head's W is
// 1.05 GB), and the FP64 copy the reference reads. Build here, after make:
//   nvcc -O3 -arch=sm_90a -Ituner/worker -Ituner/util -Iplan -o build/gpu/fillbench \
//        lab/gpu/fillbench.cu build/obj/harness.cu.o
#include "harness.h"
#include "types.h"
#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>

__device__ __forceinline__ uint64_t mix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
__device__ __forceinline__ uint64_t hash2(uint64_t seed, uint64_t i) { return mix64(seed ^ mix64(i)); }
__device__ __forceinline__ double normal_from_hash(uint64_t h)
{
	double u1 = ((double)(h >> 32) + 0.5) * 0x1p-32;
	double u2 = ((double)(h & 0xFFFFFFFFull) + 0.5) * 0x1p-32;
	return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}
__global__ void fill64(__nv_bfloat16 *p, size_t count, double sd, uint64_t seed)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
		p[i] = __double2bfloat16(sd * normal_from_hash(hash2(seed, i)));
}
__global__ void to_double(const __nv_bfloat16 *s, double *d, size_t count)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
		d[i] = (double)__bfloat162float(s[i]);
}
int main(void)
{
	const size_t count = (size_t)1 << 29; /* 1 GiB of bf16 */
	__nv_bfloat16 *p; double *d;
	cudaMalloc(&p, count * 2);
	cudaMalloc(&d, (count / 8) * 8);
	cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
	for (int blocks = 4096; blocks <= 16384; blocks *= 4) {
		for (int rep = 0; rep < 4; rep++) {
			float ms64, ms32, msd;
			cudaEventRecord(a); fill64<<<blocks, 256>>>(p, count, 0.02, 7 + rep); cudaEventRecord(b);
			cudaEventSynchronize(b); cudaEventElapsedTime(&ms64, a, b);
			cudaEventRecord(a); harness_fill_normal(p, DT_BF16, count, 0.02f, 7 + rep, 0); cudaEventRecord(b);
			cudaEventSynchronize(b); cudaEventElapsedTime(&ms32, a, b);
			cudaEventRecord(a); to_double<<<blocks, 256>>>(p, d, count / 8); cudaEventRecord(b);
			cudaEventSynchronize(b); cudaEventElapsedTime(&msd, a, b);
			printf("blocks %d rep %d: fill64  %.3f ms, harness_fill_normal (fp32 pairs) %.3f ms (1 GiB bf16); to_double of 128 MiB bf16 %.3f ms\n",
			       blocks, rep, ms64, ms32, msd);
		}
	}
	/* the fp32 fill's moments, as test_worker_gpu checks them */
	size_t n = (size_t)1 << 20;
	__nv_bfloat16 *h = (__nv_bfloat16 *)malloc(n * 2);
	harness_fill_normal(p, DT_BF16, n, 0.02f, 5, 0);
	cudaMemcpy(h, p, n * 2, cudaMemcpyDeviceToHost);
	double s1 = 0, s2 = 0; size_t zeros = 0;
	for (size_t i = 0; i < n; i++) { double v = __bfloat162float(h[i]); s1 += v; s2 += v * v; zeros += v == 0; }
	printf("fp32 fill of 2^20: mean %.3g sd %.6f zeros %zu; %s\n", s1 / n, sqrt(s2 / n - (s1 / n) * (s1 / n)), zeros,
	       cudaGetErrorString(cudaGetLastError()));
	return 0;
}
