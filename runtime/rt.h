/*
 * rt.h: libgemmtab's internals, shared by the runtime's files and by
 * nothing else: the context and weight handles, a table entry as one
 * weight sees it (a "route"), and the functions the API files call on
 * each other. Every name here is file-local after the library is linked
 * (runtime/runtime.mk keeps only the gt_ API global), so the rt_ prefix
 * and the tuner's adapters (tmpl.h) never clash with an application's.
 */
#ifndef GT_RT_H
#define GT_RT_H

#include <stdatomic.h>
#include <stddef.h>

#include <cublas_v2.h>

#include "lt_call.h"
#include <cuda_runtime_api.h>

#include "gemmtab.h"
#include "gt_table.h"
#include "tmpl.h"
#include "types.h"

/* Room for one reason a route falls back, and for a device name. */
#define RT_WHY_MAX 256
#define RT_NAME_MAX 256
#define RT_VERSION_MAX 32

/* cuBLAS workspace per weight: tuner/worker/gpu.h's GPU_BLAS_WS_BYTES, so the
 * baseline runs under the conditions it was measured in (PyTorch gives
 * cuBLAS 32 MiB on Hopper). Set explicitly so cuBLAS never allocates
 * while a graph is captured. */
#define RT_BLAS_WS_BYTES ((size_t)32 << 20)

/* The router baseline converts X to FP32 this many rows at a time into a
 * workspace sized at prepare (gt_linear may not allocate, M is unbounded).
 * 512 is docs/workload.md's largest neighbour M: every M the workload names
 * runs as one GEMM, the call the tuner measured. */
#define RT_X32_CHUNK_ROWS 512

/* gemv (and any template of this generation) loads X and W 16 bytes at a
 * time; the tuner validated only 16-byte aligned buffers. */
#define RT_VECTOR_ALIGN 16

/* The device and libraries a table is compared against. */
struct rt_env {
	char gpu_name[RT_NAME_MAX];
	int sm_count;
	int cc;                                 /* compute capability, 10 * major + minor */
	char driver[RT_VERSION_MAX];            /* "13.0" (cudaDriverGetVersion) */
	char cuda[RT_VERSION_MAX];              /* runtime, "13.0" */
	char cublaslt[RT_VERSION_MAX];
};

/* One table entry of a weight's (N, K, dtypes): usable, or why not. */
struct rt_route {
	int index;                              /* in the table's entries[] */
	const struct gt_table_entry *e;
	const struct tmpl *t;                   /* NULL: template unknown here */
	int usable;
	char why[RT_WHY_MAX];                   /* !usable: why the baseline runs */
	char note[RT_WHY_MAX];                  /* usable: a caveat on this device, or "" */
	int lt;                                 /* its plans hold a cuBLASLt step */
	size_t ws_bytes;                        /* largest plan workspace over its Ms */
	size_t sync_bytes;                      /* ... and counters (ARG_SYNC) */
	struct relayout relayout;               /* the prepared weight its plans read */
	void *prep;                             /* ... made once at prepare, or NULL */
	int owns_prep;                          /* 0: prep is an earlier route's */
	cublasLtMatmulAlgo_t lt_algo;           /* its STEP_LT's algorithm (rt_lt_check) */
};

/* The room for one table's part of a description: why it was or was
 * not chosen. */
#define RT_DESC_MAX 2048

struct gt_context {
	int device;
	struct rt_env env;
	size_t smem_optin;                      /* opt-in shared memory per block */
	const struct rt_compiled *tc;           /* the table in use, or NULL */
	const void *const *kernels;             /* its loaded kernels (rt_kernels_load) */
	int nkernels;
	char no_table[RT_WHY_MAX];              /* tc NULL: why every M runs the baseline */
};

/* --- untuned.c: what ran on the baseline, per shape and M bucket --- */

enum rt_why {
	RT_WHY_NO_ENTRY,        /* the table has no entry for this M */
	RT_WHY_UNUSABLE,        /* its entry cannot run here (no table for this GPU, a
				 * cuBLASLt entry of another cuBLASLt version, ...) */
	RT_WHY_MISALIGNED,      /* x or y not 16-byte aligned */
	RT_WHY_REFUSED,         /* cuBLASLt refused the entry's algorithm at this M */
	RT_WHY_N
};
#define RT_UNTUNED_BUCKETS (64 + 56 + 22)

/* One weight's counters (or a destroyed shape's sums), in the registry. */
#define RT_UNTUNED_OFF 4
struct rt_untuned {
	struct shape shape;
	int live;
	int noff;                               /* why entries are off: the first few */
	char off[RT_UNTUNED_OFF][RT_WHY_MAX];
	_Atomic unsigned long n[RT_WHY_N][RT_UNTUNED_BUCKETS];
	struct rt_untuned *next;
};

int rt_untuned_bucket(int m);
void rt_untuned_bounds(int b, int *lo, int *hi);
/* A slot for a weight of shape s when recording is on, else NULL. */
struct rt_untuned *rt_untuned_open(const struct shape *s);
void rt_untuned_close(struct rt_untuned *u);
/* Note why an entry of u's shape is off ("entry 3 (gemv ...): why"),
 * kept with its counts for gt_untuned_write; a no-op for NULL u, a repeat
 * or past RT_UNTUNED_OFF notes. */
void rt_untuned_note_off(struct rt_untuned *u, const char *text);
static inline void rt_untuned_count(struct rt_untuned *u, int why, int m)
{
	if (u)
		atomic_fetch_add_explicit(&u->n[why][rt_untuned_bucket(m)], 1, memory_order_relaxed);
}

struct gt_weight {
	int device;
	const void *const *kernels;             /* its table's loaded kernels */
	int nkernels;
	char no_table[RT_WHY_MAX];              /* no table serves it: why, else "" */
	const void *w;
	struct shape shape;
	struct rt_route *routes;                /* table order */
	int nroutes;
	void *ws;                               /* the routes' workspace */
	size_t ws_bytes;
	unsigned *sync;                         /* the routes' counters (ARG_SYNC), */
	size_t sync_bytes;                      /* zeroed once; every call leaves 0 */
	cublasHandle_t blas;
	void *blas_ws;                          /* RT_BLAS_WS_BYTES */
	cublasLtHandle_t lt;                    /* the routes' cuBLASLt steps */
	float *x32;                             /* router baseline: RT_X32_CHUNK_ROWS x K */
	/* routed calls that ran the baseline: x or y not 16-byte aligned */
	unsigned long misaligned_calls;
	/* and those whose cuBLASLt step the library refused at that m
	 * (prepare checked the ends of the range only) */
	unsigned long refused_calls;
	struct rt_untuned *rec;                 /* NULL unless recording (untuned.c) */
};

/* --- the compiled-in tables: table.c once per table of TABLES, with
 * its kernels, cubins built by tools/gt_cubin with the tuner's NVRTC path
 * from runtime/tables/<name>_kernels.cu --- */

#define RT_MAX_KERNELS 4096
/* The most tables one library compiles in. */
#define RT_MAX_TABLES 16

struct rt_cubin {
	const unsigned char *data;
	size_t size;
};

struct rt_kernel_name {
	int cubin;              /* index into its table's cubins[] */
	const char *lowered;    /* the kernel's name in that cubin */
};

/* One compiled-in table with its kernels. */
struct rt_compiled {
	const char *path;                       /* its header, as the build named it */
	const struct gt_table *table;
	const struct rt_cubin *cubins;          /* ends with { 0, 0 } */
	const struct rt_kernel_name *names;     /* *nkernels of them */
	const int *nkernels;
};

/* The tables in the order TABLES named them, ending with NULL (the build
 * writes the list: runtime/runtime.mk). */
extern const struct rt_compiled *const rt_compiled_tables[];

/* kernels.c: the kernels of table slot (its index in rt_compiled_tables)
 * as launchable handles (cudaKernel_t cast to const void *, accepted by
 * cudaLaunchKernel and cudaFuncGetAttributes), loaded once per process
 * (thread-safe) into *handles. Returns a gt_status. */
int rt_kernels_load(int slot, const void *const **handles);

/* --- choose.c: which table serves a device, pure logic --- */

/* The index in tables (NULL-terminated) of the table env's device uses,
 * or -1 for none. The rule (docs/hopper.md): a table applies when the GPU
 * name it was tuned on equals the device's and so does its SM count; its
 * kernels' arch (sm_90a) must also be the device's compute capability;
 * the first such table in TABLES order is chosen. Versions never decide:
 * a driver or CUDA difference leaves every entry on, a cuBLASLt difference
 * turns off that table's cuBLASLt entries only (rt_route_env_check).
 * When desc is not NULL, writes into it (len bytes) which table is in use
 * and why each other was not chosen. */
int rt_table_pick(const struct rt_compiled *const *tables, const struct rt_env *env,
		  char *desc, size_t len);

/* One table's tuning environment in words ("NVIDIA H200, 132 SMs, CUDA
 * 13.0, driver 13.0, cuBLASLt 13.1.0, kernels sm_90a; 43 entries"). */
void rt_table_words(const struct gt_table *t, char *buf, size_t len);

/* Turn route r of table t off when env makes its evidence stale: a route
 * with a cuBLASLt step (r->lt) is off when the cuBLASLt version differs
 * from the table's (the reason names both); a template entry (an sm_90a
 * cubin) stays on whatever the driver or CUDA version. */
void rt_route_env_check(struct rt_route *r, const struct gt_table *t, const struct rt_env *env);

/* --- dispatch.c: pure logic, no CUDA calls --- */

/* The shape (types.h) of a weight; gt_dtype and enum dtype share values. */
void rt_shape_init(struct shape *s, int n, int k, gt_dtype w, gt_dtype x, gt_dtype y);

/* The routes of the entries of t for shape s, in table order, each
 * checked statically (rt_route_check with nkernels). *out is a calloc'ed
 * array the caller frees (NULL when there are none). Returns the count,
 * or -1 when allocation failed. */
int rt_routes_collect(const struct gt_table *t, const struct shape *s, int nkernels,
		      struct rt_route **out);

/* Check one entry (r->e) against the shape and the compiled kernels:
 * known template, legal parameters, kernel indices in range, and a
 * well-formed launch plan at every M of its range (scanned up to
 * RT_PLAN_SCAN Ms, then at the ends). Sets r->t, r->usable, r->why,
 * r->lt (a plan holds a STEP_LT) and r->ws_bytes, the largest plan
 * workspace seen (0 when unusable). */
void rt_route_check(struct rt_route *r, const struct shape *s, int nkernels);

/* Mark a route unusable with a formatted reason (a no-op when it already
 * is: the first reason stands). */
void rt_route_disable(struct rt_route *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The plan of route r for m tokens, checked: every kernel step names one
 * of the entry's kernels and one of the nkernels compiled ones, has a
 * non-empty grid and block and argument kinds the launcher knows; memsets
 * fit their buffers (ws_limit bytes of workspace). Returns 0 or -1. */
int rt_plan(const struct rt_route *r, const struct shape *s, int m, int nkernels,
	    size_t ws_limit, struct launch_plan *plan);

/* The caveat of a plan step that launches `clusters` thread-block
 * clusters of `size` blocks each at m tokens on a device that holds `fit`
 * such clusters at once (cudaOccupancyMaxActiveClusters), into buf: ""
 * when they all run at once (or fit is unknown, <= 0), else a note that
 * the step takes more than one wave (a cluster's blocks share a GPC; on
 * an H200 such a tile reads ~40% slower). */
void rt_cluster_note(long clusters, int size, int fit, int m, char *buf, size_t len);

/* The route whose range covers m (the first in table order), or NULL. */
const struct rt_route *rt_route_find(const struct rt_route *routes, int n, int m);

/* One line saying what a call with m tokens runs and why (see
 * gt_weight_explain). misaligned: calls so far that had a route but ran
 * the baseline for unaligned pointers; refused: those that ran it because
 * cuBLASLt refused the route's step. */
void rt_explain(const struct shape *s, const struct rt_route *r, int m,
		unsigned long misaligned, unsigned long refused, char *buf, size_t len);

/* --- status.c --- */

/* A CUDA or cuBLAS error as a gt_status. */
int rt_cuda_status(cudaError_t e);
int rt_blas_status(cublasStatus_t e);

/* --- context.c --- */

/* Make ctx's device current, remembering the caller's in *saved;
 * rt_device_leave restores it. Both return a gt_status. */
int rt_device_enter(int device, int *saved);
int rt_device_leave(int saved);

/* --- blas.c --- */

/* The weight's cuBLAS handle, its workspace and (router) the FP32 chunk
 * buffer, on the current device. Returns a gt_status; on failure what was
 * made is left in wt for rt_blas_free. */
int rt_blas_init(struct gt_weight *wt);
void rt_blas_free(struct gt_weight *wt);
/* The baseline for m tokens on stream. Returns a gt_status. */
int rt_blas_run(struct gt_weight *wt, const void *x, int m, void *y, cudaStream_t stream);
/* Point the weight's handle at stream (and, since cublasSetStream resets
 * the workspace to cuBLAS's own pool, at our workspace again): once per
 * call, before its GEMMs. Returns a gt_status. */
int rt_blas_use_stream(struct gt_weight *wt, cudaStream_t stream);
/* One STEP_GEMM_BF16 of route r's plan on the stream rt_blas_use_stream
 * set: Y (+)= X * P^T with P the bf16 N x K matrix at st->w_offset of
 * r->prep, FP32 compute and output. */
int rt_blas_gemm_bf16(struct gt_weight *wt, const struct rt_route *r,
		      const struct launch_step *st, const void *x, int m, void *y);

/* The usable routes whose plans hold a cuBLASLt step: its algorithm is
 * built once from its attributes into the route (r->lt_algo) and checked
 * (cublasLtMatmulAlgoCheck) at both ends of the route's M range; a route
 * it fails runs the baseline instead (disabled, with why). After
 * rt_blas_init. Returns a gt_status. */
int rt_lt_check(struct gt_weight *wt);
/* Route r's STEP_LT st on stream, in the weight's cuBLAS workspace.
 * Returns a gt_status. */
int rt_lt_run(struct gt_weight *wt, const struct rt_route *r, const struct launch_step *st,
	      const void *x, int m, void *y, cudaStream_t stream);

/* --- convert.cu --- */

/* dst[i] = float(src[i]) for count bf16 values on stream; returns
 * cudaGetLastError() after the launch. */
cudaError_t rt_bf16_to_fp32(const void *src, float *dst, size_t count, cudaStream_t stream);
/* The router's hi/lo split of count fp32 weights into out: count bf16 hi
 * values, then count bf16 lo values (templates/hilo.cuh). */
cudaError_t rt_split_hilo(const float *w, void *out, size_t count, cudaStream_t stream);
/* W (bf16, n x k) transposed into out (k x n, RELAYOUT_TRANSPOSE,
 * templates/transpose.cuh). */
cudaError_t rt_transpose(const void *w, void *out, int n, int k, cudaStream_t stream);
/* W (bf16, n x k) packed in rows x cols tiles (RELAYOUT_TILES,
 * templates/pack.cuh) into out. */
cudaError_t rt_pack_tiles(const void *w, void *out, int n, int k, int rows, int cols,
			  cudaStream_t stream);

#endif
