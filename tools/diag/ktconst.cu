/*
 * tools/diag/ktconst.cu: does what mma_frag's kfix did (a loop's trip
 * count known when compiled: the slice at 8 5-10% faster, runs 226-228)
 * help mma_skinny's k-tile loop? A diagnostic, not part of gemmtab
 * (session 16).
 *
 * Two copies of templates/mma_skinny.cuh, each in a namespace of its own
 * (tools/diag/build.sh makes them): orig as it is, ktc with K a constant
 * (DIAG_K) where the block counts its k tiles, so that with SPLIT
 * dividing K / BK every block's ktiles is a constant. The committed
 * kernels of qkv at M = 8, 16 and 32 (the cluster push; wk 2 at 16) run
 * from both copies on the same packed weights (harness_pack_tiles, tiles of
 * BM x BK) and must agree bit for bit; then both are timed beside the
 * library's own call and the probe's streaming read under WORKLOAD.md's
 * method (tools/diag/diag.cuh).
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/ktconst [reps]
 */
#include <cuda_bf16.h>

#include "diag_lib.cuh"

namespace orig {
#include "mma_skinny.cuh"
}
namespace ktc {
#define DIAG_K 8192
#include "skinny_kt.cuh"
}

namespace {

constexpr int N = 2304, K = 8192, COPIES = 4;

struct form {
	const char *name;
	const void *fn;
	dim3 grid;
	int threads;
	size_t smem;
	int m;
};

/* mma_skinny_cluster_kernel<BM, BN, BK, 4 warps, STAGES, SPLIT, cg, tiles,
 * MMA, WK> from one copy (NS) for M = m. */
#define FORM(NS, label, BM, BN, BK, STAGES, SPLIT, MMA, WK, m)                                      \
	make_form(label,                                                                            \
		  (const void *)NS::mma_skinny_cluster_kernel<BM, BN, BK, 4, STAGES, SPLIT,         \
							      MMA_CACHE_CG, 1, MMA, WK>,     \
		  dim3(((m) + (BN)-1) / (BN), SPLIT, N / (BM)),                                     \
		  NS::mma_smem_bytes(BM, BN, BK, 4, STAGES, MMA, NS::mma_recv_bytes(BN, BM, SPLIT), \
				     WK),                                                           \
		  m)

form make_form(const char *name, const void *fn, dim3 grid, int smem, int m)
{
	CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	return { name, fn, grid, 128, (size_t)smem, m };
}

void launch(const form &f, const __nv_bfloat16 *w, const __nv_bfloat16 *x, __nv_bfloat16 *y,
	    cudaStream_t s)
{
	float *ws = nullptr;
	int m = f.m, n = N, k = K;
	void *args[] = { (void *)&w, (void *)&x, (void *)&y, (void *)&ws, &m, &n, &k };
	CHECK(cudaLaunchKernel(f.fn, f.grid, dim3(f.threads), args, f.smem, s));
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const cudaStream_t s = diag_stream();
	const size_t wbytes = (size_t)N * K * 2;
	__nv_bfloat16 *w[COPIES], *p64[COPIES], *p32[COPIES], *x, *y, *y2;
	CHECK(cudaMalloc(&x, (size_t)32 * K * 2));
	diag_fill_bf16(x, (size_t)32 * K, 1.0f, 500, s);
	for (int c = 0; c < COPIES; c++) {
		CHECK(cudaMalloc(&w[c], wbytes));
		CHECK(cudaMalloc(&p64[c], wbytes));
		CHECK(cudaMalloc(&p32[c], wbytes));
		diag_fill_bf16(w[c], (size_t)N * K, 0.02f, 600 + c, s);
		CHECK(harness_pack_tiles(w[c], p64[c], N, K, 64, 64, s));
		CHECK(harness_pack_tiles(w[c], p32[c], N, K, 32, 128, s));
	}
	CHECK(cudaMalloc(&y, (size_t)32 * N * 2));
	CHECK(cudaMalloc(&y2, (size_t)32 * N * 2));

	/* the committed qkv entries at 8, 16, 32 (runtime/tables/h200.h of
	 * run 227): 32 x 8 x 128 split 4 (6 stages), 64 x 16 x 64 split 8 wk
	 * 2 (sync), 64 x 32 x 64 split 8 (wgmma) */
	struct pair {
		form a, b;
		const __nv_bfloat16 *const *wp;
	};
	const pair pairs[] = {
		{ FORM(orig, "qkv 8 orig", 32, 8, 128, 6, 4, 0, 0, 8),
		  FORM(ktc, "qkv 8 kt const", 32, 8, 128, 6, 4, 0, 0, 8), p32 },
		{ FORM(orig, "qkv 16 orig", 64, 16, 64, 4, 8, 0, 2, 16),
		  FORM(ktc, "qkv 16 kt const", 64, 16, 64, 4, 8, 0, 2, 16), p64 },
		{ FORM(orig, "qkv 32 orig", 64, 32, 64, 4, 8, 1, 0, 32),
		  FORM(ktc, "qkv 32 kt const", 64, 32, 64, 4, 8, 1, 0, 32), p64 },
	};
	for (const pair &p : pairs)
		diag_check_same(p.a.name, p.b.name, y, y2, (size_t)p.a.m * N, s,
				[&] { launch(p.a, p.wp[0], x, y, s); },
				[&] { launch(p.b, p.wp[0], x, y2, s); });

	diag_lib lib;
	diag_lib_open(lib, w, COPIES, N, K, s);
	unsigned *sink;
	CHECK(cudaMalloc(&sink, 64));
	std::vector<diag_case> cs = { diag_stream_case("stream 37.7 MB", w, wbytes, sink),
				      diag_lib_case("lib qkv 8", lib, { x }, 8, y),
				      diag_lib_case("lib qkv 16", lib, { x }, 16, y),
				      diag_lib_case("lib qkv 32", lib, { x }, 32, y) };
	for (const pair &p : pairs)
		for (const form *f : { &p.a, &p.b })
			cs.push_back({ f->name, [&, f, wp = p.wp](int c, cudaStream_t st) {
					      launch(*f, wp[c], x, y, st);
				      } });
	for (int i = 0; i < 3; i++)
		diag_time("ktconst (qkv)", cs, COPIES, reps, s);
	diag_lib_close(lib);
	return 0;
}
