/*
 * tools/diag/oneshot.cu: where does a one-shot read of 8.4 MB (the
 * unpooler slice's and the router's weight bytes) lose time against the
 * probe's streaming read? A diagnostic, not part of gemmtab: each variant
 * reads the same bytes under WORKLOAD.md's timing method (graph replay,
 * L2 flushed by a read before each, rotated copies, the replay overhead of
 * an empty-kernel graph measured in the same batch and subtracted) and
 * prints its median net time.
 *
 * Variants (B blocks of T threads; "chunk" = block b reads one contiguous
 * share, every load issued before any is used):
 *   stream  the probe: grid-stride 16-byte ld.global.nc, 8 blocks/SM x 256
 *   ld      chunk, loads into registers
 *   ldc     ld launched as clusters of 8 (nothing else changes)
 *   ldcx    ldc plus the push combine: each block stores a 1 KiB partial
 *           into its owners' shared memory (st.shared::cluster) after one
 *           start barrier, then one release/acquire cluster barrier
 *   cp      chunk through shared memory by cp.async.cg (the mma kernel's
 *           data path), then a block barrier and a sum
 *   cpc     cp as clusters of 8
 *   cpcx    cpc plus the push combine
 *   cpc1    cpc plus mma_skinny's own combine: a relaxed cluster arrive at
 *           the start, a wait before the first remote store, the stores,
 *           one release/acquire cluster barrier, the owner's sum
 *   cpcm    cpc plus a push without the final cluster barrier: each owner
 *           waits on an mbarrier of its own that the peers' st.async
 *           complete (complete_tx), then sums
 *   cpa     cp (no cluster) plus 1 KiB of red.global.add.v4 per block
 *           (the atomic combine's main kernel, without its zero-fill)
 *
 *   cpz     cp plus red.global.add.v4s into a 32 KiB output (64 float4s
 *           per block, 32 blocks' worth: the router's Y at M = 32), no
 *           zero-fill (k_cpz; the reference for the next three)
 *   cpaz    cpz behind a zero-fill kernel of that output, launched with
 *           programmatic dependent launch (mma_hilo's atomic+pdl plan)
 *   cpg     cpz zeroing its own share of that output at the start, then a
 *           grid-wide ticket: one atomic add per block at the start, one
 *           acquire poll before the atomics (no second kernel)
 *   cpr     cpg without a returned ticket: the count is read before the
 *           block adds to it (red.release, no return), which bounds it
 *   xs      a block's share plus 64 KiB (32 at 256 blocks) of activations
 *           from their own flushed buffer, all by cp.async (run 130)
 *   xdC     xs with the activations fetched once per cluster of C: 1/C
 *           by each block, the rest pulled from its peers' shared memory
 *           (xbC: the same barriers without the pulls)
 *   bk      a block's own share by cp.async.bulk copies (bks: every block
 *           copies block 0's share, its first piece rotated or not)
 *   bxC     every byte by bulk copies: the block's own share, and 1/C of
 *           the shared bytes multicast to its cluster of C (run 134)
 *   cpso    one owner per cluster with a larger share LO (the peers LP
 *           each), rotated over the ranks or not (k_cps, session 15)
 *   frag    no split-K: templates/mma_frag.cuh's kernel itself, the bytes
 *           as its packed W and the copy's 64 KiB of activations as X (M
 *           = 8, N 1024, K 4096: the slice), 8 x NT rows a block
 *   +pri    after the flush (untimed) a kernel that holds 200 KiB of shared
 *           memory on every SM: does the SMs' carveout change cost time?
 *
 * Build: bash tools/diag/build.sh
 * Run: build/diag/oneshot [reps [names: parts separated by |]]
 * (DIAG_PER_COPY=1: each variant timed on each weight copy alone)
 */
#include "diag.cuh"
#include "mma_frag.cuh"

#include <cstdio>
#include <cstring>
#include <string>

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

static const size_t BYTES = 8388608;   /* 1024 x 4096 bf16 */
static const int COPIES = 8;
static const int CLUSTER = 8;

/* Touches its (large) dynamic shared memory: the SMs' carveout is then the
 * one a shared-memory kernel wants. */
__global__ void k_primer(unsigned *sink)
{
	extern __shared__ unsigned sm[];
	sm[threadIdx.x] = threadIdx.x;
	__syncthreads();
	if (sm[(threadIdx.x + 1) % blockDim.x] == DIAG_MAGIC)
		*sink = 1;
}

/* An owner's sum of its receive slots first .. CLUSTER - 1 of per float4s
 * each, from init. */
__device__ __forceinline__ void owner_sum(const float4 *slots, int per, float *out, int first = 0,
					  float init = 0.0f)
{
	if ((int)threadIdx.x < per) {
		float4 s = make_float4(init, init, init, init);
		for (int r = first; r < CLUSTER; r++) {
			const float4 v = slots[r * per + threadIdx.x];
			s.x += v.x;
			s.y += v.y;
			s.z += v.z;
			s.w += v.w;
		}
		if (s.x == 1234.5f)
			out[blockIdx.x] = s.y;
	}
}

/* The push combine of mma_skinny's cluster epilogue, in miniature: 64
 * float4 partials per block, rank r owning 64 / CLUSTER of them. */
__device__ __forceinline__ void push_combine(float seed, float *out)
{
	__shared__ float4 slots[64];
	cg::cluster_group cl = cg::this_cluster();
	const unsigned rank = cl.block_rank();
	const int per = 64 / CLUSTER;
	cl.sync();      /* stands for the start arrive + wait */
	for (int u = threadIdx.x; u < 64; u += blockDim.x) {
		const int owner = u / per;
		float4 *dst = cl.map_shared_rank(&slots[rank * per + u - owner * per], owner);
		*dst = make_float4(seed + u, seed, seed, seed);
	}
	cl.sync();
	owner_sum(slots, per, out);
}

/* Every thread's share of the push: float4 u of this rank's 64 partials
 * into slot (rank, u) of its owner's slots (per = 64 / CLUSTER each). */
__device__ __forceinline__ void push_slots(float seed, const void *slots)
{
	const unsigned rank = ctarank();
	const int per = 64 / CLUSTER;
	for (int u = threadIdx.x; u < 64; u += blockDim.x) {
		const int owner = u / per;
		unsigned dst = mapa(smem_u32((const float4 *)slots + rank * per + u - owner * per), owner);
		asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(dst),
			     "f"(seed + u), "f"(seed), "f"(seed), "f"(seed)
			     : "memory");
	}
}

/* mma_skinny's scheme (COMBINE 2): start arrive (relaxed) is done by the
 * caller at the kernel's start. */
__device__ __forceinline__ void combine_skinny(float seed, float *out)
{
	__shared__ float4 slots[64];
	const int per = 64 / CLUSTER;
	asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
	push_slots(seed, slots);
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	owner_sum(slots, per, out);
}

/* Where the push's +0.55 us goes (session 14): COMBINE 5 the release/
 * acquire barrier alone (no remote stores), 6 the stores and a relaxed
 * barrier (no release: wrong as a combine, a measure only), 7 one relaxed
 * barrier at the end and nothing at the start. */
template <int MODE>
__device__ __forceinline__ void combine_part(float seed, float *out)
{
	__shared__ float4 slots[64];
	const int per = 64 / CLUSTER;
	if (MODE != 7)
		asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
	if (MODE == 6)
		push_slots(seed, slots);
	if (MODE == 5)
		asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
			     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	else
		asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
			     "barrier.cluster.wait.aligned;" ::: "memory");
	owner_sum(slots, per, out);
}

/* The push without a closing barrier (COMBINE 9): every receive slot
 * holds a NaN sentinel written before the start barrier (arrive.release,
 * so a peer's store after its wait.acquire lands after it); each rank
 * stores its partials into its owners' slots with plain remote stores and
 * then polls its own slots (volatile, local) until no 32-bit word is the
 * sentinel: the data is the flag, as in NCCL's LL protocol. No rank
 * touches a peer after its own slots are full, so it may leave. */
#define SENTINEL 0x7fbadbadu
__device__ __forceinline__ void combine_sentinel(float seed, float *out, uint4 *sslots)
{
	const int per = 64 / CLUSTER;
	asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
	push_slots(seed, sslots);
	if ((int)threadIdx.x < per) {
		float4 t = make_float4(0, 0, 0, 0);
		for (int r = 0; r < CLUSTER; r++) {
			unsigned a, b, c, d;
			const unsigned at = smem_u32(&sslots[r * per + threadIdx.x]);
			do {
				asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
					     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(at) : "memory");
			} while (a == SENTINEL || b == SENTINEL || c == SENTINEL || d == SENTINEL);
			t.x += __uint_as_float(a);
			t.y += __uint_as_float(b);
			t.z += __uint_as_float(c);
			t.w += __uint_as_float(d);
		}
		if (t.x == 1234.5f)
			out[blockIdx.x] = t.y;
	}
}

/* One owner per cluster (rank `owner`): the peers store all 64 float4s
 * into its slots (slot (rank - owner) mod CLUSTER), then one thread of
 * each arrives (release, cluster scope) on its mbarrier (count CLUSTER -
 * 1) and the peer leaves; the owner waits (acquire) and sums. The
 * caller's start: the owner initialized `bar`, fenced it, and every block
 * arrived (release) on the cluster barrier. */
__device__ __forceinline__ void combine_owner(float seed, float *out, float4 *oslots,
					      unsigned long long *bar, unsigned owner = 0)
{
	const unsigned rank = ctarank();
	if (rank != owner) {
		const unsigned idx = (rank - owner) & (CLUSTER - 1);
		asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
		for (int u = threadIdx.x; u < 64; u += blockDim.x) {
			unsigned dst = mapa(smem_u32(&oslots[idx * 64 + u]), owner);
			asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(dst),
				     "f"(seed + u), "f"(seed), "f"(seed), "f"(seed)
				     : "memory");
		}
		__syncthreads();
		if (threadIdx.x == 0)
			asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
				     ::"r"(mapa(smem_u32(bar), owner)) : "memory");
		return;
	}
	diag_mbar_wait<true>(smem_u32(bar));
	owner_sum(oslots, 64, out, 1, seed);
}

/* The mbarrier form: the caller's start initialized `bar` (one arrival,
 * expecting CLUSTER * per * 16 bytes), fenced the init to the cluster and
 * arrived (relaxed) on the cluster barrier. */
__device__ __forceinline__ void combine_mbar(float seed, float *out, float4 *slots, unsigned long long *bar)
{
	const unsigned rank = ctarank();
	const int per = 64 / CLUSTER;
	asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
	for (int u = threadIdx.x; u < 64; u += blockDim.x) {
		const int owner = u / per;
		unsigned dst = mapa(smem_u32(&slots[rank * per + u - owner * per]), owner);
		unsigned rbar = mapa(smem_u32(bar), owner);
		asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], "
			     "{%1, %2, %3, %4}, [%5];" ::"r"(dst),
			     "f"(seed + u), "f"(seed), "f"(seed), "f"(seed), "r"(rbar)
			     : "memory");
	}
	diag_mbar_wait<true>(smem_u32(bar));
	owner_sum(slots, per, out);
}

/* L loads of 16 bytes per thread, block b's share contiguous. */
template <int L, int COMBINE>
__global__ void k_ld(const uint4 *p, unsigned *sink, float *out)
{
	const uint4 *q = p + (size_t)blockIdx.x * L * blockDim.x;
	uint4 v[L];
#pragma unroll
	for (int u = 0; u < L; u++)
		v[u] = diag_ld_nc(q + u * blockDim.x + threadIdx.x);
	unsigned acc = 0;
#pragma unroll
	for (int u = 0; u < L; u++)
		acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
	if (COMBINE)
		push_combine((float)(acc & 1), out);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* A block's 1 KiB partial (64 float4s), red.global.add'ed into tile
 * `tile` of y: the atomic combine's stores. */
__device__ __forceinline__ void add_partial(float *y, int tile, unsigned acc)
{
	for (int u = threadIdx.x; u < 64; u += blockDim.x)
		asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};"
			     ::"l"(y + (tile * 64 + u) * 4), "f"((float)(acc & 1)), "f"(1.0f),
			     "f"(1.0f), "f"(1.0f)
			     : "memory");
}

/* An XOR over CHUNKS 16-byte chunks per thread of ring (a slice of what
 * the block copied, each thread reading others' chunks): what keeps the
 * copies from being dropped. */
template <int CHUNKS>
__device__ __forceinline__ unsigned ring_xor(const uint4 *ring)
{
	unsigned acc = 0;
#pragma unroll
	for (int u = 0; u < CHUNKS; u++) {
		const uint4 v = ring[(u * blockDim.x + threadIdx.x + 7 * u) % (CHUNKS * blockDim.x)];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	return acc;
}

/* Block b's share of p, L 16-byte chunks per thread, through shared
 * memory by cp.async (all issued, then one wait and a block barrier), and
 * an XOR over a slice of it. */
template <int L>
__device__ __forceinline__ unsigned cp_chunk(const uint4 *p, uint4 *ring, uint4 *sslots = nullptr,
					     int release = 0)
{
	const uint4 *q = p + (size_t)blockIdx.x * L * blockDim.x;
	const unsigned base = (unsigned)__cvta_generic_to_shared(ring);
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + (u * blockDim.x + threadIdx.x) * 16, q + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;" ::: "memory");
	if (sslots) {
		/* the sentinel push's start, its loads already in flight */
		for (int u = threadIdx.x; u < 64; u += blockDim.x)
			sslots[u] = make_uint4(0x7fbadbadu, 0x7fbadbadu, 0x7fbadbadu, 0x7fbadbadu);
		if (release)
			asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
		else
			asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
	}
	asm volatile("cp.async.wait_group 0;" ::: "memory");
	__syncthreads();
	const unsigned acc = ring_xor<L>(ring);
	return acc;
}

/* A block's share of p (L chunks per thread) plus L more chunks that every
 * block reads alike (block 0's share: L2 hits after the first reads):
 * what a block with no split-K and as many token bytes as weight bytes
 * takes in (mma_oneshot at M = 8, run 104), through shared memory by
 * cp.async, then one wait and a block barrier (run 108). */
template <int L>
__global__ void k_cpx(const uint4 *p, unsigned *sink, float *out)
{
	(void)out;
	extern __shared__ uint4 ring[];
	const uint4 *q = p + (size_t)blockIdx.x * L * blockDim.x;
	const unsigned base = (unsigned)__cvta_generic_to_shared(ring);
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + (u * blockDim.x + threadIdx.x) * 16, q + u * blockDim.x + threadIdx.x);
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + ((L + u) * blockDim.x + threadIdx.x) * 16, p + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
	__syncthreads();
	const unsigned acc = ring_xor<2 * L>(ring);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* k_cpx with the shared bytes multicast over a cluster of C blocks
 * (launched as clusters of C): each block fetches 1/C of them with one
 * cp.async.bulk ... .multicast::cluster into every block of its cluster,
 * each block's mbarrier expecting all of them, so the L2 serves each
 * shared byte once per cluster instead of once per block (run 109). */
template <int L, int C, int PIECE = 0, int ROT = 0>
__global__ void k_cpxm(const uint4 *p, unsigned *sink, float *out)
{
	(void)out;
	extern __shared__ uint4 ring[];
	__shared__ __align__(8) unsigned long long bar;
	const unsigned shared_bytes = L * blockDim.x * 16;
	const unsigned base = (unsigned)__cvta_generic_to_shared(ring);
	const unsigned xb = base + shared_bytes;        /* the shared bytes' place */
	const unsigned mb = (unsigned)__cvta_generic_to_shared(&bar);
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mb) : "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			     ::"r"(mb), "r"(shared_bytes) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	/* every block's barrier is ready before any multicast reaches it */
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	const uint4 *q = p + (size_t)blockIdx.x * L * blockDim.x;
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + (u * blockDim.x + threadIdx.x) * 16, q + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;" ::: "memory");
	{
		/* this block's slice, as one copy (PIECE 0) or as pieces of
		 * PIECE bytes, one per thread (run 111) */
		unsigned rank;
		asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
		const unsigned slice = shared_bytes / C;
		const unsigned piece = PIECE ? PIECE : slice;
		/* ROT: each cluster starts at another piece of the slice, so
		 * the clusters do not all ask for the same lines at once (run
		 * 133: plain bulk copies of shared bytes read 3.5 us unrotated,
		 * 2.9 rotated) */
		const unsigned npieces = slice / piece;
		const unsigned first = ROT ? ((blockIdx.x / C) * 5u) % npieces : 0;
		const unsigned off = threadIdx.x < npieces ? ((threadIdx.x + first) % npieces) * piece
							   : slice;
		if (off < slice) {
			const char *src = (const char *)p + rank * slice + off;
			asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
				     ".multicast::cluster [%0], [%1], %2, [%3], %4;"
				     ::"r"(xb + rank * slice + off), "l"(src), "r"(piece), "r"(mb),
				       "h"((unsigned short)((1u << C) - 1))
				     : "memory");
		}
	}
	asm volatile("cp.async.wait_group 0;" ::: "memory");
	/* wait for phase 0 of the barrier (bounded: a wrong count shows as a
	 * slow time, not a hang) */
	unsigned done = 0;
	int spins = 0;
	for (; !done && spins < (1 << 22); spins++)
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}"
			     : "=r"(done) : "r"(mb) : "memory");
	if (!done && threadIdx.x == 0 && blockIdx.x < 2)
		printf("k_cpxm<%d>: block %d gave up waiting (%d spins)\n", C, blockIdx.x, spins);
	if (threadIdx.x == 0 && blockIdx.x == 0 && spins > 1000 && done)
		printf("k_cpxm<%d>: block 0 waited %d spins\n", C, spins);
	__syncthreads();
	const unsigned acc = ring_xor<2 * L>(ring);
	/* no block leaves while a peer's multicast may still be writing it */
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* k_cpx with the shared bytes from a buffer of their own (x: fresh
 * activations, flushed from L2 like the weights), every block copying all
 * of them by cp.async: mma_oneshot's traffic at M = 8 (run 130). */
template <int L>
__global__ void k_cpxs(const uint4 *p, unsigned *sink, float *out)
{
	extern __shared__ uint4 ring[];
	const uint4 *x = reinterpret_cast<const uint4 *>(out);
	const uint4 *q = p + (size_t)blockIdx.x * L * blockDim.x;
	const unsigned base = smem_u32(ring);
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + ((L + u) * blockDim.x + threadIdx.x) * 16, x + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;" ::: "memory");
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + (u * blockDim.x + threadIdx.x) * 16, q + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
	__syncthreads();
	const unsigned acc = ring_xor<2 * L>(ring);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* k_cpxs with the shared bytes shared through distributed shared memory
 * (launched as clusters of C, run 130): each block copies 1/C of x into
 * its own place for it (cp.async, issued before its weights), and once
 * that has landed (wait_group 1, then a release/acquire cluster barrier)
 * pulls the other C - 1 slices from its peers (ld.shared::cluster) into
 * its own shared memory, then arrives (relaxed) on a second cluster
 * barrier that it waits on only before it leaves: no block's shared
 * memory goes while a peer may still read it, and both barriers sit
 * under the weights' copies still in flight. PULL 0: no pull (the
 * barriers alone). */
template <int L, int C, int PULL>
__global__ void k_cpxd(const uint4 *p, unsigned *sink, float *out)
{
	extern __shared__ uint4 ring[];
	const uint4 *x = reinterpret_cast<const uint4 *>(out);
	const uint4 *q = p + (size_t)blockIdx.x * L * blockDim.x;
	const unsigned base = smem_u32(ring);
	const unsigned xb = base + L * blockDim.x * 16;         /* the shared bytes' place */
	const unsigned rank = ctarank();
	const int per = L * (int)blockDim.x / C;                /* chunks of a slice */
	for (int i = threadIdx.x; i < per; i += blockDim.x)
		cp16(xb + (rank * per + i) * 16, x + rank * per + i);
	asm volatile("cp.async.commit_group;" ::: "memory");
#pragma unroll
	for (int u = 0; u < L; u++)
		cp16(base + (u * blockDim.x + threadIdx.x) * 16, q + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 1;" ::: "memory");
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	if (PULL) {
		/* every load first, then the stores: one round trip, not one
		 * per chunk (run 130's first form waited on each) */
		constexpr int E = L / C;        /* chunks of a slice per thread */
		constexpr int N = (C - 1) * E;
		uint4 v[N];
		unsigned at[N];         /* each chunk's place, here and in its owner */
#pragma unroll
		for (int i = 0; i < N; i++) {
			const unsigned peer = (rank + 1 + i / E) % C;
			at[i] = xb + (peer * per + (i % E) * blockDim.x + threadIdx.x) * 16;
			asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
				     : "=r"(v[i].x), "=r"(v[i].y), "=r"(v[i].z), "=r"(v[i].w)
				     : "r"(mapa(at[i], peer)));
		}
#pragma unroll
		for (int i = 0; i < N; i++)
			asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
				     ::"r"(at[i]), "r"(v[i].x), "r"(v[i].y), "r"(v[i].z), "r"(v[i].w)
				     : "memory");
	}
	asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
	asm volatile("cp.async.wait_group 0;" ::: "memory");
	__syncthreads();
	const unsigned acc = ring_xor<2 * L>(ring);
	asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* bytes from src to the shared address dst as plain bulk copies of PIECE
 * bytes, one per thread in turn, completing on the mbarrier mb; the
 * first piece is piece (rot mod the count), so blocks can start apart. */
template <int PIECE>
__device__ __forceinline__ void bulk_pieces(unsigned dst, const char *src, unsigned bytes,
					    unsigned rot, unsigned mb)
{
	const unsigned pieces = bytes / PIECE, first = rot % pieces;
	for (unsigned i = threadIdx.x; i < pieces; i += blockDim.x) {
		const unsigned j = (i + first) % pieces;
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
			     " [%0], [%1], %2, [%3];"
			     ::"r"(dst + j * PIECE), "l"(src + (size_t)j * PIECE), "r"(PIECE), "r"(mb)
			     : "memory");
	}
}

/* A block's share of p (L chunks per thread) by plain cp.async.bulk
 * copies of PIECE bytes into its shared memory, completing on one
 * mbarrier: the bulk path on bytes no other block reads, against k_cp's
 * 16-byte cp.async (run 133: runs 110-111 read every bulk copy slow, but
 * there 128 blocks fetched the same 64 KiB at once). ROT: the block's
 * first piece is piece (block * 7) mod the count, so blocks start apart
 * (when SHARED, all blocks copy block 0's share, run 110's case). */
template <int L, int PIECE, int SHARED, int ROT>
__global__ void k_bulk(const uint4 *p, unsigned *sink, float *out)
{
	(void)out;
	extern __shared__ uint4 ring[];
	__shared__ __align__(8) unsigned long long bar;
	const unsigned bytes = L * blockDim.x * 16;
	const unsigned base = smem_u32(ring), mb = smem_u32(&bar);
	const char *q = (const char *)(p + (SHARED ? 0 : (size_t)blockIdx.x * L * blockDim.x));
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mb) : "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			     ::"r"(mb), "r"(bytes) : "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}
	__syncthreads();
	bulk_pieces<PIECE>(base, q, bytes, ROT ? (blockIdx.x * 7u) : 0, mb);
	diag_mbar_wait<false>(mb);
	const unsigned acc = ring_xor<L>(ring);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* k_cpxm with every byte by bulk copies (run 134: k_cpxm, its own share
 * by cp.async and the shared bytes by bulk copies, reads ~5.6 us whatever
 * the cluster, against 2.9-3.4 for either path alone): the block's own
 * share in PIECE-byte bulk copies, and 1/C of the shared bytes (block 0's
 * share) multicast to its cluster (C = 1: a plain bulk copy), the first
 * piece rotated per cluster; one mbarrier for all of it. */
template <int L, int C, int PIECE>
__global__ void k_bulkx(const uint4 *p, unsigned *sink, float *out)
{
	(void)out;
	extern __shared__ uint4 ring[];
	__shared__ __align__(8) unsigned long long bar;
	const unsigned bytes = L * blockDim.x * 16;     /* own share; as many shared */
	const unsigned base = smem_u32(ring), xb = base + bytes, mb = smem_u32(&bar);
	const char *q = (const char *)(p + (size_t)blockIdx.x * L * blockDim.x);
	const char *x = (const char *)p;
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mb) : "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			     ::"r"(mb), "r"(2 * bytes) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	if (C > 1)
		asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
			     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	else
		__syncthreads();
	bulk_pieces<PIECE>(base, q, bytes, blockIdx.x * 7u, mb);
	const unsigned rank = ctarank(), slice = bytes / C, sp = slice / PIECE;
	const unsigned sfirst = ((blockIdx.x / C) * 5u) % sp;
	for (unsigned i = threadIdx.x; i < sp; i += blockDim.x) {
		const unsigned off = rank * slice + ((i + sfirst) % sp) * PIECE;
		if (C > 1)
			asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
				     ".multicast::cluster [%0], [%1], %2, [%3], %4;"
				     ::"r"(xb + off), "l"(x + off), "r"(PIECE), "r"(mb),
				       "h"((unsigned short)((1u << C) - 1))
				     : "memory");
		else
			asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
				     " [%0], [%1], %2, [%3];"
				     ::"r"(xb + off), "l"(x + off), "r"(PIECE), "r"(mb)
				     : "memory");
	}
	diag_mbar_wait<false>(mb);
	const unsigned acc = ring_xor<2 * L>(ring);
	if (C > 1)      /* no block leaves while a peer's multicast may still write it */
		asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
			     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* The same share through shared memory by cp.async (dynamic smem = the
 * block's share), then one block barrier and a sum of a slice. COMBINE,
 * the combine after it: 0 none, 1 cpcx's push, 2 cpc1's, 3 cpcm's, 4
 * cpa's atomics, 5-7 parts of cpc1's, 8 one owner, 9-11 the sentinel push. */
template <int L, int COMBINE>
__global__ void k_cp(const uint4 *p, unsigned *sink, float *out)
{
	extern __shared__ uint4 ring[];
	__shared__ float4 mslots[64];
	__shared__ unsigned long long bar;
	if (COMBINE == 3) {
		if (threadIdx.x == 0) {
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)) : "memory");
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
				     ::"r"(smem_u32(&bar)), "r"(64 * 16) : "memory");
			asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		}
		__syncthreads();
	}
	__shared__ float4 oslots[COMBINE == 8 ? CLUSTER * 64 : 1];
	__shared__ uint4 sslots[COMBINE >= 9 ? 64 : 1];
	if (COMBINE == 9) {
		for (int u = threadIdx.x; u < 64; u += blockDim.x)
			sslots[u] = make_uint4(SENTINEL, SENTINEL, SENTINEL, SENTINEL);
		asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
	}
	if (COMBINE == 8) {
		if (ctarank() == 0 && threadIdx.x == 0) {
			asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
				     ::"r"(smem_u32(&bar)), "r"(CLUSTER - 1) : "memory");
			asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		}
		__syncthreads();
		asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
	}
	if (COMBINE == 2 || COMBINE == 3 || COMBINE == 5 || COMBINE == 6)
		asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
	/* 10: the sentinel push with its start arrive (release) after the
	 * loads are issued; 11: the same arrive relaxed (no order: a measure
	 * of the release's cost only) */
	const unsigned acc = COMBINE >= 10 ? cp_chunk<L>(p, ring, sslots, COMBINE == 10)
					   : cp_chunk<L>(p, ring);
	if (COMBINE >= 10)
		combine_sentinel((float)(acc & 1), out, sslots);
	if (COMBINE >= 5 && COMBINE <= 7)
		combine_part<COMBINE>((float)(acc & 1), out);
	if (COMBINE == 8)
		combine_owner((float)(acc & 1), out, oslots, &bar);
	if (COMBINE == 9)
		combine_sentinel((float)(acc & 1), out, sslots);
	if (COMBINE == 1)
		push_combine((float)(acc & 1), out);
	if (COMBINE == 2)
		combine_skinny((float)(acc & 1), out);
	if (COMBINE == 3)
		combine_mbar((float)(acc & 1), out, mslots, &bar);
	if (COMBINE == 4)
		add_partial(out + 4096, blockIdx.x % 64, acc);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* One owner per cluster with a larger share of the bytes (session 15):
 * the owner (rank 0, or with ROT rank cluster % CLUSTER so that owners
 * spread over the SMs) copies LO chunks per thread, each peer LP (LO + 7
 * LP = 8 x 16: the cluster reads what 8 blocks of cp 256 x128 L16 read).
 * The peers finish first and hand over as cpco's do (combine_owner; run
 * 203 measured a form whose owner also waited on the start barrier); if
 * the owner's extra share took as long as that hand-over, the push's
 * latency would hide behind the owner's own stream (it does not). */
template <int LO, int LP, int ROT>
__global__ void k_cps(const uint4 *p, unsigned *sink, float *out)
{
	static_assert(LO + (CLUSTER - 1) * LP == CLUSTER * 16, "a cluster reads 8 x 16 chunks");
	extern __shared__ uint4 ring[];
	__shared__ float4 oslots[CLUSTER * 64];
	__shared__ unsigned long long bar;
	const unsigned rank = ctarank();
	const int cluster = blockIdx.x / CLUSTER;
	const unsigned owner = ROT ? cluster % CLUSTER : 0;
	const int idx = (int)((rank - owner) & (CLUSTER - 1));
	if (rank == owner && threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
			     ::"r"(smem_u32(&bar)), "r"(CLUSTER - 1) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
	const int first = cluster * CLUSTER * 16 + (idx == 0 ? 0 : LO + (idx - 1) * LP);
	const int count = idx == 0 ? LO : LP;
	const uint4 *q = p + (size_t)first * blockDim.x;
	const unsigned base = smem_u32(ring);
	for (int u = 0; u < count; u++)
		cp16(base + (u * blockDim.x + threadIdx.x) * 16, q + u * blockDim.x + threadIdx.x);
	asm volatile("cp.async.commit_group;" ::: "memory");
	asm volatile("cp.async.wait_group 0;" ::: "memory");
	__syncthreads();
	unsigned acc = 0;
	for (int u = 0; u < count; u++) {
		const uint4 v = ring[(u * blockDim.x + threadIdx.x + 7 * u) % (count * blockDim.x)];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	combine_owner((float)(acc & 1), out, oslots, &bar, owner);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

/* mma_zero_f32 in miniature: 2048 float4 = 32 KiB. */
__global__ void k_zero(float *out)
{
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
	float4 *o = reinterpret_cast<float4 *>(out + 4096);
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 2048; i += gridDim.x * blockDim.x)
		o[i] = make_float4(0, 0, 0, 0);
}

/* The atomic combine: 1 KiB of red.add.v4 per block into out + 4096
 * (2048 float4s, 64 per block index modulo 32: a 32 KiB output as the
 * router's at M = 32). GRID: the block zeroes its share first and takes
 * a ticket; it polls before its atomics. PDL: griddepcontrol.wait after its
 * loads, before its atomics. */
template <int L, int MODE>
__global__ void k_cpz(const uint4 *p, unsigned *sink, float *out, unsigned long long *count)
{
	extern __shared__ uint4 ring[];
	__shared__ unsigned long long target;
	float4 *o = reinterpret_cast<float4 *>(out + 4096);
	if (MODE == 3) {
		/* no returned ticket: the count read before this block adds to
		 * it is within [round * G, round * G + G - 1] */
		if (threadIdx.x == 0) {
			unsigned long long c;
			asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(count) : "memory");
			target = (c / gridDim.x + 1) * gridDim.x;
		}
		const int share = (2048 + gridDim.x - 1) / gridDim.x;
		for (int i = threadIdx.x; i < share; i += blockDim.x)
			if (blockIdx.x * share + i < 2048)
				o[blockIdx.x * share + i] = make_float4(0, 0, 0, 0);
		__syncthreads();
		if (threadIdx.x == 0)
			asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(count) : "memory");
	}
	if (MODE == 1) {
		const int share = (2048 + gridDim.x - 1) / gridDim.x;
		for (int i = threadIdx.x; i < share; i += blockDim.x)
			if (blockIdx.x * share + i < 2048)
				o[blockIdx.x * share + i] = make_float4(0, 0, 0, 0);
		__syncthreads();
		if (threadIdx.x == 0) {
			__threadfence();
			unsigned long long t = atomicAdd(count, 1ull);
			target = (t / gridDim.x + 1) * gridDim.x;
		}
	}
	const unsigned acc = cp_chunk<L>(p, ring);
	if (MODE == 2)
		asm volatile("griddepcontrol.wait;" ::: "memory");
	if (MODE == 1 || MODE == 3) {
		if (threadIdx.x == 0) {
			unsigned long long c;
			do
				asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(count) : "memory");
			while (c < target);
		}
		__syncthreads();
	}
	add_partial(out + 4096, blockIdx.x % 32, acc);
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

struct variant {
	const char *name;
	const void *fn;
	int blocks, threads, cluster;
	size_t smem;
	int stream;     /* the probe's streaming read (harness_stream_read, 8
			 * loads in flight): fn unused */
	int primer;     /* after the flush, untimed: a kernel holding 200 KiB
			 * of shared memory on every SM */
	int zmode = 0;  /* k_cpz (its argument list): 1 grid ticket, 2 zero
			 * kernel + pdl, 3 ticket without a returned value, 4
			 * atomics alone (runs 74-83 launched those with k_cp's
			 * shorter list: the segfault of run 87) */
	int xbuf = 0;   /* the third argument is the copy's own 64 KiB of
			 * activations (k_cpxs, k_cpxd) instead of out */
	int policy = 0; /* cluster scheduling policy preference: 0 the
			 * default, 1 spread, 2 load balancing; -1 a cluster
			 * attribute of 1 x 1 x 1 (the attribute path alone) */
	int frag = 0;   /* templates/mma_frag.cuh's kernel itself: the bytes
			 * as W (packed), the copy's activations as X (xbuf),
			 * M = 8, N = 1024, K = 4096, Y in g_y; grid (1, blocks) */
};

static __nv_bfloat16 *g_y;

static unsigned long long *g_count;
static uint4 *g_x[COPIES];     /* 64 KiB of activations per copy */

static void launch(const variant &v, const uint4 *p, unsigned *sink, float *out, cudaStream_t s)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr[2];
	cfg.gridDim = dim3(v.blocks);
	cfg.blockDim = dim3(v.threads);
	cfg.dynamicSmemBytes = v.smem;
	cfg.stream = s;
	if (v.cluster > 1 || v.policy < 0) {
		diag_cluster_dims(cfg, attr[0], v.cluster);
		if (v.policy > 0) {
			attr[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
			attr[1].val.clusterSchedulingPolicyPreference =
				v.policy == 1 ? cudaClusterSchedulingPolicySpread
					      : cudaClusterSchedulingPolicyLoadBalancing;
			cfg.numAttrs = 2;
		}
	}
	if (v.zmode == 2) {
		k_zero<<<8, 256, 0, s>>>(out);
		attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
		attr[0].val.programmaticStreamSerializationAllowed = 1;
		cfg.attrs = attr;
		cfg.numAttrs = 1;
	}
	if (v.frag) {
		cfg.gridDim = dim3(1, v.blocks);
		int m = 8, n = 1024, k = 4096;
		const void *xp = out;
		void *args[] = { (void *)&p, (void *)&xp, (void *)&g_y, (void *)&m, (void *)&n, (void *)&k };
		CHECK(cudaLaunchKernelExC(&cfg, v.fn, args));
		return;
	}
	if (v.zmode) {
		/* one counter per grid size and mode: a ticket's round is
		 * ticket / blocks */
		unsigned long long *count = g_count + (v.blocks == 512) + 2 * (v.zmode == 3);
		void *args[] = { (void *)&p, (void *)&sink, (void *)&out, (void *)&count };
		CHECK(cudaLaunchKernelExC(&cfg, v.fn, args));
	} else if (v.stream) {
		CHECK(harness_stream_read(p, BYTES, sink, v.blocks, 8, s));
	} else {
		void *args[] = { (void *)&p, (void *)&sink, (void *)&out };
		CHECK(cudaLaunchKernelExC(&cfg, v.fn, args));
	}
}


/* Does name contain one of the '|'-separated parts of pattern? */
static bool name_matches(const char *name, const char *pattern)
{
	std::string p(pattern);
	size_t from = 0;
	for (;;) {
		const size_t bar = p.find('|', from);
		const std::string part = p.substr(from, bar == std::string::npos ? std::string::npos
										   : bar - from);
		if (!part.empty() && strstr(name, part.c_str()))
			return true;
		if (bar == std::string::npos)
			return false;
		from = bar + 1;
	}
}

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	/* only the variants whose names contain one of these ('|' between) */
	const char *only = argc > 2 ? argv[2] : nullptr;
	const int sms = diag_sms();
	const cudaStream_t s = diag_stream();
	uint4 *bufs[COPIES];
	unsigned *sink;
	float *out;
	for (int i = 0; i < COPIES; i++) {
		CHECK(cudaMalloc(&bufs[i], BYTES));
		CHECK(harness_fill_random_bytes(bufs[i], BYTES, 1234u + i, s));
		CHECK(cudaMalloc(&g_x[i], 65536));
		CHECK(harness_fill_random_bytes(g_x[i], 65536, 777u + i, s));
	}
	CHECK(cudaMalloc(&sink, 64));
	CHECK(cudaMalloc(&g_y, 8 * 1024 * sizeof(__nv_bfloat16)));
	CHECK(cudaMalloc(&g_count, 32));
	CHECK(cudaMemset(g_count, 0, 32));
	CHECK(cudaMalloc(&out, (4096 + 64 * 64 * 4) * sizeof(float)));
	const int PRIMER_SMEM = 200 * 1024;
	CHECK(cudaFuncSetAttribute((const void *)k_primer, cudaFuncAttributeMaxDynamicSharedMemorySize,
				   PRIMER_SMEM));

	/* 8.4 MB = 524288 x 16 B: 256 x 128 threads x 16 loads (the slice's
	 * mma grid and block), 512 x 128 x 8, 128 x 256 x 16 (one per SM),
	 * 1024 x 128 x 4, 256 x 512 x 4. */
	std::vector<variant> vs = {
		{ "stream 8/SM x256 u8", nullptr, 8 * sms, 256, 1, 0, 1 },
		{ "stream 2/SM x256 u8", nullptr, 2 * sms, 256, 1, 0, 1 },
		{ "ld  256 x128 L16", (const void *)k_ld<16, 0>, 256, 128, 1, 0, 0 },
		{ "ldc 256 x128 L16", (const void *)k_ld<16, 0>, 256, 128, CLUSTER, 0, 0 },
		{ "ldcx 256 x128 L16", (const void *)k_ld<16, 1>, 256, 128, CLUSTER, 0, 0 },
		{ "ld  512 x128 L8", (const void *)k_ld<8, 0>, 512, 128, 1, 0, 0 },
		{ "ldcx 512 x128 L8", (const void *)k_ld<8, 1>, 512, 128, CLUSTER, 0, 0 },
		{ "ld  128 x256 L16", (const void *)k_ld<16, 0>, 128, 256, 1, 0, 0 },
		{ "ld  1024 x128 L4", (const void *)k_ld<4, 0>, 1024, 128, 1, 0, 0 },
		{ "ld  256 x512 L4", (const void *)k_ld<4, 0>, 256, 512, 1, 0, 0 },
		{ "ldc 256 x512 L4", (const void *)k_ld<4, 0>, 256, 512, CLUSTER, 0, 0 },
		{ "cp  256 x128 L16", (const void *)k_cp<16, 0>, 256, 128, 1, 32768, 0 },
		{ "cpc 256 x128 L16", (const void *)k_cp<16, 0>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcx 256 x128 L16", (const void *)k_cp<16, 1>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpc1 256 x128 L16", (const void *)k_cp<16, 2>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcm 256 x128 L16", (const void *)k_cp<16, 3>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpa 256 x128 L16", (const void *)k_cp<16, 4>, 256, 128, 1, 32768, 0 },
		{ "cp  512 x128 L8", (const void *)k_cp<8, 0>, 512, 128, 1, 16384, 0 },
		{ "cpc 512 x128 L8", (const void *)k_cp<8, 0>, 512, 128, CLUSTER, 16384, 0 },
		{ "cpcx 512 x128 L8", (const void *)k_cp<8, 1>, 512, 128, CLUSTER, 16384, 0 },
		{ "cpc1 512 x128 L8", (const void *)k_cp<8, 2>, 512, 128, CLUSTER, 16384, 0 },
		{ "cpcm 512 x128 L8", (const void *)k_cp<8, 3>, 512, 128, CLUSTER, 16384, 0 },
		{ "cpa 512 x128 L8", (const void *)k_cp<8, 4>, 512, 128, 1, 16384, 0 },
		{ "cp  1024 x128 L4", (const void *)k_cp<4, 0>, 1024, 128, 1, 8192, 0 },
		{ "cp  256 x256 L8", (const void *)k_cp<8, 0>, 256, 256, 1, 32768, 0 },
		{ "cp  256 x128 L16 again", (const void *)k_cp<16, 0>, 256, 128, 1, 32768, 0 },
		/* fewer, fatter blocks: can 64 or 128 SMs alone stream the
		 * slice's bytes (a kernel with no split-K, run 103)? */
		{ "cp  64 x256 L32", (const void *)k_cp<32, 0>, 64, 256, 1, 131072, 0 },
		{ "cp  64 x512 L16", (const void *)k_cp<16, 0>, 64, 512, 1, 131072, 0 },
		{ "cp  128 x256 L16", (const void *)k_cp<16, 0>, 128, 256, 1, 65536, 0 },
		{ "ld  64 x512 L16", (const void *)k_ld<16, 0>, 64, 512, 1, 0, 0 },
		{ "cpx 128 x256 L16 + 64 KiB shared", (const void *)k_cpx<16>, 128, 256, 1, 131072, 0 },
		{ "cpx 256 x128 L16 + 32 KiB shared", (const void *)k_cpx<16>, 256, 128, 1, 65536, 0 },
		{ "cpxm4 128 x256 L16 + 64 KiB mcast", (const void *)k_cpxm<16, 4>, 128, 256, 4, 131072, 0 },
		{ "cpxm8 128 x256 L16 + 64 KiB mcast", (const void *)k_cpxm<16, 8>, 128, 256, 8, 131072, 0 },
		{ "cpxm1 128 x256 L16 + 64 KiB bulk", (const void *)k_cpxm<16, 1>, 128, 256, 1, 131072, 0 },
		{ "cpxm1 ... in 2 KiB pieces", (const void *)k_cpxm<16, 1, 2048>, 128, 256, 1, 131072, 0 },
		{ "cpxm4 ... in 2 KiB pieces", (const void *)k_cpxm<16, 4, 2048>, 128, 256, 4, 131072, 0 },
		{ "cpxm8 ... in 1 KiB pieces", (const void *)k_cpxm<16, 8, 1024>, 128, 256, 8, 131072, 0 },
		{ "cpxm4 ... in 512 B pieces", (const void *)k_cpxm<16, 4, 512>, 128, 256, 4, 131072, 0 },
		/* the activations from their own buffer, each block copying all
		 * of them (xs) or its cluster's share of them, pulled from its
		 * peers' shared memory (xd; xb: the barriers without the
		 * pulls), run 130 */
		{ "xs  128 x256 L16 + 64 KiB x", (const void *)k_cpxs<16>, 128, 256, 1, 131072, 0, 0, 0, 1 },
		{ "xd2 128 x256 L16 + 64 KiB x", (const void *)k_cpxd<16, 2, 1>, 128, 256, 2, 131072, 0, 0, 0, 1 },
		{ "xb2 128 x256 L16 + 32 KiB x", (const void *)k_cpxd<16, 2, 0>, 128, 256, 2, 131072, 0, 0, 0, 1 },
		/* clusters of 4 and 8 at one block per SM take two waves
		 * (this unit holds 30 of 4, 15 of 8: run 121) */
		{ "xs  256 x128 L16 + 32 KiB x", (const void *)k_cpxs<16>, 256, 128, 1, 65536, 0, 0, 0, 1 },
		{ "xd2 256 x128 L16 + 32 KiB x", (const void *)k_cpxd<16, 2, 1>, 256, 128, 2, 65536, 0, 0, 0, 1 },
		{ "xd4 256 x128 L16 + 32 KiB x", (const void *)k_cpxd<16, 4, 1>, 256, 128, 4, 65536, 0, 0, 0, 1 },
		{ "xd8 256 x128 L16 + 32 KiB x", (const void *)k_cpxd<16, 8, 1>, 256, 128, 8, 65536, 0, 0, 0, 1 },
		{ "xb8 256 x128 L16 + 4 KiB x", (const void *)k_cpxd<16, 8, 0>, 256, 128, 8, 65536, 0, 0, 0, 1 },
		/* the bulk path on distinct bytes, and on shared bytes with
		 * the blocks' first pieces apart (run 133) */
		{ "bk  128 x256 L16 own, 64 KiB", (const void *)k_bulk<16, 65536, 0, 0>, 128, 256, 1, 65536, 0 },
		{ "bk  128 x256 L16 own, 4 KiB", (const void *)k_bulk<16, 4096, 0, 0>, 128, 256, 1, 65536, 0 },
		{ "bk  128 x256 L16 own, 1 KiB", (const void *)k_bulk<16, 1024, 0, 0>, 128, 256, 1, 65536, 0 },
		{ "bk  256 x128 L16 own, 32 KiB", (const void *)k_bulk<16, 32768, 0, 0>, 256, 128, 1, 32768, 0 },
		{ "bk  256 x128 L16 own, 4 KiB", (const void *)k_bulk<16, 4096, 0, 0>, 256, 128, 1, 32768, 0 },
		{ "bks 128 x256 L16 shared, 4 KiB", (const void *)k_bulk<16, 4096, 1, 0>, 128, 256, 1, 65536, 0 },
		{ "bks 128 x256 L16 shared, 4 KiB rot", (const void *)k_bulk<16, 4096, 1, 1>, 128, 256, 1, 65536, 0 },
		{ "bks 128 x256 L16 shared, 1 KiB rot", (const void *)k_bulk<16, 1024, 1, 1>, 128, 256, 1, 65536, 0 },
		{ "cpxm4 ... 2 KiB pieces rot", (const void *)k_cpxm<16, 4, 2048, 1>, 128, 256, 4, 131072, 0 },
		{ "cpxm2 ... 2 KiB pieces rot", (const void *)k_cpxm<16, 2, 2048, 1>, 128, 256, 2, 131072, 0 },
		{ "cpxm2 ... 2 KiB pieces", (const void *)k_cpxm<16, 2, 2048, 0>, 128, 256, 2, 131072, 0 },
		/* one wave: 256 blocks at 64 KiB hold 45 clusters of 8 */
		{ "cpxm8 256 x128 ... 1 KiB pieces rot", (const void *)k_cpxm<16, 8, 1024, 1>, 256, 128, 8, 65536, 0 },
		{ "cpxm8 256 x128 ... 1 KiB pieces", (const void *)k_cpxm<16, 8, 1024, 0>, 256, 128, 8, 65536, 0 },
		{ "cpxm4 256 x128 ... 1 KiB pieces rot", (const void *)k_cpxm<16, 4, 1024, 1>, 256, 128, 4, 65536, 0 },
		{ "bx1 128 x256 L16 all bulk + 64 KiB", (const void *)k_bulkx<16, 1, 2048>, 128, 256, 1, 131072, 0 },
		{ "bx2 128 x256 L16 all bulk + 64 KiB mcast", (const void *)k_bulkx<16, 2, 2048>, 128, 256, 2, 131072, 0 },
		{ "bx1 256 x128 L16 all bulk + 32 KiB", (const void *)k_bulkx<16, 1, 1024>, 256, 128, 1, 65536, 0 },
		{ "bx4 256 x128 L16 all bulk + 32 KiB mcast", (const void *)k_bulkx<16, 4, 1024>, 256, 128, 4, 65536, 0 },
		{ "bx8 256 x128 L16 all bulk + 32 KiB mcast", (const void *)k_bulkx<16, 8, 1024>, 256, 128, 8, 65536, 0 },
		{ "cpxm1 ... 2 KiB pieces rot", (const void *)k_cpxm<16, 1, 2048, 1>, 128, 256, 1, 131072, 0 },
		{ "cpc 128 x256 L16 (cluster 4)", (const void *)k_cp<16, 0>, 128, 256, 4, 65536, 0 },
		{ "cp  256 x128 L16 +pri", (const void *)k_cp<16, 0>, 256, 128, 1, 32768, 0, 1 },
		{ "cpc 256 x128 L16 +pri", (const void *)k_cp<16, 0>, 256, 128, CLUSTER, 32768, 0, 1 },
		{ "cpc1 256 x128 L16 +pri", (const void *)k_cp<16, 2>, 256, 128, CLUSTER, 32768, 0, 1 },
		{ "cpa 256 x128 L16 +pri", (const void *)k_cp<16, 4>, 256, 128, 1, 32768, 0, 1 },
		{ "cp  512 x128 L8 +pri", (const void *)k_cp<8, 0>, 512, 128, 1, 16384, 0, 1 },
		{ "stream 8/SM +pri", nullptr, 8 * sms, 256, 1, 0, 1, 1 },
		{ "cpz 256 x128 L16", (const void *)k_cpz<16, 0>, 256, 128, 1, 32768, 0, 0, 4 },
		{ "cpaz 256 x128 L16", (const void *)k_cpz<16, 2>, 256, 128, 1, 32768, 0, 0, 2 },
		{ "cpg 256 x128 L16", (const void *)k_cpz<16, 1>, 256, 128, 1, 32768, 0, 0, 1 },
		{ "cpz 512 x128 L8", (const void *)k_cpz<8, 0>, 512, 128, 1, 16384, 0, 0, 4 },
		{ "cpaz 512 x128 L8", (const void *)k_cpz<8, 2>, 512, 128, 1, 16384, 0, 0, 2 },
		{ "cpg 512 x128 L8", (const void *)k_cpz<8, 1>, 512, 128, 1, 16384, 0, 0, 1 },
		{ "cpr 256 x128 L16", (const void *)k_cpz<16, 3>, 256, 128, 1, 32768, 0, 0, 3 },
		{ "cpr 512 x128 L8", (const void *)k_cpz<8, 3>, 512, 128, 1, 16384, 0, 0, 3 },
		/* the cluster launch's own cost (cpc against cp: +0.25 us in
		 * runs 83 and 88): the scheduling policy, the cluster size, and
		 * a 1 x 1 x 1 cluster attribute (session 14) */
		{ "cpc 256 x128 L16 spread", (const void *)k_cp<16, 0>, 256, 128, CLUSTER, 32768, 0, 0, 0, 0, 1 },
		{ "cpc 256 x128 L16 lb", (const void *)k_cp<16, 0>, 256, 128, CLUSTER, 32768, 0, 0, 0, 0, 2 },
		{ "cpc1 256 x128 L16 spread", (const void *)k_cp<16, 2>, 256, 128, CLUSTER, 32768, 0, 0, 0, 0, 1 },
		{ "cpc1 256 x128 L16 lb", (const void *)k_cp<16, 2>, 256, 128, CLUSTER, 32768, 0, 0, 0, 0, 2 },
		{ "cpc 256 x128 L16 (cluster 2)", (const void *)k_cp<16, 0>, 256, 128, 2, 32768, 0 },
		{ "cpc 256 x128 L16 (cluster 4)", (const void *)k_cp<16, 0>, 256, 128, 4, 32768, 0 },
		{ "cpc 256 x128 L16 (cluster 1 attr)", (const void *)k_cp<16, 0>, 256, 128, 1, 32768, 0, 0, 0, 0, -1 },
		/* where cpc1's +0.55 us goes, and a one-owner form (session 14) */
		{ "cpcb 256 x128 L16 barrier alone", (const void *)k_cp<16, 5>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcr 256 x128 L16 stores, relaxed", (const void *)k_cp<16, 6>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcw 256 x128 L16 one relaxed barrier", (const void *)k_cp<16, 7>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpco 256 x128 L16 one owner", (const void *)k_cp<16, 8>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcs 256 x128 L16 sentinel push", (const void *)k_cp<16, 9>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcs 512 x128 L8 sentinel push", (const void *)k_cp<8, 9>, 512, 128, CLUSTER, 16384, 0 },
		{ "cpcS 256 x128 L16 sentinel, late release", (const void *)k_cp<16, 10>, 256, 128, CLUSTER, 32768, 0 },
		{ "cpcR 256 x128 L16 sentinel, late relaxed", (const void *)k_cp<16, 11>, 256, 128, CLUSTER, 32768, 0 },
		/* no split-K, registers only: mma_frag's kernel, 8 x NT rows a block */
		{ "frag 64 w16 nt2 u8", (const void *)mma_frag_kernel<16, 2, 8, 8, 0, 0>, 64, 512, 1, 0, 0, 0, 0, 1, 0, 1 },
		{ "frag 64 w16 nt2 u4", (const void *)mma_frag_kernel<16, 2, 8, 4, 0, 0>, 64, 512, 1, 0, 0, 0, 0, 1, 0, 1 },
		{ "frag 128 w16 nt1 u4", (const void *)mma_frag_kernel<16, 1, 8, 4, 0, 0>, 128, 512, 1, 0, 0, 0, 0, 1, 0, 1 },
		{ "frag 128 w32 nt1 u4", (const void *)mma_frag_kernel<32, 1, 8, 4, 0, 0>, 128, 1024, 1, 0, 0, 0, 0, 1, 0, 1 },
		/* one owner with a larger share (session 15): LO / LP chunks */
		{ "cpso 256 L16/16 rot", (const void *)k_cps<16, 16, 1>, 256, 128, CLUSTER, 16 * 2048, 0 },
		{ "cpso 256 L30/14 rot", (const void *)k_cps<30, 14, 1>, 256, 128, CLUSTER, 30 * 2048, 0 },
		{ "cpso 256 L44/12 rot", (const void *)k_cps<44, 12, 1>, 256, 128, CLUSTER, 44 * 2048, 0 },
		{ "cpso 256 L44/12 r0", (const void *)k_cps<44, 12, 0>, 256, 128, CLUSTER, 44 * 2048, 0 },
		{ "cpso 256 L51/11 rot", (const void *)k_cps<51, 11, 1>, 256, 128, CLUSTER, 51 * 2048, 0 },
	};
	/* each kernel's largest dynamic shared memory over its variants (one
	 * kernel serves several sizes: the last set must not be a smaller) */
	for (auto &v : vs) {
		size_t most = 0;
		for (auto &w : vs)
			if (w.fn == v.fn && w.smem > most)
				most = w.smem;
		if (v.fn && most > 48 * 1024)
			CHECK(cudaFuncSetAttribute(v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
						   (int)most));
	}
	std::vector<diag_case> cs;
	const bool per_copy = getenv("DIAG_PER_COPY") && atoi(getenv("DIAG_PER_COPY"));
	std::vector<std::string> copy_names;
	for (const variant &v : vs) {
		if (only && !name_matches(v.name, only))
			continue;
		diag_case c;
		c.name = v.name;
		c.run = [=](int copy, cudaStream_t st) {
			launch(v, bufs[copy], sink, v.xbuf ? (float *)g_x[copy] : out, st);
		};
		if (v.primer)
			c.before = [=](cudaStream_t st) {
				k_primer<<<sms, 256, PRIMER_SMEM, st>>>(sink);
			};
		c.bytes = BYTES;
		if (!per_copy) {
			cs.push_back(c);
			continue;
		}
		/* DIAG_PER_COPY=1: one case per weight copy, so that a copy
		 * whose pages read slower than the others shows (session 14:
		 * is the process effect of runs 119 and 195 where the memory
		 * lies?) */
		for (int i = 0; i < COPIES; i++) {
			diag_case ci = c;
			copy_names.push_back(std::string(v.name) + " #" + std::to_string(i));
			ci.run = [=](int, cudaStream_t st) {
				launch(v, bufs[i], sink, v.xbuf ? (float *)g_x[i] : out, st);
			};
			cs.push_back(ci);
		}
	}
	if (per_copy)   /* named once every name is in place */
		for (size_t i = 0; i < cs.size(); i++)
			cs[i].name = copy_names[i].c_str();
	char title[64];
	snprintf(title, sizeof(title), "oneshot: %zu bytes", BYTES);
	diag_time(title, cs, COPIES, reps, s);
	return 0;
}
