/*
 * tools/diag/tail.cu: qkv at M = 32 (N 2304, K 8192) with its split-K
 * push moved from the end of the stream into its middle (session 17). A
 * diagnostic, not part of gemmtab.
 *
 * The committed kernel (mma_skinny, split 8, a cluster of 8) ends with a
 * push of every split's partial into its owners' shared memory: ~0.8 us
 * after the last byte arrives (run 83), the hardware's latency of a store
 * to another SM and a barrier that waits for it (run 202). Giving one
 * block a larger share to hide it failed: a block cannot pull more than
 * its share at the GPU's rate (run 203). Here every block pulls the same
 * bytes, and every block is both a helper and an owner:
 *
 * A cluster of 4 blocks owns 64 weight rows (4 row groups of 16). Phase 1:
 * block i multiplies all 64 rows over its quarter of the first K - KF
 * columns (a 64-row tile: the tokens' bytes per weight byte as the
 * committed kernel's). Then warp w, which holds row group w's partial,
 * pushes it into block w's shared memory (st.async, counted in bytes by
 * block w's mbarrier) and goes on. Phase 2: block i
 * multiplies row group i alone over the last KF columns (its warps split
 * them), and at the end adds the three pushed partials, long arrived, to
 * its own and stores bf16 Y. Each block reads 16 rows x 8192 of weights,
 * as a split-4 block of 64 rows x 2048 does (144 blocks).
 * ORDER 1 runs phase 2 first and pushes at the end: the same bytes and
 * MMAs with the push exposed, the control. ORDER 2 pushes nothing (each
 * warp's phase-1 sums go to its own block's slot, so its Y is wrong: a
 * measure of the read and the MMAs only).
 *
 * W is read as if packed in mma.sync A-fragment order (16 x 16 tiles, a
 * lane's 16 bytes one LDS.128), X row-major through a cp.async ring into
 * XOR-swizzled rows read by ldmatrix. The bytes are random, so the packed
 * reading needs no packing: the FP32 reference reads them the same way.
 *
 * Cases, in one batch under WORKLOAD.md's method (diag.cuh): the probe's
 * streaming read of the 37.7 MB, the library's committed qkv 32 call
 * (gt_linear), and the forms. Each form's Y is first checked against the
 * reference.
 *
 * Seen (runs 235-236, 239-240; docs/notes.md): every form FP32-correct,
 * and 15.0-17.9 us against the library's 11.1-11.5: with no push at all
 * 15.0-15.6, so this mma.sync structure (4 warps an SM) is what is slow.
 * Without the MMAs (MMA false) pushing in the middle, last or not at all
 * reads the same, 11.2-11.6 us (run 240): no push cost to hide.
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/tail [reps]
 */
#include "diag_lib.cuh"
#include "mma_frag.cuh"     /* mma_frag_16816 */

#include <cuda_bf16.h>

namespace {

constexpr int N = 2304, K = 8192, M = 32, COPIES = 4;
constexpr int CL = 4;                   /* blocks of a cluster = row groups of a tile */
constexpr int WARPS = 4, THREADS = 32 * WARPS;
constexpr int KT = K / 16;              /* 16 x 16 tiles along a row group */
constexpr int SLOT = 32 * 16;           /* floats of a row group's 16 x 32 partial */

/* W tile (row group rg, k tile kt): 32 lanes x 8 bf16, lane (g, t) holding
 * (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..): one A fragment. */
__host__ __device__ inline size_t wp_index(int row, int k)
{
	const int rg = row / 16, rr = row % 16, kt = k / 16, kk = k % 16;
	const int g = rr % 8, hr = rr / 8, kh = kk / 8, kl = kk % 8;
	const int lane = g * 4 + kl / 2, idx = kh * 4 + hr * 2 + kl % 2;
	return (((size_t)rg * KT + kt) * 32 + lane) * 8 + idx;
}

__global__ void k_ref(const __nv_bfloat16 *W, const __nv_bfloat16 *X, float *R)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= M * N)
		return;
	const int tok = i / N, row = i % N;
	float s = 0.0f;
	for (int k = 0; k < K; k++)
		s += __bfloat162float(W[wp_index(row, k)]) * __bfloat162float(X[(size_t)tok * K + k]);
	R[i] = s;
}

/* One stage of a phase: ROWS weight rows (ROWS / 16 row groups from rg0)
 * by BK columns from k0, and the 32 tokens' BK columns. Shared memory:
 * W's tiles from byte 0 (group q's BK / 16 tiles contiguous), X's rows
 * from byte ROWS * BK * 2, row tok's 16-byte chunk ch at ch ^ (tok & 7). */
template <int ROWS, int BK>
struct phase {
	static constexpr int WBYTES = ROWS * BK * 2, XBYTES = 32 * BK * 2;
	static constexpr int WCH = WBYTES / 16, XCH = XBYTES / 16;
	static_assert(WCH % THREADS == 0 && XCH % THREADS == 0, "whole chunks a thread");

	static __device__ __forceinline__ void load(unsigned st, const __nv_bfloat16 *W,
						    const __nv_bfloat16 *X, int rg0, int k0)
	{
#pragma unroll
		for (int u = 0; u < WCH / THREADS; u++) {
			const int ci = threadIdx.x + u * THREADS;
			const int q = ci / (2 * BK), w = ci % (2 * BK);
			cp16(st + ci * 16, W + ((size_t)(rg0 + q) * KT + k0 / 16) * 256 + w * 8);
		}
#pragma unroll
		for (int u = 0; u < XCH / THREADS; u++) {
			const int ci = threadIdx.x + u * THREADS;
			const int tok = ci / (BK / 8), ch = ci % (BK / 8);
			cp16(st + WBYTES + tok * BK * 2 + ((ch ^ (tok & 7)) << 4),
			     X + (size_t)tok * K + k0 + ch * 8);
		}
	}

	/* acc += group q's tiles kt0 .. kt0 + NK - 1 times the tokens, the
	 * fragments of 4 k tiles loaded before their MMAs */
	template <int NK>
	static __device__ __forceinline__ void multiply(float (*acc)[4], unsigned st, int q, int kt0)
	{
		constexpr int G = NK < 4 ? NK : 4;
		static_assert(NK % G == 0, "whole groups of k tiles");
		const int lane = threadIdx.x & 31, m = lane >> 3, r = lane & 7;
#pragma unroll
		for (int k0 = 0; k0 < NK; k0 += G) {
			uint4 a[G];
			unsigned b[G][2][4];
#pragma unroll
			for (int i = 0; i < G; i++) {
				const int kt = kt0 + k0 + i;
				asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
					     : "=r"(a[i].x), "=r"(a[i].y), "=r"(a[i].z), "=r"(a[i].w)
					     : "r"(st + (q * (BK / 16) + kt) * 512 + lane * 16));
#pragma unroll
				for (int p = 0; p < 2; p++) {
					const int tok = 8 * (2 * p + (m >> 1)) + r, ch = 2 * kt + (m & 1);
					asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
						     : "=r"(b[i][p][0]), "=r"(b[i][p][1]), "=r"(b[i][p][2]), "=r"(b[i][p][3])
						     : "r"(st + WBYTES + tok * BK * 2 + ((ch ^ r) << 4)));
				}
			}
#pragma unroll
			for (int i = 0; i < G; i++)
#pragma unroll
				for (int p = 0; p < 2; p++) {
					mma_frag_16816(acc[2 * p], a[i].x, a[i].y, a[i].z, a[i].w, b[i][p][0], b[i][p][1]);
					mma_frag_16816(acc[2 * p + 1], a[i].x, a[i].y, a[i].z, a[i].w, b[i][p][2], b[i][p][3]);
				}
		}
	}
};

template <int STAGES, int KF, int BK1, int BK2, int ORDER>
struct tail_cfg {
	using P1 = phase<64, BK1>;
	using P2 = phase<16, BK2>;
	static constexpr int K1 = K - KF, L1 = K1 / CL;
	static constexpr int T1 = L1 / BK1, T2 = KF / BK2, T = T1 + T2;
	static_assert(L1 % BK1 == 0 && KF % BK2 == 0 && BK2 % (16 * WARPS) == 0, "whole stages");
	static constexpr int SB = (P1::WBYTES + P1::XBYTES > P2::WBYTES + P2::XBYTES)
					  ? P1::WBYTES + P1::XBYTES : P2::WBYTES + P2::XBYTES;
	/* the ring, then the slots [CL][32 lanes][16], then the mbarrier */
	static constexpr size_t SMEM = (size_t)STAGES * SB + CL * SLOT * 4 + 16;
	/* stage s of the block's order: phase 1 (true) or 2, and its index */
	static constexpr bool LAST = ORDER == 1;
	static __device__ __forceinline__ bool first(int s) { return LAST ? s >= T2 : s < T1; }
	static __device__ __forceinline__ int local(int s) { return LAST ? (s >= T2 ? s - T2 : s) : (s < T1 ? s : s - T1); }
};

template <int STAGES, int KF, int BK1, int BK2, int ORDER, bool MMA = true>
__global__ void __launch_bounds__(THREADS, 2)
k_tail(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y)
{
	using C = tail_cfg<STAGES, KF, BK1, BK2, ORDER>;
	extern __shared__ __align__(128) unsigned char smem[];
	const unsigned base = smem_u32(smem);
	float *slots = reinterpret_cast<float *>(smem + (size_t)STAGES * C::SB);
	unsigned long long *bar = reinterpret_cast<unsigned long long *>(slots + CL * SLOT);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const unsigned rank = ctarank();
	const int tile = blockIdx.x / CL;       /* rows 64 tile .. 64 tile + 63 */

	if (threadIdx.x == 0) {
		/* one arrival (this one) and the peers' bytes */
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(bar)) : "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			     ::"r"(smem_u32(bar)), "r"((CL - 1) * SLOT * 4) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");

	auto load = [&](int s, int slot) {
		const unsigned st = base + slot * C::SB;
		const int l = C::local(s);
		if (C::first(s))
			C::P1::load(st, W, X, CL * tile, rank * C::L1 + l * BK1);
		else
			C::P2::load(st, W, X, CL * tile + rank, C::K1 + l * BK2);
	};
	float acc1[4][4] = {}, acc2[4][4] = {};
	/* warp w's phase-1 sums (row group w) into block w's slot [rank]: to a
	 * peer by st.async, counted in bytes by its mbarrier (no fence, no
	 * wait: the warp goes on at once) */
	auto push = [&]() {
		asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
		const unsigned dst = smem_u32(slots + (rank * 32 + lane) * 16);
		const unsigned owner = warp;
		if (owner == rank) {
#pragma unroll
			for (int j = 0; j < 4; j++)
				asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(dst + 16 * j),
					     "f"(acc1[j][0]), "f"(acc1[j][1]), "f"(acc1[j][2]), "f"(acc1[j][3])
					     : "memory");
			return;
		}
		const unsigned rdst = mapa(dst, owner), rbar = mapa(smem_u32(bar), owner);
#pragma unroll
		for (int j = 0; j < 4; j++)
			asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], "
				     "{%1, %2, %3, %4}, [%5];" ::"r"(rdst + 16 * j),
				     "f"(acc1[j][0]), "f"(acc1[j][1]), "f"(acc1[j][2]), "f"(acc1[j][3]), "r"(rbar)
				     : "memory");
	};

#pragma unroll
	for (int s = 0; s < STAGES - 1; s++) {
		if (s < C::T)
			load(s, s);
		asm volatile("cp.async.commit_group;" ::: "memory");
	}
	for (int s = 0; s < C::T; s++) {
		asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
		__syncthreads();
		const int nx = s + STAGES - 1;
		if (nx < C::T)
			load(nx, nx % STAGES);
		asm volatile("cp.async.commit_group;" ::: "memory");
		if (ORDER == 0 && s == C::T1)
			push();
		const unsigned st = base + (s % STAGES) * C::SB;
		if (!MMA)       /* the read and the push alone (Y wrong) */
			continue;
		if (C::first(s))
			C::P1::template multiply<BK1 / 16>(acc1, st, warp, 0);
		else
			C::P2::template multiply<BK2 / 64>(acc2, st, 0, warp * (BK2 / 64));
	}
	if (ORDER == 1)
		push();
	if (ORDER == 2) {       /* no push: the read and the MMAs alone */
		asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
		/* its own slot (Y wrong: ptxas drops MMAs whose sums are never
		 * read, which made run 235-236's "nopush" a read without phase 1's
		 * MMAs) */
#pragma unroll
		for (int j = 0; j < 4; j++)
			*reinterpret_cast<float4 *>(slots + (warp * 32 + lane) * 16 + 4 * j) =
				make_float4(acc1[j][0], acc1[j][1], acc1[j][2], acc1[j][3]);
	}
	asm volatile("cp.async.wait_group 0;" ::: "memory");
	__syncthreads();
	/* the warps' phase-2 sums over the ring's first bytes */
	float *red = reinterpret_cast<float *>(smem);
#pragma unroll
	for (int j = 0; j < 4; j++)
		*reinterpret_cast<float4 *>(red + ((warp * 32 + lane) * 16 + 4 * j)) =
			make_float4(acc2[j][0], acc2[j][1], acc2[j][2], acc2[j][3]);
	if (ORDER != 2)
		diag_mbar_wait<true>(smem_u32(bar));
	__syncthreads();
	/* thread (L, j): lane L's n tile j: (g, 8j+2t), (g, +1), (g+8, 8j+2t), (g+8, +1) */
	const int L = threadIdx.x >> 2, j = threadIdx.x & 3, g = L >> 2, t = L & 3;
	float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
	for (int p = 0; p < WARPS; p++) {
		const float4 a = *reinterpret_cast<const float4 *>(red + (p * 32 + L) * 16 + 4 * j);
		v.x += a.x, v.y += a.y, v.z += a.z, v.w += a.w;
	}
#pragma unroll
	for (int p = 0; p < CL; p++) {
		const float4 a = *reinterpret_cast<const float4 *>(slots + (p * 32 + L) * 16 + 4 * j);
		v.x += a.x, v.y += a.y, v.z += a.z, v.w += a.w;
	}
	const int row = 64 * tile + 16 * rank + g, tok = 8 * j + 2 * t;
	Y[(size_t)tok * N + row] = __float2bfloat16_rn(v.x);
	Y[(size_t)(tok + 1) * N + row] = __float2bfloat16_rn(v.y);
	Y[(size_t)tok * N + row + 8] = __float2bfloat16_rn(v.z);
	Y[(size_t)(tok + 1) * N + row + 8] = __float2bfloat16_rn(v.w);
}

struct form {
	const char *name;
	const void *fn;
	size_t smem;
};

template <int STAGES, int KF, int BK1, int BK2, int ORDER, bool MMA = true>
form make_form(const char *name)
{
	using C = tail_cfg<STAGES, KF, BK1, BK2, ORDER>;
	form f{ name, (const void *)k_tail<STAGES, KF, BK1, BK2, ORDER, MMA>, C::SMEM };
	CHECK(cudaFuncSetAttribute(f.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)f.smem));
	int blocks = 0;
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f.fn, THREADS, f.smem));
	printf("form %-28s smem %zu, %d blocks an SM\n", name, f.smem, blocks);
	return f;
}

void launch(const form &f, const __nv_bfloat16 *w, const __nv_bfloat16 *x, __nv_bfloat16 *y,
	    cudaStream_t s)
{
	void *args[] = { (void *)&w, (void *)&x, (void *)&y };
	diag_launch(f.fn, dim3(N / 16), THREADS, f.smem, CL, args, s);
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const cudaStream_t s = diag_stream();
	__nv_bfloat16 *w[COPIES], *x[COPIES], *y;
	float *got, *ref;
	diag_inputs(w, x, &y, COPIES, N, K, M, 100, 200, s);
	CHECK(cudaMalloc(&got, (size_t)M * N * sizeof(float)));
	CHECK(cudaMalloc(&ref, (size_t)M * N * sizeof(float)));

	/* without their MMAs (MMA false: Y wrong) the forms measure where the
	 * push costs in a read-bound kernel: in the middle, last, or not at all */
	const std::vector<form> forms = {
		make_form<4, 1024, 128, 256, 0>("tail s4 kf1024"),
		make_form<4, 1024, 128, 256, 1>("tail s4 kf1024 pushlast"),
		make_form<4, 1024, 128, 256, 2>("tail s4 kf1024 nopush (bad Y)"),
		make_form<4, 1024, 128, 256, 0, false>("read kf1024 pushmid (bad Y)"),
		make_form<4, 1024, 128, 256, 1, false>("read kf1024 pushlast (bad Y)"),
		make_form<4, 1024, 128, 256, 2, false>("read kf1024 nopush (bad Y)"),
		make_form<4, 512, 128, 256, 0, false>("read kf512 pushmid (bad Y)"),
		make_form<4, 512, 128, 256, 1, false>("read kf512 pushlast (bad Y)"),
		make_form<4, 512, 128, 256, 2, false>("read kf512 nopush (bad Y)"),
	};

	k_ref<<<(M * N + 255) / 256, 256, 0, s>>>(w[0], x[0], ref);
	CHECK(cudaGetLastError());
	const std::vector<float> r = diag_host(ref, (size_t)M * N, s);
	for (const form &f : forms) {
		diag_check_call(f.name, y, got, r, s, [&] { launch(f, w[0], x[0], y, s); });
		/* a second call over the same Y: the barrier and slots start clean */
		diag_check_call(f.name, y, got, r, s, [&] {
			launch(f, w[0], x[0], y, s);
			launch(f, w[0], x[0], y, s);
		});
	}

	diag_lib_batch("tail (qkv, M = 32)", "stream 37.7 MB", "lib qkv 32", w, x, COPIES, N, K, M, y,
		       forms,
		       [&](const form &f, int c, cudaStream_t st) { launch(f, w[c], x[c], y, st); },
		       reps, s);
	return 0;
}
