/*
 * gemv.cuh: streaming GEMV for small M, Y[M,N] = X[M,K] * W[N,K]^T with W
 * row-major, FP32 accumulation. Built for HBM streaming: every weight byte
 * is read once per pass of TOKENS tokens, with 16-byte loads that are
 * coalesced across a warp (lane i reads the i-th 16-byte chunk of a row).
 *
 * One block owns ROWS consecutive rows of W and one of SPLIT slices of K.
 * Each thread issues UNROLL*ROWS weight loads before it uses any of them,
 * multiplies them by the X chunks of TOKENS tokens (X is tiny and shared by
 * every block, so it is read with default caching and mostly hits L1/L2),
 * and keeps acc[ROWS*TOKENS] in registers. A warp reduce-scatter and a
 * cross-warp sum in shared memory finish the dot products. SPLIT == 1
 * writes Y directly; SPLIT > 1 writes FP32 partials to ws[SPLIT][M][N] and
 * gemv_splitk_reduce<TY> adds them in FP32 and converts.
 *
 * Compiled by NVRTC in the tuner and by nvcc in the runtime from this same
 * text: device code only, no host headers beyond cuda_bf16.h.
 *
 * Launch (plan/tmpl_gemv.c builds the plan):
 *   gemv_kernel:        grid (N/ROWS, SPLIT), block WARPS*32, no dynamic smem
 *   gemv_splitk_reduce: any 1-D grid, block <= 256 (grid-stride loop)
 * Requires N % ROWS == 0, K % (SPLIT*WARPS*32*UNROLL*(16/sizeof(TW))) == 0,
 * 16-byte aligned W and X, and any M >= 1 (tail tokens are masked).
 *
 * gemv_tail_kernel is the same kernel for shapes whose N or K those rules
 * reject: grid (ceil(N/ROWS), SPLIT); any N, K a multiple of 16 bytes of
 * W (16 / sizeof(TW) elements); SPLIT at most K's 16-byte chunks. A block
 * past N's last row reads that row again and stores nothing; each split
 * takes its share of K's chunks; a load past it is clamped into it, unused.
 * The adapter picks it from the shape alone, so a shape gemv_kernel
 * serves runs exactly gemv_kernel's code.
 */
#pragma once

#include <cuda_bf16.h>

/* Weight-load cache policies (the adapter's "cache" symbols, same order). */
#define GEMV_CACHE_DEFAULT 0            /* ld.global.v4 */
#define GEMV_CACHE_CG 1                 /* ld.global.cg: cache in L2 only */
#define GEMV_CACHE_NC_NA 2              /* ld.global.nc.L1::no_allocate */
#define GEMV_CACHE_EVICT_FIRST 3        /* L2 evict_first policy via cache_hint */
#define GEMV_CACHE_NC_NA_EVICT_FIRST 4  /* both of the above */

/* Threads per block of gemv_splitk_reduce; the adapter launches this many. */
#define GEMV_REDUCE_THREADS 256

__host__ __device__ constexpr int gemv_pow2_ceil(int v)
{
	return v <= 1 ? 1 : 2 * gemv_pow2_ceil((v + 1) / 2);
}

__host__ __device__ constexpr int gemv_log2(int v)
{
	return v <= 1 ? 0 : 1 + gemv_log2(v / 2);
}

/* The L2 policy operand of the cache_hint loads; 0 (unused) otherwise. */
template <int CACHE>
__device__ __forceinline__ unsigned long long gemv_make_policy()
{
	unsigned long long policy = 0;
	if constexpr (CACHE == GEMV_CACHE_EVICT_FIRST || CACHE == GEMV_CACHE_NC_NA_EVICT_FIRST)
		asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
	return policy;
}

/* One 16-byte weight load under the CACHE policy. Not volatile: the
 * compiler may schedule these freely; W is never written by the kernel. */
template <int CACHE>
__device__ __forceinline__ uint4 gemv_load_w(const void *p, unsigned long long policy)
{
	uint4 v;
	if constexpr (CACHE == GEMV_CACHE_DEFAULT)
		asm("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
		    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	else if constexpr (CACHE == GEMV_CACHE_CG)
		asm("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
		    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	else if constexpr (CACHE == GEMV_CACHE_NC_NA)
		asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
		    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	else if constexpr (CACHE == GEMV_CACHE_EVICT_FIRST)
		asm("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
		    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
	else
		asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
		    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
	return v;
}

/* A 32-bit word holding two bf16 values, widened exactly to FP32. */
__device__ __forceinline__ float gemv_bf16_lo(unsigned u)
{
	return __uint_as_float(u << 16);
}

__device__ __forceinline__ float gemv_bf16_hi(unsigned u)
{
	return __uint_as_float(u & 0xffff0000u);
}

/* 16 bytes of weights as FP32: 8 bf16 or 4 float. */
template <typename TW>
__device__ __forceinline__ void gemv_unpack_w(uint4 w, float (&f)[16 / sizeof(TW)])
{
	if constexpr (sizeof(TW) == 2) {
		f[0] = gemv_bf16_lo(w.x); f[1] = gemv_bf16_hi(w.x);
		f[2] = gemv_bf16_lo(w.y); f[3] = gemv_bf16_hi(w.y);
		f[4] = gemv_bf16_lo(w.z); f[5] = gemv_bf16_hi(w.z);
		f[6] = gemv_bf16_lo(w.w); f[7] = gemv_bf16_hi(w.w);
	} else {
		f[0] = __uint_as_float(w.x); f[1] = __uint_as_float(w.y);
		f[2] = __uint_as_float(w.z); f[3] = __uint_as_float(w.w);
	}
}

/* The VEC activations matching one weight chunk, as FP32 (default caching). */
template <int VEC>
__device__ __forceinline__ void gemv_load_x(const __nv_bfloat16 *p, float (&f)[VEC])
{
	if constexpr (VEC == 8) {
		const uint4 x = *reinterpret_cast<const uint4 *>(p);
		f[0] = gemv_bf16_lo(x.x); f[1] = gemv_bf16_hi(x.x);
		f[2] = gemv_bf16_lo(x.y); f[3] = gemv_bf16_hi(x.y);
		f[4] = gemv_bf16_lo(x.z); f[5] = gemv_bf16_hi(x.z);
		f[6] = gemv_bf16_lo(x.w); f[7] = gemv_bf16_hi(x.w);
	} else {
		const uint2 x = *reinterpret_cast<const uint2 *>(p);
		f[0] = gemv_bf16_lo(x.x); f[1] = gemv_bf16_hi(x.x);
		f[2] = gemv_bf16_lo(x.y); f[3] = gemv_bf16_hi(x.y);
	}
}

template <typename TY>
__device__ __forceinline__ TY gemv_convert(float v)
{
	if constexpr (sizeof(TY) == 2)
		return __float2bfloat16_rn(v);
	else
		return v;
}

/*
 * Warp reduce-scatter of P (a power of two) values per lane: at each xor
 * step a lane keeps one half of its live values and trades the other half
 * with its partner, so P values cost about P shuffles instead of 5*P.
 * Afterwards every lane holds full warp sums of P/32 values (one value
 * when P <= 32), the ones gemv_owned_base() names. Written as a template
 * recursion so every index is a constant and v[] stays in registers.
 */
template <int P, int S = 0>
__device__ __forceinline__ void gemv_warp_reduce(float (&v)[P], int lane)
{
	if constexpr (S < 5) {
		constexpr int LIVE = P >> S;
		if constexpr (LIVE >= 2) {
			const bool upper = (lane >> S) & 1;
#pragma unroll
			for (int i = 0; i < LIVE / 2; i++) {
				const float send = upper ? v[i] : v[i + LIVE / 2];
				const float keep = upper ? v[i + LIVE / 2] : v[i];
				v[i] = keep + __shfl_xor_sync(0xffffffffu, send, 1 << S);
			}
		} else {
			v[0] += __shfl_xor_sync(0xffffffffu, v[0], 1 << S);
		}
		gemv_warp_reduce<P, S + 1>(v, lane);
	}
}

/* First index (of P/32 consecutive ones, or one when P <= 32) whose sum
 * lane holds after gemv_warp_reduce<P>; lanes >= P hold copies. */
template <int P>
__device__ __forceinline__ int gemv_owned_base(int lane)
{
	constexpr int halvings = gemv_log2(P) < 5 ? gemv_log2(P) : 5;
	int base = 0;
#pragma unroll
	for (int s = 0; s < halvings; s++)
		base += ((lane >> s) & 1) * (P >> (s + 1));
	return base;
}

/* Store the finished dot product idx = t*ROWS + r of the pass at t0. */
template <typename TY, int ROWS, int SPLIT>
__device__ __forceinline__ void gemv_store(TY *Y, float *ws, int idx, float val,
					   int t0, int n0, int M, int N)
{
	const int token = t0 + idx / ROWS;
	const int n = n0 + idx % ROWS;
	if (token >= M)
		return;
	if constexpr (SPLIT == 1)
		Y[(size_t)token * N + n] = gemv_convert<TY>(val);
	else
		ws[((size_t)blockIdx.y * M + token) * N + n] = val;
}

template <typename TW, typename TY, int WARPS, int ROWS, int TOKENS, int UNROLL, int SPLIT, int CACHE>
__global__ void __launch_bounds__(WARPS * 32)
gemv_kernel(const TW *W, const __nv_bfloat16 *X, TY *Y, float *ws, int M, int N, int K)
{
	static_assert(sizeof(TW) == 2 || sizeof(TW) == 4, "weights must be bf16 or float");
	static_assert(sizeof(TY) == 2 || sizeof(TY) == 4, "output must be bf16 or float");
	static_assert(WARPS >= 1 && WARPS <= 32, "warps must be in [1, 32]");
	static_assert(ROWS >= 1 && ROWS <= 16, "rows must be in [1, 16]");
	static_assert(TOKENS >= 1 && TOKENS <= 16, "tokens must be in [1, 16]");
	static_assert(UNROLL >= 1 && UNROLL <= 8, "unroll must be in [1, 8]");
	static_assert(SPLIT >= 1 && SPLIT <= 64, "split must be in [1, 64]");
	static_assert(CACHE >= GEMV_CACHE_DEFAULT && CACHE <= GEMV_CACHE_NC_NA_EVICT_FIRST,
		      "cache must be in [0, 4]");

	constexpr int THREADS = WARPS * 32;
	constexpr int VEC = 16 / sizeof(TW);            /* weights per 16-byte load */
	constexpr int STEP = THREADS * VEC * UNROLL;    /* K per block iteration */
	constexpr int V = ROWS * TOKENS;                /* dot products per pass */
	constexpr int P = gemv_pow2_ceil(V);            /* padded for the reduce */
	/* With few accumulators one FMA chain per acc would serialize on FMA
	 * latency; then sum each load's VEC products apart and add once. */
	constexpr bool SHORT_CHAINS = V < 8 && UNROLL > 1;

	__shared__ float partial[WARPS > 1 ? WARPS : 1][P];

	const int tid = threadIdx.x;
	const int lane = tid & 31;
	const int warp = tid >> 5;
	const int n0 = blockIdx.x * ROWS;
	const int kslice = K / SPLIT;
	const int kfirst = blockIdx.y * kslice + tid * VEC;
	const TW *wbase = W + (size_t)n0 * K + kfirst;
	const unsigned long long policy = gemv_make_policy<CACHE>();

	for (int t0 = 0; t0 < M; t0 += TOKENS) {
		float acc[P];
#pragma unroll
		for (int i = 0; i < P; i++)
			acc[i] = 0.0f;

		for (int k = 0; k < kslice; k += STEP) {
			uint4 wv[UNROLL][ROWS];
#pragma unroll
			for (int u = 0; u < UNROLL; u++)
#pragma unroll
				for (int r = 0; r < ROWS; r++)
					wv[u][r] = gemv_load_w<CACHE>(
						wbase + (size_t)r * K + k + u * THREADS * VEC, policy);

#pragma unroll
			for (int u = 0; u < UNROLL; u++) {
#pragma unroll
				for (int t = 0; t < TOKENS; t++) {
					/* tail tokens read the last row again and are never stored */
					const int token = t0 + t < M ? t0 + t : M - 1;
					float xf[VEC];
					gemv_load_x<VEC>(X + (size_t)token * K + kfirst + k + u * THREADS * VEC, xf);
#pragma unroll
					for (int r = 0; r < ROWS; r++) {
						float wf[VEC];
						gemv_unpack_w<TW>(wv[u][r], wf);
						float *a = &acc[t * ROWS + r];
						if constexpr (SHORT_CHAINS) {
							float d = wf[0] * xf[0];
#pragma unroll
							for (int i = 1; i < VEC; i++)
								d = fmaf(wf[i], xf[i], d);
							*a += d;
						} else {
#pragma unroll
							for (int i = 0; i < VEC; i++)
								*a = fmaf(wf[i], xf[i], *a);
						}
					}
				}
			}
		}

		gemv_warp_reduce<P>(acc, lane);
		constexpr int OWNED = P > 32 ? P / 32 : 1;
		const int base = gemv_owned_base<P>(lane);
		const bool writer = lane < (P < 32 ? P : 32);
		if constexpr (WARPS == 1) {
			if (writer) {
#pragma unroll
				for (int j = 0; j < OWNED; j++)
					if (base + j < V)
						gemv_store<TY, ROWS, SPLIT>(Y, ws, base + j, acc[j], t0, n0, M, N);
			}
		} else {
			if (writer) {
#pragma unroll
				for (int j = 0; j < OWNED; j++)
					partial[warp][base + j] = acc[j];
			}
			__syncthreads();
			for (int idx = tid; idx < V; idx += THREADS) {
				float sum = 0.0f;
#pragma unroll
				for (int w = 0; w < WARPS; w++)
					sum += partial[w][idx];
				gemv_store<TY, ROWS, SPLIT>(Y, ws, idx, sum, t0, n0, M, N);
			}
			__syncthreads();   /* the next pass reuses partial[] */
		}
	}
}

/* gemv_store for the tail kernel: rows past N are not stored. */
template <typename TY, int ROWS, int SPLIT>
__device__ __forceinline__ void gemv_tail_store(TY *Y, float *ws, int idx, float val,
						int t0, int n0, int M, int N)
{
	const int token = t0 + idx / ROWS;
	const int n = n0 + idx % ROWS;
	if (token >= M || n >= N)
		return;
	if constexpr (SPLIT == 1)
		Y[(size_t)token * N + n] = gemv_convert<TY>(val);
	else
		ws[((size_t)blockIdx.y * M + token) * N + n] = val;
}

/*
 * gemv_load_w for the tail kernel, whose loads sit under tests of the
 * split's K range: volatile, so the compiler never issues one ahead of its
 * test. (gemv_load_w's asm is not volatile, so the compiler takes it for
 * free of side effects: NVVM hoists an UNROLL = 1 tail kernel's first
 * loads above the K loop's test and out of the token loop, where a thread
 * past its split's last chunk reads past W's end.)
 */
template <int CACHE>
__device__ __forceinline__ uint4 gemv_load_w_guarded(const void *p, unsigned long long policy)
{
	uint4 v;
	if constexpr (CACHE == GEMV_CACHE_DEFAULT)
		asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	else if constexpr (CACHE == GEMV_CACHE_CG)
		asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	else if constexpr (CACHE == GEMV_CACHE_NC_NA)
		asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	else if constexpr (CACHE == GEMV_CACHE_EVICT_FIRST)
		asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
			     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
	else
		asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
			     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
	return v;
}

/* The chunk a tail load reads: c, clamped into its split's range (below
 * c_end), so that no address the kernel forms lies outside W or X. */
__device__ __forceinline__ size_t gemv_tail_chunk(int c, int c_end)
{
	return (size_t)(c < c_end ? c : c_end - 1);
}

template <typename TW, typename TY, int WARPS, int ROWS, int TOKENS, int UNROLL, int SPLIT, int CACHE>
__global__ void __launch_bounds__(WARPS * 32)
gemv_tail_kernel(const TW *W, const __nv_bfloat16 *X, TY *Y, float *ws, int M, int N, int K)
{
	static_assert(sizeof(TW) == 2 || sizeof(TW) == 4, "weights must be bf16 or float");
	static_assert(sizeof(TY) == 2 || sizeof(TY) == 4, "output must be bf16 or float");
	static_assert(WARPS >= 1 && WARPS <= 32, "warps must be in [1, 32]");
	static_assert(ROWS >= 1 && ROWS <= 16, "rows must be in [1, 16]");
	static_assert(TOKENS >= 1 && TOKENS <= 16, "tokens must be in [1, 16]");
	static_assert(UNROLL >= 1 && UNROLL <= 8, "unroll must be in [1, 8]");
	static_assert(SPLIT >= 1 && SPLIT <= 64, "split must be in [1, 64]");
	static_assert(CACHE >= GEMV_CACHE_DEFAULT && CACHE <= GEMV_CACHE_NC_NA_EVICT_FIRST,
		      "cache must be in [0, 4]");

	constexpr int THREADS = WARPS * 32;
	constexpr int VEC = 16 / sizeof(TW);
	constexpr int V = ROWS * TOKENS;
	constexpr int P = gemv_pow2_ceil(V);
	constexpr bool SHORT_CHAINS = V < 8 && UNROLL > 1;

	__shared__ float partial[WARPS > 1 ? WARPS : 1][P];

	const int tid = threadIdx.x;
	const int lane = tid & 31;
	const int warp = tid >> 5;
	const int n0 = blockIdx.x * ROWS;
	/* this split's 16-byte chunks of K: [c_begin, c_end) */
	const int nchunks = K / VEC;
	const int c_begin = (int)((long long)blockIdx.y * nchunks / SPLIT);
	const int c_end = (int)((long long)(blockIdx.y + 1) * nchunks / SPLIT);
	const TW *wrow[ROWS];
#pragma unroll
	for (int r = 0; r < ROWS; r++)
		wrow[r] = W + (size_t)(n0 + r < N ? n0 + r : N - 1) * K;
	const unsigned long long policy = gemv_make_policy<CACHE>();

	for (int t0 = 0; t0 < M; t0 += TOKENS) {
		float acc[P];
#pragma unroll
		for (int i = 0; i < P; i++)
			acc[i] = 0.0f;

		for (int c = c_begin + tid; c < c_end; c += THREADS * UNROLL) {
			uint4 wv[UNROLL][ROWS];
#pragma unroll
			for (int u = 0; u < UNROLL; u++)
#pragma unroll
				for (int r = 0; r < ROWS; r++)
					wv[u][r] = c + u * THREADS < c_end
						? gemv_load_w_guarded<CACHE>(wrow[r] + gemv_tail_chunk(c + u * THREADS, c_end) * VEC,
									     policy)
						: make_uint4(0, 0, 0, 0);

#pragma unroll
			for (int u = 0; u < UNROLL; u++) {
				if (c + u * THREADS >= c_end)
					break;
#pragma unroll
				for (int t = 0; t < TOKENS; t++) {
					const int token = t0 + t < M ? t0 + t : M - 1;
					float xf[VEC];
					gemv_load_x<VEC>(X + (size_t)token * K + gemv_tail_chunk(c + u * THREADS, c_end) * VEC, xf);
#pragma unroll
					for (int r = 0; r < ROWS; r++) {
						float wf[VEC];
						gemv_unpack_w<TW>(wv[u][r], wf);
						float *a = &acc[t * ROWS + r];
						if constexpr (SHORT_CHAINS) {
							float d = wf[0] * xf[0];
#pragma unroll
							for (int i = 1; i < VEC; i++)
								d = fmaf(wf[i], xf[i], d);
							*a += d;
						} else {
#pragma unroll
							for (int i = 0; i < VEC; i++)
								*a = fmaf(wf[i], xf[i], *a);
						}
					}
				}
			}
		}

		gemv_warp_reduce<P>(acc, lane);
		constexpr int OWNED = P > 32 ? P / 32 : 1;
		const int base = gemv_owned_base<P>(lane);
		const bool writer = lane < (P < 32 ? P : 32);
		if constexpr (WARPS == 1) {
			if (writer) {
#pragma unroll
				for (int j = 0; j < OWNED; j++)
					if (base + j < V)
						gemv_tail_store<TY, ROWS, SPLIT>(Y, ws, base + j, acc[j], t0,
										 n0, M, N);
			}
		} else {
			if (writer) {
#pragma unroll
				for (int j = 0; j < OWNED; j++)
					partial[warp][base + j] = acc[j];
			}
			__syncthreads();
			for (int idx = tid; idx < V; idx += THREADS) {
				float sum = 0.0f;
#pragma unroll
				for (int w = 0; w < WARPS; w++)
					sum += partial[w][idx];
				gemv_tail_store<TY, ROWS, SPLIT>(Y, ws, idx, sum, t0, n0, M, N);
			}
			__syncthreads();
		}
	}
}

/* Y[i] = sum over splits of ws[split][i], in FP32, for i < M*N. */
template <typename TY>
__global__ void __launch_bounds__(GEMV_REDUCE_THREADS)
gemv_splitk_reduce(const float *ws, TY *Y, int splits, int M, int N)
{
	const size_t total = (size_t)M * N;
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
		float sum = 0.0f;
#pragma unroll 8
		for (int s = 0; s < splits; s++)
			sum += ws[s * total + i];
		Y[i] = gemv_convert<TY>(sum);
	}
}
