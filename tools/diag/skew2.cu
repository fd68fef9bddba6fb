/*
 * tools/diag/skew2.cu: the unpooler slice at M = 8 (N 1024, K 4096) on
 * clusters of two blocks that split K unevenly (session 16). A diagnostic,
 * not part of gemmtab.
 *
 * mma_frag (the committed kernel) gives each of 64 blocks 16 weight rows
 * over all of K: every SM it runs on takes 128 KiB of weights and all 64
 * KiB of tokens, and nothing crosses SMs. One block per SM pulls at most
 * ~60 GB/s (run 203), so those 192 KiB set its time; 128 blocks of 8 rows
 * halve the weights an SM takes but double the token bytes the L2 sends
 * (runs 204-205: slower). Here the 16 rows of a pair are split by K over
 * two blocks of a cluster: together they read the pair's weights and the
 * tokens once (the L2's output as mma_frag's), on 128 SMs, each taking
 * its share only. The helper (rank 0) takes the first A_PW chunks of 32 k
 * of each of its warps, the owner (rank 1) B_PW; the helper finishes
 * first and pushes its 16 x 8 FP32 sums into the owner's shared memory
 * (st.shared::cluster, then a release arrive on the owner's mbarrier per
 * pushing thread), which the owner adds to its own before it stores Y:
 * if the helper's share ends enough earlier, the push (~0.5 us, runs
 * 196-202) hides behind the owner's longer stream.
 *
 * Every load of a warp is issued before its first MMA (skew_body); W
 * packed in 8 x 32 tiles, read and multiplied as templates/mma_frag.cuh
 * does. Cases, in one batch under WORKLOAD.md's method (diag.cuh): the
 * probe's streaming read of the 8.4 MB, the library's committed slice
 * call at M = 8 (gt_linear), the template's kernel itself on these bytes
 * (U 4 and 8, its KC 0 and 8: a warp's chunk count counted at run time
 * or fixed when compiled), the same kernel shape with all loads up front
 * (one block, no cluster: "whole"), and the skewed pairs. Each form's Y
 * is first checked against an FP32 reference of the same bytes.
 *
 * Seen (runs 224-226, docs/notes.md): the pairs 3.39-4.10 us against
 * whole's 3.14-3.23 (refuted: the push costs more than the ingress
 * saves); a warp's chunk count fixed when compiled, u 8 3.10-3.14 against
 * 3.58-3.74 counted at run time, u 4 3.07-3.17 against 3.26-3.33: the
 * template's KC (kfix) since. Run 226 measured that through a copy of
 * the kernel kept here, with a second change (two accumulator chains per
 * group: slower); the template's own KC 8 forms replace the copy.
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/skew2 [reps]
 */
#include "diag_lib.cuh"
#include "mma_frag.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int N = 1024, K = 4096, M = 8, COPIES = 4;
constexpr int KQ = K / 8;               /* 16-byte units of a row */
constexpr int CHUNKS = K / 32;          /* 32-k chunks of a row */
constexpr int NT = 2, ROWS = 8 * NT;    /* 16 rows a block (pair) */
constexpr int PUSH = 8 * ROWS / 2;      /* float2 sums of a block */

/* One warp's PW chunks from chunk c0 on, every load issued before the
 * first MMA: acc[j] = token rows 0-7 (A rows 8-15 zero) x group j. */
template <int PW>
__device__ __forceinline__ void skew_body(const __nv_bfloat16 *W, const __nv_bfloat16 *X,
					  float (*acc)[4], int group0, int c0)
{
	const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	const uint4 *xp = reinterpret_cast<const uint4 *>(X) + (size_t)g * KQ + c0 * 4 + t;
	const uint4 *wp[NT];
	const int wlane = g * 4 + diag_frag_swizzle(g, t);
#pragma unroll
	for (int j = 0; j < NT; j++)
		wp[j] = reinterpret_cast<const uint4 *>(W) +
			((size_t)(group0 + j) * (KQ / 4) + c0) * 32 + wlane;
	uint4 xv[PW], wv[PW][NT];
#pragma unroll
	for (int i = 0; i < PW; i++) {
		xv[i] = mma_frag_ld_na(xp + i * 4);
#pragma unroll
		for (int j = 0; j < NT; j++)
			wv[i][j] = mma_frag_ld_na(wp[j] + i * 32);
	}
#pragma unroll
	for (int j = 0; j < NT; j++)
		acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
#pragma unroll
	for (int i = 0; i < PW; i++)
		mma_frag_step<NT, 1>(acc, &xv[i], wv[i]);
}

/* The warps' sums: red[WARPS][8][LD] from each warp's acc, then thread u
 * < PUSH's pair (token u / (ROWS/2), rows 2 (u % (ROWS/2)), +1). */
template <int WARPS>
__device__ __forceinline__ float2 skew_sum(float *red, const float (*acc)[4], int u)
{
	constexpr int LD = mma_frag_ld(ROWS);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
#pragma unroll
	for (int j = 0; j < NT; j++)
		*reinterpret_cast<float2 *>(red + ((size_t)warp * 8 + g) * LD + j * 8 + 2 * t) =
			make_float2(acc[j][0], acc[j][1]);
	__syncthreads();
	float2 s = make_float2(0.0f, 0.0f);
	if (u < PUSH)
		diag_part_add<WARPS, 8, LD>(s, red, u / (ROWS / 2), u % (ROWS / 2) * 2);
	return s;
}

__device__ __forceinline__ void skew_store(__nv_bfloat16 *Y, int pair, int u, float2 s)
{
	const int tok = u / (ROWS / 2), r = u % (ROWS / 2) * 2;
	*reinterpret_cast<__nv_bfloat162 *>(Y + (size_t)tok * N + pair * ROWS + r) =
		__floats2bfloat162_rn(s.x, s.y);
}

/* One block a pair of groups over all of K (mma_frag's grid, loads up
 * front): grid N / ROWS. */
template <int WARPS>
__global__ void __launch_bounds__(WARPS * 32, 1)
k_whole(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y)
{
	constexpr int PW = CHUNKS / WARPS;
	__shared__ __align__(16) float red[WARPS * 8 * mma_frag_ld(ROWS)];
	float acc[NT][4];
	skew_body<PW>(W, X, acc, blockIdx.x * NT, (threadIdx.x >> 5) * PW);
	const float2 s = skew_sum<WARPS>(red, acc, threadIdx.x);
	if ((int)threadIdx.x < PUSH)
		skew_store(Y, blockIdx.x, threadIdx.x, s);
}

/* The skewed pair: grid (2, N / ROWS), clusters of (2, 1, 1). */
template <int WARPS, int A_PW, int B_PW>
__global__ void __launch_bounds__(WARPS * 32, 1)
k_skew(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y)
{
	static_assert((A_PW + B_PW) * WARPS == CHUNKS, "the pair covers K once");
	static_assert(PUSH <= WARPS * 32, "one pushed pair a thread");
	__shared__ __align__(16) float red[WARPS * 8 * mma_frag_ld(ROWS)];
	__shared__ __align__(16) float2 slot[PUSH];
	__shared__ __align__(8) unsigned long long bar;
	const unsigned rank = ctarank();
	const int warp = threadIdx.x >> 5, u = threadIdx.x;
	if (rank == 1 && threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&bar)), "r"(PUSH)
			     : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	/* the owner's barrier is initialized before the helper's first
	 * remote access (the helper waits on this phase before its push) */
	asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
	float acc[NT][4];
	if (rank == 0)
		skew_body<A_PW>(W, X, acc, blockIdx.y * NT, warp * A_PW);
	else
		skew_body<B_PW>(W, X, acc, blockIdx.y * NT, WARPS * A_PW + warp * B_PW);
	const float2 s = skew_sum<WARPS>(red, acc, u);
	if (rank == 0) {
		asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
		if (u < PUSH) {
			const unsigned dst = mapa(smem_u32(&slot[u]), 1);
			asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(dst), "f"(s.x),
				     "f"(s.y)
				     : "memory");
			asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
					     mapa(smem_u32(&bar), 1))
				     : "memory");
		}
		return;
	}
	diag_mbar_wait<true>(smem_u32(&bar));
	if (u < PUSH) {
		const float2 h = slot[u];
		skew_store(Y, blockIdx.y, u, make_float2(s.x + h.x, s.y + h.y));
	}
}

struct form {
	const char *name;
	const void *fn;
	dim3 grid;
	int threads, cluster;
	bool frag;      /* mma_frag_kernel's argument list */
};

template <int WARPS, int A_PW, int B_PW>
form skew(const char *name)
{
	return { name, (const void *)k_skew<WARPS, A_PW, B_PW>, dim3(2, N / ROWS), WARPS * 32, 2, false };
}

void launch(const form &f, const __nv_bfloat16 *w, const __nv_bfloat16 *x, __nv_bfloat16 *y,
	    cudaStream_t s)
{
	int m = M, n = N, k = K;
	void *fargs[] = { (void *)&w, (void *)&x, (void *)&y, &m, &n, &k };
	void *args[] = { (void *)&w, (void *)&x, (void *)&y };
	diag_launch(f.fn, f.grid, f.threads, 0, f.cluster, f.frag ? fargs : args, s);
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const cudaStream_t s = diag_stream();
	__nv_bfloat16 *w[COPIES], *x[COPIES], *y;
	float *got;
	diag_inputs(w, x, &y, COPIES, N, K, M, 300, 400, s);
	CHECK(cudaMalloc(&got, (size_t)M * N * sizeof(float)));

	const std::vector<form> forms = {
		{ "mma_frag 16w nt2 u4", (const void *)mma_frag_kernel<16, 2, 8, 4, MMA_FRAG_CACHE_NA, 0>,
		  dim3(1, N / ROWS), 512, 1, true },
		{ "mma_frag 16w nt2 u8", (const void *)mma_frag_kernel<16, 2, 8, 8, MMA_FRAG_CACHE_NA, 0>,
		  dim3(1, N / ROWS), 512, 1, true },
		{ "mma_frag 16w nt2 u8 ef", (const void *)mma_frag_kernel<16, 2, 8, 8, MMA_FRAG_CACHE_EF, 0>,
		  dim3(1, N / ROWS), 512, 1, true },
		/* KC 8: a warp's chunk count fixed when compiled (K = 32 x 16 x 8) */
		{ "mma_frag 16w nt2 u8 kc8", (const void *)mma_frag_kernel<16, 2, 8, 8, MMA_FRAG_CACHE_NA, 8>,
		  dim3(1, N / ROWS), 512, 1, true },
		{ "mma_frag 16w nt2 u4 kc8", (const void *)mma_frag_kernel<16, 2, 8, 4, MMA_FRAG_CACHE_NA, 8>,
		  dim3(1, N / ROWS), 512, 1, true },
		{ "whole 16w (64 blocks)", (const void *)k_whole<16>, dim3(N / ROWS), 512, 1, false },
		{ "whole 8w (64 blocks)", (const void *)k_whole<8>, dim3(N / ROWS), 256, 1, false },
		{ "whole 32w (64 blocks)", (const void *)k_whole<32>, dim3(N / ROWS), 1024, 1, false },
		skew<16, 2, 6>("pair 16w 2+6"),
		skew<8, 6, 10>("pair 8w 6+10"),
	};

	const std::vector<float> r = diag_ref_frag(w[0], x[0], M, N, K, s);
	for (const form &f : forms)
		diag_check_call(f.name, y, got, r, s, [&] { launch(f, w[0], x[0], y, s); });

	/* beside the library's committed slice call (its own packed copy of w[c]) */
	diag_lib_batch("skew2 (the slice, M = 8)", "stream 8.4 MB", "lib slice 8", w, x, COPIES, N, K,
		       M, y, forms,
		       [&](const form &f, int c, cudaStream_t st) { launch(f, w[c], x[c], y, st); },
		       reps, s);
	return 0;
}
