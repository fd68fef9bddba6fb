/*
 * request.c: what the worker's request handlers share (worker.h): reply
 * lines, the fields of a request, the seed of a problem and the bench of
 * one (shape, M) with its baseline validated once.
 */
#include "worker.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void worker_send(struct kv_out *o)
{
	if (kv_send(o, stdout))
		die("cannot write a reply: %s", o->overflow ? "too long" : strerror(errno));
}

void worker_begin(struct kv_out *o, const char *op, const char *id)
{
	kv_begin(o, op);
	if (id)
		kv_add(o, "id", id);
}

void worker_reply_error(const char *id, const char *reason)
{
	struct kv_out o;
	worker_begin(&o, "error", id);
	kv_add(&o, "reason", reason);
	worker_send(&o);
}

/* Reply to a request whose CUDA work failed; ends the process when the
 * context is gone. */
void worker_reply_cuda_error(struct gpu *g, const char *id)
{
	int sticky = gpu_error_sticky(g);
	struct kv_out o;
	worker_begin(&o, "error", id);
	if (sticky)
		kv_add(&o, "status", "fault");
	kv_add(&o, "reason", gpu_error() ? gpu_error() : "unknown cuda error");
	worker_send(&o);
	if (sticky)
		_exit(EXIT_FAULT);      /* no teardown on a broken context */
}

/* --- request fields: each returns 0, or -1 with why filled --- */

int worker_bad(struct why *w, const char *fmt, const char *key, const char *val)
{
	snprintf(w->text, sizeof(w->text), fmt, key, val ? val : "");
	return -1;
}

int worker_get_long(const struct kv *r, const char *key, long lo, long hi, long *out,
		    struct why *w)
{
	const char *v = kv_get(r, key);
	char *end;
	if (!v || !*v)
		return worker_bad(w, "missing %s%s", key, "");
	errno = 0;
	long x = strtol(v, &end, 10);
	if (*end || errno || x < lo || x > hi)
		return worker_bad(w, "bad %s=%s", key, v);
	*out = x;
	return 0;
}

int worker_get_int(const struct kv *r, const char *key, long lo, long hi, int *out,
		   struct why *w)
{
	long x;
	if (worker_get_long(r, key, lo, hi, &x, w))
		return -1;
	*out = (int)x;
	return 0;
}

int worker_get_u64(const struct kv *r, const char *key, uint64_t *out, struct why *w)
{
	const char *v = kv_get(r, key);
	char *end;
	if (!v || !*v)
		return worker_bad(w, "missing %s%s", key, "");
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (*end || errno)
		return worker_bad(w, "bad %s=%s", key, v);
	*out = x;
	return 0;
}

static int get_dtype(const struct kv *r, const char *key, enum dtype *out, struct why *w)
{
	const char *v = kv_get(r, key);
	if (!v || dtype_parse(v, out))
		return worker_bad(w, "bad %s=%s", key, v);
	return 0;
}

/* The bound docs/workload.md sets when a request names none: 1e-4 for the
 * FP32 router, 1e-2 for the BF16 families. */
static double default_tol(const struct shape *s)
{
	return s->w == DT_FP32 && s->y == DT_FP32 ? 1e-4 : 1e-2;
}

/* family n k w x y [tol]; tol is required when need_tol. */
int worker_get_shape(const struct kv *r, struct shape *s, int need_tol, struct why *w)
{
	const char *family = kv_get(r, "family"), *tol = kv_get(r, "tol");
	memset(s, 0, sizeof(*s));
	if (!family || !*family || strlen(family) >= FAMILY_MAX)
		return worker_bad(w, "bad %s=%s", "family", family);
	strcpy(s->family, family);
	if (worker_get_int(r, "n", 1, MAX_DIM, &s->n, w) || worker_get_int(r, "k", 1, MAX_DIM, &s->k, w) ||
	    get_dtype(r, "w", &s->w, w) || get_dtype(r, "x", &s->x, w) ||
	    get_dtype(r, "y", &s->y, w))
		return -1;
	if ((size_t)s->n * s->k * dtype_size(s->w) > MAX_WEIGHT_BYTES)
		return worker_bad(w, "weights of %s%s are too large", family, "");
	if (!tol && !need_tol) {
		s->tol = default_tol(s);
		return 0;
	}
	s->tol = kv_get_double(r, "tol", NAN);
	if (!(s->tol > 0) || isinf(s->tol))
		return worker_bad(w, "bad %s=%s", "tol", tol);
	return 0;
}

/* An optional seed; without one, a fixed function of the problem. */
uint64_t worker_seed_of(const struct kv *r, const struct shape *s, int m, const char *salt)
{
	uint64_t seed = hash_str(hash_str(HASH_INIT, s->family), salt);
	seed = hash_bytes(seed, &m, sizeof(m));
	const char *v = kv_get(r, "seed");
	if (v)
		seed = hash_str(seed, v);
	return seed;
}

void worker_add_figures(struct kv_out *o, const struct verdict *v, const struct pair_stats *ps)
{
	if (v) {
		kv_addf(o, "err_global", "%.6g", v->err_global);
		kv_addf(o, "err_row", "%.6g", v->err_row);
	}
	if (ps) {
		kv_addf(o, "base_us", "%.4f", ps->base_us);
		kv_addf(o, "cand_us", "%.4f", ps->cand_us);
		kv_addf(o, "ratio", "%.5f", ps->ratio);
		kv_addf(o, "ratio_lo", "%.5f", ps->ratio_lo);
		kv_addf(o, "ratio_hi", "%.5f", ps->ratio_hi);
		kv_addf(o, "pairs", "%d", ps->pairs);
	}
}

/* The bench of (s, m), its baseline validated on fresh inputs once. A
 * baseline that fails is a harness bug, reported as an error. */
int worker_ready_bench(struct gpu *g, const struct shape *s, int m, uint64_t seed,
		       struct bench **out)
{
	struct verdict v;
	if (bench_get(g, s, m, out))
		return -1;
	if ((*out)->baseline_ok)
		return 0;
	if (validate_baseline(g, *out, seed, &v))
		return -1;
	if (!v.pass)
		return gpu_fail("the cuBLAS baseline failed validation (a harness bug): %s",
				v.reason);
	(*out)->baseline_ok = 1;
	return 0;
}
