/*
 * proto.h: the supervisor <-> worker pipe protocol. One message per line:
 * "op key=value key=value ...". Values are percent-encoded (space, '%',
 * '=', newline, tab), so any string travels. The supervisor writes requests
 * to the worker's stdin and reads replies from its stdout; the worker's
 * stderr is passed through. It sits below both of its users, the sweep
 * (tuner/sweep/supervise.c) and the worker (tuner/worker/), so neither
 * includes the other.
 *
 * Requests (supervisor -> worker) and their replies:
 *
 *   env                         -> env gpu_name= gpu_uuid= sm_count= sm_clock_mhz=
 *                                  mem_clock_mhz= l2_bytes= driver= cuda= nvrtc=
 *                                  cublas= cublaslt=
 *   overhead pairs=N            -> overhead us=  (median replay time of a graph
 *                                  holding one empty kernel, flushed as usual)
 *   floor family= bytes= pairs=N -> floor family= bytes= us= gbps= config=
 *                                  (practical streaming-read floor, overhead
 *                                  already subtracted)
 *   baseline id= family= n= k= w= x= y= m= pairs=N
 *                               -> baseline id= cublas_us= cublaslt_us= ratio=
 *                                  lt_algo=   (cuBLASLt top heuristic, paired
 *                                  against cublasGemmEx)
 *   lt_algos id= family= n= k= w= x= y= m= orient= max= [splitk=1,2,..]
 *            [vary=tile,stages,cluster,custom] [seeds=a,b,..;a,b,..]
 *            [seeds_only=0|1]
 *                               -> lt_algos id= count= algos=  (the cuBLASLt
 *                                  heuristic's first max algorithms in that
 *                                  orientation, best first, then the seeds
 *                                  (up to PROTO_LT_SEEDS_MAX algorithms'
 *                                  attributes, as algos writes them) that
 *                                  cuBLASLt accepts, then each of
 *                                  them at the other split-K counts listed
 *                                  and at every value of each attribute
 *                                  named in vary (one at a time) that
 *                                  cuBLASLt accepts: their attributes
 *                                  comma-separated, the algorithms
 *                                  ';'-separated; tuner/worker/lt.h; algos comes
 *                                  last and may make a line of any length;
 *                                  truncated=1 when the variants filled
 *                                  the list, vary_error= when they failed
 *                                  and only the proposals are named;
 *                                  seeds_only=1 varies the seeds alone: a
 *                                  later step of a climb, whose first
 *                                  named the proposals' variants)
 *   eval id= phase=screen|retest pairs=N seed= family= n= k= w= x= y= tol= m=
 *        tmpl= <param>=<value>... nk=K cubin0= name0= [cubin1= name1= ...]
 *                               -> result id= status= err_global= err_row=
 *                                  base_us= cand_us= ratio= ratio_lo= ratio_hi=
 *                                  pairs= regs= local_bytes= smem= reason=
 *   quit                        -> (worker exits 0)
 *
 * Every reply may instead be "error id= reason=" when the request itself was
 * malformed. status is one of ok, fail (validation failed: never timed),
 * launch_error, fault (sticky CUDA error: the worker exits after replying),
 * pruned (static limits). The supervisor itself records timeout (deadline
 * passed, worker killed) and fault when the worker dies without a reply.
 * Times are microseconds with the replay overhead subtracted; ratio is the
 * median of per-pair t_baseline / t_candidate, ratio_lo/hi its 10th and
 * 90th percentiles.
 */
#ifndef GT_PROTO_H
#define GT_PROTO_H

#include <stdio.h>

#define KV_MAX 64

/* lt_algos' splitk: at most this many counts, each in [1, the limit]. */
#define PROTO_LT_SPLITK_MAX 16
#define PROTO_LT_SPLITK_LIMIT 64
/* The most seeds an lt_algos request may carry. */
#define PROTO_LT_SEEDS_MAX 16

/* A decoded message: op plus key/value pairs (decoded, NUL-terminated,
 * pointing into the message's own storage). */
struct kv {
	char op[32];
	int n;
	char *keys[KV_MAX];
	char *vals[KV_MAX];
	char *buf;          /* owned storage */
};

/* Decode one line (without or with trailing newline). Returns 0 or -1. */
int kv_parse(const char *line, struct kv *out);
void kv_free(struct kv *m);
/* Lookups: the string or NULL; numeric forms return def when absent or
 * unparsable. */
const char *kv_get(const struct kv *m, const char *key);
long kv_get_long(const struct kv *m, const char *key, long def);
double kv_get_double(const struct kv *m, const char *key, double def);

/* Building a message: start with kv_begin, add fields, kv_send writes the
 * line and flushes. A builder holds up to 8 KiB. */
struct kv_out {
	char buf[8192];
	size_t len;
	int overflow;
};
void kv_begin(struct kv_out *o, const char *op);
void kv_add(struct kv_out *o, const char *key, const char *val);
void kv_addf(struct kv_out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Writes the line; returns 0, or -1 on overflow or write error. */
int kv_send(struct kv_out *o, FILE *f);
/* kv_send with one more field, key=tail, after the rest: a value of any
 * length (lt_algos' algos outgrows a kv_out by the thousand) that needs
 * no escaping. Returns -1, writing nothing and errno EINVAL, when o
 * overflowed or key or tail holds a character kv_add would escape (else
 * -1 with errno as the write left it). */
int kv_send_tail(struct kv_out *o, const char *key, const char *tail, FILE *f);
/* Same, into a heap string ending in '\n' (caller frees); NULL on overflow. */
char *kv_string(struct kv_out *o);

#endif
