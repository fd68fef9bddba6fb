/*
 * tasks.c: flatten a search space into tasks and distinct kernel
 * instantiations, compile them through the JIT service, and draw progress
 * bars (see tasks.h).
 */
#include "tasks.h"
#include "codekey.h"
#include "util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct build_ctx {
	struct tasklist *tl;
	int shape;
	long seen;              /* candidates enumerated, kept or not */
	long limit;             /* keep at most this many tasks (0: no limit) */
};

static void add_task(void *ctx, const struct shape *s, int m,
		     const struct candidate *c, const char *reason)
{
	struct build_ctx *b = ctx;
	struct tasklist *tl = b->tl;
	(void)s;
	b->seen++;
	if (b->limit && tl->n >= b->limit)
		return;         /* past the cap: counted, not kept (tasks_build) */
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 256;
		tl->t = xrealloc(tl->t, (size_t)tl->cap * sizeof(*tl->t));
	}
	struct task *t = &tl->t[tl->n++];
	memset(t, 0, sizeof(*t));
	t->shape = b->shape;
	t->m = m;
	t->cand = *c;
	t->pruned = reason;
	candidate_key(c, t->key, sizeof(t->key));
}

static int item_cmp(const void *a, const void *b)
{
	const struct jit_item *x = a, *y = b;
	int r = strcmp(x->source_name, y->source_name);
	return r ? r : strcmp(x->name, y->name);
}

/* The most (shape, M, candidate) tasks and distinct instantiations a
 * space may enumerate: far above any real sweep (search_spaces/h200.yaml
 * has 40,606 and 11,267), low enough that a grid without its constraints
 * is refused before it takes gigabytes. */
#define TASKS_MAX 1000000L
#define ITEMS_MAX 200000

/* One kernel of one task, by the hash of its (source, name). */
struct item_ref {
	uint64_t hash;
	int task, kernel;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct item_ref *x = a, *y = b;
	return (x->hash > y->hash) - (x->hash < y->hash);
}

static uint64_t item_hash(const char *source, const char *name)
{
	return hash_str(hash_str(HASH_INIT, source), name);
}

/* Collect the instantiation names of every unpruned task, dedupe, sort,
 * and point each task at its items. The names are deduplicated by hash
 * before any jit_item is made, so that memory grows with the distinct
 * instantiations, not with the tasks. */
static int index_items(const struct space *sp, struct tasklist *tl)
{
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	size_t nrefs = 0, cap = 0;
	struct item_ref *refs = NULL;

	for (int i = 0; i < tl->n; i++) {
		struct task *t = &tl->t[i];
		if (t->pruned)
			continue;
		const struct shape *s = &sp->shapes[t->shape];
		t->nk = t->cand.tmpl->kernels(s, t->cand.params, names, TMPL_MAX_KERNELS);
		if (t->nk < 0 || t->nk > TMPL_MAX_KERNELS) {
			free(refs);
			return error("template %s gave %d kernels for %s", t->cand.tmpl->stem,
				     t->nk, t->key);
		}
		for (int j = 0; j < t->nk; j++) {
			if (nrefs == cap) {
				cap = cap ? cap * 2 : 256;
				refs = xrealloc(refs, cap * sizeof(*refs));
			}
			refs[nrefs++] = (struct item_ref){ item_hash(t->cand.tmpl->source, names[j]),
							   i, j };
		}
	}
	if (nrefs > 1)
		qsort(refs, nrefs, sizeof(*refs), ref_cmp);
	int u = 0;
	for (size_t i = 0; i < nrefs; i++)
		u += !i || refs[i].hash != refs[i - 1].hash;
	if (u > ITEMS_MAX) {
		free(refs);
		return error("%s: the space needs %d distinct kernel instantiations, more than %d: "
			     "narrow a grid or add constraints", sp->path, u, ITEMS_MAX);
	}
	struct jit_item *items = u ? xcalloc((size_t)u, sizeof(*items)) : NULL;
	int k = 0;
	for (size_t i = 0; i < nrefs; i++) {
		if (i && refs[i].hash == refs[i - 1].hash)
			continue;
		const struct task *t = &tl->t[refs[i].task];
		t->cand.tmpl->kernels(&sp->shapes[t->shape], t->cand.params, names, TMPL_MAX_KERNELS);
		items[k].source_name = t->cand.tmpl->source;
		snprintf(items[k].name, sizeof(items[k].name), "%s", names[refs[i].kernel]);
		k++;
	}
	free(refs);
	if (u > 1)
		qsort(items, (size_t)u, sizeof(*items), item_cmp);
	tl->items = items;
	tl->nitems = u;

	for (int i = 0; i < tl->n; i++) {
		struct task *t = &tl->t[i];
		if (t->pruned)
			continue;
		const struct shape *s = &sp->shapes[t->shape];
		t->cand.tmpl->kernels(s, t->cand.params, names, TMPL_MAX_KERNELS);
		for (int j = 0; j < t->nk; j++) {
			struct jit_item key;
			key.source_name = t->cand.tmpl->source;
			snprintf(key.name, sizeof(key.name), "%s", names[j]);
			struct jit_item *hit = u ? bsearch(&key, tl->items, (size_t)tl->nitems,
							   sizeof(key), item_cmp) : NULL;
			if (!hit)   /* two names of one 64-bit hash: never seen */
				return error("%s: instantiation %s was not indexed", sp->path, names[j]);
			t->item[j] = (int)(hit - tl->items);
		}
	}
	return 0;
}

int tasks_build(const struct space *sp, const char *only_family, struct tasklist *out)
{
	memset(out, 0, sizeof(*out));
	long seen = 0;
	for (int i = 0; i < sp->nshapes; i++) {
		const struct shape *s = &sp->shapes[i];
		if (only_family && strcmp(only_family, s->family))
			continue;
		struct build_ctx b = { out, i, 0, TASKS_MAX };
		for (int j = 0; j < s->n_ms; j++)
			space_enumerate(sp, s, s->ms[j], add_task, &b);
		seen += b.seen;
	}
	if (seen > TASKS_MAX) {
		tasks_free(out);
		return error("%s: the space enumerates %ld candidates over its shapes and Ms, more "
			     "than %ld: narrow a grid or add constraints", sp->path, seen, TASKS_MAX);
	}
	int known = 0;
	for (int i = 0; i < sp->nshapes && only_family; i++)
		known += !strcmp(only_family, sp->shapes[i].family);
	int r = 0;
	if (only_family && !known)
		r = error("--family %s: no such family in %s", only_family, sp->path);
	/* (a cuBLASLt search adds its candidates later, on the GPU) */
	else if (only_family && out->n == 0 && !sp->lt.top)
		r = error("--family %s: no candidates in %s", only_family, sp->path);
	else
		r = index_items(sp, out);
	if (r)
		tasks_free(out);   /* a failure leaves nothing allocated */
	return r;
}

int tasks_add(struct tasklist *tl, const struct space *sp, int shape, int m,
	      const struct candidate *c)
{
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX], key[sizeof(tl->t[0].key)];
	if (c->tmpl->kernels(&sp->shapes[shape], c->params, names, TMPL_MAX_KERNELS) != 0)
		return -1;
	candidate_key(c, key, sizeof(key));
	for (int i = 0; i < tl->n; i++)
		if (tl->t[i].shape == shape && tl->t[i].m == m && tl->t[i].cand.tmpl == c->tmpl &&
		    !strcmp(tl->t[i].key, key))
			return 0;
	struct build_ctx b = { tl, shape, 0, 0 };
	add_task(&b, &sp->shapes[shape], m, c, c->tmpl->check(&sp->shapes[shape], c->params));
	return 1;
}

struct code_memo {
	uint64_t h;
	int task;               /* the task it was computed for; -1: empty */
	char code[17];
};

/* Whether tasks a and b are one candidate at one shape compiled to the
 * same kernels (codes[] are b's): their code keys are the same. */
static int same_code_inputs(const struct tasklist *tl, int a, int b, char (*codes)[17])
{
	const struct task *x = &tl->t[a], *y = &tl->t[b];
	if (x->cand.tmpl != y->cand.tmpl || x->shape != y->shape || x->nk != y->nk ||
	    strcmp(x->key, y->key))
		return 0;
	for (int j = 0; j < x->nk; j++) {
		const char *c = jit_item_code(&tl->items[x->item[j]], NULL, 0);
		if (!c || memcmp(c, codes[j], 17))
			return 0;
	}
	return 1;
}

/* The memo's entry for task ti (hash h, kernels' codes[]): the one of an
 * earlier task with the same inputs, else a new one with no code yet. */
static struct code_memo *memo_slot(struct tasklist *tl, uint64_t h, int ti, char (*codes)[17])
{
	if (2 * (tl->memo_n + 1) > tl->memo_cap) {
		struct code_memo *old = tl->memo;
		size_t ocap = tl->memo_cap;
		tl->memo_cap = ocap ? 2 * ocap : 1024;
		tl->memo = xmalloc(tl->memo_cap * sizeof(*tl->memo));
		for (size_t i = 0; i < tl->memo_cap; i++)
			tl->memo[i].task = -1;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].task >= 0) {
				size_t k = old[i].h & (tl->memo_cap - 1);
				while (tl->memo[k].task >= 0)
					k = (k + 1) & (tl->memo_cap - 1);
				tl->memo[k] = old[i];
			}
		free(old);
	}
	size_t k = h & (tl->memo_cap - 1);
	while (tl->memo[k].task >= 0 &&
	       !(tl->memo[k].h == h && same_code_inputs(tl, tl->memo[k].task, ti, codes)))
		k = (k + 1) & (tl->memo_cap - 1);
	if (tl->memo[k].task < 0) {     /* a new entry, its code to compute */
		tl->memo[k] = (struct code_memo){ h, ti, "" };
		tl->memo_n++;
	}
	return &tl->memo[k];
}

/* Task ti's memo hash and its kernels' codes, into codes[]; -1 (why
 * filled) when one of them did not compile. */
static int code_inputs(struct tasklist *tl, int ti, char (*codes)[17], uint64_t *h, char *why,
		       size_t len)
{
	const struct task *t = &tl->t[ti];
	*h = hash_str(hash_str(HASH_INIT, t->cand.tmpl->stem), t->key);
	*h = hash_bytes(*h, &t->shape, sizeof(t->shape));
	for (int j = 0; j < t->nk; j++) {
		const char *c = jit_item_code(&tl->items[t->item[j]], why, len);
		if (!c)
			return -1;
		memcpy(codes[j], c, 17);
		*h = hash_bytes(*h, c, 17);
	}
	return 0;
}

int task_code_key(struct tasklist *tl, const struct space *sp, int ti, char out[17],
		  char *why, size_t len)
{
	const struct task *t = &tl->t[ti];
	char codes[TMPL_MAX_KERNELS][17];
	uint64_t h;
	if (code_inputs(tl, ti, codes, &h, why, len))
		return -1;
	/* code_key hashes each launch plan at 2,032 Ms: once per candidate
	 * and shape, not once per tuned M */
	struct code_memo *e = memo_slot(tl, h, ti, codes);
	if (!e->code[0])
		code_key(t->cand.tmpl, t->cand.params, &sp->shapes[t->shape], codes, t->nk,
			 e->code);
	memcpy(out, e->code, 17);
	return 0;
}

struct keys_job {
	struct tasklist *tl;
	const struct space *sp;
	struct code_memo **todo;
	size_t n, next;
	pthread_mutex_t lock;
};

static void *keys_worker(void *arg)
{
	struct keys_job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		const size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			return NULL;
		struct code_memo *e = j->todo[i];
		const struct task *t = &j->tl->t[e->task];
		char codes[TMPL_MAX_KERNELS][17];
		/* (each item's code was read by code_inputs: no lazy hashing
		 * runs on these threads) */
		for (int k = 0; k < t->nk; k++)
			memcpy(codes[k], j->tl->items[t->item[k]].code, 17);
		code_key(t->cand.tmpl, t->cand.params, &j->sp->shapes[t->shape], codes, t->nk,
			 e->code);
	}
}

void tasks_code_keys(struct tasklist *tl, const struct space *sp, const char *need)
{
	char codes[TMPL_MAX_KERNELS][17], why[256];
	for (int i = 0; i < tl->n; i++) {
		uint64_t h;
		if (need[i] && !code_inputs(tl, i, codes, &h, why, sizeof(why)))
			memo_slot(tl, h, i, codes);
		/* (a kernel that did not compile: task_code_key says why) */
	}
	struct keys_job j = { tl, sp, NULL, 0, 0, PTHREAD_MUTEX_INITIALIZER };
	j.todo = xmalloc(sizeof(*j.todo) * (tl->memo_cap ? tl->memo_cap : 1));
	for (size_t i = 0; i < tl->memo_cap; i++)
		if (tl->memo[i].task >= 0 && !tl->memo[i].code[0])
			j.todo[j.n++] = &tl->memo[i];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = cpus < 1 ? 1 : cpus > 32 ? 32 : (int)cpus;
	if ((size_t)nt > j.n / 64 + 1)
		nt = (int)(j.n / 64 + 1);
	pthread_t th[32];
	int started = 0;
	for (int i = 1; i < nt; i++)
		started += !pthread_create(&th[started], NULL, keys_worker, &j);
	keys_worker(&j);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(j.todo);
}

void tasks_free(struct tasklist *tl)
{
	free(tl->memo);
	tl->memo = NULL;
	tl->memo_cap = tl->memo_n = 0;
	free(tl->tried);
	free(tl->t);
	free(tl->items);
	memset(tl, 0, sizeof(*tl));
}

struct compile_progress {
	double started;
	int quiet;
};

static void on_compiled(void *ctx, int done, int total)
{
	struct compile_progress *p = ctx;
	if (!p->quiet)
		progress_show("compile", done, total, p->started);
}

/* Compile the items whose want[] is set and that were not tried yet,
 * through one jit_compile_all call on a packed copy, then copy the
 * results back. Returns how many were compiled, or -1 on a setup error. */
static int compile_items(struct tasklist *tl, const struct jit_options *opts,
			 const char *want, struct compile_progress *p)
{
	int n = 0;
	struct jit_item *sub = xcalloc((size_t)tl->nitems, sizeof(*sub));
	int *from = xcalloc((size_t)tl->nitems, sizeof(*from));
	for (int i = 0; i < tl->nitems; i++)
		if (want[i] && !tl->tried[i]) {
			from[n] = i;
			sub[n++] = tl->items[i];
		}
	int rc = n ? jit_compile_all(opts, sub, n, p ? on_compiled : NULL, p) : 0;
	for (int j = 0; j < n && !rc; j++) {
		tl->items[from[j]] = sub[j];
		tl->tried[from[j]] = 1;
	}
	free(sub);
	free(from);
	return rc ? -1 : n;
}

int tasks_compile(struct tasklist *tl, const struct jit_options *opts, int quiet,
		  const char *tasks)
{
	struct compile_progress p = { now_seconds(), quiet };
	if (tl->nitems == 0)
		return 0;
	if (!tl->tried)
		tl->tried = xcalloc((size_t)tl->nitems, 1);
	char *want = xcalloc((size_t)tl->nitems, 1);
	int ncand = 0;
	for (int i = 0; i < tl->n; i++) {
		if (tasks && !tasks[i])
			continue;
		ncand++;
		for (int j = 0; j < tl->t[i].nk; j++)
			want[tl->t[i].item[j]] = 1;
	}
	int n = compile_items(tl, opts, want, &p);
	free(want);
	if (n < 0)
		return -1;
	progress_end();
	int cached = 0, failed = 0;
	for (int i = 0; i < tl->nitems; i++) {
		if (!tl->tried[i])
			continue;
		cached += tl->items[i].cached;
		failed += !tl->items[i].ok;
	}
	double dt = now_seconds() - p.started;
	if (dt <= 0)
		dt = 1e-9;
	/* One instantiation serves every candidate of the same dtypes and
	 * parameters across shapes and Ms: both rates are worth knowing. */
	if (!quiet)
		fprintf(stderr, "compiled %d instantiations (%d from cache, %d failed) in %.1f s "
				"for %d candidates: %.0f candidates/s, %.1f fresh instantiations/s\n",
			n, cached, failed, dt, ncand, ncand / dt, (n - cached) / dt);
	return 0;
}

int tasks_ensure_compiled(struct tasklist *tl, const struct jit_options *opts, int ti)
{
	const struct task *t = &tl->t[ti];
	int missing = 0;
	if (!tl->tried)
		tl->tried = xcalloc((size_t)tl->nitems, 1);
	for (int j = 0; j < t->nk; j++)
		missing += !tl->tried[t->item[j]];
	if (missing) {  /* a finalist of a resumed sweep: rare, so allocate here */
		char *want = xcalloc((size_t)tl->nitems, 1);
		for (int j = 0; j < t->nk; j++)
			want[t->item[j]] = 1;
		int rc = compile_items(tl, opts, want, NULL);
		free(want);
		if (rc < 0)
			return -1;
	}
	return task_compile_error(tl, ti) ? 1 : 0;
}

const char *task_compile_error(const struct tasklist *tl, int ti)
{
	const struct task *t = &tl->t[ti];
	for (int j = 0; j < t->nk; j++)
		if (!tl->items[t->item[j]].ok)
			return tl->items[t->item[j]].error;
	return NULL;
}

static int progress_drawn;

/* Seconds between progress lines when stderr is not a terminal (a log
 * file, a batch job): GEMMTAB_PROGRESS_S [60]. */
static double progress_interval(void)
{
	static double s = -1;
	if (s < 0) {
		const char *v = getenv("GEMMTAB_PROGRESS_S");
		char *end;
		s = v && *v ? strtod(v, &end) : 60;
		if (!(s > 0) || (v && *v && *end))
			s = 60;
	}
	return s;
}

/* One line a log can keep: "progress: compile 120/913 (13%), 9.8/s,
 * ETA 1m20s". */
static void progress_line(const char *label, long done, long total, double started)
{
	static double last;
	double now = now_seconds();
	if (last < started)
		last = started;
	if (now - last < progress_interval() || done >= total)
		return;
	last = now;
	double dt = now - started, rate = dt > 0 ? done / dt : 0;
	char eta[32] = "--";
	if (rate > 0) {
		double left = (total - done) / rate;
		snprintf(eta, sizeof(eta), "%dm%02ds", (int)left / 60, (int)left % 60);
	}
	fprintf(stderr, "gemmtab: progress: %s: %ld/%ld (%.0f%%), %.1f/s, ETA %s\n", label, done,
		total, 100.0 * done / total, rate, eta);
}

void progress_show(const char *label, long done, long total, double started)
{
	if (total <= 0)
		return;
	if (!isatty(2)) {
		progress_line(label, done, total, started);
		return;
	}
	const int width = 30;
	/* done may pass an estimated total: a full bar, not an overflow */
	int fill = done >= total ? width : (int)(width * done / total);
	double dt = now_seconds() - started;
	char eta[32] = "--";
	if (done > 0 && done < total) {
		double left = dt / done * (total - done);
		snprintf(eta, sizeof(eta), "%dm%02ds", (int)left / 60, (int)left % 60);
	} else if (done >= total) {
		snprintf(eta, sizeof(eta), "done");
	}
	fprintf(stderr, "\r[%.*s%*s] %ld/%ld %-28.28s ETA %s   ", fill,
		"##############################", width - fill, "", done, total, label, eta);
	progress_drawn = 1;
}

void progress_end(void)
{
	if (progress_drawn && isatty(2))
		fputc('\n', stderr);
	progress_drawn = 0;
}
