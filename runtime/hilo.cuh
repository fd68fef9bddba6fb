/*
 * hilo.cuh: the router's lossless high/low split (WORKLOAD.md): hi =
 * bf16(w), lo = bf16(w - float(hi)), written as two N x K bf16 matrices,
 * hi first. Device code shared by the tuner's harness (tuner/harness.cu)
 * and the runtime (runtime/convert.cu), so both prepare the same bits.
 */
#pragma once

#include <cuda_bf16.h>
#include <stddef.h>

__global__ void gt_split_hilo_kernel(const float *w, __nv_bfloat16 *hi, __nv_bfloat16 *lo,
				     size_t count)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
	     i += (size_t)gridDim.x * blockDim.x) {
		const float v = w[i];
		const __nv_bfloat16 h = __float2bfloat16_rn(v);
		hi[i] = h;
		lo[i] = __float2bfloat16_rn(v - __bfloat162float(h));
	}
}
