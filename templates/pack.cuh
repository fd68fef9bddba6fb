/*
 * pack.cuh: W (bf16, N x K row-major) packed into rows x cols tiles for
 * mma_skinny's "tiles" layout (plan/tmpl.h, RELAYOUT_TILES): tile (nt, kt)
 * is one contiguous block of rows*cols values starting at element
 * (nt * K/cols + kt) * rows*cols, holding the exact image a block of
 * mma_skinny keeps in shared memory for it: row r's 16-byte chunk c at
 * byte r*cols*2 + gt_tile_swizzle(cols/8, r, c)*16. A block then streams
 * its weights as one contiguous range and copies them linearly. Lossless:
 * every value is moved, none changed. Device code shared by the tuner's
 * harness (tuner/worker/harness.cu) and the runtime (runtime/convert.cu).
 */
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>

/* The chunk a row's logical 16-byte chunk lands on: the same function as
 * mma_swizzle<BK> in templates/mma_skinny.cuh (cpr = BK/8 chunks per row;
 * the GPU reference tests of the tiles layout fail if the two differ). */
__host__ __device__ inline int gt_tile_swizzle(int cpr, int row, int chunk)
{
	const int shift = cpr >= 8 ? 0 : cpr == 4 ? 1 : 2;
	const int mask = (cpr >= 8 ? 8 : cpr) - 1;
	return chunk ^ ((row >> shift) & mask);
}

/* One thread per 16-byte chunk of W. */
__global__ void gt_pack_tiles_kernel(const uint4 *w, uint4 *out, int n, int k, int rows, int cols)
{
	const size_t chunks_per_row = (size_t)k / 8;
	const size_t total = (size_t)n * chunks_per_row;
	const int cpr = cols / 8;
	const size_t ktiles = (size_t)k / cols;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
	     i += (size_t)gridDim.x * blockDim.x) {
		const size_t row = i / chunks_per_row, kc = i % chunks_per_row;
		const size_t nt = row / rows, kt = kc / cpr;
		const int r = (int)(row % rows), c = (int)(kc % cpr);
		const size_t tile = (nt * ktiles + kt) * (size_t)rows * cpr;   /* in chunks */
		out[tile + (size_t)r * cpr + gt_tile_swizzle(cpr, r, c)] = w[i];
	}
}

/* Enqueue the packing on stream; n % rows == 0, k % cols == 0, cols a
 * multiple of 8 and both pointers 16-byte aligned, or cudaErrorInvalidValue. */
static inline cudaError_t gt_pack_tiles(const __nv_bfloat16 *w, __nv_bfloat16 *out, int n,
					int k, int rows, int cols, cudaStream_t stream)
{
	if (n <= 0 || k <= 0 || rows <= 0 || cols <= 0 || cols % 8 || n % rows || k % cols ||
	    (size_t)w % 16 || (size_t)out % 16)
		return cudaErrorInvalidValue;
	const size_t total = (size_t)n * k / 8;
	size_t blocks = (total + 255) / 256;
	if (blocks > 65535)
		blocks = 65535;
	gt_pack_tiles_kernel<<<(unsigned)blocks, 256, 0, stream>>>((const uint4 *)w, (uint4 *)out,
								   n, k, rows, cols);
	return cudaGetLastError();
}
