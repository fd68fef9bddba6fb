/*
 * harness.cu: the worker's own kernels (see harness.h): seeded random
 * fills, the conversion to FP64 that the DGEMM reference reads
 * (reference.c), a naive FP64 reference product, per-row error metrics,
 * the L2 flush, the streaming-read floor and an empty kernel. They are deliberately
 * simple, so that they are obviously correct; none of them is timed
 * except the floor read and the empty kernel.
 */
#include "harness.h"
#include "types.h"

#include <cuda_bf16.h>
#include <stdint.h>

static_assert(DT_BF16 == 0 && DT_FP32 == 1, "harness.h passes enum dtype values");

/* Threads per block of the simple kernels; fills use at most this many
 * blocks in a grid-stride loop (enough to fill the H200's 132 SMs). */
#define BLOCK 256
#define FILL_BLOCKS 4096
/* A value the XOR of a flushed or streamed buffer almost never equals: the
 * conditional store that keeps the compiler from dropping the reads. */
#define SINK_MAGIC 0x2545F491u

/* splitmix64 finalizer: a counter-based generator, one hash per index. */
__device__ __forceinline__ uint64_t mix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

__device__ __forceinline__ uint64_t hash2(uint64_t seed, uint64_t i)
{
	return mix64(seed ^ mix64(i));
}

/* One N(0, 1) draw by Box-Muller from one 64-bit hash. Both uniforms are
 * offset by half a step, so u1 < 1 and 2*u2 is never a multiple of 1/2:
 * the result is never exactly zero. */
__device__ __forceinline__ double normal_from_hash(uint64_t h)
{
	double u1 = ((double)(h >> 32) + 0.5) * 0x1p-32;
	double u2 = ((double)(h & 0xFFFFFFFFull) + 0.5) * 0x1p-32;
	return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}

/* Two N(0, 1) draws by Box-Muller in FP32 from one 64-bit hash: 23 bits
 * for each uniform, offset by half a step (j + 0.5 with j < 2^23 is exact
 * in FP32's 24-bit significand), so u1 < 1 (the radius is never zero)
 * and 2*u2 = (2j + 1) / 2^23 is never a multiple of 1/2 (neither cos nor
 * sin is zero); |z| < 5.8. FP32 is finer than the bf16 the weights are
 * stored in, and cheaper on the GPU than the FP64 draw above
 * (lab/gpu/fillbench.cu times the two). */
__device__ __forceinline__ float2 normal_pair_from_hash(uint64_t h)
{
	float u1 = ((float)(uint32_t)(h >> 41) + 0.5f) * 0x1p-23f;
	float u2 = ((float)(uint32_t)(h & 0x7FFFFFu) + 0.5f) * 0x1p-23f;
	float r = sqrtf(-2.0f * logf(u1)), sn, cs;
	sincospif(2.0f * u2, &sn, &cs);
	return make_float2(r * cs, r * sn);
}

__device__ __forceinline__ double as_double(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
__device__ __forceinline__ double as_double(float v) { return (double)v; }

__device__ __forceinline__ void store(__nv_bfloat16 *p, double v) { *p = __double2bfloat16(v); }
__device__ __forceinline__ void store(float *p, double v) { *p = (float)v; }
__device__ __forceinline__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store(float *p, float v) { *p = v; }

__device__ __forceinline__ size_t global_thread(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t grid_threads(void)
{
	return (size_t)gridDim.x * blockDim.x;
}

static int fill_blocks(size_t count)
{
	size_t b = (count + BLOCK - 1) / BLOCK;
	if (b > FILL_BLOCKS)
		b = FILL_BLOCKS;
	return b ? (int)b : 1;
}

/* Elements 2j and 2j + 1 from the pair of hash j (the last alone when
 * count is odd). */
template <typename T>
__global__ void fill_normal_kernel(T *p, size_t count, float stddev, uint64_t seed)
{
	const size_t pairs = (count + 1) / 2;
	for (size_t j = global_thread(); j < pairs; j += grid_threads()) {
		float2 z = normal_pair_from_hash(hash2(seed, j));
		store(p + 2 * j, stddev * z.x);
		if (2 * j + 1 < count)
			store(p + 2 * j + 1, stddev * z.y);
	}
}

extern "C" cudaError_t harness_fill_normal(void *p, int dtype, size_t count, float stddev,
					   uint64_t seed, cudaStream_t stream)
{
	if (dtype == DT_BF16)
		fill_normal_kernel<<<fill_blocks((count + 1) / 2), BLOCK, 0, stream>>>(
			(__nv_bfloat16 *)p, count, stddev, seed);
	else if (dtype == DT_FP32)
		fill_normal_kernel<<<fill_blocks((count + 1) / 2), BLOCK, 0, stream>>>(
			(float *)p, count, stddev, seed);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

/* Salts that give the probe-row choices their own hash streams. */
#define PROBE_ROW_SALT 0x70726F6265726F77ull
#define PROBE_COL_SALT 0x70726F6265636F6Cull
/* One row in PROBE_EVERY is a probe row (docs/workload.md: about one in eight). */
#define PROBE_EVERY 8

template <typename T>
__global__ void fill_activations_kernel(T *x, int m, int k, uint64_t seed)
{
	size_t count = (size_t)m * k;
	for (size_t i = global_thread(); i < count; i += grid_threads()) {
		uint64_t row = i / (size_t)k, col = i % (size_t)k;
		uint64_t pick = hash2(seed ^ PROBE_ROW_SALT, row);
		/* row 0 stays dense, so even at m = 1 every column of W counts */
		if (row != 0 && pick % PROBE_EVERY == 0) {
			uint64_t h = hash2(seed ^ PROBE_COL_SALT, row);
			double v = 0.0;
			if (col == h % (uint64_t)k) {
				uint64_t g = mix64(h);
				int e = (int)(g % 5) - 2;       /* 2^-2 .. 2^2 */
				v = ldexp(g >> 63 ? -1.0 : 1.0, e);
			}
			store(x + i, v);
		} else {
			store(x + i, normal_from_hash(hash2(seed, i)));
		}
	}
}

extern "C" cudaError_t harness_fill_activations(void *x, int dtype, int m, int k, uint64_t seed,
						cudaStream_t stream)
{
	size_t count = (size_t)m * k;
	if (dtype == DT_BF16)
		fill_activations_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
			(__nv_bfloat16 *)x, m, k, seed);
	else if (dtype == DT_FP32)
		fill_activations_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
			(float *)x, m, k, seed);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

__global__ void fill_random_bytes_kernel(unsigned char *p, size_t bytes, uint64_t seed)
{
	size_t words = bytes / 4;
	for (size_t i = global_thread(); i < words; i += grid_threads())
		((uint32_t *)p)[i] = (uint32_t)hash2(seed, i);
	if (global_thread() == 0)
		for (size_t i = words * 4; i < bytes; i++)
			p[i] = (unsigned char)hash2(seed, i);
}

extern "C" cudaError_t harness_fill_random_bytes(void *p, size_t bytes, uint64_t seed,
						 cudaStream_t stream)
{
	if ((uintptr_t)p % 4)
		return cudaErrorInvalidValue;
	fill_random_bytes_kernel<<<fill_blocks(bytes / 4), BLOCK, 0, stream>>>(
		(unsigned char *)p, bytes, seed);
	return cudaGetLastError();
}

__global__ void bf16_to_fp32_kernel(const __nv_bfloat16 *src, float *dst, size_t count)
{
	for (size_t i = global_thread(); i < count; i += grid_threads())
		dst[i] = __bfloat162float(src[i]);
}

extern "C" cudaError_t harness_bf16_to_fp32(const void *src, float *dst, size_t count,
					    cudaStream_t stream)
{
	bf16_to_fp32_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
		(const __nv_bfloat16 *)src, dst, count);
	return cudaGetLastError();
}

#include "hilo.cuh"

extern "C" cudaError_t harness_split_hilo(const float *w, void *out, size_t count,
					  cudaStream_t stream)
{
	return gt_split_hilo(w, out, count, stream);
}

#include "pack.cuh"
#include "transpose.cuh"

extern "C" cudaError_t harness_transpose(const void *w, void *out, int n, int k,
					 cudaStream_t stream)
{
	return gt_transpose((const __nv_bfloat16 *)w, (__nv_bfloat16 *)out, n, k, stream);
}

extern "C" cudaError_t harness_pack_tiles(const void *w, void *out, int n, int k, int rows,
					  int cols, cudaStream_t stream)
{
	return gt_pack_tiles((const __nv_bfloat16 *)w, (__nv_bfloat16 *)out, n, k, rows, cols,
			     stream);
}

template <typename T>
__global__ void to_double_kernel(const T *src, double *dst, size_t count)
{
	for (size_t i = global_thread(); i < count; i += grid_threads())
		dst[i] = as_double(src[i]);
}

extern "C" cudaError_t harness_to_double(const void *src, int dtype, double *dst, size_t count,
					 cudaStream_t stream)
{
	if (dtype == DT_BF16)
		to_double_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
			(const __nv_bfloat16 *)src, dst, count);
	else if (dtype == DT_FP32)
		to_double_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
			(const float *)src, dst, count);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

template <typename T>
__global__ void from_double_kernel(const double *src, T *dst, size_t count)
{
	for (size_t i = global_thread(); i < count; i += grid_threads())
		store(dst + i, src[i]);
}

extern "C" cudaError_t harness_from_double(const double *src, void *dst, int dtype, size_t count,
					   cudaStream_t stream)
{
	if (dtype == DT_BF16)
		from_double_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
			src, (__nv_bfloat16 *)dst, count);
	else if (dtype == DT_FP32)
		from_double_kernel<<<fill_blocks(count), BLOCK, 0, stream>>>(
			src, (float *)dst, count);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

/*
 * The naive FP64 reference (the worker computes its reference with
 * reference.c's DGEMM; the GPU tests compare the two and check their
 * planted outputs with this one). One warp per output. Consecutive warps take consecutive rows of X for
 * the same row of W, so each W row is read from DRAM about once and the
 * X rows (at most a few MB) stay in L2.
 */
template <typename TW, typename TX>
__global__ void reference_kernel(const TW *w, const TX *x, double *r, int m, int n, int k)
{
	size_t warp = global_thread() / 32;
	int lane = threadIdx.x % 32;
	if (warp >= (size_t)m * n)
		return;                 /* whole warps only: BLOCK is a multiple of 32 */
	size_t row = warp % (size_t)m, col = warp / (size_t)m;
	const TW *wr = w + col * k;
	const TX *xr = x + row * k;
	double acc = 0.0;
	for (int c = lane; c < k; c += 32)
		acc += as_double(wr[c]) * as_double(xr[c]);
	for (int off = 16; off > 0; off /= 2)
		acc += __shfl_down_sync(0xFFFFFFFFu, acc, off);
	if (lane == 0)
		r[row * n + col] = acc;
}

extern "C" cudaError_t harness_reference(const void *w, int w_dtype, const void *x, int x_dtype,
					 double *r, int m, int n, int k, cudaStream_t stream)
{
	size_t warps = (size_t)m * n;
	size_t blocks = (warps * 32 + BLOCK - 1) / BLOCK;
	if (m < 1 || n < 1 || k < 1 || blocks > 0x7FFFFFFFu)
		return cudaErrorInvalidValue;
	dim3 grid((unsigned)blocks);
	if (w_dtype == DT_BF16 && x_dtype == DT_BF16)
		reference_kernel<<<grid, BLOCK, 0, stream>>>(
			(const __nv_bfloat16 *)w, (const __nv_bfloat16 *)x, r, m, n, k);
	else if (w_dtype == DT_FP32 && x_dtype == DT_BF16)
		reference_kernel<<<grid, BLOCK, 0, stream>>>(
			(const float *)w, (const __nv_bfloat16 *)x, r, m, n, k);
	else if (w_dtype == DT_BF16 && x_dtype == DT_FP32)
		reference_kernel<<<grid, BLOCK, 0, stream>>>(
			(const __nv_bfloat16 *)w, (const float *)x, r, m, n, k);
	else if (w_dtype == DT_FP32 && x_dtype == DT_FP32)
		reference_kernel<<<grid, BLOCK, 0, stream>>>(
			(const float *)w, (const float *)x, r, m, n, k);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

/* One block per row: sums of squared error and squared reference over the
 * finite elements, and the count of NaN/Inf elements. */
template <typename T>
__global__ void row_errors_kernel(const T *y, const double *r, int n, double *err2,
				  double *ref2, unsigned *nonfinite)
{
	__shared__ double s_err[BLOCK], s_ref[BLOCK];
	__shared__ unsigned s_bad[BLOCK];
	size_t base = (size_t)blockIdx.x * n;
	double e = 0.0, f = 0.0;
	unsigned bad = 0;
	for (int c = threadIdx.x; c < n; c += BLOCK) {
		double v = as_double(y[base + c]), ref = r[base + c];
		if (!isfinite(v)) {
			bad++;
			continue;
		}
		e += (v - ref) * (v - ref);
		f += ref * ref;
	}
	s_err[threadIdx.x] = e;
	s_ref[threadIdx.x] = f;
	s_bad[threadIdx.x] = bad;
	__syncthreads();
	for (int half = BLOCK / 2; half > 0; half /= 2) {
		if (threadIdx.x < half) {
			s_err[threadIdx.x] += s_err[threadIdx.x + half];
			s_ref[threadIdx.x] += s_ref[threadIdx.x + half];
			s_bad[threadIdx.x] += s_bad[threadIdx.x + half];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		err2[blockIdx.x] = s_err[0];
		ref2[blockIdx.x] = s_ref[0];
		nonfinite[blockIdx.x] = s_bad[0];
	}
}

extern "C" cudaError_t harness_row_errors(const void *y, int y_dtype, const double *r, int m, int n,
					  double *err2, double *ref2, unsigned *nonfinite,
					  cudaStream_t stream)
{
	if (m < 1 || n < 1)
		return cudaErrorInvalidValue;
	if (y_dtype == DT_BF16)
		row_errors_kernel<<<m, BLOCK, 0, stream>>>(
			(const __nv_bfloat16 *)y, r, n, err2, ref2, nonfinite);
	else if (y_dtype == DT_FP32)
		row_errors_kernel<<<m, BLOCK, 0, stream>>>(
			(const float *)y, r, n, err2, ref2, nonfinite);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

__global__ void count_mismatch_kernel(const unsigned char *p, size_t bytes, unsigned char expect,
				      unsigned *count)
{
	unsigned local = 0;
	for (size_t i = global_thread(); i < bytes; i += grid_threads())
		local += p[i] != expect;
	if (local)
		atomicAdd(count, local);
}

extern "C" cudaError_t harness_count_mismatch(const void *p, size_t bytes, unsigned char expect,
					      unsigned *count, cudaStream_t stream)
{
	cudaError_t e = cudaMemsetAsync(count, 0, sizeof(*count), stream);
	if (e != cudaSuccess)
		return e;
	count_mismatch_kernel<<<fill_blocks(bytes), BLOCK, 0, stream>>>(
		(const unsigned char *)p, bytes, expect, count);
	return cudaGetLastError();
}

/* Plain L2-allocating 16-byte loads (ld.global.cg): the lines the flush
 * leaves behind are clean, unlike a memset's. */
__global__ void flush_kernel(const uint4 *p, size_t n16, unsigned *sink)
{
	unsigned acc = 0;
	for (size_t i = global_thread(); i < n16; i += grid_threads()) {
		uint4 v = __ldcg(p + i);
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == SINK_MAGIC)
		*sink = acc;
}

extern "C" cudaError_t harness_flush(const void *buf, size_t bytes, unsigned *sink, int blocks,
				     cudaStream_t stream)
{
	if (bytes % 16 || (uintptr_t)buf % 16 || blocks < 1)
		return cudaErrorInvalidValue;
	flush_kernel<<<blocks, BLOCK, 0, stream>>>((const uint4 *)buf, bytes / 16, sink);
	return cudaGetLastError();
}

__device__ __forceinline__ uint4 load_streaming(const uint4 *p)
{
	uint4 v;
	asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
	    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
	    : "l"(p));
	return v;
}

/* UNROLL independent loads per thread per iteration, coalesced across the
 * warp (thread t reads vector t, t + stride, ...). The tail of fewer than
 * 16 bytes is read by the first threads of block 0. */
template <int UNROLL>
__global__ void __launch_bounds__(HARNESS_READ_THREADS)
stream_read_kernel(const uint4 *p, size_t n16, const unsigned char *tail, int ntail,
		   unsigned *sink)
{
	size_t stride = grid_threads();
	size_t i = global_thread();
	unsigned acc = 0;
	for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
		uint4 v[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			v[u] = load_streaming(p + i + u * stride);
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
	}
	for (; i < n16; i += stride) {
		uint4 v = load_streaming(p + i);
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (blockIdx.x == 0 && (int)threadIdx.x < ntail)
		acc ^= tail[threadIdx.x];
	if (acc == SINK_MAGIC)
		*sink = acc;
}

extern "C" cudaError_t harness_stream_read(const void *buf, size_t bytes, unsigned *sink, int blocks,
					   int unroll, cudaStream_t stream)
{
	if ((uintptr_t)buf % 16 || blocks < 1)
		return cudaErrorInvalidValue;
	const uint4 *p = (const uint4 *)buf;
	size_t n16 = bytes / 16;
	const unsigned char *tail = (const unsigned char *)buf + n16 * 16;
	int ntail = (int)(bytes % 16);
	if (unroll == 4)
		stream_read_kernel<4><<<blocks, HARNESS_READ_THREADS, 0, stream>>>(
			p, n16, tail, ntail, sink);
	else if (unroll == 8)
		stream_read_kernel<8><<<blocks, HARNESS_READ_THREADS, 0, stream>>>(
			p, n16, tail, ntail, sink);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

__global__ void empty_kernel(void)
{
}

extern "C" cudaError_t harness_empty(cudaStream_t stream)
{
	empty_kernel<<<1, 1, 0, stream>>>();
	return cudaGetLastError();
}
