/*
 * tools/diag/diag.cuh: the timing harness the diagnostics of tools/diag
 * share, on the tuner's own device kernels (tuner/harness.cu, compiled in
 * by tools/diag/build.sh: the flush, the fills, the streaming read, the
 * empty kernel). WORKLOAD.md's method, as the tuner applies it: each case
 * is captured into one graph per weight copy; every timed replay follows
 * the tuner's L2 flush, here over 3 x L2 (an ld.global.nc flush of the
 * diagnostics' own left weights in L2: runs 70-76); the cases and an empty-kernel graph run in a
 * random order (a fixed order ties each case to its predecessor), rep
 * after rep, and each case's median replay minus the empty graph's median
 * is printed. Not part of gemmtab.
 */
#pragma once

#include "harness.h"    /* the tuner's flush, fills, streaming read, empty kernel */
#include "types.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define CHECK(x)                                                                          \
	do {                                                                              \
		cudaError_t e_ = (x);                                                     \
		if (e_ != cudaSuccess) {                                                  \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,        \
				cudaGetErrorString(e_));                                  \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

/* A value an XOR of loaded words almost never equals: the conditional
 * store that keeps the compiler from dropping the loads. */
#define DIAG_MAGIC 0x12345678u

/* Blocks of the L2 flush, as the tuner's (tuner/gpu.c's flush is a read
 * of 2 x L2; this one reads 3 x L2). */
#define DIAG_FLUSH_BLOCKS_PER_SM 4

__device__ __forceinline__ uint4 diag_ld_nc(const uint4 *p)
{
	uint4 v;
	asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}

/* A shared-memory pointer as a 32-bit shared-window address. */
__device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

/* The address of this block's shared-memory address addr in the block of
 * cluster rank rank (distributed shared memory). */
__device__ __forceinline__ unsigned mapa(unsigned addr, unsigned rank)
{
	unsigned r;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
	return r;
}

/* This block's rank in its cluster. */
__device__ __forceinline__ unsigned ctarank()
{
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
}

/* 16 bytes from global memory into shared memory at dst, L2 only
 * (cp.async.cg; a commit_group and a wait_group make it visible). */
__device__ __forceinline__ void cp16(unsigned dst, const void *src)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

/* Spin until this block's mbarrier at shared address bar completes its
 * phase of parity `parity` (the first phase: 0); CLUSTER: with acquire at
 * cluster scope (peers in the cluster arrive on it, or store into its
 * block by st.async). */
template <bool CLUSTER>
__device__ __forceinline__ void diag_mbar_wait(unsigned bar, unsigned parity = 0)
{
	if constexpr (CLUSTER)
		asm volatile("{\n\t.reg .pred p;\n\tW%=:\n\t"
			     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t"
			     "@!p bra W%=;\n\t}" ::"r"(bar), "r"(parity)
			     : "memory");
	else
		asm volatile("{\n\t.reg .pred p;\n\tW%=:\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
			     "@!p bra W%=;\n\t}" ::"r"(bar), "r"(parity)
			     : "memory");
}

/* cfg launched as clusters of n blocks along x (attr: its one attribute). */
static void diag_cluster_dims(cudaLaunchConfig_t &cfg, cudaLaunchAttribute &attr, unsigned n)
{
	attr.id = cudaLaunchAttributeClusterDimension;
	attr.val.clusterDim.x = n;
	attr.val.clusterDim.y = 1;
	attr.val.clusterDim.z = 1;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
}

/* fn(args) on s: grid blocks of threads with smem bytes of dynamic shared
 * memory, as clusters of cluster blocks along x when cluster > 1. */
static void diag_launch(const void *fn, dim3 grid, int threads, size_t smem, unsigned cluster,
			void **args, cudaStream_t s)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr;
	cfg.gridDim = grid;
	cfg.blockDim = dim3(threads);
	cfg.dynamicSmemBytes = smem;
	cfg.stream = s;
	if (cluster > 1)
		diag_cluster_dims(cfg, attr, cluster);
	CHECK(cudaLaunchKernelExC(&cfg, fn, args));
}

/* The stream a diagnostic's work and timing run on. */
static cudaStream_t diag_stream()
{
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	return s;
}

/* N(0, stddev^2) bf16 values, the tuner's fill (harness_fill_normal):
 * weights with stddev 0.02, activations with 1, as WORKLOAD.md's checks
 * use, so an output check of a variant compares real numbers. */
static void diag_fill_bf16(void *p, size_t count, float stddev, uint64_t seed, cudaStream_t s)
{
	CHECK(harness_fill_normal(p, DT_BF16, count, stddev, seed, s));
}

struct diag_case {
	const char *name;
	std::function<void(int copy, cudaStream_t)> run;       /* captured per copy */
	std::function<void(cudaStream_t)> before = nullptr;    /* untimed, after the flush */
	double bytes = 0;                                       /* > 0: print TB/s too */
};

static double diag_median(std::vector<double> x)
{
	std::sort(x.begin(), x.end());
	return x[x.size() / 2];
}

/* Device 0's SMs (asked once: the flush between timed replays asks too). */
static int diag_sms()
{
	static int sms;
	if (!sms)
		CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	return sms;
}

/* The flush's buffer (3 x L2 of random words, written on s) and its
 * sink; returns its bytes. */
static size_t diag_flush_alloc(uint4 **flush, unsigned **sink, cudaStream_t s)
{
	int l2;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	const size_t bytes = (size_t)l2 * 3;
	CHECK(cudaMalloc(flush, bytes));
	CHECK(cudaMalloc(sink, sizeof(unsigned)));
	CHECK(harness_fill_random_bytes(*flush, bytes, 99u, s));
	return bytes;
}

/* The L2 flush itself on s: a read of the flush's bytes. */
static void diag_flush(const uint4 *flush, size_t bytes, unsigned *sink, cudaStream_t s)
{
	CHECK(harness_flush(flush, bytes, sink, DIAG_FLUSH_BLOCKS_PER_SM * diag_sms(), s));
}

/* body's launches on s, captured into an instantiated graph. */
static cudaGraphExec_t diag_capture(cudaStream_t s, const std::function<void()> &body)
{
	cudaGraph_t g;
	cudaGraphExec_t e;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	body();
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	return e;
}

/* Replay times (us) of every graph set, reps times each, in a random
 * order per rep (copy r % copies at rep r), each after the L2 flush and
 * then before(k), untimed. */
static std::vector<std::vector<double>> diag_replays(
	const std::vector<std::vector<cudaGraphExec_t>> &graphs, int reps, cudaStream_t s,
	const uint4 *flush, size_t flush_bytes, unsigned *sink,
	const std::function<void(int)> &before = nullptr)
{
	const int nv = (int)graphs.size();
	std::vector<cudaEvent_t> ev(2 * (size_t)nv * reps);
	for (auto &e : ev)
		CHECK(cudaEventCreate(&e));
	std::vector<int> who((size_t)nv * reps), perm(nv);
	size_t e = 0;
	for (int r = 0; r < reps; r++) {
		for (int j = 0; j < nv; j++)
			perm[j] = j;
		for (int j = nv - 1; j > 0; j--)
			std::swap(perm[j], perm[rand() % (j + 1)]);
		for (int j = 0; j < nv; j++) {
			const int k = perm[j];
			who[e / 2] = k;
			diag_flush(flush, flush_bytes, sink, s);
			if (before)
				before(k);
			CHECK(cudaEventRecord(ev[e++], s));
			CHECK(cudaGraphLaunch(graphs[k][r % graphs[k].size()], s));
			CHECK(cudaEventRecord(ev[e++], s));
		}
	}
	CHECK(cudaStreamSynchronize(s));
	std::vector<std::vector<double>> t(nv);
	for (size_t i = 0; i < (size_t)nv * reps; i++) {
		float ms;
		CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
		t[who[i]].push_back(ms * 1e3);
	}
	for (auto &x : ev)
		CHECK(cudaEventDestroy(x));
	return t;
}

/* Time every case reps times (copy r % copies at rep r) and print. */
static void diag_time(const char *title, const std::vector<diag_case> &cs, int copies, int reps,
		      cudaStream_t s)
{
	int l2;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	const int sms = diag_sms();
	uint4 *flush;
	unsigned *sink;
	const size_t flush_bytes = diag_flush_alloc(&flush, &sink, s);

	auto capture = [&](const std::function<void()> &body) { return diag_capture(s, body); };
	const int nv = (int)cs.size() + 1;     /* the last one: the empty graph */
	std::vector<std::vector<cudaGraphExec_t>> graphs(nv);
	for (size_t k = 0; k < cs.size(); k++)
		for (int c = 0; c < copies; c++)
			graphs[k].push_back(capture([&] { cs[k].run(c, s); }));
	graphs[nv - 1].push_back(capture([&] { CHECK(harness_empty(s)); }));
	for (auto &g : graphs)          /* warm: uploads, first touches */
		for (auto e : g)
			CHECK(cudaGraphLaunch(e, s));
	CHECK(cudaStreamSynchronize(s));

	auto before = [&](int k) {
		if (k < nv - 1 && cs[k].before)
			cs[k].before(s);
	};
	srand(12345);
	const std::vector<std::vector<double>> t =
		diag_replays(graphs, reps, s, flush, flush_bytes, sink, before);
	const double oh = diag_median(t[nv - 1]);
	printf("%s: %d SMs, L2 %d, %d reps, replay overhead %.2f us\n", title, sms, l2, reps, oh);
	for (size_t k = 0; k < cs.size(); k++) {
		std::vector<double> x = t[k];
		std::sort(x.begin(), x.end());
		const double net = diag_median(t[k]) - oh;
		printf("%-30s net %.2f us  (p10 %.2f p90 %.2f)", cs[k].name, net,
		       x[x.size() / 10] - oh, x[x.size() * 9 / 10] - oh);
		if (cs[k].bytes > 0)
			printf("  %.2f TB/s", cs[k].bytes / net * 1e-6);
		printf("\n");
	}
	for (auto &g : graphs)
		for (auto x : g)
			CHECK(cudaGraphExecDestroy(x));
	CHECK(cudaFree(flush));
	CHECK(cudaFree(sink));
}

/* copies bf16 weight matrices (n x k, N(0, 0.02^2), seeds wseed + c) and
 * as many activation matrices (m x k, N(0, 1), seeds xseed + c), allocated
 * and filled on s, and the output *y (m x n bf16) that every call writes:
 * the inputs of a diagnostic's batch. */
static void diag_inputs(__nv_bfloat16 **w, __nv_bfloat16 **x, __nv_bfloat16 **y, int copies,
			int n, int k, int m, uint64_t wseed, uint64_t xseed, cudaStream_t s)
{
	for (int c = 0; c < copies; c++) {
		CHECK(cudaMalloc(&w[c], (size_t)n * k * 2));
		CHECK(cudaMalloc(&x[c], (size_t)m * k * 2));
		diag_fill_bf16(w[c], (size_t)n * k, 0.02f, wseed + c, s);
		diag_fill_bf16(x[c], (size_t)m * k, 1.0f, xseed + c, s);
	}
	CHECK(cudaMalloc(y, (size_t)m * n * 2));
}

/* The probe's streaming read of copy c's bytes (8 blocks an SM). */
template <typename T>
static diag_case diag_stream_case(const char *name, T *const *w, size_t bytes, unsigned *sink)
{
	return { name, [w, bytes, sink](int c, cudaStream_t st) {
			CHECK(harness_stream_read(w[c], bytes, sink, 8 * diag_sms(), 8, st));
		}, nullptr, (double)bytes };
}

/* count floats of device memory, copied to the host after s's work. */
static std::vector<float> diag_host(const float *dev, size_t count, cudaStream_t s)
{
	std::vector<float> v(count);
	CHECK(cudaMemcpyAsync(v.data(), dev, count * sizeof(float), cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	return v;
}

/* Relative L2 error of y against r (INFINITY at a NaN or Inf in y). */
static double diag_rel_err(const std::vector<float> &y, const std::vector<float> &r)
{
	double num = 0, den = 0;
	for (size_t i = 0; i < y.size(); i++) {
		if (!std::isfinite(y[i]))
			return INFINITY;
		num += (double)(y[i] - r[i]) * (y[i] - r[i]);
		den += (double)r[i] * r[i];
	}
	return std::sqrt(num / den);
}

/* A form's FP32 Y (r.size() floats, on the device) against the reference
 * r: "check NAME rel err E". */
static void diag_check_f32(const char *name, const float *y, const std::vector<float> &r,
			   cudaStream_t s)
{
	printf("check %-26s rel err %.2e\n", name, diag_rel_err(diag_host(y, r.size(), s), r));
}

/* The same of a bf16 Y, through got (r.size() floats of scratch). */
static void diag_check_bf16(const char *name, const __nv_bfloat16 *y, float *got,
			    const std::vector<float> &r, cudaStream_t s)
{
	CHECK(harness_bf16_to_fp32(y, got, r.size(), s));
	diag_check_f32(name, got, r, s);
}

/* A form's check: its bf16 Y (r.size() values) poisoned (0xff bytes: NaN),
 * then call() on s, then Y against r as diag_check_bf16. */
template <typename F>
static void diag_check_call(const char *name, __nv_bfloat16 *y, float *got,
			    const std::vector<float> &r, cudaStream_t s, const F &call)
{
	CHECK(cudaMemsetAsync(y, 0xff, r.size() * 2, s));
	call();
	CHECK(cudaGetLastError());
	diag_check_bf16(name, y, got, r, s);
}

/* Two ways to the same bf16 Y (count values): each into its own buffer,
 * both poisoned first (0xff bytes: NaN), then compared bit for bit:
 * "check A against B identical|DIFFER (n NaN/Inf in the first)". */
template <typename FA, typename FB>
static void diag_check_same(const char *a_name, const char *b_name, __nv_bfloat16 *ya,
			    __nv_bfloat16 *yb, size_t count, cudaStream_t s, const FA &run_a,
			    const FB &run_b)
{
	std::vector<unsigned short> a(count), b(count);
	CHECK(cudaMemsetAsync(ya, 0xff, count * 2, s));
	CHECK(cudaMemsetAsync(yb, 0xff, count * 2, s));
	run_a();
	run_b();
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpyAsync(a.data(), ya, count * 2, cudaMemcpyDeviceToHost, s));
	CHECK(cudaMemcpyAsync(b.data(), yb, count * 2, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	size_t nan = 0;
	for (unsigned short v : a)
		nan += (v & 0x7f80) == 0x7f80;
	printf("check %-18s against %-18s %s (%zu NaN/Inf in the first)\n", a_name, b_name,
	       memcmp(a.data(), b.data(), count * 2) ? "DIFFER" : "identical", nan);
}
