/*
 * transpose.cuh: W (bf16, N x K row-major) transposed into out (K x N
 * row-major) for the cuBLASLt orientation that reads W^T as given
 * (tuner/worker/lt.h, LT_ORIENT_N; plan/tmpl.h, RELAYOUT_TRANSPOSE). Lossless:
 * every value moved, none changed. Device code shared by the tuner's
 * harness (tuner/worker/harness.cu) and the runtime (runtime/convert.cu).
 */
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>

#define GT_TRANSPOSE_TILE 32

/* A 32 x 32 tile through shared memory (padded against bank conflicts):
 * reads along K, writes along N, both coalesced. */
__global__ void gt_transpose_kernel(const __nv_bfloat16 *w, __nv_bfloat16 *out, int n, int k)
{
	__shared__ __nv_bfloat16 t[GT_TRANSPOSE_TILE][GT_TRANSPOSE_TILE + 2];
	const int k0 = blockIdx.x * GT_TRANSPOSE_TILE, n0 = blockIdx.y * GT_TRANSPOSE_TILE;
	for (int r = threadIdx.y; r < GT_TRANSPOSE_TILE; r += blockDim.y) {
		const int row = n0 + r, col = k0 + threadIdx.x;
		if (row < n && col < k)
			t[r][threadIdx.x] = w[(size_t)row * k + col];
	}
	__syncthreads();
	for (int r = threadIdx.y; r < GT_TRANSPOSE_TILE; r += blockDim.y) {
		const int row = k0 + r, col = n0 + threadIdx.x;
		if (row < k && col < n)
			out[(size_t)row * n + col] = t[threadIdx.x][r];
	}
}

static inline cudaError_t gt_transpose(const __nv_bfloat16 *w, __nv_bfloat16 *out, int n, int k,
				       cudaStream_t stream)
{
	const dim3 block(GT_TRANSPOSE_TILE, 8);
	const dim3 grid((unsigned)((k + GT_TRANSPOSE_TILE - 1) / GT_TRANSPOSE_TILE),
			(unsigned)((n + GT_TRANSPOSE_TILE - 1) / GT_TRANSPOSE_TILE));
	gt_transpose_kernel<<<grid, block, 0, stream>>>(w, out, n, k);
	return cudaGetLastError();
}
