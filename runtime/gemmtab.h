/*
 * gemmtab.h: libgemmtab, the runtime half of gemmtab. Y = X * W^T for a
 * static weight W (row-major N x K on the device) and a few tokens of X
 * (row-major M x K), dispatched by a table that `gemmtab emit` generated
 * from measurements: a tuned kernel where one won against cuBLAS at that M,
 * the cuBLAS baseline everywhere else.
 *
 * Contract: every function but the two that return text returns a
 * gt_status; the library never prints, exits or aborts. All allocation
 * happens in gt_context_create and gt_weight_prepare; gt_linear allocates
 * nothing, never synchronizes and can be captured in a CUDA graph.
 * Distinct weight handles may be used from distinct threads at once; one
 * handle is used by one thread at a time, and its calls (and the graphs
 * they were captured into) must run in order on the device (one stream,
 * or streams ordered by events): they share the handle's workspace and
 * the counters some routes keep (a call leaves them as it found them).
 * Plain pointers, ints and enums only, so ctypes and other FFIs can call it.
 */
#ifndef GEMMTAB_H
#define GEMMTAB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gt_status {
	GT_OK = 0,
	GT_ERR_INVALID = 1,        /* a null pointer, m <= 0, n or k <= 0, bad enum */
	GT_ERR_UNSUPPORTED = 2,    /* a dtype combination the library does not serve */
	GT_ERR_MISALIGNED = 3,     /* a device pointer not aligned to its element size */
	GT_ERR_CUDA = 4,           /* a CUDA runtime call failed */
	GT_ERR_CUBLAS = 5,         /* a cuBLAS / cuBLASLt call failed */
	GT_ERR_NO_MEMORY = 6,      /* host or device allocation failed */
} gt_status;

typedef enum gt_dtype {
	GT_BF16 = 0,
	GT_FP32 = 1,
} gt_dtype;

typedef struct gt_context gt_context;
typedef struct gt_weight gt_weight;

/* A short, static description of a status (never NULL; "unknown status"
 * for a value that is not a gt_status). */
const char *gt_status_string(int status);

/* A context on one device: picks, among the tables compiled in (make
 * TABLES=), the first tuned on this GPU's name with its SM count and
 * compute capability (docs/hopper.md), and keeps what weights share.
 * With none, every M runs the baseline; versions never decide: after a
 * driver or CUDA change every entry stays on, after a cuBLASLt change the
 * table's cuBLASLt entries alone fall back (see gt_weight_explain,
 * gt_table_description). GT_ERR_INVALID for a NULL out or a device out of
 * range, GT_ERR_CUDA when no usable device or driver is there. *out is
 * set only on success. Destroying NULL is a no-op; weights prepared from a
 * context do not refer to it afterwards, so either may go first. */
int gt_context_create(int device, gt_context **out);
int gt_context_destroy(gt_context *ctx);

/* Prepare a weight: w_dev is a device pointer to N x K row-major elements
 * of type w. The handle owns every re-laid copy and all workspace; w_dev
 * must stay valid while the handle lives. Re-laid copies (packed tiles,
 * the router's hi/lo) are made from it here, after waiting for all work
 * already queued on the device (cudaDeviceSynchronize), so a fill of w_dev
 * pending on any stream is complete first; the caller must not write w_dev
 * while this runs or afterwards. Supported (w, x, y): (bf16, bf16, bf16) and (fp32, bf16, fp32);
 * other valid dtypes give GT_ERR_UNSUPPORTED, invalid ones GT_ERR_INVALID,
 * a w_dev not aligned to its element GT_ERR_MISALIGNED (all checked before
 * the context or the device is touched). Checks the table's kernels of the
 * weight's entries on the device (loaded by gt_context_create) and sets
 * their shared-memory limits, so gt_linear only launches. *out is set
 * only on success. */
int gt_weight_prepare(gt_context *ctx, const void *w_dev, int n, int k, gt_dtype w,
		      gt_dtype x, gt_dtype y, gt_weight **out);
/* gt_weight_prepare with its re-layouts run on stream (a cudaStream_t of
 * the context's device, not capturing; NULL: the legacy default stream,
 * as gt_weight_prepare), which it waits for before it returns. Pass the
 * stream the weight's calls will run on. On an H200, re-layouts made on
 * another stream while a stream was replaying graphs left that stream's
 * graphs of two kernels (cuBLAS's split-K pair, the router's zero-fill
 * and product) ~0.3 us slower. */
int gt_weight_prepare_on(gt_context *ctx, const void *w_dev, int n, int k, gt_dtype w,
			 gt_dtype x, gt_dtype y, void *stream, gt_weight **out);
/* Frees the handle and its device memory (synchronizing, as cudaFree
 * does); work and graphs that use it must be finished. NULL is a no-op. */
int gt_weight_destroy(gt_weight *wt);

/* Y[m, n] = X[m, k] * W^T on stream (a cudaStream_t; NULL for the legacy
 * default stream). Any m >= 1. Nothing is launched on an error. x_dev and
 * y_dev must be aligned to their element size (else GT_ERR_MISALIGNED);
 * a call whose x_dev or y_dev is not 16-byte aligned runs the baseline
 * even where the table has an entry. Runs on the weight's device whatever
 * device is current, and leaves the current device as it was. */
int gt_linear(gt_weight *wt, const void *x_dev, int m, void *y_dev, void *stream);

/* Which dispatch entry a call with m tokens uses and why, as one line into
 * buf (always NUL-terminated when len > 0, truncated to fit): "m=1: entry
 * 0 (gemv warps=16,...)" or "m=5: baseline (...): <why no entry runs>".
 * An entry whose thread-block clusters do not all fit on this GPU at once
 * (a cluster's blocks share a GPC) ends "; at m=32 its 36 clusters of 7
 * blocks take 2 waves on this GPU (32 fit at once)": it runs, but expect
 * it slower than a tile that fits. */
int gt_weight_explain(const gt_weight *wt, int m, char *buf, size_t len);

/* The device memory the handle allocated, into *bytes: the re-laid copies
 * of W, the routes' workspace and counters, the baseline's cuBLAS
 * workspace (and the router's FP32 staging rows). W itself, which the
 * caller owns, and what cuBLAS allocates inside its handle are not
 * counted. */
int gt_weight_device_bytes(const gt_weight *wt, size_t *bytes);

/* What ran on the cuBLAS baseline, and why. Recording is off unless the
 * environment has GEMMTAB_RECORD_UNTUNED=1 when the first weight is
 * prepared, or gt_record_untuned(1) was called; weights prepared while it
 * is on count their calls (off, gt_linear pays one branch). Counts are kept
 * per weight shape and M bucket (every M to 64, 8 Ms a bucket to 512, then
 * powers of 2) in storage set up at prepare; a destroyed weight's counts
 * stay. A count is one gt_linear call on the host: a call captured into a
 * CUDA graph counts once, however often the graph is replayed. */
int gt_record_untuned(int on);         /* 0 or 1; applies to weights prepared after */

typedef struct gt_stat {
	int n, k;
	gt_dtype w, x, y;
	int m_lo, m_hi;                    /* the M bucket, inclusive */
	unsigned long no_entry;            /* calls at an M the table has no entry for */
	unsigned long unusable;            /* ... whose entry cannot run on this GPU */
	unsigned long misaligned;          /* ... with x or y not 16-byte aligned */
	unsigned long refused;             /* ... whose cuBLASLt algorithm was refused */
} gt_stat;

/* The counts of the process, one row per shape and bucket that ran the
 * baseline: the first cap rows into out, the number of rows into *count. */
int gt_stats(gt_stat *out, int cap, int *count);

/* Write the shapes and Ms that ran untuned (no entry, unusable, refused)
 * to path as a YAML shapes fragment, which `gemmtab sweep --space BASE
 * --shapes path` tunes beside a base space; replaced atomically.
 * GT_ERR_INVALID when path cannot be written. The records are the
 * process's (weights outlive their contexts), so no context is named. */
int gt_untuned_write(const char *path);

/* This library's version, "MAJOR.MINOR.PATCH" (the SONAME carries the
 * major: libgemmtab.so.MAJOR); a static string. */
const char *gt_version(void);

/* Which of the compiled-in tables the last gt_context_create chose, and
 * why each other was not chosen, one static line (safe from any thread;
 * no CUDA call): "table PATH in use on GPU (N SMs): tuned on GPU, N SMs,
 * CUDA V, driver V, cuBLASLt V, kernels ARCH; E entries; COMMAND; table
 * PATH2 not chosen: WHY (tuned on ...; COMMAND2)", or "no table for GPU (N
 * SMs, compute capability C): every M runs the cuBLAS baseline; table PATH
 * not chosen: ...". Before any context: "no table chosen yet (no context
 * created); table PATH compiled in: tuned on ...; COMMAND; ...". */
const char *gt_table_description(void);

#ifdef __cplusplus
}
#endif

#endif
