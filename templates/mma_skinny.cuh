/*
 * mma_skinny.cuh: tensor-core GEMM for skinny M (a handful to a few hundred
 * tokens), Y[M,N] = X[M,K] * W[N,K]^T with W, X and Y bf16, row-major, and
 * FP32 accumulation. Weights sit on the MMA's M side and tokens on its N
 * side (mma.sync m16n8k16: A = a 16x16 tile of W, rows = output features,
 * K contiguous; B = a 16x8 tile of X^T, each token's K contiguous), so a
 * token tile of 8 wastes nothing and every weight byte is read once per
 * ceil(M/BN) token tiles.
 *
 * One block owns BM weight rows, BN tokens and one of SPLIT slices of K. A
 * STAGES-deep ring of shared memory is filled by 16-byte cp.async.cg (X
 * rows past M are zero-filled, never read); each stage holds a BM x BK
 * weight tile and a BN x BK token tile whose 16-byte chunks are XOR-
 * swizzled (mma_swizzle) so that ldmatrix reads eight rows at one K chunk
 * without bank conflicts. Warps tile the block WM x WN x WK (mma_warps_*):
 * first along weight rows (16 each; a weight fragment is then loaded by
 * one warp only), then along tokens (8 each), and the warps left over
 * split each stage's BK among themselves; their partial sums meet in the
 * epilogue. With WK > 0 (mma.sync only) WK warps split BK first and the
 * rest take rows, then tokens: each warp then owns more of the tile and
 * loads fewer fragments for each MMA. After the K loop the accumulators go through shared memory
 * (an FP32 tile [WK][BN][BM + MMA_EPI_PAD], token-major so that a row of Y
 * is contiguous) and leave as 16-byte vectors:
 *   SPLIT == 1:          Y directly (bf16, one kernel);
 *   COMBINE partials:    ws[SPLIT][M][N] FP32, then mma_splitk_reduce sums
 *                        the splits in FP32 and converts;
 *   COMBINE atomic:      red.global.add.v4.f32 into ws[M][N], zeroed in the
 *                        same captured call (the plan's memset, or with
 *                        pdl mma_zero_f32), then
 *                        mma_splitk_reduce with splits = 1 converts;
 *   COMBINE cluster:     mma_skinny_cluster_kernel, a cluster of the SPLIT
 *                        blocks of one tile; each rank owns a slice of the
 *                        tile and every rank stores its partial sum of
 *                        that slice into the owner's receive slots (mapa +
 *                        st.shared::cluster, as soon as its K loop is
 *                        done and every peer has started); after one
 *                        barrier.cluster each owner sums its slots in rank
 *                        order (deterministic) and writes Y. One kernel,
 *                        one cluster barrier in the epilogue. A wgmma
 *                        tile with one token slice (and bn / split even)
 *                        pushes its accumulators as they are, each rank
 *                        owning bn / split tokens of every row
 *                        (mma_push_direct); the others go through the
 *                        epilogue tile first.
 *   mma_hilo_kernel,     the router's hi/lo split (docs/workload.md): W is the
 *   mma_hilo_cluster_    prepared 2N x K bf16 matrix (hi = bf16(w) in rows
 *   kernel,              0..N-1, lo = bf16(w - hi) in rows N..2N-1) and Y is
 *   mma_hilo_zblock_kernel:
 *                        FP32 M x N. A block's BM rows pair the hi and lo
 *                        rows of BM/2 outputs (rows o.. of the hi half, then
 *                        the same rows of the lo half: MMA_LAYOUT_HILO), so
 *                        the epilogue adds hi and lo before anything leaves
 *                        the block. mma_hilo_kernel then red.global.adds
 *                        that sum into Y, zeroed by the plan inside the
 *                        same call (every slice of K meets there; one
 *                        kernel after the zero-fill); mma_hilo_cluster_
 *                        kernel sums the SPLIT blocks of its cluster over
 *                        distributed shared memory as the cluster combine
 *                        does and stores Y: one kernel, no zero-fill, and
 *                        the same sum every call; mma_hilo_zblock_kernel
 *                        adds into Y as mma_hilo_kernel does, but one
 *                        extra block of its own grid, which streams no
 *                        weights, zeroes Y and raises a flag the others
 *                        wait for before their atomics (a counter every
 *                        call leaves at 0): one kernel.
 *
 * Programmatic dependent launch (PDL): the plan may zero Y or ws with
 * mma_zero_f32 instead of a memset and launch the kernel after it, and
 * mma_splitk_reduce after the main kernel, with programmatic stream
 * serialization, so a kernel starts (and streams its weights) while the
 * one before it finishes. Each kernel waits (griddepcontrol.wait) before
 * its first access to what the previous one writes: the main kernel before
 * its epilogue stores, the reduce kernel at its start; the main kernel
 * lets its dependent launch (griddepcontrol.launch_dependents) once its
 * K loop is done, mma_zero_f32 at once. Without the launch attribute both
 * instructions do nothing, so one instantiation serves either plan. The
 * first kernel of a call is never launched this way: X may be written by
 * the work before the call, which only a normal launch waits for.
 *
 * Compiled by NVRTC from this same text, in the tuner and for the library
 * (tools/gt_cubin.c): device code only (sm_90a), no host headers beyond
 * cuda_bf16.h.
 *
 * Launch (plan/tmpl_mma_skinny.c builds the plan):
 *   mma_skinny_kernel, mma_skinny_cluster_kernel:
 *       grid (ceil(M/BN), SPLIT, N/BM), block WARPS*32,
 *       dynamic smem mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, RECV, WK),
 *       RECV = mma_recv_bytes(BN, BM (hi/lo: BM / 2), SPLIT) for the
 *       cluster kernels and 0 otherwise (> 48 KiB needs the opt-in
 *       attribute); the cluster kernel's cluster is
 *       (1, SPLIT, 1), compiled in with __cluster_dims__, so a plain
 *       cuLaunchKernel launches it. Token tiles vary fastest, so the blocks
 *       that read one weight tile for different tokens run together and
 *       the second read finds it in L2.
 *   mma_hilo_*: the same grid over the 2N hi/lo rows; mma_hilo_zblock_
 *       kernel's grid has one more z slice, first (2N/BM + 1): its block
 *       (0, 0, 0) zeroes Y, the rest of that slice leave at once. It takes
 *       sync, one word, zero before the first call.
 *   mma_splitk_reduce, mma_zero_f32: any 1-D grid, block <=
 *       MMA_REDUCE_THREADS (grid-stride loops over float4s).
 * W is the weight as given (layout rows) or its packed copy (layout
 * tiles). Requires N % BM == 0 (the hi/lo kernels: N % (BM/2) == 0, their
 * W having 2N rows), K % BK == 0, K / BK >= SPLIT (the split
 * s takes k tiles [s*T/SPLIT, (s+1)*T/SPLIT) of the T = K/BK, so any SPLIT
 * that divides nothing still spreads them within one), 16-byte aligned W,
 * X, Y and ws, and any M >= 1. The kernels check the dynamic shared memory they were
 * given and trap when it is short of what the layout needs.
 */
#pragma once

#include <cuda_bf16.h>

/* Weight cp.async policies (the adapter's "cache" symbols, same order). */
#define MMA_CACHE_CG 0                  /* cp.async.cg: L2 only */
#define MMA_CACHE_EVICT_FIRST 1         /* cp.async.cg with an L2 evict_first policy */

/* Weight layouts (the adapter's "layout" symbols, same order): W as given
 * (N x K row-major), or packed in BM x BK tiles that are each one
 * contiguous copy of the swizzled shared-memory image, the tiles of a row
 * block consecutive along K (templates/pack.cuh, RELAYOUT_TILES in
 * plan/tmpl.h), so a block streams one contiguous range of W. */
#define MMA_LAYOUT_ROWS 0
#define MMA_LAYOUT_TILES 1
/* The router's hi/lo matrix (2N rows), a block's rows paired: its first
 * BM/2 rows are hi rows o.. (o = blockIdx.z * BM/2), the last BM/2 the lo
 * rows N + o.. (the hi/lo kernels only, not an adapter symbol). */
#define MMA_LAYOUT_HILO 2

/* The tensor-core instruction (the adapter's "mma" symbols, same order):
 * warp-level mma.sync m16n8k16 fed by ldmatrix, or Hopper's warpgroup
 * wgmma.mma_async m64nBNk16 reading both tiles straight from shared
 * memory (bk 64: a tile row is one 128-byte swizzle line, which the ring's
 * XOR swizzle already is; 4 warps per 64 weight rows). */
#define MMA_SYNC 0
#define MMA_WGMMA 1

/* Split-K combines (the adapter's "combine" symbols, same order). */
#define MMA_COMBINE_PARTIALS 0
#define MMA_COMBINE_ATOMIC 1
#define MMA_COMBINE_CLUSTER 2
/* The router's hi/lo product (not adapter symbols): atomics into Y
 * (mma_hilo_kernel), or the cluster's sum stored (mma_hilo_cluster_kernel). */
#define MMA_COMBINE_HILO 3
#define MMA_COMBINE_HILO_CLUSTER 4
/* Atomics into Y zeroed by an extra block of the same grid
 * (mma_hilo_zblock_kernel); the others wait for its flag before their
 * atomics (see the kernel's comment). */
#define MMA_COMBINE_HILO_ZBLOCK 5

/* Threads per block of mma_splitk_reduce; the adapter launches this many. */
#define MMA_REDUCE_THREADS 256
/* FP32 padding of an epilogue row: with rows of BM + 4 floats (BM a
 * multiple of 32) the accumulator stores of a warp hit 32 distinct banks
 * and rows stay 16-byte aligned. */
#define MMA_EPI_PAD 4
/* The largest portable thread-block cluster, and the largest Hopper runs
 * when the kernel allows a non-portable size (the hi/lo cluster kernel;
 * its launcher sets CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED). */
#define MMA_MAX_CLUSTER 8
#define MMA_MAX_CLUSTER_NONPORTABLE 16

__host__ __device__ constexpr int mma_min(int a, int b)
{
	return a < b ? a : b;
}

__host__ __device__ constexpr int mma_max(int a, int b)
{
	return a > b ? a : b;
}

/* Warps along weight rows (16 rows each), along tokens (8 each), and the
 * rest splitting K inside a stage. All are powers of two. WK (the
 * adapter's "wk") 0 places warps on rows first, then on tokens; WK > 0
 * sets WK warps aside to split K first, so each warp covers more rows and
 * tokens and loads fewer fragments per MMA (on an H200, qkv at 32 with 2
 * of 4 warps on K runs 3% faster). */
__host__ __device__ constexpr int mma_warps_m(int BM, int WARPS, int WK = 0)
{
	return mma_min(WARPS / (WK ? WK : 1), BM / 16);
}

__host__ __device__ constexpr int mma_warps_n(int BM, int BN, int WARPS, int WK = 0)
{
	return mma_min(WARPS / (mma_warps_m(BM, WARPS, WK) * (WK ? WK : 1)), BN / 8);
}

__host__ __device__ constexpr int mma_warps_k(int BM, int BN, int WARPS, int WK = 0)
{
	return WARPS / (mma_warps_m(BM, WARPS, WK) * mma_warps_n(BM, BN, WARPS, WK));
}

/* FP32 accumulators a thread holds: 4 per 16x8 fragment of its warp. */
__host__ __device__ constexpr int mma_acc_per_thread(int BM, int BN, int WARPS, int WK = 0)
{
	return BM / mma_warps_m(BM, WARPS, WK) / 16 * (BN / mma_warps_n(BM, BN, WARPS, WK) / 8) * 4;
}

/* Shared memory: the ring of STAGES weight + token tiles, reused after
 * the K loop by the FP32 epilogue tile; the block needs the larger. */
__host__ __device__ constexpr int mma_ring_bytes(int BM, int BN, int BK, int STAGES)
{
	return STAGES * (BM + BN) * BK * 2;
}

__host__ __device__ constexpr int mma_epilogue_bytes(int BM, int BN, int WARPS, int WK = 0)
{
	return mma_warps_k(BM, BN, WARPS, WK) * BN * (BM + MMA_EPI_PAD) * 4;
}

/* wgmma's 128-byte swizzle repeats every 1024 bytes: the ring starts on
 * such a boundary, so the block asks for that much more to align it. */
#define MMA_WGMMA_ALIGN 1024

/* A cluster combine's receive slots, after everything else: each rank
 * owns PER_RANK float4s of the BN x OUT_ROWS output tile and gets one slot
 * of them from every rank (its own included), written by the peers with
 * remote stores whenever they finish their K loop -- so the slots overlap
 * nothing a block still uses. */
__host__ __device__ constexpr int mma_recv_bytes(int BN, int OUT_ROWS, int SPLIT)
{
	return (BN * OUT_ROWS / 4 + SPLIT - 1) / SPLIT * SPLIT * 16;
}

/* The dynamic shared memory of a block: the ring or the epilogue tile,
 * wgmma's alignment slack, then RECV bytes of cluster receive slots. */
__host__ __device__ constexpr int mma_smem_bytes(int BM, int BN, int BK, int WARPS, int STAGES,
						 int MMA = MMA_SYNC, int RECV = 0, int WK = 0)
{
	return mma_max(mma_ring_bytes(BM, BN, BK, STAGES), mma_epilogue_bytes(BM, BN, WARPS, WK)) +
	       (MMA == MMA_WGMMA ? MMA_WGMMA_ALIGN : 0) + RECV;
}

/* Shared memory an SM gives its blocks, and what it reserves per block
 * (Hopper: 228 KiB and 1 KiB). */
#define MMA_SM_SMEM (228 * 1024)
#define MMA_BLOCK_SMEM_RESERVED 1024
/* Registers a thread needs beside its FP32 accumulators: the A and B
 * fragments of one k16 step (at most 32) and addresses and indices. */
#define MMA_REG_OVERHEAD 64

/* Blocks per SM to ask ptxas for: as many as shared memory allows, but
 * never so many that a thread would have fewer registers than its
 * accumulators plus MMA_REG_OVERHEAD (65536 registers per SM). */
__host__ __device__ constexpr int mma_min_blocks(int BM, int BN, int BK, int WARPS, int STAGES,
						 int MMA = MMA_SYNC, int RECV = 0, int WK = 0)
{
	return mma_max(1, mma_min(MMA_SM_SMEM / (mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, RECV,
								WK) +
						 MMA_BLOCK_SMEM_RESERVED),
				  65536 / (WARPS * 32 * (mma_acc_per_thread(BM, BN, WARPS, WK) +
							 MMA_REG_OVERHEAD))));
}

/*
 * The swizzle: the 16-byte chunk (of BK/8 per row) where logical chunk
 * `chunk` of tile row `row` lives. ldmatrix reads one chunk of eight
 * consecutive rows (row % 8 == 0 .. 7); XOR-ing the chunk with three bits
 * of the row puts those eight 16-byte pieces in eight distinct 16-byte
 * bank groups of a 128-byte line. With 4 chunks per row (BK = 32) two
 * rows share a line, so the row bits used start one higher.
 */
template <int BK>
__host__ __device__ constexpr int mma_swizzle(int row, int chunk)
{
	constexpr int CPR = BK / 8;
	constexpr int SHIFT = CPR >= 8 ? 0 : CPR == 4 ? 1 : 2;
	constexpr int MASK = (CPR >= 8 ? 8 : CPR) - 1;
	return chunk ^ ((row >> SHIFT) & MASK);
}

/* Byte offset of (row, chunk) in a tile of rows of BK bf16. */
template <int BK>
__host__ __device__ constexpr int mma_tile_offset(int row, int chunk)
{
	return row * BK * 2 + mma_swizzle<BK>(row, chunk) * 16;
}

/*
 * Lane addressing of ldmatrix (each lane supplies one row address of one
 * 8x8 matrix: lanes 8q..8q+7 the rows of matrix q, which lands in
 * register q).
 * A, x4 over a 16x16 weight tile: matrices (rows 0-7, k 0-7), (rows 8-15,
 * k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) = a0..a3 of mma.
 * B, x4 over 16 tokens x k16: (tokens 0-7, k 0-7), (tokens 0-7, k 8-15),
 * (tokens 8-15, k 0-7), (tokens 8-15, k 8-15) = b0, b1 of two n8 tiles;
 * x2 uses lanes 0-15 of the same pattern (one n8 tile).
 * Rows and chunks are relative to the fragment's first row and k16 step.
 */
__host__ __device__ constexpr int mma_a_lane_row(int lane)
{
	return (lane & 7) + ((lane >> 3) & 1) * 8;
}

__host__ __device__ constexpr int mma_a_lane_chunk(int lane)
{
	return lane >> 4;
}

__host__ __device__ constexpr int mma_b_lane_row(int lane)
{
	return (lane & 7) + (lane >> 4) * 8;
}

__host__ __device__ constexpr int mma_b_lane_chunk(int lane)
{
	return (lane >> 3) & 1;
}

/* Accumulator i (0..3) of lane: weight row and token within the 16x8 C
 * tile (PTX: c0,c1 at row groupID, c2,c3 at row groupID + 8; columns
 * threadID_in_group*2 + 0, 1). */
__host__ __device__ constexpr int mma_c_row(int lane, int i)
{
	return (lane >> 2) + (i >> 1) * 8;
}

__host__ __device__ constexpr int mma_c_col(int lane, int i)
{
	return (lane & 3) * 2 + (i & 1);
}

__device__ __forceinline__ unsigned mma_smem_u32(const void *p)
{
	unsigned a;
	asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
	return a;
}

/* The L2 policy operand of the cache_hint copies; 0 (unused) otherwise. */
template <int CACHE>
__device__ __forceinline__ unsigned long long mma_make_policy()
{
	unsigned long long policy = 0;
	if constexpr (CACHE == MMA_CACHE_EVICT_FIRST)
		asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
	return policy;
}

/* 16 bytes of weights, global to shared, under the CACHE policy. */
template <int CACHE>
__device__ __forceinline__ void mma_copy_w(unsigned dst, const void *src, unsigned long long policy)
{
	if constexpr (CACHE == MMA_CACHE_EVICT_FIRST)
		asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;"
			     :: "r"(dst), "l"(src), "l"(policy) : "memory");
	else
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
			     :: "r"(dst), "l"(src) : "memory");
}

/* 16 bytes of activations; bytes = 0 writes zeros and reads nothing. */
__device__ __forceinline__ void mma_copy_x(unsigned dst, const void *src, unsigned bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
		     :: "r"(dst), "l"(src), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mma_commit()
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Wait until at most N committed groups are still in flight. */
template <int N>
__device__ __forceinline__ void mma_wait()
{
	asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}

/* volatile: the ring slots repeat every STAGES tiles, so the same address
 * holds new data; these must not be merged or moved across barriers. */
__device__ __forceinline__ void mma_ldmatrix_x4(unsigned addr, unsigned (&r)[4])
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}

__device__ __forceinline__ void mma_ldmatrix_x2(unsigned addr, unsigned &r0, unsigned &r1)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
		     : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
}

/* c += a * b on one 16x8x16 tile, BF16 in, FP32 accumulate. */
__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4],
					  unsigned b0, unsigned b1)
{
	asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
	    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* wgmma: the shared-memory matrix descriptor of a K-major tile whose rows
 * are 128-byte lines, 128-byte swizzled (the ring's layout at bk 64): start
 * address, leading byte offset (unused by swizzled K-major tiles: 16),
 * stride byte offset 1024 (eight rows), swizzle mode 1 (128 bytes). The
 * k16 steps of a stage advance the start by 32 bytes. */
__device__ __forceinline__ unsigned long long mma_wgmma_desc(unsigned addr)
{
	return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) |
	       (1ull << 62);
}

__device__ __forceinline__ void mma_wgmma_fence()
{
	asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void mma_wgmma_commit()
{
	asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* Until at most N committed wgmma groups of this warpgroup are pending. */
template <int N>
__device__ __forceinline__ void mma_wgmma_wait()
{
	asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
}

/* cp.async wrote the ring through the generic proxy; wgmma reads it
 * through the async proxy. */
__device__ __forceinline__ void mma_fence_proxy_async()
{
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* d += A * B over one k16 step for a 64 x N tile (N/2 FP32 accumulators
 * per thread, laid out per n8 column chunk as mma.sync's C fragment of the
 * thread's warp's 16 rows). */
template <int N>
__device__ __forceinline__ void mma_wgmma_step(float *d, unsigned long long da, unsigned long long db);

template <>
__device__ __forceinline__ void mma_wgmma_step<8>(float *d, unsigned long long da,
						   unsigned long long db)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n\t}"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "l"(da), "l"(db), "r"(1) : "memory");
}

template <>
__device__ __forceinline__ void mma_wgmma_step<16>(float *d, unsigned long long da,
						   unsigned long long db)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %10, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n\t}"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
		     : "l"(da), "l"(db), "r"(1) : "memory");
}

template <>
__device__ __forceinline__ void mma_wgmma_step<32>(float *d, unsigned long long da,
						   unsigned long long db)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %18, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n\t}"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
		     : "l"(da), "l"(db), "r"(1) : "memory");
}

template <>
__device__ __forceinline__ void mma_wgmma_step<64>(float *d, unsigned long long da,
						   unsigned long long db)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n\t}"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "l"(da), "l"(db), "r"(1) : "memory");
}

template <>
__device__ __forceinline__ void mma_wgmma_step<128>(float *d, unsigned long long da,
						   unsigned long long db)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n\t}"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(1) : "memory");
}

template <>
__device__ __forceinline__ void mma_wgmma_step<256>(float *d, unsigned long long da,
						   unsigned long long db)
{
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n\t}"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(1) : "memory");
}

/* PDL (see the top of this file): wait for the kernel this one was
 * launched after to complete with its writes visible; let the kernel
 * launched after this one start. No-ops without the launch attribute. */
__device__ __forceinline__ void mma_pdl_wait()
{
	asm volatile("griddepcontrol.wait;" ::: "memory");
}

__device__ __forceinline__ void mma_pdl_launch_dependents()
{
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

__device__ __forceinline__ void mma_red_v4(float *p, float4 v)
{
	asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};"
		     :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

/* The zero block's flag (MMA_COMBINE_HILO_ZBLOCK): a release add; an
 * acquire load; a relaxed add. */
__device__ __forceinline__ void mma_red_release_add(unsigned *p, unsigned v)
{
	asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned mma_load_acquire(const unsigned *p)
{
	unsigned v;
	asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

/* Named barriers of the zero-block kernel, whose block has one warp more
 * than the product's (the flag's watcher): 1 for the product's warps
 * alone (in place of __syncthreads), 2 for them and the watcher. */
#define MMA_BAR_PRODUCT 1
#define MMA_BAR_FLAG 2

template <bool WATCHED, int THREADS>
__device__ __forceinline__ void mma_sync_product()
{
	if constexpr (WATCHED)
		asm volatile("bar.sync %0, %1;" :: "n"(MMA_BAR_PRODUCT), "n"(THREADS) : "memory");
	else
		__syncthreads();
}

__device__ __forceinline__ void mma_red_add(unsigned *p, unsigned v)
{
	asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned mma_cluster_rank()
{
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
}

/* Every thread of every block of the cluster; release/acquire, so shared
 * memory written before is visible to the peers after. */
__device__ __forceinline__ void mma_cluster_sync()
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* The two halves of the barrier, apart: a cluster kernel arrives as it
 * starts and waits before its first remote store, which then cannot reach
 * a peer block that has not started (the CUDA guide's rule for
 * distributed shared memory; racecheck reports it otherwise). By then
 * every peer has long arrived, so the wait costs next to nothing. */
__device__ __forceinline__ void mma_cluster_arrive_relaxed()
{
	asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

__device__ __forceinline__ void mma_cluster_wait()
{
	asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

/* v into the peer rank's shared memory at the offset of local addr. */
__device__ __forceinline__ void mma_store_peer(unsigned addr, unsigned rank, float4 v)
{
	unsigned remote;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
	asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};"
		     :: "r"(remote), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

/* (x, y) into the peer rank's shared memory at the offset of local addr. */
__device__ __forceinline__ void mma_store_peer2(unsigned addr, unsigned rank, float x, float y)
{
	unsigned remote;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
	asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};"
		     :: "r"(remote), "f"(x), "f"(y) : "memory");
}

/* The cluster combine of a wgmma tile (one token slice, WN 1) straight
 * from the accumulators, with no epilogue tile in between (its round
 * trip costs qkv at 32 0.15-0.2 us on an H200). Rank o
 * owns tokens [o TPW, (o + 1) TPW) of every row, TPW = BN / SPLIT; its
 * slots (at shared address `slots`) are [rank][row][token], so a lane's
 * two sums of one row (adjacent tokens, accumulators 2h and 2h + 1) are
 * one 8-byte remote store. After the barrier the owner adds its slots in
 * rank order (the order of the tile path, so Y is the same bit for bit)
 * and stores its tokens of Y a row a thread. */
template <int BM, int BN, int SPLIT, int THREADS, int WM, int NT>
__device__ __forceinline__ void mma_push_direct(const float (*acc)[4], unsigned slots,
						const float *slot_f, __nv_bfloat16 *Y, int t0,
						int n0, int M, int N)
{
	constexpr int TPW = BN / SPLIT;
	static_assert(BN % SPLIT == 0 && TPW % 2 == 0, "the direct push needs bn / split even");
	const int tid = threadIdx.x, lane = tid & 31, wm = (tid >> 5) % WM;
	const unsigned rank = mma_cluster_rank();
	mma_cluster_wait();     /* every peer has started */
#pragma unroll
	for (int j = 0; j < NT; j++)
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int row = wm * (BM / WM) + mma_c_row(lane, 2 * h);
			const int token = j * 8 + mma_c_col(lane, 2 * h);
			mma_store_peer2(slots + ((rank * BM + row) * TPW + token % TPW) * 4,
					token / TPW, acc[j][2 * h], acc[j][2 * h + 1]);
		}
	mma_cluster_sync();     /* every slot of every owner is written */
	for (int row = tid; row < BM; row += THREADS) {
		float sum[TPW] = {};
#pragma unroll
		for (int r = 0; r < SPLIT; r++)
#pragma unroll
			for (int t = 0; t < TPW; t++)
				sum[t] += slot_f[(r * BM + row) * TPW + t];
#pragma unroll
		for (int t = 0; t < TPW; t++) {
			const int token = t0 + (int)rank * TPW + t;
			if (token < M)
				Y[(size_t)token * N + n0 + row] = __float2bfloat16_rn(sum[t]);
		}
	}
}

__device__ __forceinline__ float4 mma_add4(float4 a, float4 b)
{
	return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

/* Four FP32 values as four bf16 (round to nearest), one 8-byte store. */
__device__ __forceinline__ void mma_store_bf16x4(__nv_bfloat16 *p, float4 v)
{
	__nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y);
	__nv_bfloat162 hi = __floats2bfloat162_rn(v.z, v.w);
	uint2 u;
	u.x = *reinterpret_cast<unsigned *>(&lo);
	u.y = *reinterpret_cast<unsigned *>(&hi);
	*reinterpret_cast<uint2 *>(p) = u;
}

/* Issue the copies of K tile kt into ring slot `slot`: the weight tile
 * (BM x BK: rows n0.., or with the hi/lo layout the hi rows n0/2.. over
 * the lo rows N + n0/2..) and the token tile (tokens t0.., BN x BK). With
 * the tiles layout W is the packed copy and the weight tile is the
 * A_BYTES at tile (n0/BM, k0/BK), copied linearly. */
template <int BM, int BN, int BK, int THREADS, int CACHE, int LAYOUT>
__device__ __forceinline__ void mma_load_stage(unsigned sa, unsigned sb,
					       const __nv_bfloat16 *W, const __nv_bfloat16 *X,
					       int n0, int t0, int k0, int M, int N, int K,
					       unsigned long long policy)
{
	constexpr int CPR = BK / 8;     /* 16-byte chunks per row */
	static_assert(THREADS % CPR == 0, "a thread keeps one chunk column");
	constexpr int ROWS_PER_PASS = THREADS / CPR;
	const int chunk = threadIdx.x % CPR;
	const int first = threadIdx.x / CPR;
	if constexpr (LAYOUT == MMA_LAYOUT_TILES) {
		constexpr int CHUNKS = BM * CPR;
		const __nv_bfloat16 *tile = W + ((size_t)(n0 / BM) * (K / BK) + k0 / BK) * (BM * BK);
#pragma unroll
		for (int i = 0; i < CHUNKS; i += THREADS)
			if (CHUNKS % THREADS == 0 || i + (int)threadIdx.x < CHUNKS)
				mma_copy_w<CACHE>(sa + (i + threadIdx.x) * 16,
						  tile + (size_t)(i + threadIdx.x) * 8, policy);
	} else {
#pragma unroll
		for (int r = 0; r < BM; r += ROWS_PER_PASS) {
			const int row = r + first;
			/* hi/lo: block n0 / BM pairs hi and lo rows of outputs n0 / 2.. */
			const int wrow = LAYOUT == MMA_LAYOUT_ROWS ? n0 + row
				       : row < BM / 2 ? n0 / 2 + row : N + n0 / 2 + row - BM / 2;
			if (BM % ROWS_PER_PASS == 0 || row < BM)
				mma_copy_w<CACHE>(sa + mma_tile_offset<BK>(row, chunk),
						  W + (size_t)wrow * K + k0 + chunk * 8, policy);
		}
	}
#pragma unroll
	for (int r = 0; r < BN; r += ROWS_PER_PASS) {
		const int row = r + first;
		const int token = t0 + row;
		/* past M: zero-fill from a valid address */
		const __nv_bfloat16 *src = X + (size_t)(token < M ? token : 0) * K + k0 + chunk * 8;
		if (BN % ROWS_PER_PASS == 0 || row < BN)
			mma_copy_x(sb + mma_tile_offset<BK>(row, chunk), src, token < M ? 16 : 0);
	}
}

/*
 * The whole block: K loop into registers, accumulators into the epilogue
 * tile, then the COMBINE-specific output. Shared by both kernels.
 */
template <int BM, int BN, int BK, int WARPS, int STAGES, int SPLIT, int CACHE, int COMBINE,
	  int LAYOUT, int MMA, int WKS>
__device__ __forceinline__ void mma_skinny_block(const __nv_bfloat16 *W, const __nv_bfloat16 *X,
						 __nv_bfloat16 *Y, float *ws, unsigned *sync,
						 int M, int N, int K)
{
	static_assert(BM == 32 || BM == 64 || BM == 128, "bm must be 32, 64 or 128");
	static_assert(BN == 8 || BN == 16 || BN == 32 || BN == 64 ||
		      (MMA == MMA_WGMMA && (BN == 128 || BN == 256)),
		      "bn must be 8, 16, 32 or 64 (128 or 256 with wgmma)");
	static_assert(MMA == MMA_SYNC || MMA == MMA_WGMMA, "mma must be 0 or 1");
	static_assert(MMA == MMA_SYNC || (BK == 64 && BM % 64 == 0 && WARPS % (BM / 16) == 0 &&
					  STAGES >= 3),
		      "wgmma takes bk 64, 4 or 8 warps per 64 weight rows and 3 or more stages");
	static_assert(BK == 32 || BK == 64 || BK == 128, "bk must be 32, 64 or 128");
	static_assert(WARPS == 2 || WARPS == 4 || WARPS == 8 || (MMA == MMA_WGMMA && WARPS == 16),
		      "warps must be 2, 4 or 8 (or 16 with wgmma)");
	static_assert(STAGES >= 2 && STAGES <= 6, "stages must be in [2, 6]");
	static_assert(SPLIT >= 1 && SPLIT <= 32, "split must be in [1, 32]");
	static_assert(CACHE == MMA_CACHE_CG || CACHE == MMA_CACHE_EVICT_FIRST, "cache must be 0 or 1");
	static_assert(COMBINE >= MMA_COMBINE_PARTIALS && COMBINE <= MMA_COMBINE_HILO_ZBLOCK,
		      "combine must be in [0, 5]");
	constexpr bool HILO = COMBINE == MMA_COMBINE_HILO || COMBINE == MMA_COMBINE_HILO_CLUSTER ||
			      COMBINE == MMA_COMBINE_HILO_ZBLOCK;
	constexpr bool ZB = COMBINE == MMA_COMBINE_HILO_ZBLOCK;
	constexpr bool CLUSTER = COMBINE == MMA_COMBINE_CLUSTER ||
				 COMBINE == MMA_COMBINE_HILO_CLUSTER;
	static_assert(!CLUSTER || (SPLIT >= 2 && SPLIT <= (HILO ? MMA_MAX_CLUSTER_NONPORTABLE
							     : MMA_MAX_CLUSTER)),
		      "a cluster combine needs split in [2, 8] (hi/lo: [2, 16])");
	static_assert(HILO ? LAYOUT == MMA_LAYOUT_HILO
			   : LAYOUT == MMA_LAYOUT_ROWS || LAYOUT == MMA_LAYOUT_TILES,
		      "layout must be 0 or 1 (2 for the hi/lo product)");

	constexpr int THREADS = WARPS * 32;
	static_assert(WKS == 0 || (MMA == MMA_SYNC && (WKS == 2 || WKS == 4 || WKS == 8)),
		      "wk must be 0, or 2, 4 or 8 with mma.sync");
	constexpr int WM = mma_warps_m(BM, WARPS, WKS);
	constexpr int WN = mma_warps_n(BM, BN, WARPS, WKS);
	constexpr int WK = mma_warps_k(BM, BN, WARPS, WKS);
	constexpr int MT = BM / WM / 16;        /* 16-row weight fragments per warp */
	constexpr int NT = BN / WN / 8;         /* 8-token fragments per warp */
	constexpr int KSTEPS = BK / 16 / WK;    /* k16 steps per warp per stage */
	constexpr int A_BYTES = BM * BK * 2;
	constexpr int STAGE_BYTES = (BM + BN) * BK * 2;
	constexpr int LD = BM + MMA_EPI_PAD;    /* epilogue row, floats */
	static_assert(WM * WN * WK == WARPS && WK <= BK / 16 && KSTEPS * WK * 16 == BK,
		      "warps must tile bm x bn x bk");
	static_assert(MT * NT * 4 == mma_acc_per_thread(BM, BN, WARPS, WKS) && MT * NT * 4 <= 128,
		      "accumulators do not fit in registers");
	/* wgmma: warpgroup g owns weight rows 64 * (g % (BM/64)).. and the
	 * (g / (BM/64))-th of the WN token slices -- exactly the rows and
	 * tokens the warp layout above gives its four warps (MT = 1, WK = 1),
	 * so acc[0][j][c] is the wgmma accumulator 4j + c of N = BN/WN. */
	static_assert(MMA == MMA_SYNC || (MT == 1 && WK == 1 && WM == BM / 16),
		      "wgmma warps must tile 64-row groups");
	/* Output rows of the tile: BM, or BM/2 for hi/lo, whose row r and
	 * row r + BM/2 (hi and lo of one output) are added here. */
	constexpr int OUT_ROWS = HILO ? BM / 2 : BM;
	constexpr int RECV = CLUSTER ? mma_recv_bytes(BN, OUT_ROWS, SPLIT) : 0;
	/* Tiles loaded ahead of the one being multiplied: all but one slot with
	 * mma.sync; wgmma leaves one more slot to the product still running
	 * (it waits for the previous k tile's wgmma, not its own). */
	constexpr int AHEAD = MMA == MMA_WGMMA ? STAGES - 2 : STAGES - 1;

	extern __shared__ __align__(128) unsigned char mma_smem[];

	/* zblock: the block's last warp, past the product's, only watches the
	 * zero block's flag: it waits until the flag is raised (acquire),
	 * takes one off it and arrives at the flag barrier, which the
	 * product's warps pass only before their atomics. A blocking acquire
	 * load in a product warp costs 0.3-0.7 us of every block (runs
	 * 155-158); in a warp of its own it costs nothing. The flag is back
	 * to 0 once every block has taken its one (a block that has not yet
	 * always reads at least one). */
	if (ZB && threadIdx.x >= THREADS) {
		if (threadIdx.x == THREADS) {
			unsigned raised = 0;
			for (long long spins = 0; raised == 0; spins++) {
				if (spins > (1ll << 24))
					__trap();       /* the zero block never ran */
				raised = mma_load_acquire(sync);
			}
			mma_red_add(sync, ~0u);
		}
		__syncwarp();
		asm volatile("bar.arrive %0, %1;" :: "n"(MMA_BAR_FLAG), "n"(THREADS + 32) : "memory");
		return;
	}

	const int tid = threadIdx.x;
	const int lane = tid & 31;
	const int warp = tid >> 5;
	const int wm = warp % WM;
	const int wn = (warp / WM) % WN;
	const int wk = warp / (WM * WN);
	const int t0 = blockIdx.x * BN;
	const int split = blockIdx.y;
	const int n0 = (blockIdx.z - (ZB ? 1 : 0)) * BM;     /* zblock: slice 0 is the zero block's */
	/* this split's k tiles: an even share of the K/BK, within one */
	const int ktotal = K / BK;
	const int kt_first = (int)((long long)split * ktotal / SPLIT);
	const int kbegin = kt_first * BK;
	const int ktiles = (int)((long long)(split + 1) * ktotal / SPLIT) - kt_first;

	{
		unsigned dyn;
		asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
		if (dyn < (unsigned)mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, RECV, WKS))
			__trap();
	}

	if constexpr (CLUSTER)
		mma_cluster_arrive_relaxed();   /* this block has started */

	/* wgmma: the ring on a 1024-byte boundary (mma_smem_bytes left room) */
	const unsigned raw = mma_smem_u32(mma_smem);
	const unsigned base = MMA == MMA_WGMMA ? (raw + MMA_WGMMA_ALIGN - 1) & ~(MMA_WGMMA_ALIGN - 1u)
					       : raw;
	const unsigned long long policy = mma_make_policy<CACHE>();

	/* prologue: AHEAD tiles in flight, one commit group each */
#pragma unroll
	for (int s = 0; s < AHEAD; s++) {
		if (s < ktiles)
			mma_load_stage<BM, BN, BK, THREADS, CACHE, LAYOUT>(
				base + s * STAGE_BYTES, base + s * STAGE_BYTES + A_BYTES,
				W, X, n0, t0, kbegin + s * BK, M, N, K, policy);
		mma_commit();
	}


	float acc[MT][NT][4];
#pragma unroll
	for (int i = 0; i < MT; i++)
#pragma unroll
		for (int j = 0; j < NT; j++)
#pragma unroll
			for (int c = 0; c < 4; c++)
				acc[i][j][c] = 0.0f;

	/* per-lane fragment coordinates, fixed for the whole loop */
	const int a_row = wm * (BM / WM) + mma_a_lane_row(lane);
	const int b_row = wn * (BN / WN) + mma_b_lane_row(lane);
	const int a_chunk = mma_a_lane_chunk(lane);
	const int b_chunk = mma_b_lane_chunk(lane);

	for (int kt = 0; kt < ktiles; kt++) {
		/* tile kt has landed (at most AHEAD-1 younger groups pending),
		 * and every warp is done with the slot the prefetch overwrites */
		mma_wait<AHEAD - 1>();
		if constexpr (MMA == MMA_WGMMA)
			mma_fence_proxy_async();
		mma_sync_product<ZB, THREADS>();
		const int pre = kt + AHEAD;
		if (pre < ktiles) {
			const int ps = pre % STAGES;
			mma_load_stage<BM, BN, BK, THREADS, CACHE, LAYOUT>(
				base + ps * STAGE_BYTES, base + ps * STAGE_BYTES + A_BYTES,
				W, X, n0, t0, kbegin + pre * BK, M, N, K, policy);
		}
		mma_commit();   /* possibly empty: keeps the group count uniform */

		const unsigned sa = base + (kt % STAGES) * STAGE_BYTES;
		const unsigned sb = sa + A_BYTES;
		if constexpr (MMA == MMA_WGMMA) {
			constexpr int WGM = BM / 64;
			const int g = warp >> 2;
			const unsigned a = sa + (g % WGM) * 64 * BK * 2;
			const unsigned b = sb + (g / WGM) * (BN / WN) * BK * 2;
			mma_wgmma_fence();
#pragma unroll
			for (int ks = 0; ks < BK / 16; ks++)
				mma_wgmma_step<BN / WN>(&acc[0][0][0], mma_wgmma_desc(a + ks * 32),
							mma_wgmma_desc(b + ks * 32));
			mma_wgmma_commit();
			mma_wgmma_wait<1>();    /* the previous k tile's product is done */
		}
		/* mma.sync: per k16 step, ldmatrix the fragments and multiply */
#pragma unroll
		for (int ks = 0; ks < (MMA == MMA_SYNC ? KSTEPS : 0); ks++) {
			const int kc = (wk * KSTEPS + ks) * 2;  /* first chunk of this k16 */
			unsigned a[MT][4];
#pragma unroll
			for (int i = 0; i < MT; i++)
				mma_ldmatrix_x4(sa + mma_tile_offset<BK>(a_row + i * 16, kc + a_chunk), a[i]);
			unsigned b[NT][2];
#pragma unroll
			for (int j = 0; j + 1 < NT; j += 2) {
				unsigned r[4];
				mma_ldmatrix_x4(sb + mma_tile_offset<BK>(b_row + j * 8, kc + b_chunk), r);
				b[j][0] = r[0];
				b[j][1] = r[1];
				b[j + 1][0] = r[2];
				b[j + 1][1] = r[3];
			}
			if constexpr (NT % 2)
				mma_ldmatrix_x2(sb + mma_tile_offset<BK>(b_row + (NT - 1) * 8, kc + b_chunk),
						b[NT - 1][0], b[NT - 1][1]);
#pragma unroll
			for (int i = 0; i < MT; i++)
#pragma unroll
				for (int j = 0; j < NT; j++)
					mma_16816(acc[i][j], a[i], b[j][0], b[j][1]);
		}
	}
	if constexpr (MMA == MMA_WGMMA)
		mma_wgmma_wait<0>();
	mma_wait<0>();          /* only empty groups remain; the ring is reused below */
	mma_sync_product<ZB, THREADS>();
	/* PDL: the reduce may launch; Y or ws may have been zeroed just now */
	mma_pdl_launch_dependents();
	mma_pdl_wait();

	/* a wgmma cluster tile pushes its accumulators as they are */
	constexpr bool DIRECT = CLUSTER && !HILO && MMA == MMA_WGMMA && WN == 1 && BN % SPLIT == 0 &&
				(BN / SPLIT) % 2 == 0;
	if constexpr (DIRECT) {
		const int off = mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, 0, WKS);
		mma_push_direct<BM, BN, SPLIT, THREADS, WM, NT>(
			acc[0], raw + off, reinterpret_cast<const float *>(mma_smem + off), Y, t0, n0,
			M, N);
		return;
	}

	/* accumulators to the epilogue tile E[wk][token][row] */
	float *E = reinterpret_cast<float *>(mma_smem);
#pragma unroll
	for (int i = 0; i < MT; i++)
#pragma unroll
		for (int j = 0; j < NT; j++)
#pragma unroll
			for (int c = 0; c < 4; c++) {
				const int row = wm * (BM / WM) + i * 16 + mma_c_row(lane, c);
				const int token = wn * (BN / WN) + j * 8 + mma_c_col(lane, c);
				E[(wk * BN + token) * LD + row] = acc[i][j][c];
			}

	constexpr int UNITS = BN * OUT_ROWS / 4;        /* float4s of one K partial */
	/* 16 bytes of this block's partial sum at (token, row): over the WK
	 * warp slices, and hi + lo, added in order */
	auto own_sum = [&](int token, int row) {
		float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
		for (int w = 0; w < WK; w++)
#pragma unroll
			for (int h = 0; h < (HILO ? 2 : 1); h++)
				sum = mma_add4(sum, *reinterpret_cast<const float4 *>(
							    &E[(w * BN + token) * LD + row + h * OUT_ROWS]));
		return sum;
	};
	/* zblock: past the flag barrier Y is zeroed (the watcher's acquire,
	 * then its arrival here, come before every product thread's atomics) */
	if constexpr (ZB)
		asm volatile("bar.sync %0, %1;" :: "n"(MMA_BAR_FLAG), "n"(THREADS + 32) : "memory");
	else
		__syncthreads();
	if constexpr (CLUSTER) {
		/* Rank r owns float4s [r * PER_RANK, (r + 1) * PER_RANK) of the
		 * tile. Push: each rank stores its sum of every float4 into slot
		 * `rank` of the owner's receive slots; one barrier (release/
		 * acquire: the stores are visible after it); each owner then sums
		 * its slots in rank order (the same sum every call) and stores Y.
		 * Nothing remote is touched after the barrier, so a rank may
		 * leave as soon as its own stores are done. */
		constexpr int PER_RANK = (UNITS + SPLIT - 1) / SPLIT;
		const unsigned rank = mma_cluster_rank();
		const unsigned recv = raw + mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, 0, WKS);
		mma_cluster_wait();     /* every peer has started */
		for (int u = tid; u < UNITS; u += THREADS) {
			const int token = u / (OUT_ROWS / 4);
			const int row = u % (OUT_ROWS / 4) * 4;
			if (t0 + token >= M)
				continue;
			const int owner = u / PER_RANK;
			mma_store_peer(recv + (rank * PER_RANK + u - owner * PER_RANK) * 16, owner,
				       own_sum(token, row));
		}
		mma_cluster_sync();     /* every slot of every owner is written */
		const int first = rank * PER_RANK;
		const int last = mma_min(first + PER_RANK, UNITS);
		const float4 *slots = reinterpret_cast<const float4 *>(
			mma_smem + mma_smem_bytes(BM, BN, BK, WARPS, STAGES, MMA, 0, WKS));
		for (int u = first + tid; u < last; u += THREADS) {
			const int token = u / (OUT_ROWS / 4);
			const int row = u % (OUT_ROWS / 4) * 4;
			if (t0 + token >= M)
				continue;
			float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
			for (int r = 0; r < SPLIT; r++)
				sum = mma_add4(sum, slots[r * PER_RANK + u - first]);
			if constexpr (HILO)
				*reinterpret_cast<float4 *>(ws + (size_t)(t0 + token) * N + n0 / 2 + row) = sum;
			else
				mma_store_bf16x4(Y + (size_t)(t0 + token) * N + n0 + row, sum);
		}
	} else {
		for (int u = tid; u < UNITS; u += THREADS) {
			const int token = u / (OUT_ROWS / 4);
			const int row = u % (OUT_ROWS / 4) * 4;
			if (t0 + token >= M)
				continue;
			const float4 sum = own_sum(token, row);
			if constexpr (HILO) {
				/* outputs n0 / 2.. of this hi/lo row pair block */
				mma_red_v4(ws + (size_t)(t0 + token) * N + n0 / 2 + row, sum);
				continue;
			}
			const size_t at = (size_t)(t0 + token) * N + n0 + row;
			if constexpr (SPLIT == 1)
				mma_store_bf16x4(Y + at, sum);
			else if constexpr (COMBINE == MMA_COMBINE_PARTIALS)
				*reinterpret_cast<float4 *>(ws + (size_t)split * M * N + at) = sum;
			else
				mma_red_v4(ws + at, sum);
		}
	}
}

/*
 * The entry points. Their __launch_bounds__ minimum of blocks per SM is
 * mma_min_blocks: left to itself ptxas aimed at 64 registers for some
 * tiles and spilled (bm 64, bn 64, bk 64, 4 warps, evict_first: 4 bytes);
 * with a minimum of 1 it used 144 registers for a 2 KiB-ring cluster tile
 * and so allowed one block per SM where shared memory allowed ten.
 */

/* Split 1, or split-K combined through global memory (partials, atomic). */
template <int BM, int BN, int BK, int WARPS, int STAGES, int SPLIT, int CACHE, int COMBINE,
	  int LAYOUT, int MMA = MMA_SYNC, int WK = 0>
__global__ void
__launch_bounds__(WARPS * 32, mma_min_blocks(BM, BN, BK, WARPS, STAGES, MMA, 0, WK))
mma_skinny_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y, float *ws,
		  int M, int N, int K)
{
	static_assert(COMBINE != MMA_COMBINE_CLUSTER && COMBINE != MMA_COMBINE_HILO_CLUSTER,
		      "a cluster combine is mma_skinny_cluster_kernel or mma_hilo_cluster_kernel");
	mma_skinny_block<BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, COMBINE, LAYOUT, MMA, WK>(
		W, X, Y, ws, nullptr, M, N, K);
}

/* Split-K combined through distributed shared memory: a cluster is the
 * SPLIT blocks of one (token tile, weight tile). ws is unused. */
template <int BM, int BN, int BK, int WARPS, int STAGES, int SPLIT, int CACHE, int LAYOUT,
	  int MMA = MMA_SYNC, int WK = 0>
__global__ void __cluster_dims__(1, SPLIT, 1)
__launch_bounds__(WARPS * 32, mma_min_blocks(BM, BN, BK, WARPS, STAGES, MMA,
					     mma_recv_bytes(BN, BM, SPLIT), WK))
mma_skinny_cluster_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, __nv_bfloat16 *Y,
			  float *ws, int M, int N, int K)
{
	mma_skinny_block<BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, MMA_COMBINE_CLUSTER, LAYOUT, MMA,
			 WK>(W, X, Y, ws, nullptr, M, N, K);
}

/* The router's hi/lo product into FP32 Y (see the top of this file): grid
 * (ceil(M/BN), SPLIT, 2N/BM), Y zeroed before it in the same call. */
template <int BM, int BN, int BK, int WARPS, int STAGES, int SPLIT, int CACHE, int MMA = MMA_SYNC>
__global__ void
__launch_bounds__(WARPS * 32, mma_min_blocks(BM, BN, BK, WARPS, STAGES, MMA))
mma_hilo_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, float *Y, int M, int N, int K)
{
	mma_skinny_block<BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, MMA_COMBINE_HILO, MMA_LAYOUT_HILO,
			 MMA, 0>(W, X, nullptr, Y, nullptr, M, N, K);
}

/* The same product with atomics into a Y zeroed inside this kernel, so a
 * call is one kernel: grid (ceil(M/BN), SPLIT, 2N/BM + 1). Slice z = 0
 * comes first in the launch order; its block (0, 0, 0) streams no weights:
 * it zeroes Y, and after a barrier and a release adds the number of the
 * other slices' blocks to the flag *sync (0 before the first call). The
 * rest of slice 0 leave at once. Every other block computes the tile of
 * slice z - 1; its last warp (the block is WARPS + 1 warps) waits until
 * the flag is non-zero (acquire) and takes one off it, so every call
 * leaves it at 0, and the others wait for that warp before their atomics
 * (mma_skinny_block). The zero
 * block's slice is dispatched first, so no block waits for one that
 * cannot start. Calls on one flag must not overlap (they are ordered on
 * one stream, as the weight's workspace requires). */
template <int BM, int BN, int BK, int WARPS, int STAGES, int SPLIT, int CACHE, int MMA = MMA_SYNC>
__global__ void
__launch_bounds__(WARPS * 32 + 32, mma_min_blocks(BM, BN, BK, WARPS, STAGES, MMA))
mma_hilo_zblock_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, float *Y, unsigned *sync,
		       int M, int N, int K)
{
	if (blockIdx.z == 0) {
		if (blockIdx.x != 0 || blockIdx.y != 0)
			return;
		float4 *y4 = reinterpret_cast<float4 *>(Y);
		const int n4 = M * N / 4;       /* N is a multiple of BM / 2 */
		for (int i = threadIdx.x; i < n4; i += blockDim.x)
			y4[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		__syncthreads();
		if (threadIdx.x == 0)
			mma_red_release_add(sync, gridDim.x * gridDim.y * (gridDim.z - 1));
		return;
	}
	mma_skinny_block<BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, MMA_COMBINE_HILO_ZBLOCK,
			 MMA_LAYOUT_HILO, MMA, 0>(W, X, nullptr, Y, sync, M, N, K);
}

/* The same product, the SPLIT slices of K summed in the cluster and
 * stored: same grid, cluster (1, SPLIT, 1), nothing to zero before it.
 * SPLIT > 8 is a non-portable cluster: the launcher must allow it. */
template <int BM, int BN, int BK, int WARPS, int STAGES, int SPLIT, int CACHE, int MMA = MMA_SYNC>
__global__ void __cluster_dims__(1, SPLIT, 1)
__launch_bounds__(WARPS * 32, mma_min_blocks(BM, BN, BK, WARPS, STAGES, MMA,
					     mma_recv_bytes(BN, BM / 2, SPLIT)))
mma_hilo_cluster_kernel(const __nv_bfloat16 *W, const __nv_bfloat16 *X, float *Y, int M, int N,
			int K)
{
	mma_skinny_block<BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, MMA_COMBINE_HILO_CLUSTER,
			 MMA_LAYOUT_HILO, MMA, 0>(W, X, nullptr, Y, nullptr, M, N, K);
}

/* Y[i] = sum over splits of ws[split][i] in FP32, as bf16, for i < M*N
 * (a multiple of 4). splits = 1 converts an atomically combined ws. */
__global__ void __launch_bounds__(MMA_REDUCE_THREADS)
mma_splitk_reduce(const float *ws, __nv_bfloat16 *Y, int splits, int M, int N)
{
	const size_t total = (size_t)M * N / 4;
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	const float4 *ws4 = reinterpret_cast<const float4 *>(ws);
	mma_pdl_wait();         /* PDL: the main kernel's partials are complete */
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
		float4 sum = ws4[i];
		for (int s = 1; s < splits; s++)
			sum = mma_add4(sum, ws4[s * total + i]);
		mma_store_bf16x4(Y + i * 4, sum);
	}
}

/* p[0 .. 4*n4) = 0, the zero-fill of a PDL plan: lets the kernel launched
 * after it start at once (that kernel waits for this one before it
 * touches p). */
__global__ void __launch_bounds__(MMA_REDUCE_THREADS)
mma_zero_f32(float *p, int n4)
{
	mma_pdl_launch_dependents();
	const long long stride = (long long)gridDim.x * blockDim.x;
	float4 *p4 = reinterpret_cast<float4 *>(p);
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
		p4[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}
