/*
 * tools/diag/clock.cu: the SM clock a batch of one kernel runs at
 * (session 17). A diagnostic, not part of gemmtab.
 *
 * Under ncu (run 244) qkv 32's tensor-core kernel ran at 1.79 GHz and the
 * probe's stream at 1.96, and kernels read different times in different
 * batches (runs 238-239). Here each case's graph is the case's call, then
 * a one-thread kernel that counts 20,000 SM cycles (clock64) against the
 * global timer (globaltimer, ns) and stores the ratio: the SM clock just
 * after the call, in MHz. Each case is timed in a batch of its own, under
 * WORKLOAD.md's method (diag.cuh: flushed, replayed, overhead of the
 * empty graph subtracted; the probe's ~10 us are in every figure alike),
 * so the clock is the one that batch's own work settles at.
 *
 * Cases: the probe alone (after the empty kernel), the probe's stream of
 * qkv's 37.7 MB, the library's qkv call at M = 1, 8 and 32, and cuBLAS's
 * (the baseline's cublasGemmEx) at M = 32.
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/clock [reps]
 */
#include "diag_lib.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int N = 2304, K = 8192, MMAX = 32, COPIES = 4, SAMPLES = 4096;

/* out[(*next)++ % SAMPLES] = SM cycles per microsecond over 20,000 cycles */
__global__ void k_clock(float *out, unsigned *next)
{
	unsigned long long t0, t1;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	const long long c0 = clock64();
	long long c1;
	do
		c1 = clock64();
	while (c1 - c0 < 20000);
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
	out[atomicAdd(next, 1u) % SAMPLES] = (float)(c1 - c0) * 1e3f / (float)(t1 - t0);
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const cudaStream_t s = diag_stream();
	const cublasHandle_t h = diag_cublas_open(s);
	__nv_bfloat16 *w[COPIES], *x[COPIES], *y;
	diag_inputs(w, x, &y, COPIES, N, K, MMAX, 100, 200, s);
	diag_lib lib;
	diag_lib_open(lib, w, COPIES, N, K, s);
	unsigned *sink;
	CHECK(cudaMalloc(&sink, 64));
	float *mhz;
	unsigned *next;
	CHECK(cudaMalloc(&mhz, SAMPLES * sizeof(float)));
	CHECK(cudaMalloc(&next, sizeof(unsigned)));

	auto with_clock = [&](std::function<void(int, cudaStream_t)> f) {
		return [=](int c, cudaStream_t st) {
			f(c, st);
			k_clock<<<1, 1, 0, st>>>(mhz, next);
			CHECK(cudaGetLastError());
		};
	};
	std::vector<const __nv_bfloat16 *> xs(x, x + COPIES);
	auto lib_call = [&](int m) { return diag_lib_case("", lib, xs, m, y).run; };
	const std::vector<diag_case> cs = {
		{ "clock alone", with_clock([](int, cudaStream_t st) { CHECK(harness_empty(st)); }) },
		{ "stream 37.7 MB",
		  with_clock(diag_stream_case("", w, (size_t)N * K * 2, sink).run) },
		{ "lib qkv 1", with_clock(lib_call(1)) },
		{ "lib qkv 8", with_clock(lib_call(8)) },
		{ "lib qkv 32", with_clock(lib_call(32)) },
		{ "cublas qkv 32", with_clock([&](int c, cudaStream_t) {
			  diag_cublas_call(h, w[c], x[c], 32, N, K, y);
		  }) },
	};
	diag_lib_explain(lib, 32);
	for (int round = 0; round < 2; round++)
		for (const diag_case &c : cs) {
			CHECK(cudaMemset(next, 0, sizeof(unsigned)));
			diag_time(c.name, { c }, COPIES, reps, s);
			unsigned n;
			CHECK(cudaMemcpy(&n, next, sizeof(n), cudaMemcpyDeviceToHost));
			n = n < SAMPLES ? n : SAMPLES;
			std::vector<float> v(n);
			CHECK(cudaMemcpy(v.data(), mhz, n * sizeof(float), cudaMemcpyDeviceToHost));
			std::vector<double> d(v.begin(), v.end());
			std::sort(d.begin(), d.end());
			printf("  %s: SM clock after the call %.0f MHz (p10 %.0f, p90 %.0f; %u samples)\n",
			       c.name, diag_median(d), d[d.size() / 10], d[d.size() * 9 / 10], n);
		}
	diag_lib_close(lib);
	return 0;
}
