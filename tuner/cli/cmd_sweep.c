/*
 * cmd_sweep.c: `gemmtab sweep`, the supervisor. Loads a search space,
 * enumerates and prunes candidates, compiles them ahead of the GPU, then
 * sends each (shape, M, candidate) to the GPU worker: validate, screen with
 * few pairs, retest the best few per (shape, M) with many pairs, and retest
 * those finalists at the neighbour Ms. It is the only database writer;
 * every result is committed as it arrives, and a rerun skips what the
 * database already holds for the same environment.
 */
#include "commands.h"
#include "lock.h"
#include "db.h"
#include "emit.h"
#include "options.h"
#include "supervise.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the cuBLASLt search asked a point and orientation this run. */
struct lt_sent {
	uint64_t seeds;         /* a hash of the seeds its last request carried */
	int whole;              /* a reply named every proposal's variants: no
				 * error, no failed or truncated variants */
};

/* One GPU of the sweep: its worker process and what it has in flight. */
struct dev {
	struct worker w;
	int device;
	long evals;              /* evals and baselines it ran this run */
	int busy;                /* a claim: (shape, cand, m, phase) is being timed here */
	int cl_shape, cl_m;
	long long cl_cand;       /* -1: a baseline */
	const char *cl_phase;
};

struct sweep {
	struct space sp;
	struct tasklist tl;
	struct jit_options jit;
	struct db *db;
	struct dev *devs;        /* the GPUs (--devices), each with its worker */
	int ndev;
	const char *db_path;
	int retest;
	const char *retest_since;       /* --retest-since: older retests are redone */
	char run_id[DB_RUN_MAX];        /* this run, as its rows record it (its start) */
	long long env_id;
	long long *shape_id;     /* per space shape */
	long long *cand_id;      /* per task */
	char *done;              /* per task: screen result already recorded */
	long counts[8];          /* per status, this run */
	long evals_total, evals_done;
	int lt_seeds;            /* seeds the cuBLASLt search sent this step */
	struct lt_sent *lt_sent; /* per shape, tuned m and orientation */
	double started;
	double stop_at;          /* --time-limit: start no eval after this (0: none) */
	int phase_from;          /* sweep_points' from, for its items */
	int *reached;            /* per shape, 2 * MAX_MS: the Ms its retests reached */
	int *nreached;
	int stopped;             /* it passed: the rest is left to a rerun */
};

/* The sweep is one process with a thread per GPU (sweep --devices), each
 * talking to its own worker. Everything but the wait for a worker's reply
 * runs under sweep_lock, so the supervisor's state and its one database
 * connection are used by one thread at a time; cur_dev is the GPU of the
 * calling thread (the first GPU's in the main thread). */
static pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local struct dev *cur_dev;

/* Whether another GPU is timing (shape si, cand, m, phase) now: the
 * retests and baselines at an M between two anchors are asked by both,
 * and whichever asks first times them (the other sees them in flight
 * here or in the database), as one GPU would once. */
static int claimed(const struct sweep *sw, int si, long long cand, int m, const char *phase)
{
	for (int d = 0; d < sw->ndev; d++) {
		const struct dev *v = &sw->devs[d];
		if (v != cur_dev && v->busy && v->cl_shape == si && v->cl_cand == cand &&
		    v->cl_m == m && !strcmp(v->cl_phase, phase))
			return 1;
	}
	return 0;
}

static void claim(int si, long long cand, int m, const char *phase)
{
	cur_dev->busy = 1;
	cur_dev->cl_shape = si;
	cur_dev->cl_cand = cand;
	cur_dev->cl_m = m;
	cur_dev->cl_phase = phase;
}

/* Whether --time-limit has passed: then nothing more is asked of the
 * worker (what is recorded stands; a rerun resumes). */
static int time_up(struct sweep *sw)
{
	if (!sw->stopped && sw->stop_at > 0 && now_seconds() >= sw->stop_at)
		sw->stopped = 1;
	return sw->stopped;
}

static const char *const status_names[] = {
	"ok", "fail", "compile_error", "pruned", "launch_error", "fault", "timeout", "other",
};

static void count_status(struct sweep *sw, const char *status)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(status_names) - 1; i++)
		if (!strcmp(status, status_names[i]))
			break;
	sw->counts[i]++;
}

/* The longest --deadline accepted: a day; any more is a typo. The
 * shortest: 1 s. A candidate's first eval on a worker loads its module
 * and validates it over several replays before any timing, and a fresh
 * worker creates its CUDA context first (a fraction of a second on an
 * H200); under 1 s the worker is killed before it can answer, and the
 * sweep only restarts workers. */
#define MAX_DEADLINE_S 86400
#define MIN_DEADLINE_S 1

static const char usage_text[] =
	"usage: gemmtab sweep --space FILE [options]\n"
	"  --space FILE      search space (YAML), e.g. search_spaces/quick.yaml\n"
	"  --db FILE         results database (created if absent) [gemmtab.db]\n"
	"  --device N        GPU to run on [0]\n"
	"  --devices LIST    GPUs to run on at once, all or a list (0,2-3): a worker\n"
	"                    each, handed the next point as it frees up\n"
	"  --family NAME     only this family of the space\n"
	"  --shapes FILE     also the shapes of FILE, a shapes fragment (such as\n"
	"                    gt_untuned_write's): new shapes added, a shape the space\n"
	"                    has given the fragment's Ms\n"
	"  --shard I/N       only share I of N of the space's shapes (by a hash of\n"
	"                    each shape, the same on every host), for N hosts\n"
	"  --dry-run         parse, enumerate and prune; print counts and an estimate; no GPU\n"
	"  --strict          with --dry-run: exit 1 when a shape gets no candidate\n"
	"  --device-profile FILE  the figures a dry run's constraints read (sm_count,\n"
	"                    smem_optin, ...) [the H200's]; a sweep reads its GPU's\n"
	"  --no-retest       screen only\n"
	"  --retest-since T  retest again every finalist whose retest is older than T\n"
	"                    (UTC, YYYY-MM-DD[THH[:MM[:SS]]], or now), so that emit\n"
	"                    compares finalists measured on one machine\n"
	"  --cache DIR       cubin cache [.cache/gemmtab]\n"
	"  --jobs N          compile processes [all CPUs]\n"
	"  --deadline S      seconds per candidate before its worker is killed [space's]\n"
	"  --time-limit T    start nothing after T (90s, 45m, 8h, 2d): every shape's\n"
	"                    anchors come first, then the ranges, then the cuBLASLt\n"
	"                    search's later steps, so a stopped sweep still emits\n"
	"                    (exit status 3: stopped; the same command resumes)\n";

static int record(struct sweep *sw, int ti, int m, const char *phase, const struct kv *r,
		  const char *status, const char *reason)
{
	struct task *t = &sw->tl.t[ti];
	struct result_row row = {
		.m = m, .phase = phase, .status = status, .reason = reason,
		.err_global = -1, .err_row = -1, .base_us = -1, .cand_us = -1,
		.ratio = -1, .ratio_lo = -1, .ratio_hi = -1, .regs = -1,
		.local_bytes = -1, .smem = -1, .waves = -1, .run = sw->run_id,
		.device = cur_dev->device,
	};
	if (r) {
		row.err_global = kv_get_double(r, "err_global", -1);
		row.err_row = kv_get_double(r, "err_row", -1);
		row.base_us = kv_get_double(r, "base_us", -1);
		row.cand_us = kv_get_double(r, "cand_us", -1);
		row.ratio = kv_get_double(r, "ratio", -1);
		row.ratio_lo = kv_get_double(r, "ratio_lo", -1);
		row.ratio_hi = kv_get_double(r, "ratio_hi", -1);
		row.pairs = (int)kv_get_long(r, "pairs", 0);
		row.regs = (int)kv_get_long(r, "regs", -1);
		row.local_bytes = (int)kv_get_long(r, "local_bytes", -1);
		row.smem = (int)kv_get_long(r, "smem", -1);
		row.waves = (int)kv_get_long(r, "waves", -1);
	}
	count_status(sw, status);
	if (db_record_result(sw->db, sw->env_id, sw->shape_id[t->shape], sw->cand_id[ti], &row))
		die("cannot record a result in %s; stopping so nothing is measured twice",
		    sw->db_path);
	return 0;
}

static unsigned eval_seed(const struct task *t, int m, const char *phase)
{
	uint64_t h = hash_str(HASH_INIT, t->key);
	h = hash_bytes(h, &m, sizeof(m));
	h = hash_str(h, phase);
	h = hash_str(h, t->cand.tmpl->stem);
	return (unsigned)(h ^ (h >> 32));
}

/* The eval request line for task ti at m (caller frees). */
static char *eval_request(struct sweep *sw, int ti, int m, const char *phase, int pairs)
{
	const struct task *t = &sw->tl.t[ti];
	const struct shape *s = &sw->sp.shapes[t->shape];
	const struct tmpl *tp = t->cand.tmpl;
	struct kv_out o;

	kv_begin(&o, "eval");
	kv_addf(&o, "id", "%d", ti);
	kv_add(&o, "phase", phase);
	kv_addf(&o, "pairs", "%d", pairs);
	kv_addf(&o, "seed", "%u", eval_seed(t, m, phase));
	kv_add_shape(&o, s, m);
	kv_add(&o, "tmpl", tp->stem);
	for (int i = 0; i < tp->nparams; i++) {
		if (tp->params[i].symbols)
			kv_add(&o, tp->params[i].name, tp->params[i].symbols[t->cand.params[i]]);
		else
			kv_addf(&o, tp->params[i].name, "%ld", t->cand.params[i]);
	}
	kv_addf(&o, "nk", "%d", t->nk);
	for (int j = 0; j < t->nk; j++) {
		const struct jit_item *it = &sw->tl.items[t->item[j]];
		char key[16];
		snprintf(key, sizeof(key), "cubin%d", j);
		kv_add(&o, key, it->cubin);
		snprintf(key, sizeof(key), "name%d", j);
		kv_add(&o, key, it->lowered);
	}
	char *line = kv_string(&o);
	if (!line)
		die("eval request for %s too long", t->key);
	return line;
}

/* Kill and start again the calling thread's worker (only its GPU's). */
static void restart_worker(struct sweep *sw)
{
	(void)sw;
	worker_kill(&cur_dev->w);
	cur_dev->w.restarts++;
	if (worker_start(&cur_dev->w, cur_dev->device))
		die("cannot restart the worker of GPU %d", cur_dev->device);
}

/* Send req (freed here) to the worker, started again first if it is not
 * running, and wait up to deadline seconds for its reply (*r when
 * CALL_OK; wst as worker_call). */
static enum call_result ask_worker(struct sweep *sw, char *req, double deadline, struct kv *r,
				   int *wst)
{
	if (cur_dev->w.pid <= 0)
		restart_worker(sw);
	/* the other GPUs' threads run while this one waits */
	pthread_mutex_unlock(&sweep_lock);
	enum call_result cr = worker_call(&cur_dev->w, req, deadline, r, wst);
	pthread_mutex_lock(&sweep_lock);
	free(req);
	return cr;
}

/* How a worker ended, from its wait status. */
static void death_text(int wst, char *out, size_t len)
{
	if (WIFSIGNALED(wst))
		snprintf(out, len, "killed by signal %d", WTERMSIG(wst));
	else
		snprintf(out, len, "exit status %d", WEXITSTATUS(wst));
}

/* Run one candidate on the worker and record what happened. */
static void run_eval(struct sweep *sw, int ti, int m, const char *phase, int pairs)
{
	const struct task *t = &sw->tl.t[ti];
	if (time_up(sw))
		return;
	if (claimed(sw, t->shape, sw->cand_id[ti], m, phase)) {
		sw->evals_done++;
		return;
	}
	/* a finalist of a resumed sweep may not have been compiled this run */
	int ready = tasks_ensure_compiled(&sw->tl, &sw->jit, ti);
	if (ready < 0)
		die("cannot compile the kernels of %s", t->key);
	if (ready > 0) {
		record(sw, ti, m, phase, NULL, "compile_error", task_compile_error(&sw->tl, ti));
		sw->evals_done++;
		return;
	}
	double deadline = sw->sp.sweep.deadline_s + 0.05 * pairs;
	struct kv r;
	int wst = 0;
	claim(t->shape, sw->cand_id[ti], m, phase);
	cur_dev->evals++;
	enum call_result cr = ask_worker(sw, eval_request(sw, ti, m, phase, pairs), deadline, &r, &wst);
	char first[64] = "";
	if (cr == CALL_DIED) {
		/* A worker can die of something its candidate did not do (the
		 * OOM killer, an operator's kill): ask once more on a fresh
		 * worker before the candidate is blamed. */
		death_text(wst, first, sizeof(first));
		warning("%s %s %s m=%d: the worker died (%s) with it in flight; trying it once more on a fresh one",
			phase, t->cand.tmpl->stem, t->key, m, first);
		restart_worker(sw);
		cr = ask_worker(sw, eval_request(sw, ti, m, phase, pairs), deadline, &r, &wst);
	}
	switch (cr) {
	case CALL_OK: {
		const char *status = kv_get(&r, "status");
		if (strcmp(r.op, "result") || !status) {
			const char *why = kv_get(&r, "reason");
			record(sw, ti, m, phase, NULL, "launch_error", why ? why : "bad reply");
		} else {
			record(sw, ti, m, phase, &r, status, kv_get(&r, "reason"));
			if (!strcmp(status, "fault"))
				restart_worker(sw);   /* its context is gone */
		}
		kv_free(&r);
		break;
	}
	case CALL_TIMEOUT: {
		char why[96];
		snprintf(why, sizeof(why), "no reply within %.0f s: worker killed", deadline);
		record(sw, ti, m, phase, NULL, "timeout", why);
		restart_worker(sw);
		break;
	}
	case CALL_DIED: {
		char second[64], why[160];
		death_text(wst, second, sizeof(second));
		snprintf(why, sizeof(why), "it ended two workers: %s, then %s", first, second);
		record(sw, ti, m, phase, NULL, "fault", why);
		restart_worker(sw);
		break;
	}
	case CALL_BADREPLY:
		record(sw, ti, m, phase, NULL, "launch_error", "unparsable worker reply");
		restart_worker(sw);
		break;
	}
	cur_dev->busy = 0;
	sw->evals_done++;
	char label[64];
	snprintf(label, sizeof(label), "%s %s m=%d", phase, sw->sp.shapes[t->shape].family, m);
	progress_show(label, sw->evals_done, sw->evals_total, sw->started);
}

/* Ask the worker for the cuBLAS / cuBLASLt baselines at (shape, m). */
static void run_baseline(struct sweep *sw, int si, int m)
{
	const struct shape *s = &sw->sp.shapes[si];
	struct kv_out o;
	struct kv r;

	if (time_up(sw) || claimed(sw, si, -1, m, "baseline"))
		return;
	claim(si, -1, m, "baseline");
	cur_dev->evals++;
	kv_begin(&o, "baseline");
	kv_addf(&o, "id", "%d", si);
	kv_add_shape(&o, s, m);
	kv_addf(&o, "pairs", "%d", sw->sp.sweep.screen_pairs * 2);
	if (ask_worker(sw, kv_string(&o), sw->sp.sweep.deadline_s * 2, &r, NULL) != CALL_OK) {
		cur_dev->busy = 0;
		warning("baseline %s m=%d: no reply from the worker of GPU %d", s->family, m,
			cur_dev->device);
		restart_worker(sw);
		return;
	}
	cur_dev->busy = 0;
	if (!strcmp(r.op, "baseline"))
		db_record_baseline(sw->db, sw->env_id, sw->shape_id[si], m,
				   kv_get_double(&r, "cublas_us", -1),
				   kv_get_double(&r, "cublaslt_us", -1),
				   kv_get_double(&r, "ratio", -1), kv_get(&r, "lt_algo"),
				   cur_dev->device);
	else
		warning("baseline %s m=%d: %s", s->family, m,
			kv_get(&r, "reason") ? kv_get(&r, "reason") : r.op);
	kv_free(&r);
}

/* The request's "seeds" for shape si at m in orientation orient: the
 * attributes of the database's best blas_lt candidates there, as the
 * worker's replies write them (comma-separated values, ';' between
 * algorithms), into list ("" when there are none); a stored params text
 * that does not parse is left out with a warning. Returns how many seeds
 * list holds, or -1. */
static int lt_seeds(struct sweep *sw, int si, int m, long orient, char *list, size_t len)
{
	const struct tmpl *t = tmpl_find("blas_lt");
	char *params[SPACE_LT_SEEDS_MAX];
	size_t used = 0;
	int seeds = 0;
	list[0] = '\0';
	int n = db_lt_seeds(sw->db, sw->env_id, sw->shape_id[si], m, t->params[0].symbols[orient],
			    params, sw->sp.lt.vary_seeds);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		long v[MAX_PARAMS];
		if (emit_params_parse(t, params[i], v)) {
			warning("cublaslt %s m=%d: the stored blas_lt '%s' is no seed",
				sw->sp.shapes[si].family, m, params[i]);
			free(params[i]);
			continue;
		}
		free(params[i]);
		/* the values after the orientation (v[0]) */
		for (int j = 1; j < t->nparams && used < len; j++)
			used += (size_t)snprintf(list + used, len - used, "%s%ld",
						 j > 1 ? "," : seeds ? ";" : "", v[j]);
		seeds++;
	}
	return used < len ? seeds : error("cublaslt: the seeds outgrow the request");
}

/* The most seconds one lt_algos request may take (a space's deadline_s
 * when longer). */
#define LT_DEADLINE_S 120.0

/* The first top algorithms cuBLASLt's heuristic proposes for shape si at
 * m in orientation orient, added as blas_lt tasks (tmpl_lt.c) named by
 * their attributes, with their variants and the seeds'. *sent holds a
 * hash of the seeds this point and orientation last sent: a later step
 * (step > 1) whose seeds are none or the same asks nothing (the answer
 * would be the last one's), and one with new seeds asks for their
 * variants alone (seeds_only) once a reply has named every proposal's
 * (sent->whole). Returns how many were new, or -1 when the worker does
 * not answer. */
static int ask_lt(struct sweep *sw, int si, int m, long orient, int step, struct lt_sent *sent)
{
	const struct tmpl *t = tmpl_find("blas_lt");
	const struct shape *s = &sw->sp.shapes[si];
	/* the variants and seeds only from the space's vary_min_m on */
	const int vary = m >= sw->sp.lt.vary_min_m;
	/* every value a long of up to 20 digits and its separator */
	char seeds[SPACE_LT_SEEDS_MAX * (MAX_PARAMS - 1) * 21] = "";
	_Static_assert(SPACE_LT_SEEDS_MAX <= PROTO_LT_SEEDS_MAX,
		       "the worker takes every seed a space may ask for");
	int nseeds = vary && sw->sp.lt.vary_seeds ? lt_seeds(sw, si, m, orient, seeds,
							     sizeof(seeds)) : 0;
	if (nseeds < 0)
		return -1;
	const uint64_t h = hash_str(HASH_INIT, seeds);
	if (step > 1 && (!nseeds || sent->seeds == h))
		return 0;
	sent->seeds = h;
	const int seeds_only = step > 1 && sent->whole;
	sw->lt_seeds += nseeds;
	struct kv_out req;
	struct kv r;
	kv_begin(&req, "lt_algos");
	kv_addf(&req, "id", "%d", si);
	kv_add_shape(&req, s, m);
	kv_addf(&req, "orient", "%ld", orient);
	kv_addf(&req, "max", "%d", sw->sp.lt.top);
	_Static_assert(SPACE_LT_SPLITK_MAX <= PROTO_LT_SPLITK_MAX &&
			       SPACE_LT_SPLITK_LIMIT <= PROTO_LT_SPLITK_LIMIT,
		       "the worker takes every splitk list a space may hold");
	if (vary && sw->sp.lt.nsplitk) {
		char list[SPACE_LT_SPLITK_MAX * 4];
		size_t used = 0;
		for (int i = 0; i < sw->sp.lt.nsplitk; i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
						 i ? "," : "", sw->sp.lt.splitk[i]);
		kv_add(&req, "splitk", list);
	}
	if (vary && *sw->sp.lt.vary)
		kv_add(&req, "vary", sw->sp.lt.vary);
	if (nseeds)
		kv_add(&req, "seeds", seeds);
	/* a later step after a whole reply: the proposals' variants are tasks
	 * of this process already; only the new seeds' are new */
	if (seeds_only)
		kv_add(&req, "seeds_only", "1");
	/* thousands of cublasLtMatmulAlgoCheck calls with many variants */
	const double deadline = sw->sp.sweep.deadline_s > LT_DEADLINE_S ? sw->sp.sweep.deadline_s
									  : LT_DEADLINE_S;
	if (ask_worker(sw, kv_string(&req), deadline, &r, NULL) != CALL_OK)
		return error("cublaslt %s m=%d: no reply from the worker", s->family, m);
	int added = 0;
	const char *algos = kv_get(&r, "algos");
	if (strcmp(r.op, "lt_algos") || !algos)
		warning("cublaslt %s m=%d: %s", s->family, m,
			kv_get(&r, "reason") ? kv_get(&r, "reason") : r.op);
	if (kv_get(&r, "vary_error"))
		warning("cublaslt %s m=%d: the variants failed (%s); the heuristic's own kept",
			s->family, m, kv_get(&r, "vary_error"));
	if (kv_get(&r, "truncated"))
		warning("cublaslt %s m=%d: the worker's list of variants is full; the later "
			"proposals' and seeds' were left out", s->family, m);
	if (!seeds_only)
		sent->whole = !strcmp(r.op, "lt_algos") && algos && !kv_get(&r, "vary_error") &&
			      !kv_get(&r, "truncated");
	for (const char *p = algos; p && *p;) {
		struct candidate c = { t, { orient } };
		if (lt_attrs_read(&p, &c.params[1], t->nparams - 1)) {
			warning("cublaslt %s m=%d: cannot read '%s'", s->family, m, algos);
			break;
		}
		added += tasks_add(&sw->tl, &sw->sp, si, m, &c) > 0;
	}
	kv_free(&r);
	return added;
}

/* The cuBLASLt search (the space's cublaslt section), step step of the
 * climb: ask_lt for every bf16 shape, tuned m and orientation. Returns how
 * many candidates it added, or -1. */
static int resolve_lt(struct sweep *sw, const char *family, int step)
{
	int added = 0;
	if (!sw->lt_sent)
		sw->lt_sent = xcalloc((size_t)sw->sp.nshapes * MAX_MS * ARRAY_SIZE(sw->sp.lt.orient),
				      sizeof(*sw->lt_sent));
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		if ((family && strcmp(family, s->family)) || s->w != DT_BF16 || s->x != DT_BF16 ||
		    s->y != DT_BF16)
			continue;
		for (int j = 0; j < s->n_ms; j++)
			for (int o = 0; o < sw->sp.lt.norients; o++) {
				struct lt_sent *sent = &sw->lt_sent[((size_t)si * MAX_MS + (size_t)j) *
							      ARRAY_SIZE(sw->sp.lt.orient) + (size_t)o];
				int n = ask_lt(sw, si, s->ms[j], sw->sp.lt.orient[o], step, sent);
				if (n < 0)
					return -1;
				added += n;
			}
	}
	return added;
}

/* A point's tasks by candidate id, for retest(): a resumed database may
 * rank hundreds of other code's screens above a point's own, each looked
 * up here (a scan of every task per lookup was up to 256 x 33k per page). */
struct cand_task {
	long long cand;         /* first: cmp_cand compares it */
	int task;
};

static int cmp_cand(const void *a, const void *b)
{
	const long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The tasks at (shape si, m), or with m 0 every task of shape si (a
 * candidate measured at an M is run there through any of its tasks: the
 * M is the eval's, not the task's), sorted by candidate id (*n of them;
 * caller frees). */
static struct cand_task *point_tasks(const struct sweep *sw, int si, int m, int *n)
{
	struct cand_task *pt = xmalloc(sizeof(*pt) * (size_t)(sw->tl.n ? sw->tl.n : 1));
	*n = 0;
	for (int i = 0; i < sw->tl.n; i++)
		if (sw->tl.t[i].shape == si && (!m || sw->tl.t[i].m == m))
			pt[(*n)++] = (struct cand_task){ sw->cand_id[i], i };
	qsort(pt, (size_t)*n, sizeof(*pt), cmp_cand);
	return pt;
}

/* The task of candidate id cand among a point's tasks, or -1 (a candidate
 * of other template code). */
static int point_task(const struct cand_task *pt, int n, long long cand)
{
	const struct cand_task *hit = bsearch(&cand, pt, (size_t)n, sizeof(*pt), cmp_cand);
	return hit ? hit->task : -1;
}

/* The Ms at which finalists of tuned m are retested: m itself, the
 * neighbour Ms between the previous and the next tuned M, and those two
 * tuned Ms. A dispatch range may only span Ms where one candidate won
 * every measured M (gemmtab emit), so finalists must be measured past
 * their own M for ranges to meet at the crossovers. Returns the count. */
static int retest_ms(const struct shape *s, int m, int *out)
{
	int prev = 0, next = 1 << 30, n = 0;
	for (int q = 0; q < s->n_ms; q++) {
		if (s->ms[q] < m && s->ms[q] > prev)
			prev = s->ms[q];
		if (s->ms[q] > m && s->ms[q] < next)
			next = s->ms[q];
	}
	out[n++] = m;
	for (int j = 0; j < s->n_neighbours; j++)
		if (s->neighbours[j] > prev && s->neighbours[j] < next)
			out[n++] = s->neighbours[j];
	if (prev > 0)
		out[n++] = prev;
	if (next < (1 << 30))
		out[n++] = next;
	return n;
}

/* How many tasks shape si at m has from index from on. */
static int point_new_tasks(const struct sweep *sw, int si, int m, int from)
{
	int n = 0;
	for (int i = from; i < sw->tl.n; i++)
		n += sw->tl.t[i].shape == si && sw->tl.t[i].m == m;
	return n;
}

/* The Ms anchor j of range shape s times its finalists at: from the
 * anchor below it (the range's start for the first) to the anchor above
 * it (the range's end for the last), so every M of the range is timed by
 * the finalists of the anchors on both sides of it, and a crossover
 * between them is measured wherever it falls. */
static void anchor_window(const struct shape *s, int j, int *lo, int *hi)
{
	*lo = j > 0 ? s->ms[j - 1] : s->m_lo;
	*hi = j + 1 < s->n_ms ? s->ms[j + 1] : s->m_hi;
}

/* The Ms a range shape s is timed at (every M of the range, then its
 * check points), into a heap array; returns the count. */
static int range_ms(const struct shape *s, int **out)
{
	int checks[SHAPE_CHECKS];
	const int nc = shape_checks(s, SPACE_MAX_M, checks);
	int n = 0;
	*out = xmalloc(sizeof(**out) * (size_t)(s->m_hi - s->m_lo + 1 + nc));
	for (int m = s->m_lo; m <= s->m_hi; m++)
		(*out)[n++] = m;
	for (int c = 0; c < nc; c++)
		(*out)[n++] = checks[c];
	return n;
}

/* Whether anchor j of s times its finalists at m: inside its window, or
 * a check point past the range when j is the last anchor. */
static int anchor_covers(const struct shape *s, int j, int m)
{
	int lo, hi;
	anchor_window(s, j, &lo, &hi);
	return (m >= lo && m <= hi) || (m > s->m_hi && j == s->n_ms - 1);
}

/* The most retests the range phase runs (range_top finalists of every
 * anchor at every M it covers) over the range shapes (of family only,
 * when given), and in *baselines the Ms it times baselines at. */
static long planned_range(const struct sweep *sw, const char *family, long *baselines)
{
	long n = 0;
	*baselines = 0;
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		if (!shape_is_range(s) || (family && strcmp(family, s->family)))
			continue;
		int *ms;
		const int nms = range_ms(s, &ms);
		for (int i = 0; i < nms; i++)
			for (int j = 0; j < s->n_ms; j++)
				n += anchor_covers(s, j, ms[i]) ? sw->sp.sweep.range_top : 0;
		*baselines += nms;
		free(ms);
	}
	return n;
}

/* The most retest evals a sweep runs: retest_top finalists at every M
 * retest_ms() names, for each tuned M of each shape (of family only, when
 * given); from a later cuBLASLt step (tasks from index from on), only
 * as many finalists as it added at a point, up to retest_top. The
 * progress total and the --dry-run estimate both use it; what settle()
 * measures again is not in it (the total grows as it runs). */
static long planned_retests(const struct sweep *sw, const char *family, int from)
{
	long n = 0;
	int ms[2 * MAX_MS + 3];
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		if (family && strcmp(family, s->family))
			continue;
		for (int j = 0; j < s->n_ms; j++) {
			int top = sw->sp.sweep.retest_top;
			if (from) {
				const int added = point_new_tasks(sw, si, s->ms[j], from);
				if (added < top)
					top = added;
			}
			n += (long)top * retest_ms(s, s->ms[j], ms);
		}
	}
	return n;
}

/* retest() pages through a point's screens this many at a time: a resumed
 * database holds the screens of template code that has changed since
 * (not this sweep's to retest), which may outrank all of the current
 * code's (read unpaged, a re-sweep after a template change retests
 * almost nothing: measured, it emitted a table of 32 entries). */
#define RETEST_PAGE 256

/* How many times settle() looks again at one M: re-measured leaders may
 * fall out of the best and let an older one in. */
#define SETTLE_ROUNDS 4

/* The best up to max candidates of phase at (shape si, M q) that are
 * among tasks (point_tasks(), n of them), paging past other code's: the
 * task of each into ti[] (its candidate is sw->cand_id[ti[i]]) and, when
 * runs is not NULL, the run that measured it into runs[]. Returns the
 * count. */
static int leaders(struct sweep *sw, int si, int q, const char *phase,
		   const struct cand_task *tasks, int n, int max, int *ti,
		   char (*runs)[DB_RUN_MAX])
{
	long long page[RETEST_PAGE];
	char page_runs[RETEST_PAGE][DB_RUN_MAX];
	int got = RETEST_PAGE, taken = 0;
	for (int skip = 0; taken < max && got == RETEST_PAGE; skip += RETEST_PAGE) {
		got = db_best(sw->db, sw->env_id, sw->shape_id[si], q, phase, skip, page,
			      runs ? page_runs : NULL, RETEST_PAGE);
		for (int i = 0; i < got && taken < max; i++) {
			const int t = point_task(tasks, n, page[i]);
			if (t < 0)
				continue;
			ti[taken] = t;
			if (runs)
				memcpy(runs[taken], page_runs[i], DB_RUN_MAX);
			taken++;
		}
	}
	return taken;
}

/* Compare like with like at shape si's M q: emit ranks the retests there
 * by ratio, and ratios taken on two machines or hours apart differ by more
 * than the candidates do (on an H200, retests of two runs put qkv at 1 on
 * the slower of two kernels). Where this run has retested anything at
 * q, or where the best retest_top retests of the current code there come
 * from different runs (a sweep stopped half way, say), each of those not
 * measured by this run is measured again now, replacing its row. Decided
 * from the rows alone, so a resumed sweep settles what a stopped one left;
 * a database whose best at q all come from one run is left as it is.
 * st: point_tasks() of si at every M, nst of them. */
static void settle(struct sweep *sw, int si, int q, const struct cand_task *st, int nst)
{
	const int top = sw->sp.sweep.retest_top;
	char (*lead)[DB_RUN_MAX] = xmalloc(sizeof(*lead) * (size_t)top);
	int *ti = xmalloc(sizeof(*ti) * (size_t)top);
	for (int round = 0; round < SETTLE_ROUNDS; round++) {
		/* the current code's best at q, with the run of each */
		const int n = leaders(sw, si, q, "retest", st, nst, top, ti, lead);
		int mixed = db_run_retests(sw->db, sw->env_id, sw->shape_id[si], q, sw->run_id) > 0;
		for (int i = 1; i < n; i++)
			mixed |= strcmp(lead[i], lead[0]) != 0;
		int ran = 0;
		for (int i = 0; mixed && i < n; i++) {
			if (!strcmp(lead[i], sw->run_id))
				continue;
			sw->evals_total++;      /* planned_retests() counts finalists only */
			run_eval(sw, ti[i], q, "retest", sw->sp.sweep.retest_pairs);
			ran++;
		}
		if (!ran)
			break;
	}
	free(lead);
	free(ti);
}

/* The baseline at (shape si, m), unless the database holds one. */
static void run_baseline_if_missing(struct sweep *sw, int si, int m)
{
	if (db_has_baseline(sw->db, sw->env_id, sw->shape_id[si], m) == 0)
		run_baseline(sw, si, m);
}

/* Retest the best screened candidates of (shape, m) among this sweep's
 * own (the current code's) with many pairs at the Ms retest_ms() names
 * (into ms[], their count returned), and record the baselines at the
 * neighbours. */
static int retest(struct sweep *sw, int si, int m, int *ms)
{
	const struct shape *s = &sw->sp.shapes[si];
	const int top = sw->sp.sweep.retest_top;
	const int nms = retest_ms(s, m, ms);
	int npt;
	struct cand_task *pt = point_tasks(sw, si, m, &npt);
	int *ti = xmalloc(sizeof(*ti) * (size_t)top);

	const int n = leaders(sw, si, m, "screen", pt, npt, top, ti, NULL);
	for (int i = 0; i < n; i++)
		for (int q = 0; q < nms; q++) {
			int r = db_has_result(sw->db, sw->env_id, sw->shape_id[si],
					      sw->cand_id[ti[i]], ms[q], "retest", sw->retest_since);
			if (r == 0)
				run_eval(sw, ti[i], ms[q], "retest", sw->sp.sweep.retest_pairs);
		}
	free(pt);
	free(ti);
	/* ms[1 .. n_neighbours] are the neighbours (retest_ms): a neighbour
	 * between two tuned Ms is in both their lists, and a resumed sweep
	 * passes here again, so each is timed once */
	for (int q = 1; q < nms; q++) {
		int tuned = 0;
		for (int j = 0; j < s->n_ms; j++)
			tuned |= s->ms[j] == ms[q];
		if (!tuned)
			run_baseline_if_missing(sw, si, ms[q]);
	}
	return nms;
}

/* A phase of the sweep: n items of size bytes, each handed to fn by the
 * next free GPU (in the main thread when there is one GPU). Items of one
 * phase are independent of each other; a phase ends when every GPU is
 * done with its last item, so what a phase reads (the retests of the one
 * before) is complete. Called and returns holding sweep_lock. */
struct phase {
	struct sweep *sw;
	void (*fn)(struct sweep *sw, const void *item);
	const char *items;
	size_t size;
	int n, next;
};

struct phase_thread {
	struct phase *p;
	struct dev *dev;
};

static void phase_drain(struct phase *p)
{
	while (p->next < p->n && !time_up(p->sw)) {
		const int i = p->next++;
		p->fn(p->sw, p->items + (size_t)i * p->size);
	}
}

static void *phase_main(void *arg)
{
	struct phase_thread *t = arg;
	cur_dev = t->dev;
	pthread_mutex_lock(&sweep_lock);
	phase_drain(t->p);
	pthread_mutex_unlock(&sweep_lock);
	return NULL;
}

static void run_phase(struct sweep *sw, void (*fn)(struct sweep *, const void *),
		      const void *items, size_t size, int n)
{
	struct phase p = { sw, fn, items, size, n, 0 };
	struct dev *main_dev = cur_dev;
	if (sw->ndev == 1 || n <= 1) {
		phase_drain(&p);
		return;
	}
	pthread_t *th = xmalloc(sizeof(*th) * (size_t)sw->ndev);
	struct phase_thread *pt = xmalloc(sizeof(*pt) * (size_t)sw->ndev);
	pthread_mutex_unlock(&sweep_lock);
	for (int d = 0; d < sw->ndev; d++) {
		pt[d] = (struct phase_thread){ &p, &sw->devs[d] };
		if (pthread_create(&th[d], NULL, phase_main, &pt[d]))
			die("cannot start a thread for GPU %d", sw->devs[d].device);
	}
	for (int d = 0; d < sw->ndev; d++)
		pthread_join(th[d], NULL);
	pthread_mutex_lock(&sweep_lock);
	cur_dev = main_dev;
	free(th);
	free(pt);
}

/* The finalists of a range shape's anchors (range_top retests of the
 * current code at each), for its range phase. */
struct range_plan {
	int si;
	struct cand_task *st;    /* point_tasks() of si at every M */
	int nst;
	int *fin, *nfin;         /* anchor j's finalists: fin[j * top ..], nfin[j] of them */
};

/* An item of a phase: shape si at M m (an anchor's index j in phase 1;
 * the range plan in phase 3). */
struct item {
	int si, m, j;
	const struct range_plan *plan;
};

/* The range phase at M item->m of range shape si: the finalists of the
 * anchors whose windows cover m (anchor_covers), each once, timed with
 * range_pairs pairs after the baseline, back to back (one window per M,
 * so the ratios a crossover is cut at come from one stretch of time, on
 * one GPU), then settle() there. The constraints are the anchors' (they
 * chose what was screened); a finalist runs at every M of its window
 * whatever they say of m, as the table will run it. What the database
 * holds already (a resumed sweep) is not timed again. */
static void range_item(struct sweep *sw, const void *arg)
{
	const struct item *it = arg;
	const struct range_plan *pl = it->plan;
	const struct shape *s = &sw->sp.shapes[it->si];
	const int top = sw->sp.sweep.range_top, m = it->m;
	int *at = xmalloc(sizeof(*at) * (size_t)s->n_ms * (size_t)top);
	int nat = 0;
	for (int j = 0; j < s->n_ms; j++) {
		if (!anchor_covers(s, j, m))
			continue;
		for (int f = 0; f < pl->nfin[j]; f++) {
			int seen = 0;
			for (int a = 0; a < nat; a++)
				seen |= sw->cand_id[at[a]] == sw->cand_id[pl->fin[j * top + f]];
			if (!seen)
				at[nat++] = pl->fin[j * top + f];
		}
	}
	if (nat) {
		run_baseline_if_missing(sw, it->si, m);
		for (int a = 0; a < nat; a++) {
			int r = db_has_result(sw->db, sw->env_id, sw->shape_id[it->si],
					      sw->cand_id[at[a]], m, "retest", sw->retest_since);
			if (r == 0)
				run_eval(sw, at[a], m, "retest", sw->sp.sweep.range_pairs);
			else
				sw->evals_done++;   /* planned_range() counted it */
		}
		settle(sw, it->si, m, pl->st, pl->nst);
	}
	free(at);
}

/* The range phase of every range shape (of family only, when given):
 * each M of its range and its check points an item (range_item). */
static void sweep_ranges(struct sweep *sw, const char *family)
{
	const int top = sw->sp.sweep.range_top;
	struct range_plan *plans = xcalloc((size_t)sw->sp.nshapes, sizeof(*plans));
	struct item *items = NULL;
	int nitems = 0, cap = 0;
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		if (!shape_is_range(s) || (family && strcmp(family, s->family)))
			continue;
		struct range_plan *pl = &plans[si];
		pl->si = si;
		pl->st = point_tasks(sw, si, 0, &pl->nst);
		pl->fin = xmalloc(sizeof(*pl->fin) * (size_t)s->n_ms * (size_t)top);
		pl->nfin = xcalloc((size_t)s->n_ms, sizeof(*pl->nfin));
		for (int j = 0; j < s->n_ms; j++)
			pl->nfin[j] = leaders(sw, si, s->ms[j], "retest", pl->st, pl->nst, top,
					      &pl->fin[j * top], NULL);
		int *ms;
		const int nms = range_ms(s, &ms);
		for (int i = 0; i < nms; i++) {
			if (nitems == cap) {
				cap = cap ? 2 * cap : 1024;
				items = xrealloc(items, sizeof(*items) * (size_t)cap);
			}
			items[nitems++] = (struct item){ .si = si, .m = ms[i], .plan = pl };
		}
		free(ms);
	}
	run_phase(sw, range_item, items, sizeof(*items), nitems);
	for (int si = 0; si < sw->sp.nshapes; si++) {
		free(plans[si].st);
		free(plans[si].fin);
		free(plans[si].nfin);
	}
	free(plans);
	free(items);
}

/* Phase 1 at anchor item->j of shape si: screen every task from
 * sw->phase_from on that has no screen yet (the baseline first), then
 * retest the point's best (when the sweep retests), and note the Ms the
 * retests reached for phase 2. */
static void anchor_item(struct sweep *sw, const void *arg)
{
	const struct item *it = arg;
	const int si = it->si, m = it->m, from = sw->phase_from;
	int any = 0;
	for (int i = from; i < sw->tl.n && !time_up(sw); i++) {
		if (sw->tl.t[i].shape != si || sw->tl.t[i].m != m || sw->done[i])
			continue;
		/* the baseline beside the point's screens; a later step's
		 * screens take the one the database holds (this run's, or an
		 * earlier run's where step 1 had nothing here to screen) */
		if (!any++) {
			if (from)
				run_baseline_if_missing(sw, si, m);
			else
				run_baseline(sw, si, m);
		}
		run_eval(sw, i, m, "screen", sw->sp.sweep.screen_pairs);
		sw->done[i] = !sw->stopped;
	}
	if (!sw->retest)
		return;
	int ms[2 * MAX_MS + 3];
	const int nms = retest(sw, si, m, ms);
	int *reached = &sw->reached[(size_t)si * 2 * MAX_MS];
	for (int q = 0; q < nms; q++) {
		int seen = 0;
		for (int r = 0; r < sw->nreached[si]; r++)
			seen |= reached[r] == ms[q];
		if (!seen && sw->nreached[si] < 2 * MAX_MS)
			reached[sw->nreached[si]++] = ms[q];
	}
}

/* Phase 2 at shape si's M item->m: settle() there, over the shape's
 * tasks at every M (a leader at an M may be a task of another). */
static void settle_item(struct sweep *sw, const void *arg)
{
	const struct item *it = arg;
	int nst;
	struct cand_task *st = point_tasks(sw, it->si, 0, &nst);
	settle(sw, it->si, it->m, st, nst);
	free(st);
}

/* Screen every task from on that has no screen yet, point by point (the
 * baseline first), and retest each point's best (when the sweep
 * retests): phase 1, a point an item; then settle() once each M those
 * retests reached (phase 2); then time the range shapes' finalists across
 * their ranges (sweep_ranges, phase 3): the whole sweep, or what a
 * cuBLASLt step added. Every shape's anchors come first: a sweep stopped
 * in a later phase has finalists at every anchor to emit from. */
static void sweep_points(struct sweep *sw, const char *family, int from)
{
	long range_baselines;   /* (the baselines are not evals) */
	for (int i = from; i < sw->tl.n; i++)
		sw->evals_total += !sw->done[i];
	sw->evals_total += sw->retest ? planned_retests(sw, family, from) : 0;
	sw->evals_total += sw->retest ? planned_range(sw, family, &range_baselines) : 0;
	struct item *items = xmalloc(sizeof(*items) * (size_t)(sw->sp.nshapes * 2 * MAX_MS + 1));
	int n = 0;
	sw->phase_from = from;
	memset(sw->nreached, 0, sizeof(*sw->nreached) * (size_t)sw->sp.nshapes);
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		if (family && strcmp(family, s->family))
			continue;
		for (int j = 0; j < s->n_ms; j++)
			/* a later step screens and retests only where it added */
			if (!from || point_new_tasks(sw, si, s->ms[j], from))
				items[n++] = (struct item){ .si = si, .m = s->ms[j], .j = j };
	}
	run_phase(sw, anchor_item, items, sizeof(*items), n);
	n = 0;
	for (int si = 0; si < sw->sp.nshapes && sw->retest; si++)
		for (int r = 0; r < sw->nreached[si]; r++)
			items[n++] = (struct item){ .si = si,
						    .m = sw->reached[(size_t)si * 2 * MAX_MS + r] };
	run_phase(sw, settle_item, items, sizeof(*items), n);
	free(items);
	if (sw->retest)
		sweep_ranges(sw, family);
}

/* The tasks of shape si a template can run (not pruned by its check). */
static long shape_runnable(const struct sweep *sw, int si)
{
	long n = 0;
	for (int i = 0; i < sw->tl.n; i++)
		n += sw->tl.t[i].shape == si && !sw->tl.t[i].pruned;
	return n;
}

/* Say that shape si gets no candidate of a template, and why (what
 * rejects its grid points); on names the GPU when it is not the
 * profile. */
static void say_no_candidate(const struct sweep *sw, int si, const char *on)
{
	const struct shape *s = &sw->sp.shapes[si];
	char why[2048];
	int lt = sw->sp.lt.top && s->w == DT_BF16 && s->x == DT_BF16 && s->y == DT_BF16;
	space_why_none(&sw->sp, s, why, sizeof(why));
	fprintf(stderr, "gemmtab sweep: %s%s%s%s (n %d, k %d) gets no candidate of a template at "
		"any M%s: %s\n", on ? "on " : "", on ? on : "", on ? ", " : "", s->family, s->n,
		s->k, lt ? " (the cuBLASLt search may name some on the GPU)" : "", why);
}

/* Print the plan of a dry run; returns how many shapes get no candidate
 * the sweep can run (those are listed with the reasons). */
static int print_plan(const struct sweep *sw, const char *family)
{
	long total = 0, pruned = 0;
	int empty = 0;
	const struct sweep_settings *ss = &sw->sp.sweep;
	printf("%-16s %5s %10s %8s\n", "family", "m", "candidates", "pruned");
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		/* (a space of the cuBLASLt search alone has no template to miss) */
		if (!shape_runnable(sw, si) && sw->sp.ngrids &&
		    (!family || !strcmp(family, s->family))) {
			say_no_candidate(sw, si, NULL);
			empty++;
		}
		for (int j = 0; j < s->n_ms; j++) {
			long c = 0, p = 0;
			for (int i = 0; i < sw->tl.n; i++) {
				const struct task *t = &sw->tl.t[i];
				if (t->shape == si && t->m == s->ms[j]) {
					c++;
					p += t->pruned != NULL;
				}
			}
			if (c == 0)
				continue;
			printf("%-16s %5d %10ld %8ld\n", s->family, s->ms[j], c, p);
			total += c;
			pruned += p;
		}
	}
	/* Estimate: per screened candidate ~2 ms of fixed cost (graphs, module
	 * load, validation) plus 2 replays of ~0.1 ms (flush read + kernel)
	 * per pair; retests likewise. Calibrated on an H200
	 * (quick.yaml: 2016 screens of 8 pairs and ~80 retests of 100 pairs in
	 * about 7 s of GPU time). Compile at the ~100/s goal for 16 processes. */
	long run = total - pruned, retests = planned_retests(sw, family, 0), range_base = 0;
	long ranged = planned_range(sw, family, &range_base), lt_points = 0;
	for (int si = 0; si < sw->sp.nshapes && sw->sp.lt.top; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		if ((!family || !strcmp(family, s->family)) && s->w == DT_BF16 &&
		    s->x == DT_BF16 && s->y == DT_BF16)
			lt_points += s->n_ms;
	}
	/* the heuristic's proposals, screened like the templates' candidates
	 * (their finalists are among the retests above) */
	const long lt_screens = lt_points * sw->sp.lt.top * sw->sp.lt.norients;
	double gpu_s = run * (0.002 + ss->screen_pairs * 2 * 1e-4) +
		       retests * (0.002 + ss->retest_pairs * 2 * 1e-4) +
		       ranged * (0.002 + ss->range_pairs * 2 * 1e-4) +
		       range_base * (0.002 + ss->screen_pairs * 4 * 1e-4) +
		       lt_screens * (0.002 + ss->screen_pairs * 2 * 1e-4);
	printf("total: %ld candidates (%ld pruned statically), %d instantiations to compile\n",
	       total, pruned, sw->tl.nitems);
	printf("estimate: compile %.0f s at 100/s; GPU %.0f s (%ld screens of %d pairs, "
	       "up to %ld retests of %d pairs", sw->tl.nitems / 100.0, gpu_s, run,
	       ss->screen_pairs, retests, ss->retest_pairs);
	if (ranged)
		printf(", up to %ld retests of %d pairs across the ranges and %ld baselines there",
		       ranged, ss->range_pairs, range_base);
	printf("; in a database of earlier runs, up to as many again to compare each M "
	       "within this run)\n");
	if (sw->sp.lt.top) {
		char from[128] = "";
		int used = 0;
		if (sw->sp.lt.vary_min_m)
			used = snprintf(from, sizeof(from), " from m=%d on", sw->sp.lt.vary_min_m);
		if (sw->sp.lt.vary_seeds)
			used += snprintf(from + used, sizeof(from) - (size_t)used,
					 ", the database's best %d also varied", sw->sp.lt.vary_seeds);
		if (sw->sp.lt.vary_steps > 1)
			snprintf(from + used, sizeof(from) - (size_t)used, ", in up to %d steps",
				 sw->sp.lt.vary_steps);
		printf("cublaslt: up to %d blas_lt candidates per orientation (%d) at each bf16 "
		       "shape and tuned m (%ld in all, in the GPU estimate as screens), named by "
		       "the heuristic on the GPU%s%s%s\n", sw->sp.lt.top, sw->sp.lt.norients,
		       lt_screens, lt_varies(&sw->sp.lt) ? ", each with its variants" : "",
		       lt_varies(&sw->sp.lt) ? from : "",
		       lt_varies(&sw->sp.lt) ? " (the variants are not in the estimate: "
					      "cuBLASLt names them on the GPU)" : "");
	}
	return empty;
}

/* With --dry-run and a database that exists: how many of the screens
 * the plan counts that database already holds, in its newest environment,
 * for this build's template text (a (candidate, shape) the variant map
 * knows), and the GPU estimate of the rest. A candidate the map does not
 * know (new, or a template text changed since) counts as to do: a sweep
 * compiles it to learn its key and may find it measured. Read only;
 * returns -1 when the database cannot be read. */
static int print_resume(const struct sweep *sw, const char *family)
{
	struct db *db;
	struct env_info e;
	long long env;
	long done = 0, todo = 0, unknown = 0;
	if (access(sw->db_path, F_OK))
		return 0;
	if (db_open_read(sw->db_path, &db))
		return -1;
	int rc = db_env_pick(db, "sweep", 0, &env, &e);
	if (rc) {
		db_close(db);
		if (rc == 1)
			printf("resume: %s holds no measurements yet\n", sw->db_path);
		return rc == 1 ? 0 : -1;
	}
	for (int si = 0; si < sw->sp.nshapes; si++) {
		const struct shape *s = &sw->sp.shapes[si];
		long long shape = 0, cand;
		if (family && strcmp(family, s->family))
			continue;
		int have = db_shape_find(db, s, &shape);
		if (have < 0)
			goto fail;
		for (int i = 0; i < sw->tl.n; i++) {
			const struct task *t = &sw->tl.t[i];
			if (t->shape != si || t->pruned)
				continue;
			int known = have ? db_variant(db, t->cand.tmpl->stem, t->key, shape,
						      tmpl_source_hash(t->cand.tmpl), &cand, NULL) : 0;
			if (known < 0)
				goto fail;
			int r = known ? db_has_result(db, env, shape, cand, t->m, "screen", NULL) : 0;
			if (r < 0)
				goto fail;
			done += r;
			todo += !r;
			unknown += !known;
		}
	}
	db_close(db);
	const struct sweep_settings *ss = &sw->sp.sweep;
	printf("resume: %s (env %lld: %s) holds %ld of the %ld screens for this build's "
	       "template text; %ld to screen there (%ld of them unknown to its variant map: "
	       "a sweep compiles those to learn their keys), GPU %.0f s for those screens "
	       "(the retests follow from the screens as it runs); another GPU is another "
	       "environment and screens all\n", sw->db_path, env,
	       e.gpu_name, done, done + todo, todo, unknown,
	       todo * (0.002 + ss->screen_pairs * 2 * 1e-4));
	return 0;
fail:
	db_close(db);
	return -1;
}

/* The database's id of every shape of the space. */
static void load_shape_ids(struct sweep *sw)
{
	sw->shape_id = xcalloc((size_t)sw->sp.nshapes, sizeof(long long));
	for (int si = 0; si < sw->sp.nshapes; si++)
		if (db_shape_id(sw->db, &sw->sp.shapes[si], &sw->shape_id[si]))
			die("%s: cannot record shapes", sw->db_path);
}

/* Task i's candidate id from its code key (codekey.h), recorded as what
 * this build's template text compiles to at the task's shape, and
 * whether the database holds its screen already (a moved or re-commented
 * template whose code is the same was measured before). A candidate that
 * never reaches the GPU (pruned, or not compiled) is keyed by its text. */
static void resolve_id(struct sweep *sw, int i)
{
	struct task *t = &sw->tl.t[i];
	const char *text = tmpl_source_hash(t->cand.tmpl);
	char code[17], why[512];
	if (t->pruned || task_compile_error(&sw->tl, i))
		memcpy(code, text, sizeof(code));
	else if (task_code_key(&sw->tl, &sw->sp, i, code, why, sizeof(why)))
		die("%s %s: %s", t->cand.tmpl->stem, t->key, why);
	long long shape = sw->shape_id[t->shape];
	/* (a template with no kernel of ours gets a variant too: its key,
	 * its plans at every M a space may name, costs more to compute than
	 * a lookup when report reads 24,000 cuBLASLt candidates) */
	if (db_candidate_id(sw->db, t->cand.tmpl->stem, t->key, code, &sw->cand_id[i]) ||
	    db_record_variant(sw->db, t->cand.tmpl->stem, t->key, shape, text, sw->cand_id[i]))
		die("%s: cannot record candidates", sw->db_path);
	int r = db_has_result(sw->db, sw->env_id, shape, sw->cand_id[i], t->m, "screen", NULL);
	if (r < 0)
		die("%s: cannot read results", sw->db_path);
	sw->done[i] = (char)r;
}

/* Ids for the candidates of tasks from on (all of them, or what a
 * climbing step added; load_shape_ids first) where the database knows
 * what this build's text compiles to (or nothing needs compiling), and
 * which of their screens it holds. The rest (id 0) are resolved by
 * resolve_ids once compiled. */
static void load_ids(struct sweep *sw, int from)
{
	sw->cand_id = xrealloc(sw->cand_id, (size_t)sw->tl.n * sizeof(long long));
	sw->done = xrealloc(sw->done, (size_t)sw->tl.n);
	for (int i = from; i < sw->tl.n; i++) {
		struct task *t = &sw->tl.t[i];
		long long shape = sw->shape_id[t->shape];
		sw->cand_id[i] = 0;
		sw->done[i] = 0;
		int known = db_variant(sw->db, t->cand.tmpl->stem, t->key, shape,
				       tmpl_source_hash(t->cand.tmpl), &sw->cand_id[i], NULL);
		if (known < 0)
			die("%s: cannot read candidates", sw->db_path);
		if (!known) {
			if (t->pruned || t->nk == 0)
				resolve_id(sw, i);
			continue;
		}
		int r = db_has_result(sw->db, sw->env_id, shape, sw->cand_id[i], t->m, "screen",
				      NULL);
		if (r < 0)
			die("%s: cannot read results", sw->db_path);
		sw->done[i] = (char)r;
	}
}

/* The ids load_ids left open, once their kernels were compiled. */
static void resolve_ids(struct sweep *sw, int from)
{
	for (int i = from; i < sw->tl.n; i++)
		if (!sw->cand_id[i])
			resolve_id(sw, i);
}

/* Record what never reaches the GPU among tasks from on: static prunes
 * and compile errors. */
static void record_static(struct sweep *sw, int from)
{
	for (int i = from; i < sw->tl.n; i++) {
		struct task *t = &sw->tl.t[i];
		if (sw->done[i])
			continue;
		if (t->pruned) {
			record(sw, i, t->m, "screen", NULL, "pruned", t->pruned);
			sw->done[i] = 1;
			continue;
		}
		const char *error = task_compile_error(&sw->tl, i);
		if (error) {
			record(sw, i, t->m, "screen", NULL, "compile_error", error);
			sw->done[i] = 1;
		}
	}
}

static void print_summary(const struct sweep *sw)
{
	fprintf(stderr, "sweep: ");
	for (size_t i = 0; i < ARRAY_SIZE(status_names); i++)
		if (sw->counts[i])
			fprintf(stderr, "%ld %s, ", sw->counts[i], status_names[i]);
	int restarts = 0;
	for (int d = 0; d < sw->ndev; d++)
		restarts += sw->devs[d].w.restarts;
	/* the supervisor's own CPU: every thread of this process, not the
	 * workers or compile processes (make bench-supervisor reads it) */
	struct rusage ru;
	double cpu = 0;
	if (!getrusage(RUSAGE_SELF, &ru))
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		      ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	fprintf(stderr, "%d worker restarts, %.0f s (supervisor CPU %.2f s); gemmtab report --db %s\n",
		restarts, now_seconds() - sw->started, cpu, sw->db_path);
	for (int d = 0; d < sw->ndev && sw->ndev > 1; d++)
		fprintf(stderr, "sweep: GPU %d: %ld evals and baselines, %d worker restarts\n",
			sw->devs[d].device, sw->devs[d].evals, sw->devs[d].w.restarts);
}

/* The shard (of n) shape s belongs to: a hash of what the shape is (its
 * family, n, k, dtypes and bound), not of its place in the space, so that
 * every host computes the same split and a shape added to the space
 * moves no other. */
static int shape_shard(const struct shape *s, int n)
{
	char key[160];
	snprintf(key, sizeof(key), "%s,%d,%d,%d,%d,%d,%.9g", s->family, s->n, s->k, (int)s->w,
		 (int)s->x, (int)s->y, s->tol);
	return (int)(hash_str(HASH_INIT, key) % (uint64_t)n);
}

/* Keep only shard i of n of sp's shapes (--shard I/N); returns how many
 * are left. */
static int keep_shard(struct space *sp, int i, int n)
{
	int kept = 0;
	for (int si = 0; si < sp->nshapes; si++)
		if (shape_shard(&sp->shapes[si], n) == i)
			sp->shapes[kept++] = sp->shapes[si];
	sp->nshapes = kept;
	return kept;
}

/* The GPUs --devices names ("all", or a list such as 0,2-3) into
 * sw->devs; --device N (one) without it. Returns 0, or 2 after a usage
 * error. */
static int pick_devices(struct sweep *sw, const char *list, int device, int device_given)
{
	if (!list) {
		sw->ndev = 1;
		sw->devs = xcalloc(1, sizeof(*sw->devs));
		sw->devs[0].device = device;
		return 0;
	}
	if (device_given)
		return usage_error("sweep", usage_text, "--device and --devices: give one");
	int count = worker_device_count();
	if (count < 0)
		return 2;
	int want[OPT_MAX_DEVICE + 1] = { 0 };
	if (!strcmp(list, "all")) {
		for (int d = 0; d < count && d <= OPT_MAX_DEVICE; d++)
			want[d] = 1;
		if (!count)
			return usage_error("sweep", usage_text, "--devices all: no GPU is visible");
	} else {
		const char *p = list;
		for (;;) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;
			if (end == p || lo < 0)
				goto bad;
			if (*end == '-') {
				p = end + 1;
				hi = strtol(p, &end, 10);
				if (end == p || hi < lo)
					goto bad;
			}
			for (long d = lo; d <= hi; d++) {
				if (d >= count)
					return usage_error("sweep", usage_text, "--devices %s: there is no "
							   "GPU %ld (%d visible: 0..%d)", list, d,
							   count, count - 1);
				if (want[d]++)
					return usage_error("sweep", usage_text, "--devices %s: GPU %ld "
							   "is named twice", list, d);
			}
			if (!*end)
				break;
			if (*end != ',')
				goto bad;
			p = end + 1;
		}
	}
	sw->devs = xcalloc(OPT_MAX_DEVICE + 1, sizeof(*sw->devs));
	for (int d = 0; d <= OPT_MAX_DEVICE; d++)
		if (want[d])
			sw->devs[sw->ndev++].device = d;
	return 0;
bad:
	return usage_error("sweep", usage_text, "--devices: '%s' is not all or a list of GPUs "
			   "such as 0,2-3", list);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep sw = { .db_path = "gemmtab.db" };
	const char *space = NULL, *family = NULL, *since = NULL, *profile = NULL;
	const char *limit = NULL, *devices = NULL, *shard = NULL, *shapes_file = NULL;
	int device = -1;
	char since_now[32];
	int dry_run = 0, no_retest = 0, strict = 0, rc = 1;
	double deadline = 0;
	struct db_lock lock = { -1 };
	const struct opt opts[] = {
		OPT_STRING("space", &space, OPT_REQUIRED),
		OPT_STRING("device-profile", &profile, 0),
		OPT_STRING("db", &sw.db_path, 0),
		OPT_INT("device", &device, 0, OPT_MAX_DEVICE),
		OPT_STRING("devices", &devices, 0),
		OPT_STRING("shard", &shard, 0),
		OPT_STRING("shapes", &shapes_file, 0),
		OPT_STRING("family", &family, 0),
		OPT_FLAG("dry-run", &dry_run),
		OPT_FLAG("strict", &strict),
		OPT_FLAG("no-retest", &no_retest),
		OPT_STRING("retest-since", &since, 0),
		OPT_STRING("cache", &sw.jit.cache_dir, 0),
		OPT_INT("jobs", &sw.jit.nproc, 0, OPT_MAX_JOBS),
		OPT_DOUBLE("deadline", &deadline, MIN_DEADLINE_S, MAX_DEADLINE_S),
		OPT_STRING("time-limit", &limit, 0),
		OPT_END(),
	};

	jit_options_default(&sw.jit);
	int st = parse_options("sweep", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	sw.retest = !no_retest;
	double limit_s = 0;
	if (limit && duration_parse(limit, &limit_s))
		return usage_error("sweep", usage_text, "--time-limit: '%s' is not a duration "
				   "(90, 90s, 45m, 8h or 2d)", limit);
	if (since) {
		if (no_retest)
			return usage_error("sweep", usage_text, "--retest-since needs retests: drop "
					   "--no-retest");
		if (!strcmp(since, "now")) {
			utc_now(since_now, sizeof(since_now));
			since = since_now;
		} else if (!utc_time_valid(since)) {
			return usage_error("sweep", usage_text, "--retest-since: '%s' is not a UTC "
					   "time YYYY-MM-DD[THH[:MM[:SS]]] or now", since);
		}
		sw.retest_since = since;
	}
	int shard_i = 0, shard_n = 0;
	if (shard) {
		char *end;
		shard_i = (int)strtol(shard, &end, 10);
		if (end == shard || *end != '/' || shard_i < 0)
			return usage_error("sweep", usage_text, "--shard: '%s' is not I/N (0/4 .. 3/4)",
					   shard);
		const char *p = end + 1;
		shard_n = (int)strtol(p, &end, 10);
		if (end == p || *end || shard_n < 1 || shard_n > 65536 || shard_i >= shard_n)
			return usage_error("sweep", usage_text, "--shard: '%s' is not I/N with 0 <= I "
					   "< N (0/4 .. 3/4)", shard);
	}
	if (space_load(space, &sw.sp))
		return 2;
	if (shapes_file) {
		struct space frag;
		if (space_load_fragment(shapes_file, &frag)) {
			space_free(&sw.sp);
			return 2;
		}
		int bad = space_add_shapes(&sw.sp, &frag);
		space_free(&frag);
		if (bad) {
			space_free(&sw.sp);
			return 2;
		}
	}
	if (shard_n) {
		const int all = sw.sp.nshapes;
		const int kept = keep_shard(&sw.sp, shard_i, shard_n);
		fprintf(stderr, "sweep: shard %d/%d: %d of the space's %d shapes\n", shard_i,
			shard_n, kept, all);
		if (!kept) {
			/* an empty share: nothing to sweep, which is no error for
			 * one task of many */
			space_free(&sw.sp);
			return 0;
		}
	}
	if (profile) {
		struct device_profile d;
		if (device_profile_load(profile, &d) || space_set_device(&sw.sp, &d)) {
			space_free(&sw.sp);
			return 2;
		}
	}
	if (sw.sp.ngrids == 0 && !sw.sp.lt.top) {
		fprintf(stderr, "%s:%d:%d: no templates or cublaslt section: nothing to sweep (a "
			"space of shapes alone serves gemmtab bench and probe)\n", space,
			sw.sp.top_line, sw.sp.top_col);
		space_free(&sw.sp);
		return 2;
	}
	if (deadline > 0)
		sw.sp.sweep.deadline_s = deadline;
	if (tasks_build(&sw.sp, family, &sw.tl)) {
		rc = 2;   /* the space (or --family) asks for what cannot be built */
		goto out_space;
	}
	if (dry_run) {
		int empty = print_plan(&sw, family);
		rc = strict && empty ? 1 : 0;
		if (print_resume(&sw, family))
			rc = 1;
		if (rc)
			fprintf(stderr, "gemmtab sweep: --strict: %d shapes get no candidate\n", empty);
		goto out_tasks;
	}
	sw.started = now_seconds();
	sw.stop_at = limit_s > 0 ? sw.started + limit_s : 0;
	utc_now_ms(sw.run_id, sizeof(sw.run_id));
	if (worker_device_check("sweep"))
		goto out_tasks;
	if ((st = pick_devices(&sw, devices, device < 0 ? 0 : device, device >= 0))) {
		rc = st;
		goto out_tasks;
	}
	cur_dev = &sw.devs[0];
	/* one sweep (or prune) of a database at a time (lock.h) */
	if (db_lock_take(sw.db_path, "sweep", &lock))
		goto out_tasks;
	if (db_open(sw.db_path, &sw.db))
		goto out_tasks;
	pthread_mutex_lock(&sweep_lock);
	struct env_info env;
	if (worker_start(&sw.devs[0].w, sw.devs[0].device) || worker_env(&sw.devs[0].w, &env))
		goto out_db;
	if (db_env_id(sw.db, &env, &sw.env_id))
		goto out_worker;
	/* identical GPUs share one environment; the rest of a host's are
	 * swept on their own */
	for (int d = 1; d < sw.ndev; d++) {
		struct env_info e;
		long long id;
		if (worker_start(&sw.devs[d].w, sw.devs[d].device) ||
		    worker_env(&sw.devs[d].w, &e) || db_env_id(sw.db, &e, &id))
			goto out_worker;
		if (id != sw.env_id) {
			error("sweep: GPU %d (%s) is not like GPU %d (%s): its environment "
			      "differs (GPU, clocks, driver or libraries); --devices takes "
			      "identical GPUs, so sweep it on its own", sw.devs[d].device,
			      e.gpu_name, sw.devs[0].device, env.gpu_name);
			goto out_worker;
		}
	}
	sw.reached = xmalloc(sizeof(*sw.reached) * (size_t)(sw.sp.nshapes + 1) * 2 * MAX_MS);
	sw.nreached = xcalloc((size_t)sw.sp.nshapes + 1, sizeof(*sw.nreached));
	/* the constraints' device figures are the GPU's (the tasks were
	 * built with the profile's, for the checks before the worker ran) */
	struct device_profile gpu = sw.sp.dev;
	snprintf(gpu.name, sizeof(gpu.name), "%.63s", env.gpu_name);
	gpu.sm_count = env.sm_count > 0 ? env.sm_count : gpu.sm_count;
	gpu.l2_bytes = env.l2_bytes > 0 ? env.l2_bytes : gpu.l2_bytes;
	gpu.smem_optin = env.smem_optin > 0 ? env.smem_optin : gpu.smem_optin;
	gpu.smem_sm = env.smem_sm > 0 ? env.smem_sm : gpu.smem_sm;
	gpu.smem_reserved = env.smem_reserved > 0 ? env.smem_reserved : gpu.smem_reserved;
	if (gpu.sm_count != sw.sp.dev.sm_count || gpu.l2_bytes != sw.sp.dev.l2_bytes ||
	    gpu.smem_optin != sw.sp.dev.smem_optin || gpu.smem_sm != sw.sp.dev.smem_sm ||
	    gpu.smem_reserved != sw.sp.dev.smem_reserved) {
		fprintf(stderr, "sweep: the constraints read %s's figures (%ld SMs, %ld B a block, "
			"%ld B an SM), not %s's\n", gpu.name, gpu.sm_count, gpu.smem_optin,
			gpu.smem_sm, sw.sp.dev.name);
		tasks_free(&sw.tl);
		if (space_set_device(&sw.sp, &gpu) || tasks_build(&sw.sp, family, &sw.tl))
			goto out_worker;
		for (int si = 0; si < sw.sp.nshapes && sw.sp.ngrids; si++)
			if (!shape_runnable(&sw, si) &&
			    (!family || !strcmp(family, sw.sp.shapes[si].family)))
				say_no_candidate(&sw, si, gpu.name);
	}
	load_shape_ids(&sw);
	if (sw.sp.lt.top) {
		int added = resolve_lt(&sw, family, 1);
		if (added < 0)
			goto out_worker;
		char seeded[64] = "";
		if (sw.sp.lt.vary_seeds)
			snprintf(seeded, sizeof(seeded), "; %d seeds from the database varied too",
				 sw.lt_seeds);
		fprintf(stderr, "sweep: cuBLASLt's heuristic named %d blas_lt candidates "
			"(top %d per orientation%s%s)\n", added, sw.sp.lt.top,
			lt_varies(&sw.sp.lt) ? ", with the variants cuBLASLt takes" : "", seeded);
	}
	if (sw.ndev > 1) {
		char list[512] = "";
		size_t used = 0;
		for (int d = 0; d < sw.ndev && used < sizeof(list); d++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
						 d ? "," : "", sw.devs[d].device);
		fprintf(stderr, "sweep: %s on %d x %s (%d SMs; GPUs %s), env %lld, %d candidates\n",
			space, sw.ndev, env.gpu_name, env.sm_count, list, sw.env_id, sw.tl.n);
	} else {
		fprintf(stderr, "sweep: %s on %s (%d SMs), env %lld, %d candidates\n", space,
			env.gpu_name, env.sm_count, sw.env_id, sw.tl.n);
	}
	if (sw.retest_since)
		fprintf(stderr, "sweep: finalists retested before %s are retested again (to "
			"resume, rerun with --retest-since %s)\n", sw.retest_since,
			sw.retest_since);
	load_ids(&sw, 0);
	char *pending = xcalloc((size_t)sw.tl.n, 1);
	for (int i = 0; i < sw.tl.n; i++)
		pending[i] = !sw.done[i];
	int compiled = tasks_compile(&sw.tl, &sw.jit, 0, pending);
	free(pending);
	if (compiled)
		goto out_worker;
	resolve_ids(&sw, 0);
	record_static(&sw, 0);

	sweep_points(&sw, family, 0);
	/* the cuBLASLt search's later steps, each seeded by what the ones
	 * before recorded */
	rc = 0;
	for (int step = 2; step <= sw.sp.lt.vary_steps && !time_up(&sw); step++) {
		const int from = sw.tl.n;
		sw.lt_seeds = 0;
		progress_end();
		if (resolve_lt(&sw, family, step) < 0) {
			/* what the steps before recorded stands */
			fprintf(stderr, "sweep: cuBLASLt step %d of %d failed; the steps before "
				"are recorded\n", step, sw.sp.lt.vary_steps);
			rc = 1;
			break;
		}
		fprintf(stderr, "sweep: cuBLASLt step %d of %d: %d seeds named %d new blas_lt "
			"candidates\n", step, sw.sp.lt.vary_steps, sw.lt_seeds, sw.tl.n - from);
		if (sw.tl.n == from)
			break;
		load_ids(&sw, from);
		resolve_ids(&sw, from);
		record_static(&sw, from);
		sweep_points(&sw, family, from);
	}
	progress_end();
	if (sw.stopped) {
		fprintf(stderr, "sweep: the time limit passed with %ld of up to %ld evals done; "
			"what is recorded stands (emit reads it), and the same command resumes\n",
			sw.evals_done, sw.evals_total);
		/* a script (contrib/slurm) tells an unfinished sweep by its status */
		if (rc == 0)
			rc = 3;
	}
	print_summary(&sw);
out_worker:
	for (int d = 0; d < sw.ndev; d++)
		worker_stop(&sw.devs[d].w);
out_db:
	db_close(sw.db);
	pthread_mutex_unlock(&sweep_lock);
out_tasks:
	db_lock_drop(&lock);
	free(sw.shape_id);
	free(sw.devs);
	free(sw.reached);
	free(sw.nreached);
	free(sw.lt_sent);
	free(sw.cand_id);
	free(sw.done);
	tasks_free(&sw.tl);
out_space:
	space_free(&sw.sp);
	return rc;
}
