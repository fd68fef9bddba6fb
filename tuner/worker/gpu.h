/*
 * gpu.h: the worker's GPU layer (`gemmtab worker` is the only process of
 * the tuner that touches a GPU): checked CUDA runtime, driver and cuBLAS
 * calls, the record of the first error (sticky or not) that the worker
 * turns into a reply, and struct gpu: the context, stream, cuBLAS
 * handles, L2 flush buffer, event pool and candidate workspace (gpu.c).
 * Beside it, one header for each of the other .c files: launch.h,
 * bench.h, validate.h, reference.h, timing.h, baseline.h.
 * The rules these follow are docs/workload.md's.
 */
#ifndef GT_GPU_H
#define GT_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "stats.h"
#include "tmpl.h"
#include "types.h"

/*
 * Checked calls: each evaluates to 0 on success, or to -1 after printing
 * "file:line: call: ErrorName: error string" to stderr and recording it
 * (see gpu_error). Use as `if (CUDA_CHECK(cudaMalloc(...))) goto cleanup;`.
 */
#define CUDA_CHECK(call) gpu_check_rt((call), #call, __FILE__, __LINE__)
#define CU_CHECK(call) gpu_check_drv((call), #call, __FILE__, __LINE__)
#define CUBLAS_CHECK(call) gpu_check_blas((call), #call, __FILE__, __LINE__)
int gpu_check_rt(cudaError_t e, const char *call, const char *file, int line);
int gpu_check_drv(CUresult e, const char *call, const char *file, int line);
int gpu_check_blas(cublasStatus_t e, const char *call, const char *file, int line);

/* The first error recorded since gpu_error_clear(), or NULL. */
const char *gpu_error(void);
void gpu_error_clear(void);
/* Print and record an error that is not a CUDA call's (a malformed plan,
 * an unreadable cubin) the same way; always returns -1. */
int gpu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record, without printing, that a library declined the candidate at this
 * point (cuBLASLt's algorithm check): not an error of the candidate's
 * code, so its eval is answered pruned. Always returns -1. */
int gpu_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether the recorded error is a gpu_refuse (and nothing sticky since). */
int gpu_error_refused(void);

/* Bytes of the cuBLAS / cuBLASLt workspace: set explicitly so cuBLAS never
 * allocates while a graph is captured (PyTorch gives cuBLAS 32 MiB on Hopper). */
#define GPU_BLAS_WS_BYTES ((size_t)32 << 20)
/* The L2 flush reads this many times the L2 size (docs/workload.md: >= 2). */
#define GPU_FLUSH_L2_MULTIPLE 2

/* Weight copies rotated in timing: see timing_copies. */
#define BENCH_MAX_COPIES 64

struct module_entry;

struct gpu {
	int device;
	int sm_count;
	long long l2_bytes;
	size_t smem_optin;              /* max shared memory per block, opt-in */
	cudaStream_t stream;            /* everything runs and is captured here */
	cublasHandle_t blas;
	cublasLtHandle_t lt;
	void *blas_ws;                  /* GPU_BLAS_WS_BYTES */
	void *flush_buf;                /* random bytes, flush_bytes of them */
	size_t flush_bytes;
	unsigned *sink;                 /* the flush's conditional store */
	cudaEvent_t *events;
	int nevents;
	struct module_entry *modules;   /* loaded cubins, least recently used evicted */
	int nmodules;
	unsigned long use_clock;
	void *ws;                       /* candidate workspace, grown as needed */
	size_t ws_bytes;
	void *sync;                     /* candidate counters (ARG_SYNC), grown as needed */
	size_t sync_bytes;
	struct bench *bench;            /* buffers of the current (shape, m), or NULL */
	cudaGraphExec_t empty_graph;    /* one empty kernel (the replay overhead), or NULL */
	double overhead_us;             /* replay overhead; < 0 until measured */
};

/* Open device `device`: context, stream, cuBLAS handles, flush buffer.
 * Returns 0 or -1 (message printed; nothing left allocated). */
/* 1 when the CUDA runtime sees a device, else 0 with the reason in why
 * (no driver, a driver too old, no device). */
int gpu_available(char *why, size_t len);
/* How many GPUs the CUDA runtime sees (0 when it cannot start). */
int gpu_count(void);
int gpu_open(struct gpu *g, int device);
/* Free what gpu_open made (the caller frees its bench and loaded modules
 * first: bench_free, gpu_modules_free). */
void gpu_close(struct gpu *g);

/*
 * 1 when the context can no longer be used (an illegal address, a launch
 * failure and the like: every later call would fail), else 0. After an
 * error of an unknown kind it synchronizes twice to find out.
 */
int gpu_error_sticky(struct gpu *g);

/* At least n events (timing enabled), owned by g. Returns 0 or -1. */
int gpu_events(struct gpu *g, int n, cudaEvent_t **out);
/* Enqueue the L2 flush (a read of flush_bytes) on g->stream. */
int gpu_flush(struct gpu *g);
/* The candidate workspace: at least bytes (and at least 256) bytes. */
int gpu_ws_reserve(struct gpu *g, size_t bytes, void **out);
/* Free the candidate workspace (the next reserve allocates afresh). */
void gpu_ws_release(struct gpu *g);
/* The candidate counters (ARG_SYNC): at least bytes, the first bytes of
 * them zeroed on g->stream; NULL (and nothing done) when bytes is 0. */
int gpu_sync_reserve(struct gpu *g, size_t bytes, unsigned **out);
/* cudaFree(p) when p is set; a failure is recorded (gpu_error), not fatal. */
void gpu_dev_free(void *p);

/* Stream capture on g->stream. gpu_capture_end always ends the capture;
 * when failed is set or anything goes wrong it returns -1 and *out is
 * NULL, else *out is the instantiated, uploaded graph. */
int gpu_capture_begin(struct gpu *g);
int gpu_capture_end(struct gpu *g, int failed, cudaGraphExec_t *out);
/* Destroy *exec if set, and clear it. */
void gpu_graph_destroy(cudaGraphExec_t *exec);

#endif
