/*
 * tools/diag/partner.cu: does the candidate a baseline is paired with
 * change the baseline's time? (session 17). A diagnostic, not part of
 * gemmtab.
 *
 * Run 237's sweep and run 238's A/B put qkv at M = 1 on mma_skinny (the
 * cluster kernel) by its ratio, while gemv ran it 2-4% faster: in every
 * A/B round the cuBLAS baseline read 2.4-3.9% slower in mma_skinny's
 * batches (13.06-13.22 us) than in gemv's (12.72-12.85), and so did the
 * sweep's retests (12.96 against 12.58-12.74). Either the candidate's
 * batch runs the whole GPU slower (clocks: then the ratio compares like
 * with like, and the absolute times do not), or the candidate slows what
 * runs after it (then the ratio rewards it for it).
 *
 * Cases, in one batch of random order under WORKLOAD.md's method
 * (diag.cuh: the L2 flushed before each timed replay): cuBLAS's call
 * (the baseline: cublasGemmEx, default algorithm, FP32 compute), the
 * library's call (build/lib's table: mma_skinny at qkv 1 in run 237's),
 * gemv<8 warps, 4 rows, evict_first> (the table before it), and the
 * baseline timed right after one untimed call of each of the three (then
 * a flush): "base after X".
 *
 * Seen (run 239): the baseline after each of the three reads the same
 * (14.21-14.50 us), and in this batch gemv ran 10.91-10.94 against the
 * library's 10.02-10.11: a kernel's time moves with the batch it is timed
 * in, and no candidate slows the baseline after it.
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/partner [reps]
 */
#include "diag_lib.cuh"
#include "gemv.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int N = 2304, K = 8192, M = 1, COPIES = 4;

void gemv_call(const __nv_bfloat16 *w, const __nv_bfloat16 *x, __nv_bfloat16 *y, cudaStream_t s)
{
	gemv_kernel<__nv_bfloat16, __nv_bfloat16, 8, 4, 1, 1, 1, GEMV_CACHE_EVICT_FIRST>
		<<<N / 4, 256, 0, s>>>(w, x, y, nullptr, M, N, K);
	CHECK(cudaGetLastError());
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 300;
	const cudaStream_t s = diag_stream();
	const cublasHandle_t h = diag_cublas_open(s);
	__nv_bfloat16 *w[COPIES], *x[COPIES], *y;
	diag_inputs(w, x, &y, COPIES, N, K, M, 100, 200, s);
	uint4 *flush;
	unsigned *fsink;
	const size_t flush_bytes = diag_flush_alloc(&flush, &fsink, s);

	diag_lib lib;
	diag_lib_open(lib, w, COPIES, N, K, s);
	diag_lib_explain(lib, M);

	/* the three calls on copy c */
	auto base = [&](int c, cudaStream_t) { diag_cublas_call(h, w[c], x[c], M, N, K, y); };
	auto libc = diag_lib_case("", lib, { x, x + COPIES }, M, y).run;
	auto gemv = [&](int c, cudaStream_t st) { gemv_call(w[c], x[c], y, st); };
	/* one untimed call of f on copy 0, then the flush again */
	auto after = [&](std::function<void(int, cudaStream_t)> f) {
		return [&, f](cudaStream_t st) {
			f(0, st);
			diag_flush(flush, flush_bytes, fsink, st);
		};
	};
	const std::vector<diag_case> cs = {
		{ "base (cublas)", base },
		{ "lib qkv 1", libc },
		{ "gemv 8x4 ef", gemv },
		{ "base after base", base, after(base) },
		{ "base after lib", base, after(libc) },
		{ "base after gemv", base, after(gemv) },
	};
	for (int i = 0; i < 3; i++)
		diag_time("partner (qkv, M = 1)", cs, COPIES, reps, s);
	diag_lib_close(lib);
	return 0;
}
