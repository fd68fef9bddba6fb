/*
 * gpu.h: the worker's GPU layer (`gemmtab worker` is the only process of
 * the tuner that touches a GPU). It declares:
 *   - checked CUDA runtime, driver and cuBLAS calls, and the record of the
 *     first error (sticky or not) that the worker turns into a reply;
 *   - struct gpu: the context, stream, cuBLAS handles, L2 flush buffer,
 *     event pool and the candidate workspace (gpu.c);
 *   - candidate kernels loaded from cubins, and launch plans (tmpl.h)
 *     checked and captured into CUDA graphs (launch.c);
 *   - struct bench: device buffers for one (shape, m), cached across the
 *     evals of that (shape, m) (bench.c);
 *   - validation against the FP64 reference (validate.c), paired timing
 *     (timing.c) and the cuBLAS / cuBLASLt baselines (baseline.c).
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

/* `gemmtab worker [--device N]`: the request loop of proto.h. */
int cmd_worker(int argc, char **argv);

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

/* Bytes of the cuBLAS / cuBLASLt workspace: set explicitly so cuBLAS never
 * allocates while a graph is captured (PyTorch gives cuBLAS 32 MiB on Hopper). */
#define GPU_BLAS_WS_BYTES ((size_t)32 << 20)
/* The L2 flush reads this many times the L2 size (docs/workload.md: >= 2). */
#define GPU_FLUSH_L2_MULTIPLE 2

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
int gpu_open(struct gpu *g, int device);
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

/* --- launch.c --- */

/* A candidate's kernel, loaded from its cubin (modules cached by path). */
struct kernel_info {
	CUfunction fn;
	int regs;
	int local_bytes;        /* per-thread local memory: spills or stack */
	int static_smem;
	int max_threads;        /* largest block the kernel can launch */
	int cluster;            /* blocks of its compiled-in cluster (1: none) */
	int nparams;            /* the kernel's parameters and their sizes */
	size_t param_size[PLAN_MAX_ARGS];
};
/* Load kernel `name` (the lowered name) from the cubin at path cubin and
 * read its attributes. Returns 0, or -1 recorded as gpu_error(). */
int gpu_load_kernel(struct gpu *g, const char *cubin, const char *name,
		    struct kernel_info *out);
/* Unload every cached module (gpu_close does). */
void gpu_modules_free(struct gpu *g);

/*
 * Check a plan against its kernels and the device. Returns 0 when it can
 * run (and raises each kernel's dynamic shared memory limit as its steps
 * need), 1 when a static limit prunes it (reason, len bytes, says why),
 * -1 when the plan is malformed (a kernel index out of range, arguments
 * that do not match the kernel's parameters) or a call failed, recorded
 * as gpu_error(). *smem gets the largest static + dynamic shared memory
 * of any step.
 */
int plan_prepare(struct gpu *g, const struct kernel_info *k, int nk,
		 const struct launch_plan *p, int *smem, char *reason, size_t len);

/*
 * How many waves the plan's kernel steps take on this device: for each
 * step, its blocks (or, for a kernel with a compiled-in cluster, its
 * clusters) over how many the device holds at once at that step's block
 * and shared memory (cuOccupancy*), rounded up; the most over the steps.
 * Call after plan_prepare. A tile whose shared memory crosses a
 * blocks-per-SM step, or whose clusters no longer fit in one wave, reads
 * much slower (measured on an H200); this puts the cause beside the
 * reading. Returns waves >= 1, 0 for a plan with no kernel step, -1 when
 * an occupancy query fails (not recorded as an error: it only informs).
 */
int plan_waves(const struct gpu *g, const struct kernel_info *k, const struct launch_plan *p);

/* The buffers a plan's arguments name. */
struct plan_args {
	/* what the steps read and write; op.prep is the prepared weight
	 * (tmpl.relayout), NULL when there is none (prep_bytes 0) */
	struct step_operands op;
	size_t y_bytes, ws_bytes, prep_bytes;
};
/* Capture the plan's steps (kernels, memsets) into a graph over a's
 * buffers; plan_prepare must have passed it (it bounds the workspace
 * memsets). Returns 0, or -1 recorded (a memset larger than the output
 * among the reasons). */
int plan_capture(struct gpu *g, const struct kernel_info *k, const struct launch_plan *p,
		 const struct plan_args *a, cudaGraphExec_t *out);

/* --- bench.c --- */

/* Weight copies rotated in timing: see timing_copies. */
#define BENCH_MAX_COPIES 64
/* Weights are drawn from N(0, BENCH_WEIGHT_STD^2) (docs/workload.md). */
#define BENCH_WEIGHT_STD 0.02f
/* Re-layouts whose prepared timing copies a bench keeps (bench_prep_slot). */
#define BENCH_PREP_KEEP 4
/* Bytes after the validation output that must stay untouched. */
#define BENCH_GUARD_BYTES ((size_t)64 << 10)
#define BENCH_GUARD_BYTE 0xA5

/*
 * Device buffers of one (shape, m): the rotated timing copies (W, X, the
 * baseline's FP32 X when it needs one, Y), the baseline's graphs over
 * them, and the validation buffers (fresh inputs, the FP64 reference, Y
 * followed by a guard, the per-row error sums).
 */
struct bench {
	struct shape shape;
	int m;
	size_t w_bytes, x_bytes, x32_bytes, y_bytes;   /* x32_bytes 0: none */
	int ncopies;
	void *w[BENCH_MAX_COPIES], *x[BENCH_MAX_COPIES];
	void *x32[BENCH_MAX_COPIES], *y[BENCH_MAX_COPIES];
	cudaGraphExec_t base_graph[BENCH_MAX_COPIES];  /* built on first use */
	int baseline_ok;                /* the baseline passed validation */
	void *vw, *vx, *vx32, *vy;
	double *vr, *err2, *ref2;
	unsigned *nonfinite, *mismatch;
	double *h_err2, *h_ref2;        /* host copies of the sums */
	unsigned *h_nonfinite;
	/* The timing copies prepared for a re-layout (tmpl.h), kept for the
	 * later candidates of this (shape, m) that read the same one, since
	 * the copies never change: at most BENCH_PREP_KEEP re-layouts, the
	 * least recently used replaced; r.kind RELAYOUT_NONE marks a free
	 * slot. Freed with the bench. */
	struct bench_prep {
		struct relayout r;
		void *p[BENCH_MAX_COPIES];
		unsigned long used;     /* the last use, on prep_clock */
	} prep[BENCH_PREP_KEEP];
	unsigned long prep_clock;
};

/* The bench of (s, m): g->bench when it matches (tol aside: a new tol
 * replaces the old one and calls for the baseline to be validated again),
 * else the old one is freed (with the candidate workspace) and a new one
 * built. */
int bench_get(struct gpu *g, const struct shape *s, int m, struct bench **out);
void bench_free(struct bench *b);
/* The slot of b->prep for re-layout r (not RELAYOUT_NONE): the one that
 * holds r (*hit = 1), else a free one, else the least recently used
 * (*hit = 0: the caller frees it with bench_prep_clear and prepares r
 * there). Pure: no CUDA call. */
struct bench_prep *bench_prep_slot(struct bench *b, const struct relayout *r, int *hit);
/* Free a slot's copies and mark it free. */
void bench_prep_clear(struct bench *b, struct bench_prep *slot);

/* --- validate.c --- */

/* Replays of a graph before its output is checked (docs/workload.md: >= 3). */
#define VALIDATE_REPLAYS 10

struct verdict {
	int pass;
	double err_global, err_row;     /* NAN when the output was not finite */
	char reason[160];               /* why it failed; empty when it passed */
};

/* Fresh inputs from seed in b's validation buffers (W, X, the baseline's
 * FP32 X) and their FP64 reference. Returns 0 or -1. */
int validate_inputs(struct gpu *g, struct bench *b, uint64_t seed);

/*
 * Poison b->vy (NaN), its guard and ws (ws_bytes of it; ws may be NULL),
 * replay exec VALIDATE_REPLAYS times, poison b->vy and ws again, replay
 * once more and judge that output. exec must have been captured on b's
 * validation buffers. Returns
 * 0 with *v filled, or -1 on a CUDA error (the candidate's or ours).
 */
int validate_graph(struct gpu *g, struct bench *b, cudaGraphExec_t exec, void *ws,
		   size_t ws_bytes, struct verdict *v);

/* The baseline (cublasGemmEx) on fresh inputs from seed. */
int validate_baseline(struct gpu *g, struct bench *b, uint64_t seed, struct verdict *v);

/* After validate_graph of a plan with counters (ARG_SYNC, bytes of them
 * at sync): they must all be 0 again (tmpl.h), else v fails saying how
 * many of their bytes are not (counted on the device into b's mismatch
 * word). Nothing to do when bytes is 0. Returns 0, or -1 on a CUDA error. */
int validate_sync(struct gpu *g, struct bench *b, const unsigned *sync, size_t bytes,
		  struct verdict *v);

/* --- timing.c --- */

/* Replays the worker's overhead figure is the median of. */
#define TIMING_OVERHEAD_REPS 50

/* Copies rotated so their total is at least 2x L2 (and at least 4, at
 * most BENCH_MAX_COPIES) for buffers of copy_bytes each. */
int timing_copies(long long l2_bytes, size_t copy_bytes);

/* Median replay time of a graph holding one empty kernel over reps
 * flushed replays; also stored as g->overhead_us. */
int timing_overhead(struct gpu *g, int reps, double *us);

/*
 * Paired timing: one untimed replay of every graph, then `pairs` pairs;
 * pair i even replays base then cand, odd cand then base; every replay
 * after an L2 flush, on the next copy in rotation, between two events;
 * each pair followed by a replay of an empty graph, whose median is the
 * overhead subtracted from this batch (g->overhead_us is not used).
 */
int timing_pairs(struct gpu *g, cudaGraphExec_t *base, cudaGraphExec_t *cand, int ncopies,
		 int pairs, struct pair_stats *out);

struct floor_result {
	double us, gbps;                /* net of the replay overhead */
	char config[64];                /* the fastest read configuration */
};
/* The practical streaming-read floor of bytes bytes, reps replays per
 * configuration (see harness_stream_read). */
int timing_floor(struct gpu *g, size_t bytes, int reps, struct floor_result *out);
/* One graph per copy into out[0..ncopies) of the streaming read of
 * bufs[i]'s bytes bytes (blocks blocks, unroll loads in flight), after one
 * eager read so that module loading stays out of the capture: the probe's
 * floor, and bench --paired's read in the probe's configuration. Returns
 * 0 or -1; the caller destroys what out holds either way. */
int timing_capture_read(struct gpu *g, void *const *bufs, int ncopies, size_t bytes, int blocks,
			int unroll, cudaGraphExec_t *out);

/* --- baseline.c --- */

/* NULL when cuBLAS can run the shape's dtypes, else why not. */
const char *baseline_unsupported(const struct shape *s);
/* 1 when the baseline reads X converted to FP32 (the router). */
int baseline_needs_x32(const struct shape *s);

/* Capture Y = X W^T by cublasGemmEx (F.linear's path) after one eager
 * warm-up call; x is the FP32 copy when baseline_needs_x32. */
int baseline_capture(struct gpu *g, const struct shape *s, int m, const void *w,
		     const void *x, void *y, cudaGraphExec_t *out);
/* Build b->base_graph[] over the timing copies if not yet built. */
int bench_baseline_graphs(struct gpu *g, struct bench *b);

/* The cuBLASLt heuristic's top algorithm for one problem. */
struct lt_plan {
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t a, b, c;
	cublasLtMatmulAlgo_t algo;
	char desc[256];                 /* its attributes, "algo=..,tile=..,..." */
};
/* Returns 0, 1 when the heuristic has no algorithm (desc says so; nothing
 * to destroy), or -1 on error. */
int lt_plan_create(struct gpu *g, const struct shape *s, int m, struct lt_plan *p);
void lt_plan_destroy(struct lt_plan *p);
/* Capture the algorithm's matmul over w, x, y after one eager call. */
int lt_capture(struct gpu *g, const struct lt_plan *p, const void *w, const void *x,
	       void *y, cudaGraphExec_t *out);

/* "13.0.2"-style versions of the cuBLAS and cuBLASLt libraries in use. */
int blas_versions(struct gpu *g, char *cublas, char *cublaslt, size_t len);

#endif
