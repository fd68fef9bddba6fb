/*
 * ask.c: what the sweep asks a worker, and what it records of the answer:
 * an eval (a candidate at an M, in a phase) or a baseline, on the calling
 * thread's GPU (sweep_dev), with the worker restarted after a timeout, a
 * fault or a death, and each result committed as it arrives. Two GPUs
 * never time the same (shape, candidate, M, phase) at once (claimed).
 * Workers are started by the main thread, for a phase thread too
 * (sweep_start_worker, sweep_serve_starts; engine.h says why).
 */
#include "engine.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;
_Thread_local struct dev *sweep_dev;

/* Whether another GPU is timing (shape si, cand, m, phase) now: the
 * retests and baselines at an M between two anchors are asked by both,
 * and whichever asks first times them (the other sees them in flight
 * here or in the database), as one GPU would once. */
static int claimed(const struct sweep *sw, int si, long long cand, int m, const char *phase)
{
	for (int d = 0; d < sw->ndev; d++) {
		const struct dev *v = &sw->devs[d];
		if (v != sweep_dev && v->busy && v->cl_shape == si && v->cl_cand == cand &&
		    v->cl_m == m && !strcmp(v->cl_phase, phase))
			return 1;
	}
	return 0;
}

static void claim(int si, long long cand, int m, const char *phase)
{
	sweep_dev->busy = 1;
	sweep_dev->cl_shape = si;
	sweep_dev->cl_cand = cand;
	sweep_dev->cl_m = m;
	sweep_dev->cl_phase = phase;
}

void sweep_write_failed(const struct sweep *sw, const char *what)
{
	struct rlimit lim;
	char why[96] = "";
	if (!getrlimit(RLIMIT_FSIZE, &lim) && lim.rlim_cur != RLIM_INFINITY)
		snprintf(why, sizeof(why), " (a file may grow to %llu bytes here: ulimit -f)",
			 (unsigned long long)lim.rlim_cur);
	die("cannot record %s in %s%s; stopping: what is recorded stands, and the same "
	    "command resumes", what, sw->db_path, why);
}

/* Whether --time-limit has passed: then nothing more is asked of the
 * worker (what is recorded stands; a rerun resumes). */
int sweep_time_up(struct sweep *sw)
{
	if (!sw->stopped && sw->stop_at > 0 && now_seconds() >= sw->stop_at)
		sw->stopped = 1;
	return sw->stopped;
}

const char *const sweep_status_names[SWEEP_NSTATUS] = {
	"ok", "fail", "compile_error", "pruned", "launch_error", "fault", "timeout", "other",
};

static void count_status(struct sweep *sw, const char *status)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(sweep_status_names) - 1; i++)
		if (!strcmp(status, sweep_status_names[i]))
			break;
	sw->counts[i]++;
}

int sweep_record(struct sweep *sw, int ti, int m, const char *phase, const struct kv *r,
		  const char *status, const char *reason)
{
	struct task *t = &sw->tl->t[ti];
	struct result_row row = {
		.m = m, .phase = phase, .status = status, .reason = reason,
		.err_global = -1, .err_row = -1, .base_us = -1, .cand_us = -1,
		.ratio = -1, .ratio_lo = -1, .ratio_hi = -1, .regs = -1,
		.local_bytes = -1, .smem = -1, .waves = -1, .run = sw->run_id,
		.device = sweep_dev->device,
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
		sweep_write_failed(sw, "a result");
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
	const struct task *t = &sw->tl->t[ti];
	const struct shape *s = &sw->sp->shapes[t->shape];
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
		const struct jit_item *it = &sw->tl->items[t->item[j]];
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

/* The main thread while a phase's threads run: it starts the workers
 * they ask for (sweep_start_worker) until every thread is done. Holds
 * sweep_lock but while it waits. */
void sweep_serve_starts(struct sweep *sw)
{
	while (sw->running > 0) {
		int served = 0;
		for (int d = 0; d < sw->ndev; d++) {
			struct dev *v = &sw->devs[d];
			if (!v->want_start)
				continue;
			v->start_rc = worker_start(&v->w, v->device);
			v->want_start = 0;
			served = 1;
		}
		if (served)
			pthread_cond_broadcast(&sw->wake);
		else
			pthread_cond_wait(&sw->wake, &sweep_lock);
	}
}

int sweep_start_worker(struct sweep *sw, struct dev *v)
{
	if (pthread_equal(pthread_self(), sw->main_thread))
		return worker_start(&v->w, v->device);
	v->want_start = 1;
	pthread_cond_broadcast(&sw->wake);
	while (v->want_start)
		pthread_cond_wait(&sw->wake, &sweep_lock);
	return v->start_rc;
}

/* Kill and start again the calling thread's worker (only its GPU's). */
static void restart_worker(struct sweep *sw)
{
	worker_kill(&sweep_dev->w);
	sweep_dev->w.restarts++;
	if (sweep_start_worker(sw, sweep_dev))
		die("cannot restart the worker of GPU %d", sweep_dev->device);
}

/* Send req (freed here) to the worker, started again first if it is not
 * running, and wait up to deadline seconds for its reply (*r when
 * CALL_OK; wst as worker_call). */
enum call_result sweep_ask(struct sweep *sw, char *req, double deadline, struct kv *r,
				   int *wst)
{
	if (sweep_dev->w.pid <= 0)
		restart_worker(sw);
	/* the other GPUs' threads run while this one waits */
	pthread_mutex_unlock(&sweep_lock);
	enum call_result cr = worker_call(&sweep_dev->w, req, deadline, r, wst);
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
void sweep_eval(struct sweep *sw, int ti, int m, const char *phase, int pairs)
{
	const struct task *t = &sw->tl->t[ti];
	if (sweep_time_up(sw))
		return;
	if (claimed(sw, t->shape, sw->cand_id[ti], m, phase)) {
		sw->evals_done++;
		return;
	}
	/* a finalist of a resumed sweep may not have been compiled this run */
	int ready = tasks_ensure_compiled(sw->tl, &sw->jit, ti);
	if (ready < 0)
		die("cannot compile the kernels of %s", t->key);
	if (ready > 0) {
		sweep_record(sw, ti, m, phase, NULL, "compile_error", task_compile_error(sw->tl, ti));
		sw->evals_done++;
		return;
	}
	double deadline = sw->sp->sweep.deadline_s + 0.05 * pairs;
	struct kv r;
	sweep_dev->last_ratio = -1;
	int wst = 0;
	claim(t->shape, sw->cand_id[ti], m, phase);
	sweep_dev->evals++;
	if (!sw->evals_started)
		sw->evals_started = now_seconds();
	enum call_result cr = sweep_ask(sw, eval_request(sw, ti, m, phase, pairs), deadline, &r, &wst);
	char first[64] = "";
	if (cr == CALL_DIED) {
		/* A worker can die of something its candidate did not do (the
		 * OOM killer, an operator's kill): ask once more on a fresh
		 * worker before the candidate is blamed. */
		death_text(wst, first, sizeof(first));
		warning("%s %s %s m=%d: the worker died (%s) with it in flight; trying it once more on a fresh one",
			phase, t->cand.tmpl->stem, t->key, m, first);
		restart_worker(sw);
		cr = sweep_ask(sw, eval_request(sw, ti, m, phase, pairs), deadline, &r, &wst);
	}
	switch (cr) {
	case CALL_OK: {
		const char *status = kv_get(&r, "status");
		if (strcmp(r.op, "result") || !status) {
			const char *why = kv_get(&r, "reason");
			sweep_record(sw, ti, m, phase, NULL, "launch_error", why ? why : "bad reply");
		} else {
			sweep_record(sw, ti, m, phase, &r, status, kv_get(&r, "reason"));
			if (!strcmp(status, "ok"))
				sweep_dev->last_ratio = kv_get_double(&r, "ratio", -1);
			if (!strcmp(status, "fault"))
				restart_worker(sw);   /* its context is gone */
		}
		kv_free(&r);
		break;
	}
	case CALL_TIMEOUT: {
		char why[96];
		snprintf(why, sizeof(why), "no reply within %.0f s: worker killed", deadline);
		sweep_record(sw, ti, m, phase, NULL, "timeout", why);
		restart_worker(sw);
		break;
	}
	case CALL_DIED: {
		char second[64], why[160];
		death_text(wst, second, sizeof(second));
		snprintf(why, sizeof(why), "it ended two workers: %s, then %s", first, second);
		sweep_record(sw, ti, m, phase, NULL, "fault", why);
		restart_worker(sw);
		break;
	}
	case CALL_BADREPLY:
		sweep_record(sw, ti, m, phase, NULL, "launch_error", "unparsable worker reply");
		restart_worker(sw);
		break;
	}
	sweep_dev->busy = 0;
	sw->evals_done++;
	char label[64];
	snprintf(label, sizeof(label), "%s %s m=%d", phase, sw->sp->shapes[t->shape].family, m);
	progress_show(label, sw->evals_done, sw->evals_total,
		      sw->evals_started ? sw->evals_started : now_seconds());
}

/* Ask the worker for the cuBLAS / cuBLASLt baselines at (shape, m). */
void sweep_baseline(struct sweep *sw, int si, int m)
{
	const struct shape *s = &sw->sp->shapes[si];
	struct kv_out o;
	struct kv r;

	sweep_dev->last_base_us = -1;
	if (sweep_time_up(sw) || claimed(sw, si, -1, m, "baseline"))
		return;
	claim(si, -1, m, "baseline");
	sweep_dev->evals++;
	if (!sw->evals_started)
		sw->evals_started = now_seconds();
	kv_begin(&o, "baseline");
	kv_addf(&o, "id", "%d", si);
	kv_add_shape(&o, s, m);
	kv_addf(&o, "pairs", "%d", sw->sp->sweep.screen_pairs * 2);
	if (sweep_ask(sw, kv_string(&o), sw->sp->sweep.deadline_s * 2, &r, NULL) != CALL_OK) {
		sweep_dev->busy = 0;
		warning("baseline %s m=%d: no reply from the worker of GPU %d", s->family, m,
			sweep_dev->device);
		restart_worker(sw);
		return;
	}
	sweep_dev->busy = 0;
	if (!strcmp(r.op, "baseline")) {
		sweep_dev->last_base_us = kv_get_double(&r, "cublas_us", -1);
		if (db_record_baseline(sw->db, sw->env_id, sw->shape_id[si], m,
				       kv_get_double(&r, "cublas_us", -1),
				       kv_get_double(&r, "cublaslt_us", -1),
				       kv_get_double(&r, "ratio", -1), kv_get(&r, "lt_algo"),
				       sweep_dev->device))
			sweep_write_failed(sw, "a baseline");
	} else
		warning("baseline %s m=%d: %s", s->family, m,
			kv_get(&r, "reason") ? kv_get(&r, "reason") : r.op);
	kv_free(&r);
}

/* The baseline at (shape si, m), unless the database holds one. */
void sweep_baseline_if_missing(struct sweep *sw, int si, int m)
{
	if (db_has_baseline(sw->db, sw->env_id, sw->shape_id[si], m) == 0)
		sweep_baseline(sw, si, m);
}
