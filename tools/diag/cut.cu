/*
 * tools/diag/cut.cu: qkv at M = 32 on session 18's committed kernel
 * (mma_skinny, 64 x 32 x 64, 4 warps, 5 stages, split 8, wgmma, the
 * cluster push through the epilogue tile) with its parts cut out one at a
 * time: where do its ~1.5 us over the stream go? A diagnostic, not part
 * of gemmtab (session 18; run 101 did this for session 8's kernel with
 * mma_ablate.patch, which no longer applies). The library's own call it
 * is timed and checked beside is the current table's: since run 263 the
 * template pushes such tiles straight from the accumulators (bit 256's
 * form), so the library's call and form 256 are the same code.
 *
 * tools/diag/build.sh makes build/diag/skinny_cut.cuh from
 * templates/mma_skinny.cuh as of 35541d8 (the last before the direct push
 * moved into it; CUT_REF picks another) by sed: DIAG_CUT bit 1 drops the wgmma k loop
 * (the accumulators stay 0), 2 the token tile's copies, 4 the push's
 * remote stores, 8 the cluster barrier after them (only with 4: a rank
 * must not leave while a peer still stores into it), 16 the push through
 * the L2 instead of the owners' shared memory, 32 the push's owners in an
 * order rotated per rank (tools/diag/cut_hooks.h), 64 the accumulators'
 * stores into the epilogue tile the push reads, 128 and 256 the push
 * straight from the accumulators (no epilogue tile; owners by threads or
 * by tokens), 512 bit 256's owners with 16-byte stores instead of 8. Each value of DIAG_CUT
 * is a copy of the template in a namespace of its own. The uncut copy
 * and forms 16 and 32 must match the library's own call bit for bit; the
 * others store a wrong Y by design (docs/notes.md, runs 253-255). All are timed beside the library's call and the
 * probe's streaming read under WORKLOAD.md's method (diag.cuh).
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/cut [reps]
 */
#include <cuda_bf16.h>

#include "diag_lib.cuh"

#define DIAG_CUT 0
#define DIAG_NS c0
#include "cut_copy.h"
#define DIAG_CUT 1
#define DIAG_NS c1
#include "cut_copy.h"
#define DIAG_CUT 2
#define DIAG_NS c2
#include "cut_copy.h"
#define DIAG_CUT 4
#define DIAG_NS c4
#include "cut_copy.h"
#define DIAG_CUT 12
#define DIAG_NS c12
#include "cut_copy.h"
#define DIAG_CUT 13
#define DIAG_NS c13
#include "cut_copy.h"
#define DIAG_CUT 15
#define DIAG_NS c15
#include "cut_copy.h"
#define DIAG_CUT 16
#define DIAG_NS c16
#include "cut_copy.h"
#define DIAG_CUT 32
#define DIAG_NS c32
#include "cut_copy.h"
#define DIAG_CUT 64
#define DIAG_NS c64
#include "cut_copy.h"
#define DIAG_CUT 68
#define DIAG_NS c68
#include "cut_copy.h"
#define DIAG_CUT 128
#define DIAG_NS c128
#include "cut_copy.h"
#define DIAG_CUT 256
#define DIAG_NS c256
#include "cut_copy.h"
#define DIAG_CUT 512
#define DIAG_NS c512
#include "cut_copy.h"

namespace {

constexpr int N = 2304, K = 8192, M = 32, COPIES = 4;

struct form {
	const char *name;
	const void *fn;
	dim3 grid;
	size_t smem;
};

/* mma_skinny_cluster_kernel<64, 32, 64, 4 warps, STAGES, split 8, cg,
 * tiles, wgmma, wk 0> from the copy NS */
#define FORM(NS, label, STAGES)                                                                  \
	make_form(label,                                                                         \
		  (const void *)NS::mma_skinny_cluster_kernel<64, 32, 64, 4, STAGES, 8,          \
							      MMA_CACHE_CG, 1, 1, 0>,     \
		  NS::mma_smem_bytes(64, 32, 64, 4, STAGES, 1, NS::mma_recv_bytes(32, 64, 8), 0))

form make_form(const char *name, const void *fn, int smem)
{
	CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	return { name, fn, dim3(1, 8, N / 64), (size_t)smem };
}

float *ws;      /* bit 16's hand-over regions: 36 clusters x 8 x 8 x 64 float4 */

void launch(const form &f, const __nv_bfloat16 *w, const __nv_bfloat16 *x, __nv_bfloat16 *y,
	    cudaStream_t s)
{
	int m = M, n = N, k = K;
	void *args[] = { (void *)&w, (void *)&x, (void *)&y, (void *)&ws, &m, &n, &k };
	CHECK(cudaLaunchKernel(f.fn, f.grid, dim3(128), args, f.smem, s));
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	cudaStream_t s = diag_stream();
	const size_t wbytes = (size_t)N * K * 2;
	__nv_bfloat16 *w[COPIES], *p64[COPIES], *x, *y, *y2;
	CHECK(cudaMalloc(&x, (size_t)M * K * 2));
	diag_fill_bf16(x, (size_t)M * K, 1.0f, 500, s);
	for (int c = 0; c < COPIES; c++) {
		CHECK(cudaMalloc(&w[c], wbytes));
		CHECK(cudaMalloc(&p64[c], wbytes));
		diag_fill_bf16(w[c], (size_t)N * K, 0.02f, 600 + c, s);
		CHECK(harness_pack_tiles(w[c], p64[c], N, K, 64, 64, s));
	}
	CHECK(cudaMalloc(&y, (size_t)M * N * 2));
	CHECK(cudaMalloc(&y2, (size_t)M * N * 2));
	CHECK(cudaMalloc(&ws, (size_t)4 << 20));

	const form forms[] = {
		FORM(c0, "s5 whole", 5),
		FORM(c0, "s4 whole", 4),
		FORM(c1, "s5 no MMA (bad Y)", 5),
		FORM(c2, "s5 no X (bad Y)", 5),
		FORM(c4, "s5 no push stores (bad Y)", 5),
		FORM(c12, "s5 no push, no barrier (bad Y)", 5),
		FORM(c13, "s5 ring of W and X only (bad Y)", 5),
		FORM(c15, "s5 ring of W only (bad Y)", 5),
		FORM(c16, "s5 push through the L2", 5),
		FORM(c32, "s5 push rotated per rank", 5),
		FORM(c64, "s5 no epilogue tile (bad Y)", 5),
		FORM(c68, "s5 no epilogue tile, no push (bad Y)", 5),
		FORM(c128, "s5 push from the accumulators", 5),
		FORM(c128, "s4 push from the accumulators", 4),
		FORM(c256, "s5 push from the accumulators by token", 5),
		FORM(c512, "s5 push by token, 16-byte stores", 5),
	};

	diag_lib lib;
	diag_lib_open(lib, w, COPIES, N, K, s);
	/* every form that does not say "(bad Y)" against the library's own
	 * call: the same entry, the same sums in the same order */
	const diag_case lib_y2 = diag_lib_case("lib qkv 32", lib, { x }, M, y2);
	for (const form &f : forms) {
		if (strstr(f.name, "(bad Y)"))
			continue;
		diag_check_same(f.name, lib_y2.name, y, y2, (size_t)M * N, s,
				[&] { launch(f, p64[0], x, y, s); }, [&] { lib_y2.run(0, s); });
	}

	unsigned *sink;
	CHECK(cudaMalloc(&sink, 64));
	std::vector<diag_case> cs = { diag_stream_case("stream 37.7 MB", w, wbytes, sink),
				      diag_lib_case("lib qkv 32", lib, { x }, M, y) };
	for (const form &f : forms)
		cs.push_back({ f.name, [&, fp = &f](int c, cudaStream_t st) {
				      launch(*fp, p64[c], x, y, st);
			      } });
	for (int i = 0; i < 3; i++)
		diag_time("cut (qkv, M = 32)", cs, COPIES, reps, s);
	diag_lib_close(lib);
	return 0;
}
