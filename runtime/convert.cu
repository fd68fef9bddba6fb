/*
 * convert.cu: the runtime's own kernels: the router's hi/lo weight split
 * (templates/hilo.cuh, at prepare time) and BF16 activations to FP32 for the
 * router baseline (FP32 weights run the FP32 GEMM on FP32
 * X, as the tuner's baseline does). Exact: a bf16 is the top half of a
 * float. Reached from C only through rt_bf16_to_fp32 (rt.h).
 */
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

/* Threads per block, and blocks at most: a grid-stride loop, enough
 * blocks to keep every SM of an H200 streaming (132 SMs x 8). */
#define CONVERT_THREADS 256
#define CONVERT_MAX_BLOCKS 1056
/* bf16 values per 16-byte load in the vector path. */
#define CONVERT_VEC 8

/* Eight bf16 (one 16-byte load) to eight floats (two 16-byte stores). */
__global__ void __launch_bounds__(CONVERT_THREADS)
convert_vec_kernel(const uint4 *src, float4 *dst, size_t nvec)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
		const uint4 v = src[i];
		dst[2 * i] = make_float4(__uint_as_float(v.x << 16), __uint_as_float(v.x & 0xffff0000u),
					 __uint_as_float(v.y << 16), __uint_as_float(v.y & 0xffff0000u));
		dst[2 * i + 1] = make_float4(__uint_as_float(v.z << 16),
					     __uint_as_float(v.z & 0xffff0000u),
					     __uint_as_float(v.w << 16),
					     __uint_as_float(v.w & 0xffff0000u));
	}
}

__global__ void __launch_bounds__(CONVERT_THREADS)
convert_kernel(const __nv_bfloat16 *src, float *dst, size_t count)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		dst[i] = __bfloat162float(src[i]);
}

static unsigned blocks_for(size_t items)
{
	size_t b = (items + CONVERT_THREADS - 1) / CONVERT_THREADS;
	return (unsigned)(b < 1 ? 1 : b > CONVERT_MAX_BLOCKS ? CONVERT_MAX_BLOCKS : b);
}

extern "C" cudaError_t rt_bf16_to_fp32(const void *src, float *dst, size_t count,
				       cudaStream_t stream)
{
	if (!count)
		return cudaSuccess;
	/* dst comes from cudaMalloc (aligned); the vector path needs src
	 * aligned and whole vectors */
	if ((uintptr_t)src % 16 == 0 && count % CONVERT_VEC == 0) {
		size_t nvec = count / CONVERT_VEC;
		convert_vec_kernel<<<blocks_for(nvec), CONVERT_THREADS, 0, stream>>>(
			(const uint4 *)src, (float4 *)dst, nvec);
	} else {
		convert_kernel<<<blocks_for(count), CONVERT_THREADS, 0, stream>>>(
			(const __nv_bfloat16 *)src, dst, count);
	}
	return cudaGetLastError();
}

#include "hilo.cuh"
#include "pack.cuh"
#include "transpose.cuh"

extern "C" cudaError_t rt_transpose(const void *w, void *out, int n, int k, cudaStream_t stream)
{
	return gt_transpose((const __nv_bfloat16 *)w, (__nv_bfloat16 *)out, n, k, stream);
}

extern "C" cudaError_t rt_pack_tiles(const void *w, void *out, int n, int k, int rows, int cols,
				     cudaStream_t stream)
{
	return gt_pack_tiles((const __nv_bfloat16 *)w, (__nv_bfloat16 *)out, n, k, rows, cols,
			     stream);
}

extern "C" cudaError_t rt_split_hilo(const float *w, void *out, size_t count,
				     cudaStream_t stream)
{
	return gt_split_hilo(w, out, count, stream);
}
