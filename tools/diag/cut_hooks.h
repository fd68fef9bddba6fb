/* tools/diag/cut_hooks.h: the push's two ends for one value of DIAG_CUT,
 * included (no guard) before each copy of build/diag/skinny_cut.cuh:
 * bit 16 hands the partial sums over through the L2 (ws, a region per
 * cluster) instead of the owner's shared memory, the cluster barrier
 * between the stores and the loads as before. */
#undef DIAG_G
#undef DIAG_PUSH
#undef DIAG_SLOT
#define DIAG_G                                                                                   \
	(reinterpret_cast<float4 *>(ws) +                                                        \
	 ((size_t)blockIdx.z * gridDim.x + blockIdx.x) * SPLIT * SPLIT * PER_RANK)
#if DIAG_CUT & 16
#define DIAG_PUSH(recv, slot, owner, v) (DIAG_G[(owner) * SPLIT * PER_RANK + (slot)] = (v))
#define DIAG_SLOT(slots, i) __ldcg(&DIAG_G[rank * SPLIT * PER_RANK + (i)])
#else
#define DIAG_PUSH(recv, slot, owner, v) mma_store_peer((recv) + (slot) * 16, owner, v)
#define DIAG_SLOT(slots, i) (slots)[i]
#endif
/* bit 32: each rank pushes to the owners in an order rotated by its rank
 * (owner rank + 1 first), so the ranks' stores do not all go to the same
 * two owners at once; the owners still add their slots in rank order */
#undef DIAG_ROT
#if DIAG_CUT & 32
#define DIAG_ROT(i) (((i) + (int)((rank + 1) % SPLIT) * PER_RANK) % UNITS)
#else
#define DIAG_ROT(i) (i)
#endif
/* bit 128 (wgmma cluster tiles): the push straight from the accumulators,
 * with no epilogue tile: thread t's NT * 4 sums go to owner t / (THREADS /
 * SPLIT), into slot (rank, t % (THREADS / SPLIT)) in the fragment's order;
 * after the barrier each owner adds its slots in rank order (as the
 * template does) and stores its rows of Y two tokens a thread. */
#undef DIAG_DIRECT_PUSH
/* the bits whose push replaces the epilogue tile's (build.sh's edit takes
 * the direct path for any of them: one list, so a new form cannot be
 * left out of it as bit 512 was in run 265) */
#ifndef DIAG_DIRECT_BITS
#define DIAG_DIRECT_BITS (128 | 256 | 512)
#endif
#ifndef DIAG_BF16_STORE_IF
#define DIAG_BF16_STORE_IF
/* Y[token][col] = v where token < M */
__device__ __forceinline__ void bf16_store_if(__nv_bfloat16 *Y, int token, int M, int N, int col,
					      float v)
{
	if (token < M)
		Y[(size_t)token * N + col] = __float2bfloat16_rn(v);
}
#endif
#if DIAG_CUT & 128
#define DIAG_DIRECT_PUSH                                                                         \
	{                                                                                        \
		constexpr int TPO = THREADS / SPLIT, F = NT * 4;                                 \
		static_assert(MT == 1 && THREADS % SPLIT == 0 &&                                 \
				      SPLIT * TPO * F * 4 <= mma_recv_bytes(BN, BM, SPLIT),        \
			      "the direct push's slots");                                          \
		const unsigned rank = mma_cluster_rank();                                        \
		const unsigned off = mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, 0, WKS);    \
		const unsigned owner = tid / TPO;                                                \
		mma_cluster_wait();                                                              \
		_Pragma("unroll") for (int j = 0; j < NT; j++)                                   \
			mma_store_peer(raw + off + ((rank * TPO + tid % TPO) * F + j * 4) * 4, owner,\
				       make_float4(acc[0][j][0], acc[0][j][1], acc[0][j][2],      \
						   acc[0][j][3]));                                 \
		mma_cluster_sync();                                                              \
		const float *slots = reinterpret_cast<const float *>(mma_smem + off);            \
		for (int v = tid; v < TPO * F / 2; v += THREADS) {                               \
			const int lt = v / (F / 2), q = v % (F / 2) * 2;                         \
			const int ts = (int)rank * TPO + lt, ls = ts & 31, ws = ts >> 5;         \
			const int row = ws % WM * (BM / WM) + mma_c_row(ls, q % 4);              \
			const int token = ws / WM % WN * (BN / WN) + q / 4 * 8 + mma_c_col(ls, q % 4); \
			float s0 = 0.0f, s1 = 0.0f;                                              \
			_Pragma("unroll") for (int r = 0; r < SPLIT; r++) {                       \
				s0 += slots[(r * TPO + lt) * F + q];                             \
				s1 += slots[(r * TPO + lt) * F + q + 1];                         \
			}                                                                        \
			if (t0 + token < M)                                                      \
				Y[(size_t)(t0 + token) * N + n0 + row] = __float2bfloat16_rn(s0); \
			if (t0 + token + 1 < M)                                                  \
				Y[(size_t)(t0 + token + 1) * N + n0 + row] =                     \
					__float2bfloat16_rn(s1);                                 \
		}                                                                                \
	}
#elif DIAG_CUT & 256
/* bit 256: the same straight from the accumulators, but owner o takes
 * tokens [o * BN / SPLIT, (o + 1) * BN / SPLIT) of every row, its slots
 * [rank][row][token] so that a thread's two sums of a row (adjacent
 * tokens) are one 8-byte store, and the owner stores Y a row a thread
 * (a warp's stores of one token contiguous) */
#define DIAG_DIRECT_PUSH                                                                         \
	{                                                                                        \
		constexpr int TPW = BN / SPLIT;                                                  \
		static_assert(MT == 1 && WN == 1 && TPW % 2 == 0 &&                               \
				      SPLIT * BM * TPW * 4 <= mma_recv_bytes(BN, BM, SPLIT),       \
			      "the direct push's slots");                                          \
		const unsigned rank = mma_cluster_rank();                                        \
		const unsigned off = mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, 0, WKS);    \
		mma_cluster_wait();                                                              \
		_Pragma("unroll") for (int j = 0; j < NT; j++)                                   \
		_Pragma("unroll") for (int h = 0; h < 2; h++) {                                  \
			const int row = wm * (BM / WM) + mma_c_row(lane, 2 * h);                 \
			const int token = j * 8 + mma_c_col(lane, 2 * h);                        \
			unsigned remote;                                                         \
			asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"                      \
				     : "=r"(remote)                                              \
				     : "r"(raw + off + ((rank * BM + row) * TPW + token % TPW) * 4),  \
				       "r"(token / TPW));                                        \
			asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(remote),  \
				     "f"(acc[0][j][2 * h]), "f"(acc[0][j][2 * h + 1])            \
				     : "memory");                                                \
		}                                                                                \
		mma_cluster_sync();                                                              \
		const float *slots = reinterpret_cast<const float *>(mma_smem + off);            \
		for (int row = tid; row < BM; row += THREADS) {                                  \
			float s[TPW] = {};                                                       \
			_Pragma("unroll") for (int r = 0; r < SPLIT; r++)                         \
			_Pragma("unroll") for (int t = 0; t < TPW; t++)                           \
				s[t] += slots[(r * BM + row) * TPW + t];                         \
			_Pragma("unroll") for (int t = 0; t < TPW; t++) {                         \
				const int token = (int)rank * TPW + t;                           \
				if (t0 + token < M)                                              \
					Y[(size_t)(t0 + token) * N + n0 + row] =                 \
						__float2bfloat16_rn(s[t]);                       \
			}                                                                        \
		}                                                                                \
	}
#elif DIAG_CUT & 512
/* bit 512: bit 256's owners by tokens, but a thread's four sums of one
 * token pair (acc[j][0..3]: tokens 2c and 2c + 1 of rows r and r + 8, c =
 * lane % 4; TPW even, so one owner) are one 16-byte remote store instead
 * of two of 8: the owner's slots [rank][row pair g][token pair p] in
 * float4s, g = warp * 8 + lane / 4, p = token % TPW / 2; the owner adds
 * its slots in rank order and stores 2 tokens of 2 rows a thread */
#define DIAG_DIRECT_PUSH                                                                         \
	{                                                                                        \
		constexpr int TPW = BN / SPLIT, P = TPW / 2, V = BM / 2 * P;                    \
		static_assert(MT == 1 && WN == 1 && TPW % 2 == 0 && BM / WM == 16 &&              \
				      SPLIT * V * 16 <= mma_recv_bytes(BN, BM, SPLIT),             \
			      "the direct push's slots");                                          \
		const unsigned rank = mma_cluster_rank();                                        \
		const unsigned off = mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, 0, WKS);    \
		const int g = wm * 8 + (lane >> 2);                                              \
		mma_cluster_wait();                                                              \
		_Pragma("unroll") for (int j = 0; j < NT; j++) {                                 \
			const int token = j * 8 + 2 * (lane & 3);                                \
			mma_store_peer(raw + off + (rank * V + g * P + token % TPW / 2) * 16,    \
				       token / TPW,                                              \
				       make_float4(acc[0][j][0], acc[0][j][1], acc[0][j][2],      \
						   acc[0][j][3]));                                 \
		}                                                                                \
		mma_cluster_sync();                                                              \
		const float4 *slots = reinterpret_cast<const float4 *>(mma_smem + off);          \
		for (int v = tid; v < V; v += THREADS) {                                         \
			float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);                          \
			_Pragma("unroll") for (int r = 0; r < SPLIT; r++)                         \
				s = mma_add4(s, slots[r * V + v]);                               \
			const int gg = v / P, row = gg / 8 * 16 + gg % 8;                        \
			const int token = t0 + (int)rank * TPW + v % P * 2;                      \
			bf16_store_if(Y, token, M, N, n0 + row, s.x);                            \
			bf16_store_if(Y, token + 1, M, N, n0 + row, s.y);                        \
			bf16_store_if(Y, token, M, N, n0 + row + 8, s.z);                        \
			bf16_store_if(Y, token + 1, M, N, n0 + row + 8, s.w);                    \
		}                                                                                \
	}
#else
#define DIAG_DIRECT_PUSH {}
#endif
