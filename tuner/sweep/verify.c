/*
 * verify.c: `gemmtab verify`'s engine (see verify.h). The entries come
 * from the header as emit wrote them (tablefile.c): each one's template and
 * canonical params are resolved by this build, its kernels compiled with
 * the tuner's NVRTC path (the code the library embeds), and each point
 * sent to one worker as the sweep's eval request in the retest phase, so
 * the worker validates the candidate on fresh inputs before it times it
 * paired against the baseline. The tolerance is the workload contract's
 * per output type (docs/workload.md: 1e-2 for bf16, 1e-4 for fp32), the
 * same the untuned-shape records write.
 */
#include "verify.h"
#include "supervise.h"
#include "tmpl.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One entry's resolved candidate and its kernels' compile items. */
struct prepared {
	const struct tmpl *t;
	struct shape s;
	long params[MAX_PARAMS];
	int nk;
	int item[TMPL_MAX_KERNELS];     /* indices into the item array */
};

/* The Ms of an entry: its ends and, when the range has one, its middle. */
static int entry_points(const struct emit_incumbent *inc, struct verify_point *pt)
{
	int n = 0;
	pt[n++].m = inc->m_lo;
	if (inc->m_hi - inc->m_lo >= 2)
		pt[n++].m = inc->m_lo + (inc->m_hi - inc->m_lo) / 2;
	if (inc->m_hi > inc->m_lo)
		pt[n++].m = inc->m_hi;
	return n;
}

/* Mark every point of e unusable with why (printf-style). */
static void entry_fail(struct verify_entry *e, const char *fmt, const char *arg)
{
	for (int i = 0; i < e->npoints; i++) {
		e->pt[i].ok = 0;
		snprintf(e->pt[i].why, sizeof(e->pt[i].why), fmt, arg);
	}
}

/* Resolve e's template, params, shape and kernels, appending its compile
 * items to items (*nitems; room for TMPL_MAX_KERNELS more). Returns 0, or
 * -1 with e's points failed. */
static int entry_prepare(struct verify_entry *e, struct prepared *p, struct jit_item *items,
			 int *nitems)
{
	const struct emit_incumbent *inc = &e->inc;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	const char *why;
	memset(p, 0, sizeof(*p));
	if (!(p->t = tmpl_find(inc->cand.tmpl))) {
		entry_fail(e, "template %s is not in this gemmtab", inc->cand.tmpl);
		return -1;
	}
	if (emit_params_parse_quiet(p->t, inc->cand.params, p->params)) {
		entry_fail(e, "params %s do not parse for this build's template", inc->cand.params);
		return -1;
	}
	size_t flen = strcspn(inc->families, ",");
	snprintf(p->s.family, sizeof(p->s.family), "%.*s", (int)flen, inc->families);
	p->s.n = inc->key.n;
	p->s.k = inc->key.k;
	p->s.w = inc->key.w;
	p->s.x = inc->key.x;
	p->s.y = inc->key.y;
	p->s.tol = p->s.y == DT_FP32 ? 1e-4 : 1e-2;
	if ((why = p->t->check(&p->s, p->params))) {
		entry_fail(e, "not legal for its shape: %s", why);
		return -1;
	}
	p->nk = p->t->kernels(&p->s, p->params, names, TMPL_MAX_KERNELS);
	if (p->nk < 0) {
		entry_fail(e, "%s", "its template's kernels cannot be named");
		return -1;
	}
	for (int i = 0; i < p->nk; i++) {
		struct jit_item *it = &items[*nitems];
		memset(it, 0, sizeof(*it));
		it->source_name = p->t->source;
		snprintf(it->name, sizeof(it->name), "%s", names[i]);
		p->item[i] = (*nitems)++;
	}
	return 0;
}

/* The eval request of entry p at m (caller frees). */
static char *eval_request(const struct prepared *p, const struct jit_item *items, int id,
			  int m, int pairs)
{
	struct kv_out o;
	kv_begin(&o, "eval");
	kv_addf(&o, "id", "%d", id);
	kv_add(&o, "phase", "retest");
	kv_addf(&o, "pairs", "%d", pairs);
	kv_addf(&o, "seed", "%u", (unsigned)(hash_bytes(HASH_INIT, &id, sizeof(id)) ^ (unsigned)m));
	kv_add_shape(&o, &p->s, m);
	kv_add(&o, "tmpl", p->t->stem);
	for (int i = 0; i < p->t->nparams; i++) {
		const struct tmpl_param *tp = &p->t->params[i];
		if (tp->symbols)
			kv_add(&o, tp->name, tp->symbols[p->params[i]]);
		else
			kv_addf(&o, tp->name, "%ld", p->params[i]);
	}
	kv_addf(&o, "nk", "%d", p->nk);
	for (int j = 0; j < p->nk; j++) {
		char key[16];
		snprintf(key, sizeof(key), "cubin%d", j);
		kv_add(&o, key, items[p->item[j]].cubin);
		snprintf(key, sizeof(key), "name%d", j);
		kv_add(&o, key, items[p->item[j]].lowered);
	}
	return kv_string(&o);
}

/* Time one point through w (restarted when it died); fills pt. */
static void time_point(struct worker *w, const struct verify_options *o,
		       const struct prepared *p, const struct jit_item *items, int id,
		       struct verify_point *pt)
{
	struct kv r;
	int wst = 0;
	char *req = eval_request(p, items, id, pt->m, o->pairs);
	if (!req) {
		snprintf(pt->why, sizeof(pt->why), "its request is too long");
		return;
	}
	if (w->pid <= 0 && worker_start(w, o->device))
		die("cannot restart the worker of GPU %d", o->device);
	enum call_result cr = worker_call(w, req, o->deadline_s, &r, &wst);
	free(req);
	if (cr != CALL_OK) {
		snprintf(pt->why, sizeof(pt->why), "%s", cr == CALL_TIMEOUT ? "timeout: the worker "
			 "was killed" : cr == CALL_DIED ? "fault: the worker died" : "a bad reply");
		if (cr == CALL_BADREPLY)
			worker_kill(w);
		return;
	}
	const char *st = kv_get(&r, "status"), *why = kv_get(&r, "reason");
	if (strcmp(r.op, "result") || !st || strcmp(st, "ok")) {
		snprintf(pt->why, sizeof(pt->why), "%s%s%s", st ? st : r.op, why ? ": " : "",
			 why ? why : "");
	} else {
		pt->ok = 1;
		pt->ratio = kv_get_double(&r, "ratio", NAN);
		pt->ratio_lo = kv_get_double(&r, "ratio_lo", NAN);
		pt->ratio_hi = kv_get_double(&r, "ratio_hi", NAN);
		pt->pairs = (int)kv_get_long(&r, "pairs", 0);
		pt->ok = !isnan(pt->ratio);
		if (!pt->ok)
			snprintf(pt->why, sizeof(pt->why), "a result without a ratio");
	}
	kv_free(&r);
}

/* e's verdict and worst ratio from its points. */
static void entry_judge(struct verify_entry *e)
{
	e->worst = INFINITY;
	e->verdict = VERIFY_KEEP;
	for (int i = 0; i < e->npoints; i++) {
		if (!e->pt[i].ok) {
			e->verdict = VERIFY_UNUSABLE;
			e->worst = NAN;
			return;
		}
		if (e->pt[i].ratio < e->worst)
			e->worst = e->pt[i].ratio;
	}
	if (!(e->worst > 1.0))
		e->verdict = VERIFY_SLOWER;
}

int verify_run(const struct verify_options *o, struct verify_result *r)
{
	struct emit_incumbent *inc = NULL;
	struct prepared *p = NULL;
	struct jit_item *items = NULL;
	struct worker w = { 0 };
	int nitems = 0, ret = -1;
	char *ok = NULL;

	memset(r, 0, sizeof(*r));
	if ((r->n = table_file_read(o->table, "--table", &inc)) < 0 ||
	    table_file_device(o->table, "--table", &r->tuned))
		goto cleanup;
	r->e = xcalloc((size_t)r->n, sizeof(*r->e));
	p = xcalloc((size_t)r->n, sizeof(*p));
	ok = xcalloc((size_t)r->n, 1);
	items = xcalloc((size_t)r->n * TMPL_MAX_KERNELS + 1, sizeof(*items));
	for (int i = 0; i < r->n; i++) {
		r->e[i].inc = inc[i];
		r->e[i].npoints = entry_points(&inc[i], r->e[i].pt);
		ok[i] = !entry_prepare(&r->e[i], &p[i], items, &nitems);
	}
	fprintf(stderr, "gemmtab verify: compiling %d kernels of %d entries\n", nitems, r->n);
	if (nitems && jit_compile_all(&o->jit, items, nitems, NULL, NULL)) {
		error("--table: %s: its kernels could not be compiled", o->table);
		goto cleanup;
	}
	for (int i = 0; i < r->n; i++)
		for (int j = 0; ok[i] && j < p[i].nk; j++)
			if (!items[p[i].item[j]].ok) {
				entry_fail(&r->e[i], "does not compile here: %s", items[p[i].item[j]].error);
				ok[i] = 0;
			}
	if (worker_start(&w, o->device) || worker_env(&w, &r->gpu))
		goto cleanup;
	/* an entry's points after one that failed are not timed: it is
	 * unusable already, and a fault costs a worker restart */
	for (int i = 0; i < r->n; i++) {
		for (int j = 0; ok[i] && j < r->e[i].npoints; j++) {
			time_point(&w, o, &p[i], items, i, &r->e[i].pt[j]);
			if (!r->e[i].pt[j].ok)
				break;
		}
		entry_judge(&r->e[i]);
	}
	ret = 0;
cleanup:
	if (w.pid > 0)
		worker_stop(&w);
	free(inc);
	free(p);
	free(items);
	free(ok);
	if (ret)
		verify_result_free(r);
	return ret;
}

void verify_result_free(struct verify_result *r)
{
	free(r->e);
	r->e = NULL;
	r->n = 0;
}
