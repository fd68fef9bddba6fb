/*
 * tools/diag/ablate.cu: where the committed tensor-core kernels of the
 * unpooler slice at M = 8, qkv at M = 32 and the router at M = 32 spend
 * the time a streaming read of their weights does not. A diagnostic, not
 * part of gemmtab: the kernels come from build/diag/mma_ablate.cuh, which
 * is templates/mma_skinny.cuh with tools/diag/mma_ablate.patch's ablation
 * switches, timed under WORKLOAD.md's method (graph replay after an L2
 * flush by an L2-allocating read, rotated copies of random weights, the
 * variants in a random order, the empty-graph overhead of the same batch
 * subtracted). Results are garbage on purpose in every ablated variant
 * and never checked; only the times mean something.
 *
 * ABL bits of the copy: 1 no mma, 2 no activation loads, 4 (cluster
 * kernels) red.global.adds instead of the push combine, 8 (hi/lo) no
 * atomics, 16 (hi/lo) Y zeroed by the kernel itself behind per-block
 * flags, 64 (hi/lo) split 0 stores its tile and the other splits wait for
 * its flag before they add, 128 (hi/lo) the zero-fill launched after the
 * main kernel as its PDL dependent, publishing a flag the main kernel
 * waits for before its atomics, 256 (mma.sync) a ring slot refilled after
 * the compute that frees it, not at the top of the next iteration, 512
 * (mma.sync) 2 warps along rows and 1 along tokens, the rest splitting
 * each stage's k steps, 1024 (cluster, tiles, mma.sync) one more warp,
 * a producer that streams the ring (one bulk copy per W tile, cp.async
 * for X) behind full/empty mbarriers while the others only compute
 * (checked bit for bit against the committed kernel before timing);
 * (mma.sync) 4096 odd k16 steps into a second set of accumulators (two
 * MMA chains per fragment; checked against the real kernel: same sums in
 * another order); (cluster push) 2048 no remote stores, 32 no remote stores and no final
 * cluster barrier (the owners sum whatever their slots hold; remote
 * stores without the barrier fault: a peer may have left, run 100);
 * ABL >> 16 is a flag-array offset (bits 16 up, clear of the switches).
 *
 * Build: bash tools/diag/build.sh   Run: build/diag/ablate [reps]
 */
#include "diag.cuh"
#include "mma_ablate.cuh"

#include <cstring>

static const int COPIES = 6;

struct problem {
	int n, k, m;
	__nv_bfloat16 *w[COPIES], *x, *y;
	float *ws;
};

static void alloc(problem &p, int n, int k, int m)
{
	p.n = n;
	p.k = k;
	p.m = m;
	for (int i = 0; i < COPIES; i++) {
		CHECK(cudaMalloc(&p.w[i], (size_t)n * k * 2));
		diag_fill_bf16(p.w[i], (size_t)n * k, 0.02f, 0x1234u + i, 0);
	}
	CHECK(cudaMalloc(&p.x, (size_t)m * k * 2));
	diag_fill_bf16(p.x, (size_t)m * k, 1.0f, 0x777u, 0);
	CHECK(cudaMalloc(&p.y, (size_t)m * n * 2));
	CHECK(cudaMalloc(&p.ws, (size_t)m * n * 4 * 8));
	CHECK(cudaMemset(p.ws, 0, (size_t)m * n * 4 * 8));
}

/* Each case reads copy `copy` of its problem's weights. */
using variant = diag_case;

/* An mma_skinny case on problem p: a cluster kernel (CL) or the one-kernel
 * atomic combine (split 1: partials), 4 warps, grid (1, SPLIT, N / BM). */
template <int BM, int BN, int BK, int STAGES, int SPLIT, int LAYOUT, int MMA, int ABL, bool CL>
static variant skinny(const char *name, problem &p)
{
	constexpr int RECV = CL ? mma_recv_bytes(BN, BM, SPLIT) : 0;
	constexpr int COMBINE = SPLIT == 1 ? MMA_COMBINE_PARTIALS : MMA_COMBINE_ATOMIC;
	const int smem = mma_smem_bytes(BM, BN, BK, 4, STAGES, MMA, RECV);
	const void *fn;
	if constexpr (CL)
		fn = (const void *)mma_skinny_cluster_kernel<BM, BN, BK, 4, STAGES, SPLIT, 0, LAYOUT,
							     MMA, ABL>;
	else
		fn = (const void *)mma_skinny_kernel<BM, BN, BK, 4, STAGES, SPLIT, 0, COMBINE, LAYOUT,
						     MMA, ABL>;
	CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	problem *pp = &p;
	return { name, [=](int c, cudaStream_t s) {
			cudaLaunchConfig_t cfg = {};
			cfg.gridDim = dim3(1, SPLIT, pp->n / BM);
			cfg.blockDim = dim3(128 + ((ABL & 1024) ? 32 : 0));     /* + the producer */
			cfg.dynamicSmemBytes = smem;
			cfg.stream = s;
			const __nv_bfloat16 *w = pp->w[c], *x = pp->x;
			__nv_bfloat16 *y = pp->y;
			float *ws = pp->ws;
			int m = pp->m, n = pp->n, k = pp->k;
			void *args[] = { (void *)&w, (void *)&x, (void *)&y, (void *)&ws, (void *)&m,
					 (void *)&n, (void *)&k };
			CHECK(cudaLaunchKernelExC(&cfg, fn, args));
		} };
}

/* The committed entries: the slice at 8 (bm 32, bn 8, bk 128, 4 stages,
 * split 8, rows, mma.sync) and qkv at 32 (bm 64, bn 32, bk 64, 4 stages,
 * split 8, tiles), each as its cluster kernel or (CL false) atomics. */
template <int ABL, bool CL>
static variant slice(const char *name, problem &p)
{
	return skinny<32, 8, 128, 4, 8, MMA_LAYOUT_ROWS, MMA_SYNC, ABL, CL>(name, p);
}

template <int ABL, bool CL>
static variant qkv(const char *name, problem &p)
{
	return skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_SYNC, ABL, CL>(name, p);
}

/* The probe's streaming read of the problem's weight bytes (its best
 * configuration on the H200: 8 blocks per SM, 8 loads in flight). */
static variant stream(const char *name, problem &p, unsigned *sink, int sms)
{
	problem *pp = &p;
	return { name, [=](int c, cudaStream_t s) {
			CHECK(harness_stream_read(pp->w[c], (size_t)pp->n * pp->k * 2, sink, 8 * sms,
						  8, s));
		} };
}

/* The router at 32 (hi/lo, 2N x K): BM hi/lo rows, bn 32, SPLIT ways,
 * atomics into Y, with (ZERO) or without the zero-fill kernel launched
 * before it and the main kernel then launched with PDL. */
template <int ABL, int BM, int BK, int WARPS, int STAGES, int SPLIT, int MMA, bool ZERO>
static variant router(const char *name, problem &p)
{
	const int smem = mma_smem_bytes(BM, 32, BK, WARPS, STAGES, MMA, 0);
	auto fn = (const void *)mma_hilo_kernel<BM, 32, BK, WARPS, STAGES, SPLIT, 0, MMA, ABL>;
	CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	problem *pp = &p;
	return { name, [=](int c, cudaStream_t s) {
			const int n = pp->n / 2;        /* outputs: the matrix holds hi and lo */
			cudaLaunchConfig_t cfg = {};
			cudaLaunchAttribute attr[1];
			cfg.gridDim = dim3(1, SPLIT, pp->n / BM);
			cfg.blockDim = dim3(WARPS * 32);
			cfg.dynamicSmemBytes = smem;
			cfg.stream = s;
			if (ZERO) {
				mma_zero_f32<<<8, MMA_REDUCE_THREADS, 0, s>>>(pp->ws, pp->m * n / 4);
				attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
				attr[0].val.programmaticStreamSerializationAllowed = 1;
				cfg.attrs = attr;
				cfg.numAttrs = 1;
			}
			const __nv_bfloat16 *w = pp->w[c], *x = pp->x;
			float *y = pp->ws;
			int m = pp->m, k = pp->k;
			void *args[] = { (void *)&w, (void *)&x, (void *)&y, (void *)&m, (void *)&n,
					 (void *)&k };
			CHECK(cudaLaunchKernelExC(&cfg, fn, args));
		} };
}

/* ABL 128: the main kernel first (it lets its dependent launch at once),
 * then the zero-fill as its PDL dependent; the main kernel's blocks wait
 * for the zero-fill's generation flag before their atomics. */
template <int OFF, int BM, int BK, int WARPS, int STAGES, int SPLIT>
static variant router_rev(const char *name, problem &p, unsigned *flags)
{
	constexpr int ABL = 128 + (OFF << 16);
	const int smem = mma_smem_bytes(BM, 32, BK, WARPS, STAGES, MMA_SYNC, 0);
	auto fn = (const void *)mma_hilo_kernel<BM, 32, BK, WARPS, STAGES, SPLIT, 0, MMA_SYNC, ABL>;
	CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	problem *pp = &p;
	return { name, [=](int c, cudaStream_t s) {
			const int n = pp->n / 2;
			const int blocks = SPLIT * (pp->n / BM);
			mma_hilo_kernel<BM, 32, BK, WARPS, STAGES, SPLIT, 0, MMA_SYNC, ABL>
				<<<dim3(1, SPLIT, pp->n / BM), WARPS * 32, smem, s>>>(
					pp->w[c], pp->x, pp->ws, pp->m, n, pp->k);
			cudaLaunchConfig_t cfg = {};
			cudaLaunchAttribute attr[1];
			cfg.gridDim = dim3(1);
			cfg.blockDim = dim3(256);
			cfg.stream = s;
			attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
			attr[0].val.programmaticStreamSerializationAllowed = 1;
			cfg.attrs = attr;
			cfg.numAttrs = 1;
			float *y = pp->ws;
			int n4 = pp->m * n / 4;
			unsigned *gen = flags + (ABL >> 16) + blocks;    /* the kernel's done + nblocks */
			void *args[] = { (void *)&y, (void *)&n4, (void *)&gen };
			CHECK(cudaLaunchKernelExC(&cfg, (const void *)mma_zero_gen, args));
		} };
}

/* The router's cluster combine (no zero-fill): BM hi/lo rows, BN tokens,
 * SPLIT ways = the cluster, mma.sync. */
template <int BM, int BN, int BK, int STAGES, int SPLIT>
static variant router_cl(const char *name, problem &p)
{
	constexpr int RECV = mma_recv_bytes(BN, BM / 2, SPLIT);
	const int smem = mma_smem_bytes(BM, BN, BK, 4, STAGES, MMA_SYNC, RECV);
	auto fn = (const void *)mma_hilo_cluster_kernel<BM, BN, BK, 4, STAGES, SPLIT, 0, MMA_SYNC>;
	CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	problem *pp = &p;
	return { name, [=](int c, cudaStream_t s) {
			mma_hilo_cluster_kernel<BM, BN, BK, 4, STAGES, SPLIT, 0, MMA_SYNC>
				<<<dim3((pp->m + BN - 1) / BN, SPLIT, pp->n / BM), 128, smem, s>>>(
					pp->w[c], pp->x, pp->ws, pp->m, pp->n / 2, pp->k);
		} };
}

/* Print whether b's Y equals a's (both run on copy 0 of p). */
static void same_output(const variant &a, const variant &b, problem &p, cudaStream_t s)
{
	const size_t bytes = (size_t)p.m * p.n * 2;
	std::vector<unsigned short> ya(bytes / 2), yb(bytes / 2);
	CHECK(cudaMemsetAsync(p.ws, 0, (size_t)p.m * p.n * 4 * 8, s));
	a.run(0, s);
	CHECK(cudaMemcpyAsync(ya.data(), p.y, bytes, cudaMemcpyDeviceToHost, s));
	CHECK(cudaMemsetAsync(p.y, 0xff, bytes, s));
	b.run(0, s);
	CHECK(cudaMemcpyAsync(yb.data(), p.y, bytes, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	size_t bad = 0;
	for (size_t i = 0; i < ya.size(); i++)
		bad += ya[i] != yb[i];
	printf("check %s against %s: %s (%zu of %zu values differ)\n", b.name, a.name,
	       bad ? "DIFFERS" : "identical", bad, ya.size());
}

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const int sms = diag_sms();
	const cudaStream_t s = diag_stream();
	unsigned *sink;
	CHECK(cudaMalloc(&sink, 64));
	unsigned *flags;
	CHECK(cudaMalloc(&flags, 4096 * sizeof(unsigned)));     /* ABL 16 and 64 */
	CHECK(cudaMemset(flags, 0, 4096 * sizeof(unsigned)));
	CHECK(cudaMemcpyToSymbol(mma_diag_flags, &flags, sizeof(flags)));
	problem sl, qk, rt;
	alloc(sl, 1024, 4096, 8);
	alloc(qk, 2304, 8192, 32);
	alloc(rt, 512, 8192, 32);       /* the router's hi/lo matrix */
	CHECK(cudaDeviceSynchronize());

	/* Runs 78-106 (docs/notes.md) ran subsets of this list. */
	std::vector<variant> vs = {
		stream("slice bytes, stream", sl, sink, sms),
		stream("qkv bytes, stream", qk, sink, sms),
		stream("router bytes, stream", rt, sink, sms),
		/* the slice at 8, the committed entry and its ablations */
		slice<0, true>("slice8 real", sl),
		slice<256, true>("slice8 refill after compute", sl),
		slice<1, true>("slice8 no mma", sl),
		slice<2, true>("slice8 no x", sl),
		slice<3, true>("slice8 no mma no x", sl),
		slice<4, true>("slice8 cluster atomics", sl),
		slice<7, true>("slice8 cl atom no mma/x", sl),
		slice<0, false>("slice8 atomics (1 kernel)", sl),
		slice<3, false>("slice8 atomics no mma/x", sl),
		slice<4096, true>("slice8 two mma chains", sl),
		slice<2048, true>("slice8 push: no remote stores", sl),
		slice<32, true>("slice8 push: neither", sl),
		skinny<32, 8, 128, 4, 4, MMA_LAYOUT_ROWS, MMA_SYNC, 0, true>("slice8 bm32 split4 cl4", sl),
		skinny<16, 8, 128, 4, 4, MMA_LAYOUT_ROWS, MMA_SYNC, 0, true>("slice8 bm16 split4 cl4", sl),
		skinny<16, 8, 128, 4, 4, MMA_LAYOUT_ROWS, MMA_SYNC, 0, false>("slice8 bm16 split4 atom", sl),
		/* qkv at 32 */
		qkv<0, true>("qkv32 real", qk),
		qkv<1, true>("qkv32 no mma", qk),
		qkv<2, true>("qkv32 no x", qk),
		qkv<3, true>("qkv32 no mma no x", qk),
		qkv<4, true>("qkv32 cluster atomics", qk),
		qkv<0, false>("qkv32 atomics (1 kernel)", qk),
		qkv<3, false>("qkv32 atomics no mma/x", qk),
		qkv<4096, true>("qkv32 two mma chains", qk),
		qkv<2048, true>("qkv32 push: no remote stores", qk),
		qkv<32, true>("qkv32 push: neither", qk),
		skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_SYNC, 256, true>("qkv32 refill after compute", qk),
		skinny<64, 32, 64, 3, 8, MMA_LAYOUT_TILES, MMA_SYNC, 256, true>("qkv32 refill after, s3", qk),
		qkv<0, true>("qkv32 real (again)", qk),
		skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_SYNC, 512, true>("qkv32 wm2 wk2", qk),
		skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_SYNC, 1024, true>("qkv32 producer warp", qk),
		skinny<64, 32, 64, 6, 8, MMA_LAYOUT_TILES, MMA_SYNC, 1024, true>("qkv32 producer, s6", qk),
		skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_SYNC, 1024 + 512, true>("qkv32 producer wm2 wk2", qk),
		skinny<64, 32, 128, 3, 7, MMA_LAYOUT_TILES, MMA_SYNC, 0, true>("qkv32 bk128 s3 split7", qk),
		skinny<64, 32, 128, 2, 8, MMA_LAYOUT_TILES, MMA_SYNC, 0, true>("qkv32 bk128 s2 split8", qk),
		skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_WGMMA, 0, true>("qkv32 wgmma s4", qk),
		skinny<64, 32, 64, 4, 8, MMA_LAYOUT_TILES, MMA_WGMMA, 1, true>("qkv32 wgmma s4 no mma", qk),
		skinny<64, 32, 64, 6, 8, MMA_LAYOUT_TILES, MMA_WGMMA, 0, true>("qkv32 wgmma s6", qk),
		skinny<64, 32, 64, 6, 8, MMA_LAYOUT_TILES, MMA_SYNC, 0, true>("qkv32 sync s6", qk),
		/* the router at 32 */
		router<0, 32, 128, 4, 4, 16, MMA_SYNC, true>("r32 real (zero+pdl)", rt),
		router<0, 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 main only", rt),
		router<2, 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 main no x", rt),
		router<1, 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 main no mma", rt),
		router<8, 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 main no atomics", rt),
		router<11, 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 main no x/mma/atom", rt),
		router<0, 64, 64, 4, 6, 16, MMA_SYNC, true>("r32 bm64 bk64 s6 real", rt),
		router<0, 64, 64, 4, 6, 16, MMA_SYNC, false>("r32 bm64 bk64 s6 main", rt),
		router<0, 128, 64, 8, 4, 32, MMA_SYNC, false>("r32 bm128 split32 main", rt),
		router<0, 32, 128, 4, 4, 8, MMA_SYNC, false>("r32 split8 main", rt),
		router<16 + (0 << 16), 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 flags (one kernel)", rt),
		router<64 + (1024 << 16), 32, 128, 4, 4, 16, MMA_SYNC, false>("r32 split0 stores, flag", rt),
		router_rev<2048, 32, 128, 4, 4, 16>("r32 main, then zero (pdl) + flag", rt, flags),
		router_rev<3072, 64, 64, 4, 6, 16>("r32 bm64 main, zero (pdl) + flag", rt, flags),
		router_cl<16, 32, 128, 4, 8>("r32 cl bm16 bn32 bk128 s4 sp8", rt),
		router_cl<32, 32, 128, 4, 8>("r32 cl bm32 bn32 bk128 s4 sp8", rt),
	};
	/* the producer warp (ABL 1024) must compute what the committed kernel
	 * does, bit for bit (same MMAs in the same order, same combine) */
	size_t real = 0;
	while (strcmp(vs[real].name, "qkv32 real"))
		real++;
	for (size_t k = 0; k < vs.size(); k++)
		if (strstr(vs[k].name, "producer"))
			same_output(vs[real], vs[k], qk, s);
	/* two MMA chains (ABL 4096) add the same products in another order:
	 * a few last bits may differ, nothing more */
	size_t sreal = 0;
	while (strcmp(vs[sreal].name, "slice8 real"))
		sreal++;
	for (size_t k = 0; k < vs.size(); k++)
		if (strstr(vs[k].name, "two mma chains"))
			same_output(strstr(vs[k].name, "slice8") ? vs[sreal] : vs[real], vs[k],
				    strstr(vs[k].name, "slice8") ? sl : qk, s);
	diag_time("ablate", vs, COPIES, reps, s);
	return 0;
}
