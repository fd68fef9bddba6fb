/*
 * hilo.cuh: the router's lossless high/low split (docs/workload.md): hi =
 * bf16(w), lo = bf16(w - float(hi)), written as two N x K bf16 matrices,
 * hi first. The kernel and its launcher, shared by the tuner's harness
 * (tuner/worker/harness.cu) and the runtime (runtime/convert.cu), so both
 * prepare the same bits.
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

/* Enqueue the split of count weights into out (count bf16 hi values, then
 * count lo values) on stream; grid-stride, at most 65535 blocks. */
static inline cudaError_t gt_split_hilo(const float *w, void *out, size_t count,
					cudaStream_t stream)
{
	__nv_bfloat16 *hi = (__nv_bfloat16 *)out;
	size_t blocks = (count + 255) / 256;
	if (blocks < 1)
		blocks = 1;
	if (blocks > 65535)
		blocks = 65535;
	gt_split_hilo_kernel<<<(unsigned)blocks, 256, 0, stream>>>(w, hi, hi + count, count);
	return cudaGetLastError();
}
