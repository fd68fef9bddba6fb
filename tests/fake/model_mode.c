/*
 * model_mode.c: the fake worker's modelled GPU (FAKE_WORKER_MODEL=h200 or
 * h100; gpumodel.h): its env, evals timed on the candidates' modelled
 * curves against the modelled cuBLAS, the baseline, the overhead and floor
 * probes, cuBLASLt's named algorithms, and the GPU seconds every request
 * would cost (costmodel.h), appended to FAKE_WORKER_GPU_LOG as
 * "op family m pairs seconds" lines ("-" where a request has none).
 */
#include "model_mode.h"

#include "costmodel.h"
#include "gpumodel.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct gpu_profile prof;
static int gpu_log = -1;

int model_init(const char *name)
{
	if (gpumodel_profile(name, &prof))
		return -1;
	const char *path = getenv("FAKE_WORKER_GPU_LOG");
	if (path && *path) {
		gpu_log = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (gpu_log < 0)
			return -1;
	}
	return 0;
}

/* One line per request, written whole (workers share the file). */
static void account(const struct kv *r, double seconds)
{
	if (gpu_log < 0)
		return;
	char line[256];
	const char *fam = kv_get(r, "family"), *m = kv_get(r, "m"), *pairs = kv_get(r, "pairs");
	int n = snprintf(line, sizeof(line), "%s %s %s %s %.9f\n", r->op, fam ? fam : "-",
			 m ? m : "-", pairs ? pairs : "-", seconds);
	if (write(gpu_log, line, (size_t)n) != n)
		die("fake worker: cannot write FAKE_WORKER_GPU_LOG");
}

static void model_reply_env(void)
{
	struct kv_out o;
	kv_begin(&o, "env");
	kv_add(&o, "gpu_name", prof.name);
	kv_add(&o, "gpu_uuid", "GPU-modelled");
	kv_addf(&o, "sm_count", "%d", prof.sm_count);
	kv_add(&o, "sm_clock_mhz", "1980");
	kv_add(&o, "mem_clock_mhz", "3201");
	kv_addf(&o, "l2_bytes", "%ld", prof.l2_bytes);
	kv_add(&o, "driver", "13.0");
	kv_add(&o, "cuda", "13.0");
	kv_add(&o, "nvrtc", "13.0");
	kv_add(&o, "cublas", "13.1.0");
	kv_add(&o, "cublaslt", "13.1.0");
	kv_send(&o, stdout);
}

static int request_shape(const struct kv *r, struct shape *s)
{
	const char *f = kv_get(r, "family"), *w = kv_get(r, "w"), *x = kv_get(r, "x"),
		   *y = kv_get(r, "y");
	memset(s, 0, sizeof(*s));
	if (!f || !w || !x || !y || dtype_parse(w, &s->w) || dtype_parse(x, &s->x) ||
	    dtype_parse(y, &s->y))
		return -1;
	snprintf(s->family, sizeof(s->family), "%s", f);
	s->n = (int)kv_get_long(r, "n", 0);
	s->k = (int)kv_get_long(r, "k", 0);
	return s->n > 0 && s->k > 0 ? 0 : -1;
}

/* The candidate an eval names, symbols by name. Returns 0 or -1. */
static int request_candidate(const struct kv *r, struct candidate *c)
{
	const char *stem = kv_get(r, "tmpl");
	memset(c, 0, sizeof(*c));
	if (!stem || !(c->tmpl = tmpl_find(stem)))
		return -1;
	for (int i = 0; i < c->tmpl->nparams; i++) {
		const struct tmpl_param *p = &c->tmpl->params[i];
		const char *v = kv_get(r, p->name);
		if (!v)
			return -1;
		if (!p->symbols) {
			c->params[i] = strtol(v, NULL, 10);
			continue;
		}
		int j = 0;
		while (p->symbols[j] && strcmp(p->symbols[j], v))
			j++;
		if (!p->symbols[j])
			return -1;
		c->params[i] = j;
	}
	return 0;
}

int model_eval_figures(const struct kv *r, struct kv_out *o)
{
	struct shape s;
	struct candidate c;
	const int m = (int)kv_get_long(r, "m", 1), pairs = (int)kv_get_long(r, "pairs", 1);
	if (request_shape(r, &s) || request_candidate(r, &c))
		return -1;
	const double base = gpumodel_cublas_us(&prof, &s, m);
	const double cand = gpumodel_kernel_us(&prof, &s, &c, m);
	char key[512];
	uint64_t seed = hash_str(hash_str(HASH_INIT, c.tmpl->stem), candidate_key(&c, key, sizeof(key)));
	seed = hash_str(hash_str(hash_str(seed, s.family), kv_get(r, "m")), kv_get(r, "seed") ? kv_get(r, "seed") : "");
	seed = hash_str(seed, kv_get(r, "phase") ? kv_get(r, "phase") : "");
	struct gpumodel_timing t;
	gpumodel_time_pairs(base, cand, pairs, seed, &t);
	kv_add(o, "status", "ok");
	kv_add(o, "err_global", "0.001");
	kv_add(o, "err_row", "0.002");
	kv_addf(o, "base_us", "%.4f", t.base_us);
	kv_addf(o, "cand_us", "%.4f", t.cand_us);
	kv_addf(o, "ratio", "%.5f", t.ratio);
	kv_addf(o, "ratio_lo", "%.5f", t.ratio_lo);
	kv_addf(o, "ratio_hi", "%.5f", t.ratio_hi);
	kv_addf(o, "pairs", "%d", pairs);
	account(r, costmodel_eval_s(pairs, base, cand, s.n, s.k, m));
	return 0;
}

static void model_reply_baseline(const struct kv *r)
{
	struct shape s;
	struct kv_out o;
	const int m = (int)kv_get_long(r, "m", 1);
	if (request_shape(r, &s)) {
		kv_begin(&o, "error");
		kv_add(&o, "id", kv_get(r, "id"));
		kv_add(&o, "reason", "fake worker: bad shape");
		kv_send(&o, stdout);
		return;
	}
	const double b = gpumodel_cublas_us(&prof, &s, m), lt = gpumodel_cublaslt_us(&prof, &s, m);
	kv_begin(&o, "baseline");
	kv_add(&o, "id", kv_get(r, "id"));
	kv_addf(&o, "cublas_us", "%.4f", b);
	kv_addf(&o, "cublaslt_us", "%.4f", lt);
	kv_addf(&o, "ratio", "%.5f", b / lt);
	kv_add(&o, "lt_algo", "modelled");
	kv_send(&o, stdout);
	/* validated once on fresh inputs, then paired */
	account(r, costmodel_eval_s((int)kv_get_long(r, "pairs", 1), b, lt, s.n, s.k, m));
}

static void model_reply_overhead(const struct kv *r)
{
	struct kv_out o;
	kv_begin(&o, "overhead");
	kv_add(&o, "us", "3.5");
	kv_send(&o, stdout);
	account(r, costmodel_pairs_s((int)kv_get_long(r, "pairs", 1), 2 * 3.5));
}

static void model_reply_floor(const struct kv *r)
{
	struct kv_out o;
	const double bytes = kv_get_double(r, "bytes", 0), us = bytes / prof.bw * 1e6;
	const char *fam = kv_get(r, "family");
	kv_begin(&o, "floor");
	kv_add(&o, "family", fam);
	kv_addf(&o, "bytes", "%.0f", bytes);
	kv_addf(&o, "us", "%.4f", us);
	kv_addf(&o, "gbps", "%.0f", bytes / us * 1e-3);
	kv_add(&o, "config", "blocks_per_sm=8,threads=256,unroll=4,copies=4,modelled");
	kv_send(&o, stdout);
	account(r, costmodel_pairs_s((int)kv_get_long(r, "pairs", 1), us));
}

struct lt_text {
	char *buf;
	size_t used, cap;
	int count;
};

static void lt_add(void *ctx, const long *a)
{
	struct lt_text *t = ctx;
	char one[256];
	int n = snprintf(one, sizeof(one), "%s%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld", t->count ? ";" : "",
			 a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
	if (t->used + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->cap + (size_t)n);
		t->buf = xrealloc(t->buf, t->cap);
	}
	memcpy(t->buf + t->used, one, (size_t)n + 1);
	t->used += (size_t)n;
	t->count++;
}

/* The vary list's names (space.h's space_lt_vary_names) as a
 * GPUMODEL_LT_VARY_* mask. */
static int vary_mask(const char *list)
{
	static const char *const names[] = { "tile", "stages", "cluster", "custom" };
	int mask = 0;
	for (int i = 0; list && i < 4; i++)
		if (strstr(list, names[i]))
			mask |= 1 << i;
	return mask;
}

static void model_reply_lt_algos(const struct kv *r)
{
	struct shape s;
	struct kv_out o;
	struct lt_text t = { xcalloc(1, 1), 0, 1, 0 };
	const int m = (int)kv_get_long(r, "m", 1), orient = (int)kv_get_long(r, "orient", 0);
	const long max = kv_get_long(r, "max", 1);
	const int seeds_only = kv_get_long(r, "seeds_only", 0) == 1;
	int splitk[PROTO_LT_SPLITK_MAX], nsplitk = 0;
	for (const char *p = kv_get(r, "splitk"); p && *p && nsplitk < PROTO_LT_SPLITK_MAX;) {
		char *end;
		splitk[nsplitk++] = (int)strtol(p, &end, 10);
		p = *end ? end + 1 : end;
	}
	const int vary = vary_mask(kv_get(r, "vary"));
	request_shape(r, &s);
	for (int i = 0; !seeds_only && i < max && i < 8; i++) {
		long a[GPUMODEL_LT_ATTRS];
		gpumodel_lt_proposal(&s, m, orient, i, a);
		gpumodel_lt_variants(a, splitk, nsplitk, vary, lt_add, &t);
	}
	for (const char *p = kv_get(r, "seeds"); p && *p;) {
		long a[GPUMODEL_LT_ATTRS];
		if (lt_attrs_read(&p, a, GPUMODEL_LT_ATTRS))
			break;
		gpumodel_lt_variants(a, splitk, nsplitk, vary, lt_add, &t);
	}
	kv_begin(&o, "lt_algos");
	kv_add(&o, "id", kv_get(r, "id"));
	kv_addf(&o, "count", "%d", t.count);
	if (kv_send_tail(&o, "algos", t.buf, stdout))
		die("fake worker: cannot write its lt_algos reply");
	free(t.buf);
	/* the heuristic and cublasLtMatmulAlgoCheck run on the host */
	account(r, 0);
}

int model_reply(const struct kv *r)
{
	if (!strcmp(r->op, "env"))
		model_reply_env();
	else if (!strcmp(r->op, "lt_algos"))
		model_reply_lt_algos(r);
	else if (!strcmp(r->op, "baseline"))
		model_reply_baseline(r);
	else if (!strcmp(r->op, "overhead"))
		model_reply_overhead(r);
	else if (!strcmp(r->op, "floor"))
		model_reply_floor(r);
	else
		return 0;
	return 1;
}
