/*
 * worker_diag.c: the worker's diagnosis aids, each switched on by an
 * environment variable read once as the worker starts (README.md, "On the
 * lent H200"; docs/notes.md runs 127-152). None changes what a request
 * measures unless its variable is set; a value out of range stops the
 * worker with the variable's name.
 *
 *   GEMMTAB_DIAG_RT_CONTEXT=N   the library's context loaded at start (and
 *                               N >= 2 small weights it prepared, held)
 *   GEMMTAB_DIAG_BALLAST_MB=N   N MiB more device memory held, written once
 *   GEMMTAB_DIAG_SIDE_STREAM=1  64 MiB written on a side stream at start
 *                               (2: after one graph replay on the worker's)
 *   GEMMTAB_DIAG_RT_PREPARE=N   before each eval times, part of what a
 *                               bench request made before run 152
 *                               (worker_diag_before_timing lists them)
 */
#include "worker.h"
#include "harness.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>

enum { SIDE_BYTES = 64 << 20, SHADOW_WS_BYTES = 32 << 20, BALLAST_CHUNK_MIB = 256 };

/* GEMMTAB_DIAG_RT_PREPARE's mode, and what it holds during one eval. */
static struct {
	int mode;
	void *mem[BENCH_MAX_COPIES];            /* allocations or gt_weights */
	cublasHandle_t blas[BENCH_MAX_COPIES];
	cublasLtHandle_t lt[BENCH_MAX_COPIES];
} diag;

/* The integer value of environment variable name in [lo, hi]; 0 when it is
 * unset; a value that is not such an integer stops the worker. */
static long env_long(const char *name, long lo, long hi)
{
	const char *v = getenv(name);
	if (!v)
		return 0;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi)
		die("%s='%s': want an integer from %ld to %ld", name, v, lo, hi);
	return n;
}

/* N MiB more device memory, written once and never read again, held until
 * the worker exits: does the size of a process's allocations change what
 * the same graphs read (run 132: no)? Returns 0 or -1 (reported). */
static int ballast(struct gpu *g, long mib)
{
	for (long done = 0; done < mib; done += BALLAST_CHUNK_MIB) {
		const long chunk = mib - done < BALLAST_CHUNK_MIB ? mib - done : BALLAST_CHUNK_MIB;
		const size_t bytes = (size_t)chunk << 20;
		void *p;
		if (CUDA_CHECK(cudaMalloc(&p, bytes)) ||
		    CUDA_CHECK(harness_fill_random_bytes(p, bytes, (uint64_t)done, g->stream)))
			return -1;
	}
	return CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

/* Writes bytes at p on a non-blocking stream made for it and destroyed
 * after. Returns 0 or -1 (reported). */
static int fill_on_side_stream(void *p, size_t bytes, uint64_t seed)
{
	cudaStream_t st;
	if (CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)))
		return -1;
	int rc = CUDA_CHECK(harness_fill_random_bytes(p, bytes, seed, st)) ||
		 CUDA_CHECK(cudaStreamSynchronize(st));
	return CUDA_CHECK(cudaStreamDestroy(st)) || rc ? -1 : 0;
}

/* 64 MiB written on a side stream before the worker serves anything
 * (after_graph: after one replay of a graph on its own stream): does
 * work on a second stream leave two-kernel graphs replaying slower for
 * the rest of the process (runs 147 and 150: not this way)? Returns 0 or
 * -1 (reported). */
static int side_stream(struct gpu *g, int after_graph)
{
	void *p;
	if (after_graph) {
		double us;
		if (timing_overhead(g, 1, &us))
			return -1;
		g->overhead_us = -1;    /* one replay is no figure: measured again when wanted */
	}
	if (CUDA_CHECK(cudaMalloc(&p, SIDE_BYTES)))
		return -1;
	int rc = fill_on_side_stream(p, SIDE_BYTES, 1);
	return CUDA_CHECK(cudaFree(p)) || rc ? -1 : 0;
}

void worker_diag_start(struct gpu *g)
{
	diag.mode = (int)env_long("GEMMTAB_DIAG_RT_PREPARE", 0, 11);
	const long rt_n = env_long("GEMMTAB_DIAG_RT_CONTEXT", 0, BENCH_MAX_COPIES * 4);
	if (rt_n >= 1 && worker_rt_context(g, rt_n >= 2 ? (int)rt_n : 0))
		die("GEMMTAB_DIAG_RT_CONTEXT: %s", gpu_error());
	const long mib = env_long("GEMMTAB_DIAG_BALLAST_MB", 0, 1L << 20);
	if (mib && ballast(g, mib))
		die("GEMMTAB_DIAG_BALLAST_MB: %s", gpu_error());
	const long side = env_long("GEMMTAB_DIAG_SIDE_STREAM", 0, 2);
	if (side && side_stream(g, side == 2))
		die("GEMMTAB_DIAG_SIDE_STREAM: %s", gpu_error());
}

/* Mode 5: per timing copy of b, the cuBLAS and cuBLASLt handles and the
 * workspace a prepared weight holds (runtime/blas.c). Returns 0 or -1. */
static int hold_handles(const struct bench *b)
{
	for (int i = 0; i < b->ncopies; i++) {
		if (CUBLAS_CHECK(cublasCreate(&diag.blas[i])))
			return -1;
		if (CUBLAS_CHECK(cublasLtCreate(&diag.lt[i])) ||
		    CUBLAS_CHECK(cublasSetMathMode(diag.blas[i], CUBLAS_DEFAULT_MATH)) ||
		    CUDA_CHECK(cudaMalloc(&diag.mem[i], SHADOW_WS_BYTES)) ||
		    CUBLAS_CHECK(cublasSetWorkspace(diag.blas[i], diag.mem[i], SHADOW_WS_BYTES)))
			return -1;
	}
	return 0;
}

/* Modes 2, 3, 8-11: one weight-sized allocation per timing copy of b,
 * written as the mode says. Returns 0 or -1 (reported). */
static int hold_copies(struct gpu *g, const struct bench *b)
{
	const struct shape *s = &b->shape;
	const int m = diag.mode;
	const cudaStream_t st = m == 8 || m == 10 ? 0 : g->stream;
	for (int i = 0; i < b->ncopies; i++) {
		if (CUDA_CHECK(cudaMalloc(&diag.mem[i], b->w_bytes)))
			return -1;
		cudaError_t e = cudaSuccess;
		if (m == 11) {
			if (fill_on_side_stream(diag.mem[i], b->w_bytes, (uint64_t)i))
				return -1;
		} else if (m == 2 || m == 8) {
			e = harness_fill_random_bytes(diag.mem[i], b->w_bytes, (uint64_t)i, st);
		} else if ((m == 9 || m == 10) && s->w == DT_FP32) {
			e = harness_split_hilo(b->w[i], diag.mem[i], (size_t)s->n * s->k, st);
		} else if (m == 9 || m == 10) {
			e = harness_pack_tiles(b->w[i], diag.mem[i], s->n, s->k, 64, 64, st);
		}
		if (CUDA_CHECK(e))
			return -1;
	}
	return CUDA_CHECK(cudaStreamSynchronize(st));
}

/*
 * GEMMTAB_DIAG_RT_PREPARE's modes, each done after an eval's graphs are
 * made and held until worker_diag_after_timing:
 *   1  the library's prepared weight of every timing copy, made on the
 *      legacy stream as a bench request did before run 152
 *   2  a plain weight-sized allocation per copy, written on the worker's
 *      stream; 3: the same, never written
 *   4  as 1, destroyed again before the timing
 *   5  per copy, the cuBLAS and cuBLASLt handles and the 32 MiB workspace
 *      each prepared weight holds
 *   6  the library's context alone
 *   7  one empty kernel on the legacy stream
 *   8  as 2, written on the legacy stream
 *   9  as 2, the copy W re-laid out (64 x 64 tiles, or the router's
 *      hi/lo) on the worker's stream; 10: the same on the legacy stream
 *   11 as 2, written on a non-blocking stream made for it
 * (runs 139-146: 1, 4, 8, 10 and 11 slow the two-kernel graphs.)
 */
int worker_diag_before_timing(struct gpu *g, const struct bench *b)
{
	switch (diag.mode) {
	case 1:
	case 4:
		if (worker_rt_shadow(g, b, diag.mem))
			return -1;
		if (diag.mode == 4)
			worker_rt_release(diag.mem, BENCH_MAX_COPIES);
		return 0;
	case 5:
		return hold_handles(b);
	case 6:
		return worker_rt_context(g, 0);
	case 7:
		return CUDA_CHECK(harness_empty(0)) || CUDA_CHECK(cudaStreamSynchronize(0)) ? -1 : 0;
	case 0:
		return 0;
	default:
		return hold_copies(g, b);
	}
}

void worker_diag_after_timing(void)
{
	if (diag.mode == 1 || diag.mode == 4) {
		worker_rt_release(diag.mem, BENCH_MAX_COPIES);
		return;
	}
	for (int i = 0; i < BENCH_MAX_COPIES; i++) {
		if (diag.blas[i])
			(void)CUBLAS_CHECK(cublasDestroy(diag.blas[i]));
		if (diag.lt[i])
			(void)CUBLAS_CHECK(cublasLtDestroy(diag.lt[i]));
		diag.blas[i] = NULL;
		diag.lt[i] = NULL;
		gpu_dev_free(diag.mem[i]);
		diag.mem[i] = NULL;
	}
}
