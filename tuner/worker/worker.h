/*
 * worker.h: the worker's entry (worker_serve, serve.c), its request
 * handlers (req_eval.c, req_blas.c, req_env.c, worker_rt.c) and what they
 * share, defined in request.c: replies, request fields, the per-(shape, M)
 * bench. Included by the worker's files and by cli/cmd_worker.c.
 */
#ifndef GT_WORKER_H
#define GT_WORKER_H

#include <stdint.h>

#include "gpu.h"
#include "bench.h"
#include "validate.h"
#include "proto.h"

/* Exit status of a worker whose CUDA context is gone. */
#define EXIT_FAULT 3

/* Bounds on what a request may ask for: far above any real sweep, low
 * enough that a typo cannot ask for terabytes. */
#define MAX_PAIRS 4096
#define MAX_M (1 << 16)
#define MAX_DIM (1 << 20)
#define MAX_WEIGHT_BYTES ((size_t)8 << 30)

/* Pairs of a baseline request that names none. */
#define WORKER_DEFAULT_PAIRS 10

/*
 * GEMMTAB_CHECK_ONLY=1 in the worker's environment (read once, at start):
 * validate candidates against the FP64 reference and time nothing, so no
 * cuBLAS kernel runs in the process (compute-sanitizer's racecheck fails
 * inside cuBLAS's own kernels on the H200: tests/gpu/t_sanitizer.sh).
 * Results are "ok" with errors and no times, baselines all NaN: a
 * database for that run only.
 */
extern int worker_check_only;

/* Open GPU device and answer requests from stdin until "quit", end of
 * input or the supervisor's exit; returns 0 (dies when the GPU does not
 * open). */
int worker_serve(int device);

/* Why a request was malformed. */
struct why {
	char text[256];
};

/* Write a reply line; dies when stdout is gone. */
void worker_send(struct kv_out *o);
/* Start a reply "op id=ID" (id omitted when NULL). */
void worker_begin(struct kv_out *o, const char *op, const char *id);
void worker_reply_error(const char *id, const char *reason);
/* Reply to failed CUDA work; exits with EXIT_FAULT when the context is gone. */
void worker_reply_cuda_error(struct gpu *g, const char *id);
/* The validation errors (v) and paired timings (ps) of a result reply;
 * either may be NULL. */
void worker_add_figures(struct kv_out *o, const struct verdict *v, const struct pair_stats *ps);
/* Fill w from fmt ("... %s ... %s", key, val) and return -1. */
int worker_bad(struct why *w, const char *fmt, const char *key, const char *val);
int worker_get_long(const struct kv *r, const char *key, long lo, long hi, long *out,
		    struct why *w);
int worker_get_u64(const struct kv *r, const char *key, uint64_t *out, struct why *w);
int worker_get_int(const struct kv *r, const char *key, long lo, long hi, int *out,
		   struct why *w);
/* family n k w x y [tol] of a request. */
int worker_get_shape(const struct kv *r, struct shape *s, int need_tol, struct why *w);
uint64_t worker_seed_of(const struct kv *r, const struct shape *s, int m, const char *salt);
/* The buffers of (s, m) with the baseline validated once on fresh inputs. */
int worker_ready_bench(struct gpu *g, const struct shape *s, int m, uint64_t seed,
		       struct bench **out);

/* The handlers, one per request op (proto.h): each replies one line. */
void worker_handle_eval(struct gpu *g, const struct kv *r);
void worker_handle_baseline(struct gpu *g, const struct kv *r);
void worker_handle_lt_algos(struct gpu *g, const struct kv *r);
void worker_handle_env(struct gpu *g, const struct kv *r);
void worker_handle_overhead(struct gpu *g, const struct kv *r);
void worker_handle_floor(struct gpu *g, const struct kv *r);
/* "rt": validate and time libgemmtab's gt_linear against the baseline
 * (worker_rt.c). */
void worker_handle_rt(struct gpu *g, const struct kv *r);
#endif
