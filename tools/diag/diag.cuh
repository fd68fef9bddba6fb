/*
 * tools/diag/diag.cuh: the timing harness the diagnostics of tools/diag
 * share. WORKLOAD.md's method, as gemmtab's tuner applies it: each case is
 * captured into one graph per weight copy; every timed replay follows an
 * L2 flush by an L2-allocating read of 3 x L2 (an ld.global.nc flush left
 * weights in L2: runs 70-76); the cases and an empty-kernel graph run in a
 * random order (a fixed order ties each case to its predecessor), rep
 * after rep, and each case's median replay minus the empty graph's median
 * is printed. Not part of gemmtab.
 */
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

__global__ void diag_flush(const uint4 *p, size_t n16, unsigned *sink)
{
	unsigned acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
	     i += (size_t)gridDim.x * blockDim.x) {
		const uint4 v = __ldcg(p + i);
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == DIAG_MAGIC)
		*sink = acc;
}

__global__ void diag_empty() {}

/* Random words (a hash of the index), with bf16 halves kept finite and
 * small: memset fills streamed faster than random ones (run 76). */
__global__ void diag_fill(unsigned *p, size_t n, unsigned seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		unsigned h = (unsigned)i * 2654435761u ^ seed;
		h ^= h >> 15;
		h *= 2246822519u;
		h ^= h >> 13;
		p[i] = h & 0xBFFFBFFFu;
	}
}

__device__ __forceinline__ uint4 diag_ld_nc(const uint4 *p)
{
	uint4 v;
	asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}

/* The probe's streaming read (tuner/harness.cu): grid-stride, U 16-byte
 * loads in flight per thread. */
template <int U>
__global__ void diag_stream(const uint4 *p, size_t n16, unsigned *sink)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	unsigned acc = 0;
	for (; i + (U - 1) * stride < n16; i += U * stride) {
		uint4 v[U];
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = diag_ld_nc(p + i + u * stride);
#pragma unroll
		for (int u = 0; u < U; u++)
			acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
	}
	for (; i < n16; i += stride) {
		const uint4 v = diag_ld_nc(p + i);
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == DIAG_MAGIC)
		*sink = acc;
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

static int diag_sms()
{
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	return sms;
}

/* Time every case reps times (copy r % copies at rep r) and print. */
static void diag_time(const char *title, const std::vector<diag_case> &cs, int copies, int reps,
		      cudaStream_t s)
{
	int l2;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	const int sms = diag_sms();
	const size_t flush_bytes = (size_t)l2 * 3;
	uint4 *flush;
	unsigned *sink;
	CHECK(cudaMalloc(&flush, flush_bytes));
	CHECK(cudaMalloc(&sink, sizeof(unsigned)));
	diag_fill<<<1024, 256, 0, s>>>((unsigned *)flush, flush_bytes / 4, 99u);

	auto capture = [&](const std::function<void()> &body) {
		cudaGraph_t g;
		cudaGraphExec_t e;
		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
		body();
		CHECK(cudaStreamEndCapture(s, &g));
		CHECK(cudaGraphInstantiate(&e, g, 0));
		CHECK(cudaGraphDestroy(g));
		return e;
	};
	const int nv = (int)cs.size() + 1;     /* the last one: the empty graph */
	std::vector<std::vector<cudaGraphExec_t>> graphs(nv);
	for (size_t k = 0; k < cs.size(); k++)
		for (int c = 0; c < copies; c++)
			graphs[k].push_back(capture([&] { cs[k].run(c, s); }));
	graphs[nv - 1].push_back(capture([&] { diag_empty<<<1, 1, 0, s>>>(); }));
	for (auto &g : graphs)          /* warm: uploads, first touches */
		for (auto e : g)
			CHECK(cudaGraphLaunch(e, s));
	CHECK(cudaStreamSynchronize(s));

	std::vector<cudaEvent_t> ev(2 * (size_t)nv * reps);
	for (auto &e : ev)
		CHECK(cudaEventCreate(&e));
	std::vector<int> who((size_t)nv * reps), perm(nv);
	size_t e = 0;
	srand(12345);
	for (int r = 0; r < reps; r++) {
		for (int j = 0; j < nv; j++)
			perm[j] = j;
		for (int j = nv - 1; j > 0; j--)
			std::swap(perm[j], perm[rand() % (j + 1)]);
		for (int j = 0; j < nv; j++) {
			const int k = perm[j];
			who[e / 2] = k;
			diag_flush<<<4 * sms, 512, 0, s>>>(flush, flush_bytes / 16, sink);
			if (k < nv - 1 && cs[k].before)
				cs[k].before(s);
			CHECK(cudaEventRecord(ev[e++], s));
			CHECK(cudaGraphLaunch(graphs[k][k < nv - 1 ? r % copies : 0], s));
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
	for (auto &x : ev)
		CHECK(cudaEventDestroy(x));
	for (auto &g : graphs)
		for (auto x : g)
			CHECK(cudaGraphExecDestroy(x));
	CHECK(cudaFree(flush));
	CHECK(cudaFree(sink));
}
