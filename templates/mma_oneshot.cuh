/*
 * mma_oneshot.cuh: tensor-core GEMM for a handful of tokens with no
 * split-K, Y[M,N] = X[M,K] * W[N,K]^T with W, X and Y bf16, row-major,
 * FP32 accumulation. A block owns ROWS weight rows over the whole of K, so
 * nothing meets across blocks: no combine, no second kernel. Its weights
 * and the M token rows of X are all copied into shared memory at once
 * (16-byte cp.async.cg, one-shot: (ROWS + TOK) x K x 2 bytes of dynamic
 * shared memory), so that a block keeps every byte it needs in flight;
 * WARPS warps split K evenly, each copying and multiplying its own range
 * in GROUPS commit groups so that it multiplies one group while the next
 * is still arriving. Their FP32 sums meet in shared memory at the end.
 *
 * Measured reason (docs/notes.md, run 103): 128 blocks of 64 KiB each
 * stream the unpooler slice's 8 MiB within 0.1 us of the probe's
 * streaming read, while the split-K kernels' cluster combine costs
 * 0.6-0.75 us at M = 8 (run 101).
 *
 * The MMA is mma.sync m16n8k16 with the tokens on its M side (A: a 16 x
 * 16 tile of X, rows = tokens; with TOK 8 rows 8..15 repeat rows 0..7 and
 * their results are dropped) and the weights on its N side (B: 8 weight
 * rows x 16 of K), both fed by ldmatrix from rows whose 16-byte chunks
 * are XOR-swizzled by row (chunk c of row r at c ^ (r & 7)), so the eight
 * rows an ldmatrix reads at one chunk hit distinct banks. Token rows past
 * M are never copied; they only feed accumulator rows that are never
 * stored (an MMA's output row depends on its input row alone).
 *
 * Compiled by NVRTC in the tuner and in the runtime's table from this same
 * text: device code only (sm_90a), no host headers beyond cuda_bf16.h.
 *
 * Launch (tuner/tmpl_mma_oneshot.c builds the plan): grid N / ROWS, block
 * WARPS * 32, dynamic shared memory mma_oneshot_smem(ROWS, TOK, K) (> 48
 * KiB needs the opt-in attribute). Requires 1 <= M <= TOK, N % ROWS == 0,
 * K % (WARPS * GROUPS * 32) == 0 (a warp's group: k16 steps in pairs, one
 * per accumulator chain), 16-byte aligned W and X. The kernel
 * checks the dynamic shared memory it was given and traps when it is
 * short.
 */
#pragma once

#include <cuda_bf16.h>

/* Dynamic shared memory of a block: ROWS weight rows and TOK token rows
 * of K bf16 each. */
__host__ __device__ constexpr long mma_oneshot_smem(long rows, long tok, long k)
{
	return (rows + tok) * k * 2;
}

__device__ __forceinline__ unsigned mo_smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mo_cp16(unsigned dst, const void *src)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void mo_commit()
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Wait until at most `pending` of this thread's groups are in flight. */
__device__ __forceinline__ void mo_wait(int pending)
{
	switch (pending) {
	case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
	case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
	case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
	case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
	case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
	case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
	case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
	default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
	}
}

__device__ __forceinline__ void mo_ldmatrix_x4(unsigned addr, unsigned r[4])
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

__device__ __forceinline__ void mo_ldmatrix_x2(unsigned addr, unsigned &r0, unsigned &r1)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
		     : "=r"(r0), "=r"(r1)
		     : "r"(addr));
}

/* d += a * b, m16n8k16, bf16 in, FP32 accumulators. */
__device__ __forceinline__ void mo_mma(float d[4], const unsigned a[4], unsigned b0, unsigned b1)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* Shared-memory address of 16-byte chunk c of smem row r (rows of K bf16). */
__device__ __forceinline__ unsigned mo_chunk(unsigned base, int r, int c, int K)
{
	return base + (unsigned)r * (unsigned)K * 2u + (unsigned)((c ^ (r & 7)) * 16);
}

template <int ROWS, int TOK, int WARPS, int GROUPS>
__global__ void __launch_bounds__(WARPS * 32, 1)
mma_oneshot_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y, int M,
		   int N, int K)
{
	static_assert(ROWS == 8 || ROWS == 16, "rows must be 8 or 16");
	static_assert(TOK == 8 || TOK == 16, "tokens must be 8 or 16");
	static_assert(WARPS == 4 || WARPS == 8 || WARPS == 16, "warps must be 4, 8 or 16");
	static_assert(GROUPS == 1 || GROUPS == 2 || GROUPS == 4 || GROUPS == 8,
		      "groups must be 1, 2, 4 or 8");
	constexpr int NB = ROWS / 8;            /* n8 tiles of weight rows */
	constexpr int THREADS = WARPS * 32;

	extern __shared__ __align__(128) unsigned char mo_smem[];
	__shared__ float red[WARPS][TOK][ROWS]; /* each warp's sums, token-major */

	{
		unsigned dyn;
		asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
		if (dyn < (unsigned)mma_oneshot_smem(ROWS, TOK, K))
			__trap();
	}

	const int tid = threadIdx.x;
	const int lane = tid & 31;
	const int warp = tid >> 5;
	const int n0 = blockIdx.x * ROWS;
	const int mt = M < TOK ? M : TOK;       /* token rows copied */
	const int kw = K / WARPS;               /* this warp's share of K */
	const int kg = kw / GROUPS;             /* ... per group */
	const int cpr = kg / 8;                 /* 16-byte chunks per row per group */
	const int c0 = warp * kw / 8;           /* this warp's first chunk */
	const unsigned base = mo_smem_u32(mo_smem);

	/* Every copy at once: group g holds chunks [c0 + g * cpr, + cpr) of
	 * the ROWS weight rows (smem rows 0..ROWS-1) and of the mt token rows
	 * (smem rows ROWS..). */
#pragma unroll
	for (int g = 0; g < GROUPS; g++) {
		const int total = (ROWS + mt) * cpr;
		for (int i = lane; i < total; i += 32) {
			const int r = i / cpr;
			const int c = c0 + g * cpr + i % cpr;
			const __nv_bfloat16 *src = r < ROWS ? W + (size_t)(n0 + r) * K + c * 8
							    : X + (size_t)(r - ROWS) * K + c * 8;
			mo_cp16(mo_chunk(base, r, c, K), src);
		}
		mo_commit();
	}

	/* Fragment rows of this lane: A (ldmatrix.x4: matrices rows 0-7 and
	 * 8-15 at chunk c, then at c + 1), B (x2 per n8 tile: rows at c, c +
	 * 1; x4 for two tiles). */
	const int q = lane >> 3;
	const int a_row = ROWS + (lane & 7) + (TOK == 16 ? (q & 1) * 8 : 0);
	const int a_dc = q >> 1;
	const int b_row = (NB == 2 ? (q >> 1) * 8 : 0) + (lane & 7);
	const int b_dc = q & 1;

	float acc[2][NB][4];
#pragma unroll
	for (int h = 0; h < 2; h++)
#pragma unroll
		for (int j = 0; j < NB; j++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[h][j][e] = 0.0f;

#pragma unroll
	for (int g = 0; g < GROUPS; g++) {
		mo_wait(GROUPS - 1 - g);        /* this lane's copies of group g */
		__syncwarp();                   /* ... and every lane's */
		const int cg = c0 + g * cpr;
		/* k16 steps in pairs, one per accumulator chain */
		for (int ks = 0; ks < cpr / 2; ks += 2)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int c = cg + (ks + h) * 2;
				unsigned a[4];
				mo_ldmatrix_x4(mo_chunk(base, a_row, c + a_dc, K), a);
				unsigned b[NB][2];
				if constexpr (NB == 2) {
					unsigned r[4];
					mo_ldmatrix_x4(mo_chunk(base, b_row, c + b_dc, K), r);
					b[0][0] = r[0];
					b[0][1] = r[1];
					b[NB - 1][0] = r[2];
					b[NB - 1][1] = r[3];
				} else {
					mo_ldmatrix_x2(mo_chunk(base, b_row, c + b_dc, K), b[0][0],
						       b[0][1]);
				}
#pragma unroll
				for (int j = 0; j < NB; j++)
					mo_mma(acc[h][j], a, b[j][0], b[j][1]);
			}
	}

	/* c0, c1: token lane / 4, weight rows 2 * (lane % 4) + 0, 1 of the n8
	 * tile; c2, c3: token lane / 4 + 8 */
#pragma unroll
	for (int j = 0; j < NB; j++)
#pragma unroll
		for (int e = 0; e < 4; e++) {
			const int t = lane / 4 + (e >= 2 ? 8 : 0);
			if (t < TOK)
				red[warp][t][j * 8 + 2 * (lane % 4) + (e & 1)] =
					acc[0][j][e] + acc[1][j][e];
		}
	__syncthreads();
	for (int o = tid; o < mt * ROWS; o += THREADS) {
		const int t = o / ROWS;
		const int r = o % ROWS;
		float sum = 0.0f;
#pragma unroll
		for (int w = 0; w < WARPS; w++)
			sum += red[w][t][r];
		Y[(size_t)t * N + n0 + r] = __float2bfloat16_rn(sum);
	}
}
