/*
 * mma_frag.cuh: tensor-core GEMM for a handful of tokens with no split-K
 * and no shared memory in its loop, Y[M,N] = X[M,K] * W[N,K]^T with W, X
 * and Y bf16 and FP32 accumulation.
 *
 * A block owns NT groups of 8 weight rows over all of K and TOK (8 or 16)
 * tokens; nothing is combined across blocks. mma.sync m16n8k16 takes the
 * tokens on its M side (TOK 8: rows 8-15 are zero) and the weights on its
 * N side (a token row past M repeats row M - 1: its sums are never
 * stored). Lane (g, t) of a warp (g = lane / 4, t = lane % 4) feeds the k
 * slots 2t, 2t+1, 2t+8, 2t+9 of two k16 steps with the real k 8t .. 8t+7
 * of each 32: token g's 16 contiguous bytes there are its A registers
 * a0, a2 (then a1, a3 from token g + 8), weight row g's its B registers.
 * The same permutation of k on both sides leaves every product as it is,
 * and every load is 16 contiguous bytes straight into the registers the
 * MMA takes: no ldmatrix, no shared-memory ring.
 *
 * W is read packed in 8 x 32 tiles (RELAYOUT_TILES with rows 8, cols 32,
 * templates/pack.cuh): tile (r, c) = rows 8r .. 8r+7, k 32c .. 32c+31 is
 * 512 contiguous bytes at element (r * K/32 + c) * 256, row g's 16-byte
 * chunk q at byte 64 g + 16 (q ^ ((g >> 1) & 3)) (the swizzle of a
 * 4-chunk row). Lane (g, t) takes chunk t of row g, so the eight lanes
 * of each quarter of a warp read one 128-byte line (rows 2p, 2p+1) and
 * the warp 512 contiguous bytes (in a diagnostic kernel the slice's
 * bytes at M = 8 read so take 2.91 us, against 3.30 for the rows as
 * given).
 *
 * The WARPS warps split K in equal contiguous ranges of 32-k chunks and
 * walk theirs U chunks at a time: U chunks of weights and tokens are in
 * flight from the start, and each chunk's registers are refilled with the
 * next batch's chunk as soon as its MMAs have read them. At the end the
 * warps' sums meet once in shared memory ([WARPS][TOK][LD] FP32, LD =
 * mma_frag_ld(8 NT)) and leave as bf16 pairs.
 *
 * Why this form (a diagnostic kernel, the slice's bytes at M = 8 on
 * 64 blocks of 16 rows and 16 warps, one batch of 8 chunks a warp): a
 * form with 8 x 8 tiles (a quarter-warp's lanes on four lines) and the
 * refill behind a branch in one loop takes 5.12 us against the diagnostic's
 * straight-line kernel's 3.01; with the last batch straight-line,
 * 4.35-4.42; with 8 x 32 tiles, 3.46-3.52; with the loads at immediate
 * offsets from one pointer per group (below), 3.17 with U = 4, the same
 * as the diagnostic kernel once it stores Y as this one does (3.17; 2.88
 * without the store).
 *
 * Tunable: WARPS, NT, TOK, U, the weights' cache policy (CACHE:
 * MMA_FRAG_CACHE_NA = ld.global.nc.L1::no_allocate, MMA_FRAG_CACHE_EF =
 * the same with an L2 evict_first policy) and KC: 0 walks K / (32 WARPS)
 * chunks a warp, counted at run time; KC > 0 is that count fixed when
 * compiled (the adapter's kfix: one kernel per K). With it the batch loop
 * has a constant trip count: the slice's bytes at M = 8 with 16 warps, 16
 * rows and U 8 read 3.10-3.14 us with KC 8 against 3.58-3.74 counted at
 * run time, and U 4 3.07-3.17 against 3.26-3.33 (a diagnostic kernel;
 * two accumulator chains per group instead of one: slower).
 *
 * Launch (plan/tmpl_mma_frag.c builds the plan):
 *   mma_frag_kernel<WARPS, NT, TOK, U, CACHE, KC>(W packed, X, Y, M, N, K):
 *       grid (ceil(M/TOK), N/(8 NT)), block WARPS*32, no dynamic shared
 *       memory. Requires N % (8 NT) == 0, K % (32 WARPS U) == 0 and, with
 *       KC > 0, K == 32 WARPS KC (another K traps); 16-byte aligned W, X
 *       and Y rows (K % 8 == 0, N % 8 == 0), any M >= 1.
 *
 * Compiled by NVRTC from this same text, in the tuner and for the library
 * (tools/gt_cubin.c): device code only (sm_90a), no host headers beyond
 * cuda_bf16.h.
 */
#pragma once

#include <cuda_bf16.h>

/* Weight load policies (the adapter's "cache" symbols, same order). */
#define MMA_FRAG_CACHE_NA 0
#define MMA_FRAG_CACHE_EF 1

__device__ __forceinline__ uint4 mma_frag_ld_na(const void *p)
{
	uint4 v;
	asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}

__device__ __forceinline__ uint4 mma_frag_ld_ef(const void *p, unsigned long long policy)
{
	uint4 v;
	asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p), "l"(policy));
	return v;
}

template <int CACHE>
__device__ __forceinline__ uint4 mma_frag_ld_w(const uint4 *p, unsigned long long policy)
{
	if constexpr (CACHE == MMA_FRAG_CACHE_EF)
		return mma_frag_ld_ef(p, policy);
	else
		return mma_frag_ld_na(p);
}

/* One m16n8k16 step: A = {a0, a1, a2, a3} (tokens g and g + 8), B = {b0, b1}. */
__device__ __forceinline__ void mma_frag_16816(float *c, unsigned a0, unsigned a1, unsigned a2,
					       unsigned a3, unsigned b0, unsigned b1)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
		     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
		     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* The two k16 steps of one 32-k chunk for every weight group: xv[h] holds
 * token rows h * 8 + g, wv[j] weight row g of group j. */
template <int NT, int XT>
__device__ __forceinline__ void mma_frag_step(float (*acc)[4], const uint4 *xv, const uint4 *wv)
{
	const uint4 xa = xv[0];
	/* one token group: rows 8-15 of A are zero */
	const uint4 xb = XT > 1 ? xv[XT - 1] : make_uint4(0, 0, 0, 0);
#pragma unroll
	for (int j = 0; j < NT; j++) {
		mma_frag_16816(acc[j], xa.x, xb.x, xa.y, xb.y, wv[j].x, wv[j].y);
		mma_frag_16816(acc[j], xa.z, xb.z, xa.w, xb.w, wv[j].z, wv[j].w);
	}
}

/* The padded row of the warps' sums (floats): ROWS rounded up to 8 (mod
 * 32). plan/tmpl_mma_frag.c sizes the shared memory with the same rule. */
__host__ __device__ constexpr int mma_frag_ld(int rows)
{
	return rows + (40 - rows % 32) % 32;
}

template <int WARPS, int NT, int TOK, int U, int CACHE, int KC>
__global__ void __launch_bounds__(WARPS * 32, 1)
mma_frag_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y, int M, int N,
		int K)
{
	static_assert(WARPS >= 1 && WARPS <= 32, "warps in [1, 32]");
	static_assert(NT >= 1 && NT <= 8, "nt in [1, 8]");
	static_assert(TOK == 8 || TOK == 16, "tok is 8 or 16");
	static_assert(U >= 1 && U <= 16, "u in [1, 16]");
	static_assert(KC >= 0 && KC % U == 0, "kc is 0 or whole batches of u");
	constexpr int XT = TOK / 8;     /* token groups of 8 */
	constexpr int ROWS = 8 * NT;
	/* the warps' sums, a token's row padded to LD = 8 (mod 32) floats so
	 * that the 16 lanes of each half-warp's 8-byte stores (tokens g .. g+3
	 * by t) fall on 32 distinct banks (with LD = ROWS the 8 lanes of one
	 * t shared banks: 4-way at 16 rows, 8-way at 32) */
	constexpr int LD = mma_frag_ld(ROWS);
	__shared__ __align__(16) float red[WARPS][TOK][LD];

	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int t0 = blockIdx.x * TOK;
	const int group0 = blockIdx.y * NT;     /* first 8-row group */
	const int kq = K / 8;                   /* 16-byte units of a row */
	/* 32-k chunks of a warp: KC when given (K = 32 WARPS KC), so that the
	 * batches are a constant count the compiler lays out straight */
	const int per_warp = KC > 0 ? KC : K / 32 / WARPS;
	/* a kernel compiled for another K would leave chunks out or read past
	 * the rows: stop it rather than store a wrong Y */
	if (KC > 0 && K != 32 * WARPS * KC)
		__trap();
	const int batches = per_warp / U;
	const int c0 = warp * per_warp;

	unsigned long long policy = 0;
	if constexpr (CACHE == MMA_FRAG_CACHE_EF)
		asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));

	const uint4 *w4 = reinterpret_cast<const uint4 *>(W);
	const uint4 *x4 = reinterpret_cast<const uint4 *>(X);
	/* A token row past M reads row M - 1 again: row m of the product
	 * depends on row m of A only, and the rows past M are never stored,
	 * so no load waits behind a branch. One pointer per token group and
	 * per weight group at this warp's first chunk; a chunk i further is
	 * a constant offset (64 bytes of a token row, 512 of a weight
	 * group), which each load takes as an immediate (the SASS of the
	 * 16 x 2 x 8 tile: LDG [R.64+0x200] ...) instead of a 64-bit address
	 * register of its own. */
	const uint4 *xp[XT], *wp[NT];
#pragma unroll
	for (int h = 0; h < XT; h++)
		xp[h] = x4 + (size_t)min(t0 + h * 8 + g, M - 1) * kq + c0 * 4 + t;
	/* chunk t of row g: templates/pack.cuh's gt_tile_swizzle(4, g, t) */
	const int wlane = g * 4 + (t ^ ((g >> 1) & 3));
#pragma unroll
	for (int j = 0; j < NT; j++)
		wp[j] = w4 + ((size_t)(group0 + j) * (kq / 4) + c0) * 32 + wlane;

	uint4 wv[U][NT], xv[U][XT];
	/* chunk i of the batch the pointers are at, into its registers */
	auto load = [&](int i) {
#pragma unroll
		for (int h = 0; h < XT; h++)
			xv[i][h] = mma_frag_ld_na(xp[h] + i * 4);
#pragma unroll
		for (int j = 0; j < NT; j++)
			wv[i][j] = mma_frag_ld_w<CACHE>(wp[j] + i * 32, policy);
	};
#pragma unroll
	for (int i = 0; i < U; i++)
		load(i);

	float acc[NT][4];
#pragma unroll
	for (int j = 0; j < NT; j++)
		acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;

	/* steady state: each chunk's registers refilled from the next batch
	 * as soon as its MMAs have read them; then the last batch straight,
	 * with no branch between it and its loads */
	for (int b = 1; b < batches; b++) {
#pragma unroll
		for (int h = 0; h < XT; h++)
			xp[h] += U * 4;
#pragma unroll
		for (int j = 0; j < NT; j++)
			wp[j] += U * 32;
#pragma unroll
		for (int i = 0; i < U; i++) {
			mma_frag_step<NT, XT>(acc, xv[i], wv[i]);
			load(i);
		}
	}
#pragma unroll
	for (int i = 0; i < U; i++)
		mma_frag_step<NT, XT>(acc, xv[i], wv[i]);

	/* c0, c1: token g, rows 2t, 2t+1 of group j; c2, c3: token g + 8 */
#pragma unroll
	for (int j = 0; j < NT; j++) {
		*reinterpret_cast<float2 *>(&red[warp][g][j * 8 + 2 * t]) =
			make_float2(acc[j][0], acc[j][1]);
		if constexpr (TOK == 16)
			*reinterpret_cast<float2 *>(&red[warp][g + 8][j * 8 + 2 * t]) =
				make_float2(acc[j][2], acc[j][3]);
	}
	__syncthreads();
	/* one bf16 pair of Y per thread: the warps' sums added in warp order */
	for (int u = threadIdx.x; u < TOK * ROWS / 2; u += WARPS * 32) {
		const int tok = u / (ROWS / 2), r = u % (ROWS / 2) * 2;
		if (t0 + tok >= M)
			continue;
		float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
		for (int w = 0; w < WARPS; w++) {
			const float2 v = *reinterpret_cast<const float2 *>(&red[w][tok][r]);
			s0 += v.x;
			s1 += v.y;
		}
		*reinterpret_cast<__nv_bfloat162 *>(Y + (size_t)(t0 + tok) * N + group0 * 8 + r) =
			__floats2bfloat162_rn(s0, s1);
	}
}
