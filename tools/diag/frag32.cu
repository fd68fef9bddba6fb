/*
 * tools/diag/frag32.cu: can qkv at M = 32 (N 2304, K 8192) read its
 * weights straight into mma.sync's registers, as templates/mma_frag.cuh
 * does for a handful of tokens, faster than the committed cluster kernel
 * (mma_skinny: cp.async ring, ldmatrix, split 8, the push combine)? A
 * diagnostic, not part of gemmtab (session 16).
 *
 * k_frag32<WARPS, NT, S, U>: a block owns NT groups of 8 weight rows and
 * 1/S of K for all 32 tokens; its warps split that K range; lane (g, t)
 * loads 16 bytes of token rows g, g+8, g+16, g+24 and of weight row g of
 * each group per 32 k (W packed 8 x 32 as RELAYOUT_TILES, read as
 * mma_frag reads it) and feeds two m16n8k16 token tiles (mma_frag's k
 * permutation). The warps' sums meet in shared memory; each block stores
 * its FP32 partial tile to a scratch buffer (the S partials are NOT
 * combined: the bytes and the MMAs are what is timed, as run 101 timed
 * the committed kernel "without either" of its combine's parts).
 * (__launch_bounds__ asks for 3 blocks an SM at NT <= 4: their 288 blocks
 * in one wave.) k_frag32c: the same with the S split blocks as one cluster, the
 * partials pushed into the owner's shared memory slots (one owner per
 * 1/S of the tile's rows) behind one cluster barrier, and Y stored as
 * bf16: a complete kernel.
 *
 * Cases, in one batch under WORKLOAD.md's method (tools/diag/diag.cuh):
 * the probe's streaming read of the 37.7 MB, the library's committed
 * qkv 32 call (gt_linear: the table compiled into build/lib), and the
 * k_frag32 forms. A check first compares every form's Y (summed partials)
 * with an FP32 reference kernel of the same packed bytes.
 *
 * Build: bash tools/diag/build.sh; run: build/diag/frag32 [reps]
 */
#include "diag_lib.cuh"
#include "mma_frag.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int N = 2304, K = 8192, M = 32, COPIES = 4;
constexpr int KQ = K / 8;       /* 16-byte units of a row */

/* The loads and MMAs of one block: acc[q][j] = token tile q (16 tokens),
 * weight group j, over this block's K range. */
template <int WARPS, int NT, int S, int U>
__device__ __forceinline__ void frag32_body(const __nv_bfloat16 *W, const __nv_bfloat16 *X,
					    float (*acc)[NT][4], int split, int group0)
{
	constexpr int CHUNKS = K / 32 / S / WARPS;      /* 32-k chunks of a warp */
	static_assert(CHUNKS % U == 0, "chunks of a warp divide by U");
	constexpr int BATCHES = CHUNKS / U;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int c0 = (split * WARPS + warp) * CHUNKS;
	const uint4 *x4 = reinterpret_cast<const uint4 *>(X);
	const uint4 *w4 = reinterpret_cast<const uint4 *>(W);
	const uint4 *xp[4], *wp[NT];
#pragma unroll
	for (int h = 0; h < 4; h++)
		xp[h] = x4 + (size_t)(h * 8 + g) * KQ + c0 * 4 + t;
	const int wlane = g * 4 + diag_frag_swizzle(g, t);
#pragma unroll
	for (int j = 0; j < NT; j++)
		wp[j] = w4 + ((size_t)(group0 + j) * (KQ / 4) + c0) * 32 + wlane;

	uint4 xv[U][4], wv[U][NT];
	/* chunk i of the current batch into its registers */
	auto load = [&](int i) {
#pragma unroll
		for (int h = 0; h < 4; h++)
			xv[i][h] = mma_frag_ld_na(xp[h] + i * 4);
#pragma unroll
		for (int j = 0; j < NT; j++)
			wv[i][j] = mma_frag_ld_na(wp[j] + i * 32);
	};
	auto multiply = [&](int i) {
		mma_frag_step<NT, 2>(acc[0], &xv[i][0], wv[i]);
		mma_frag_step<NT, 2>(acc[1], &xv[i][2], wv[i]);
	};
#pragma unroll
	for (int i = 0; i < U; i++)
		load(i);
#pragma unroll
	for (int q = 0; q < 2; q++)
#pragma unroll
		for (int j = 0; j < NT; j++)
			acc[q][j][0] = acc[q][j][1] = acc[q][j][2] = acc[q][j][3] = 0.0f;
	for (int b = 1; b < BATCHES; b++) {
#pragma unroll
		for (int h = 0; h < 4; h++)
			xp[h] += U * 4;
#pragma unroll
		for (int j = 0; j < NT; j++)
			wp[j] += U * 32;
#pragma unroll
		for (int i = 0; i < U; i++) {
			multiply(i);
			load(i);
		}
	}
#pragma unroll
	for (int i = 0; i < U; i++)
		multiply(i);
}

/* The warps' sums into red[WARPS][32][LD] (c0, c1: token 16q + g; c2, c3:
 * token 16q + 8 + g; rows 8j + 2t, +1). */
template <int WARPS, int NT>
__device__ __forceinline__ void frag32_spill(float *red, const float (*acc)[NT][4])
{
	constexpr int LD = mma_frag_ld(8 * NT);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
#pragma unroll
	for (int q = 0; q < 2; q++)
#pragma unroll
		for (int j = 0; j < NT; j++) {
			float *r0 = red + ((size_t)warp * 32 + 16 * q + g) * LD + j * 8 + 2 * t;
			*reinterpret_cast<float2 *>(r0) = make_float2(acc[q][j][0], acc[q][j][1]);
			*reinterpret_cast<float2 *>(r0 + 8 * LD) = make_float2(acc[q][j][2], acc[q][j][3]);
		}
}

/* Partials only: part[(group block, split)][32][8 NT] FP32. grid (S, N/(8 NT)). */
template <int WARPS, int NT, int S, int U>
__global__ void __launch_bounds__(WARPS * 32, NT <= 4 ? 3 : 1)
k_frag32(const __nv_bfloat16 *W, const __nv_bfloat16 *X, float *part)
{
	constexpr int ROWS = 8 * NT;
	extern __shared__ __align__(16) float red[];
	float acc[2][NT][4];
	frag32_body<WARPS, NT, S, U>(W, X, acc, blockIdx.x, blockIdx.y * NT);
	frag32_spill<WARPS, NT>(red, acc);
	__syncthreads();
	float *out = part + ((size_t)blockIdx.y * S + blockIdx.x) * 32 * ROWS;
	for (int u = threadIdx.x; u < 32 * ROWS / 2; u += WARPS * 32) {
		const int tok = u / (ROWS / 2), r = u % (ROWS / 2) * 2;
		*reinterpret_cast<float2 *>(out + tok * ROWS + r) =
			diag_part_sum<WARPS, 32, mma_frag_ld(ROWS)>(red, tok, r);
	}
}

/* The complete kernel: the S split blocks of a group block are one
 * cluster; block rank s owns rows [s ROWS/S, (s+1) ROWS/S) of the tile
 * and receives every peer's partial of them in slots[S][32][ROWS/S]; one
 * release/acquire cluster barrier; the owner sums and stores bf16 Y. */
template <int WARPS, int NT, int S, int U>
__global__ void __launch_bounds__(WARPS * 32, NT <= 4 ? 3 : 1)
k_frag32c(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y)
{
	constexpr int ROWS = 8 * NT, LD = mma_frag_ld(ROWS), OWN = ROWS / S;
	static_assert(ROWS % (2 * S) == 0, "an owner's rows are whole pairs");
	extern __shared__ __align__(16) float red[];
	float *slots = red + (size_t)WARPS * 32 * LD;   /* [S][32][OWN] */
	float acc[2][NT][4];
	const unsigned rank = ctarank();
	frag32_body<WARPS, NT, S, U>(W, X, acc, blockIdx.x, blockIdx.y * NT);
	frag32_spill<WARPS, NT>(red, acc);
	__syncthreads();
	/* the block's sums, pushed: pair (tok, r) to owner r / OWN's slot */
	for (int u = threadIdx.x; u < 32 * ROWS / 2; u += WARPS * 32) {
		const int tok = u / (ROWS / 2), r = u % (ROWS / 2) * 2;
		const float2 sum = diag_part_sum<WARPS, 32, LD>(red, tok, r);
		const unsigned owner = r / OWN;
		const float *dst = slots + ((size_t)rank * 32 + tok) * OWN + r % OWN;
		const unsigned ra = mapa(smem_u32(dst), owner);
		asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(ra), "f"(sum.x), "f"(sum.y)
			     : "memory");
	}
	asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
	asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
	const int row0 = blockIdx.y * ROWS + rank * OWN;
	for (int u = threadIdx.x; u < 32 * OWN / 2; u += WARPS * 32) {
		const int tok = u / (OWN / 2), r = u % (OWN / 2) * 2;
		const float2 s = diag_part_sum<S, 32, OWN>(slots, tok, r);
		*reinterpret_cast<__nv_bfloat162 *>(Y + (size_t)tok * N + row0 + r) =
			__floats2bfloat162_rn(s.x, s.y);
	}
}

struct form {
	const char *name;
	const void *fn;
	int nt, s, threads;
	bool cluster;
	size_t smem;
};

template <int WARPS, int NT, int S, int U, bool CLUSTER>
form make_form(const char *name)
{
	constexpr bool cluster = CLUSTER;
	const size_t red = (size_t)WARPS * 32 * mma_frag_ld(8 * NT) * sizeof(float);
	const size_t slots = cluster ? (size_t)32 * 8 * NT * sizeof(float) : 0;
	const void *fn;
	if constexpr (CLUSTER)
		fn = (const void *)k_frag32c<WARPS, NT, S, U>;
	else
		fn = (const void *)k_frag32<WARPS, NT, S, U>;
	form f{ name, fn, NT, S, WARPS * 32, cluster, red + slots };
	CHECK(cudaFuncSetAttribute(f.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)f.smem));
	if (cluster)
		CHECK(cudaFuncSetAttribute(f.fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
	return f;
}

void launch(const form &f, const __nv_bfloat16 *w, const __nv_bfloat16 *x, void *out, cudaStream_t s)
{
	void *args[] = { (void *)&w, (void *)&x, &out };
	diag_launch(f.fn, dim3(f.s, N / (8 * f.nt)), f.threads, f.smem, f.cluster ? f.s : 1, args, s);
}

__global__ void k_sum_partials(const float *part, float *y, int nt, int s)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= M * N)
		return;
	const int m = i / N, n = i % N, rows = 8 * nt, gb = n / rows, r = n % rows;
	float v = 0.0f;
	for (int p = 0; p < s; p++)
		v += part[((size_t)gb * s + p) * 32 * rows + m * rows + r];
	y[i] = v;
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const cudaStream_t s = diag_stream();
	__nv_bfloat16 *w[COPIES], *x[COPIES], *y;
	float *part, *got;
	diag_inputs(w, x, &y, COPIES, N, K, M, 100, 200, s);
	CHECK(cudaMalloc(&part, (size_t)M * N * 16 * sizeof(float)));
	CHECK(cudaMalloc(&got, (size_t)M * N * sizeof(float)));

	std::vector<form> forms = {
		/* 128 blocks (32 groups of 72 rows x 4 splits) */
		make_form<8, 9, 4, 1, false>("frag32 nt9 s4 w8 u1"),
		make_form<8, 9, 4, 2, false>("frag32 nt9 s4 w8 u2"),
		make_form<4, 9, 4, 2, false>("frag32 nt9 s4 w4 u2"),
		/* 256 blocks, two an SM */
		make_form<4, 9, 8, 1, false>("frag32 nt9 s8 w4 u1"),
		make_form<4, 9, 8, 2, false>("frag32 nt9 s8 w4 u2"),
		/* 288 blocks of 32 rows (mma_skinny's grid at split 4) */
		make_form<4, 4, 4, 2, false>("frag32 nt4 s4 w4 u2"),
		make_form<4, 4, 4, 4, false>("frag32 nt4 s4 w4 u4"),
		/* complete kernels: the push combine over the split cluster */
		make_form<4, 9, 4, 2, true>("frag32c nt9 s4 w4 u2"),
		make_form<8, 9, 4, 2, true>("frag32c nt9 s4 w8 u2"),
		make_form<4, 4, 4, 2, true>("frag32c nt4 s4 w4 u2"),
		make_form<4, 4, 8, 2, true>("frag32c nt4 s8 w4 u2"),
	};

	/* the check: every form's Y against the FP32 reference of copy 0 (the
	 * partials summed first) */
	const std::vector<float> r = diag_ref_frag(w[0], x[0], M, N, K, s);
	for (const form &f : forms) {
		if (f.cluster) {
			diag_check_call(f.name, y, got, r, s, [&] { launch(f, w[0], x[0], y, s); });
			continue;
		}
		launch(f, w[0], x[0], part, s);
		k_sum_partials<<<(M * N + 255) / 256, 256, 0, s>>>(part, got, f.nt, f.s);
		CHECK(cudaGetLastError());
		diag_check_f32(f.name, got, r, s);
	}

	/* beside the library's committed qkv 32 call on each copy */
	diag_lib_batch("frag32 (qkv, M = 32)", "stream 37.7 MB", "lib qkv 32", w, x, COPIES, N, K, M, y,
		       forms,
		       [&](const form &f, int c, cudaStream_t st) {
			       launch(f, w[c], x[c], f.cluster ? (void *)y : (void *)part, st);
		       },
		       reps, s);
	return 0;
}
