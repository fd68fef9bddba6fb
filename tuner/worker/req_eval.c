/*
 * req_eval.c: the worker's "eval" request: load a candidate's kernels,
 * check its launch plan, validate it against the FP64 reference on fresh
 * inputs, then time it in pairs against the baseline (worker.h).
 */
#include "gpu.h"
#include "launch.h"
#include "bench.h"
#include "validate.h"
#include "timing.h"
#include "baseline.h"
#include "lt.h"
#include "harness.h"
#include "worker.h"
#include "jit.h"
#include "proto.h"
#include "space.h"
#include "tmpl.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- eval --- */

struct eval {
	const char *id;
	struct shape shape;
	int m, pairs, nk;
	uint64_t seed;
	struct candidate cand;
	const char *cubin[TMPL_MAX_KERNELS], *name[TMPL_MAX_KERNELS];
	struct kernel_info k[TMPL_MAX_KERNELS];
	int regs, local_bytes, smem;    /* -1 until known */
	int waves;                      /* plan_waves; -1 until known */
	struct launch_plan plan;
};

static int get_params(const struct kv *r, struct candidate *c, struct why *w)
{
	const struct tmpl *t = c->tmpl;
	for (int i = 0; i < t->nparams; i++) {
		const struct tmpl_param *p = &t->params[i];
		const char *v = kv_get(r, p->name);
		if (!v)
			return worker_bad(w, "missing parameter %s%s", p->name, "");
		if (!p->symbols) {
			if (worker_get_long(r, p->name, p->min, p->max, &c->params[i], w))
				return -1;
			continue;
		}
		long j = 0;
		while (p->symbols[j] && strcmp(p->symbols[j], v))
			j++;
		if (!p->symbols[j])
			return worker_bad(w, "bad %s=%s", p->name, v);
		c->params[i] = j;
	}
	return 0;
}

static int get_eval(const struct kv *r, struct eval *e, struct why *w)
{
	const char *phase = kv_get(r, "phase"), *stem = kv_get(r, "tmpl");
	memset(e, 0, sizeof(*e));
	e->regs = e->local_bytes = e->smem = e->waves = -1;
	e->id = kv_get(r, "id");
	if (!e->id)
		return worker_bad(w, "missing %s%s", "id", "");
	if (!phase || (strcmp(phase, "screen") && strcmp(phase, "retest")))
		return worker_bad(w, "bad %s=%s", "phase", phase);
	if (worker_get_int(r, "pairs", 1, MAX_PAIRS, &e->pairs, w) || worker_get_u64(r, "seed", &e->seed, w) ||
	    worker_get_shape(r, &e->shape, 1, w) || worker_get_int(r, "m", 1, MAX_M, &e->m, w))
		return -1;
	if (!stem || !(e->cand.tmpl = tmpl_find(stem)))
		return worker_bad(w, "unknown %s=%s", "tmpl", stem);
	if (get_params(r, &e->cand, w) || worker_get_int(r, "nk", 0, TMPL_MAX_KERNELS, &e->nk, w))
		return -1;
	for (int i = 0; i < e->nk; i++) {
		char key[16];
		snprintf(key, sizeof(key), "cubin%d", i);
		e->cubin[i] = kv_get(r, key);
		if (!e->cubin[i] || !*e->cubin[i])
			return worker_bad(w, "missing %s%s", key, "");
		snprintf(key, sizeof(key), "name%d", i);
		e->name[i] = kv_get(r, key);
		if (!e->name[i] || !*e->name[i])
			return worker_bad(w, "missing %s%s", key, "");
	}
	return 0;
}

static void reply_result(const struct eval *e, const char *status, const struct verdict *v,
			 const struct pair_stats *ps, const char *reason)
{
	struct kv_out o;
	worker_begin(&o, "result", e->id);
	kv_add(&o, "status", status);
	worker_add_figures(&o, v, ps);
	if (e->regs >= 0) {
		kv_addf(&o, "regs", "%d", e->regs);
		kv_addf(&o, "local_bytes", "%d", e->local_bytes);
	}
	if (e->smem >= 0)
		kv_addf(&o, "smem", "%d", e->smem);
	if (e->waves >= 1)
		kv_addf(&o, "waves", "%d", e->waves);
	if (reason && *reason)
		kv_add(&o, "reason", reason);
	worker_send(&o);
}

/* After a failed CUDA step of an eval: fault (and exit) when the context
 * is gone; else pruned when a library declined the candidate at this
 * point (gpu_refuse), launch_error when the candidate's part failed, and
 * a plain error when ours did. */
static void reply_eval_error(struct gpu *g, const struct eval *e, int in_candidate)
{
	const char *msg;
	if (gpu_error_sticky(g)) {
		msg = gpu_error() ? gpu_error() : "unknown cuda error";
		reply_result(e, "fault", NULL, NULL, msg);
		_exit(EXIT_FAULT);      /* no teardown on a broken context */
	}
	msg = gpu_error() ? gpu_error() : "unknown cuda error";
	if (in_candidate)
		reply_result(e, gpu_error_refused() ? "pruned" : "launch_error", NULL, NULL, msg);
	else
		worker_reply_error(e->id, msg);
}

/* Load the kernels and check the plan. 0: ready; 1: pruned (replied). */
static int load_candidate(struct gpu *g, struct eval *e)
{
	char reason[256];
	const struct tmpl *t = e->cand.tmpl;
	if (!t->plan || t->plan(&e->shape, e->cand.params, e->m, &e->plan))
		return gpu_fail("template %s gives no launch plan for m=%d", t->stem, e->m);
	int regs = 0, local_bytes = 0;
	for (int i = 0; i < e->nk; i++) {
		if (gpu_load_kernel(g, e->cubin[i], e->name[i], &e->k[i]))
			return -1;
		if (e->k[i].regs > regs)
			regs = e->k[i].regs;
		if (e->k[i].local_bytes > local_bytes)
			local_bytes = e->k[i].local_bytes;
	}
	e->regs = regs;         /* reported once every kernel is known */
	e->local_bytes = local_bytes;
	int rc = plan_prepare(g, e->k, e->nk, &e->plan, &e->smem, reason, sizeof(reason));
	if (rc == 1)
		reply_result(e, "pruned", NULL, NULL, reason);
	if (rc == 0)
		e->waves = plan_waves(g, e->k, &e->plan);
	return rc;
}

/* The prepared weight of w for the candidate (the router's hi/lo split,
 * W packed in tiles, or W transposed), computed on the worker's stream into a fresh
 * allocation in *out; NULL when the candidate reads W as given. */
static int prepare_weight(struct gpu *g, const struct eval *e, const void *w, void **out)
{
	const struct relayout r = tmpl_relayout(e->cand.tmpl, e->cand.params);
	size_t bytes = relayout_bytes(&r, &e->shape);
	*out = NULL;
	if (!bytes)
		return 0;
	if (CUDA_CHECK(cudaMalloc(out, bytes)))
		return -1;
	/* the adapters' checks demand fp32 w for hi/lo and bf16 w otherwise */
	if (r.kind == RELAYOUT_HILO)
		return CUDA_CHECK(harness_split_hilo(w, *out, (size_t)e->shape.n * e->shape.k,
						     g->stream));
	if (r.kind == RELAYOUT_TRANSPOSE)
		return CUDA_CHECK(harness_transpose(w, *out, e->shape.n, e->shape.k, g->stream));
	return CUDA_CHECK(harness_pack_tiles(w, *out, e->shape.n, e->shape.k, r.rows, r.cols,
					     g->stream));
}

/* The candidate's prepared timing copies, from b's cache or made now
 * into its least recently used slot: *out gets an array of b->ncopies
 * (owned by b), or NULL when the candidate reads W as given. The copies
 * never change, so a re-layout prepared for one candidate serves every
 * later candidate of the same (shape, m) that reads the same one. (A
 * kernel that wrote out of bounds into them would now spoil the timing
 * data of later candidates too, not their FP64 checks: those read a copy
 * prepared afresh for each candidate.) */
static int timing_preps(struct gpu *g, const struct eval *e, struct bench *b, void ***out)
{
	const struct relayout r = tmpl_relayout(e->cand.tmpl, e->cand.params);
	int hit;
	*out = NULL;
	if (!relayout_bytes(&r, &e->shape))
		return 0;
	struct bench_prep *slot = bench_prep_slot(b, &r, &hit);
	if (!hit) {
		bench_prep_clear(b, slot);
		for (int i = 0; i < b->ncopies; i++)
			if (prepare_weight(g, e, b->w[i], &slot->p[i])) {
				bench_prep_clear(b, slot);
				return -1;
			}
		slot->r = r;
	}
	slot->used = ++b->prep_clock;
	*out = slot->p;
	return 0;
}

static struct plan_args args_for(const struct eval *e, void *w, void *x, void *y, void *ws,
				 unsigned *sync, size_t y_bytes, void *prep)
{
	const struct relayout r = tmpl_relayout(e->cand.tmpl, e->cand.params);
	const size_t prep_bytes = relayout_bytes(&r, &e->shape);
	struct plan_args a = {
		.op = { .w = w, .prep = prep_bytes ? prep : NULL, .x = x, .y = y, .ws = ws,
			.sync = sync, .m = e->m, .n = e->shape.n, .k = e->shape.k },
		.y_bytes = y_bytes, .ws_bytes = e->plan.ws_bytes, .prep_bytes = prep_bytes,
	};
	return a;
}

static void run_eval(struct gpu *g, struct eval *e)
{
	const int timed_run = !worker_check_only;
	struct bench *b;
	cudaGraphExec_t check = NULL, timed[BENCH_MAX_COPIES] = { 0 };
	void *prep_check = NULL, **prep = NULL;
	struct verdict v;
	struct pair_stats ps;
	void *ws = NULL;
	unsigned *sync = NULL;
	int in_candidate = 0, rc;
	uint64_t seed_base = hash_str(e->seed, "baseline"), seed_cand = hash_str(e->seed, "candidate");

	/* check only: the bench's buffers, without validating its baseline */
	if (timed_run ? worker_ready_bench(g, &e->shape, e->m, seed_base, &b)
		      : bench_get(g, &e->shape, e->m, &b))
		goto cuda_error;
	in_candidate = 1;
	rc = load_candidate(g, e);
	if (rc == 1)
		goto cleanup;
	if (rc || gpu_ws_reserve(g, e->plan.ws_bytes, &ws) ||
	    gpu_sync_reserve(g, e->plan.sync_bytes, &sync))
		goto cuda_error;

	in_candidate = 0;
	if (validate_inputs(g, b, seed_cand) || prepare_weight(g, e, b->vw, &prep_check))
		goto cuda_error;
	in_candidate = 1;
	struct plan_args a = args_for(e, b->vw, b->vx, b->vy, ws, sync, b->y_bytes, prep_check);
	if (plan_capture(g, e->k, &e->plan, &a, &check) ||
	    validate_graph(g, b, check, ws, e->plan.ws_bytes, &v) ||
	    validate_sync(g, b, sync, e->plan.sync_bytes, &v))
		goto cuda_error;
	if (!v.pass) {
		reply_result(e, "fail", &v, NULL, v.reason);
		goto cleanup;
	}
	if (!timed_run) {
		reply_result(e, "ok", &v, NULL, "checked only: not timed");
		goto cleanup;
	}

	in_candidate = 0;
	if (bench_baseline_graphs(g, b))
		goto cuda_error;
	if (timing_preps(g, e, b, &prep))
		goto cuda_error;
	in_candidate = 1;
	for (int i = 0; i < b->ncopies; i++) {
		a = args_for(e, b->w[i], b->x[i], b->y[i], ws, sync, b->y_bytes,
			     prep ? prep[i] : NULL);
		if (plan_capture(g, e->k, &e->plan, &a, &timed[i]))
			goto cuda_error;
	}
	if (timing_pairs(g, b->base_graph, timed, b->ncopies, e->pairs, &ps))
		goto cuda_error;
	reply_result(e, "ok", &v, &ps, NULL);
	goto cleanup;

cuda_error:
	reply_eval_error(g, e, in_candidate);
cleanup:
	gpu_graph_destroy(&check);
	for (int i = 0; i < BENCH_MAX_COPIES; i++)
		gpu_graph_destroy(&timed[i]);
	if (!gpu_error_sticky(g))
		cudaFree(prep_check);   /* the prepared timing copies stay with the bench */
}

void worker_handle_eval(struct gpu *g, const struct kv *r)
{
	struct eval e;
	struct why w;
	if (get_eval(r, &e, &w)) {
		worker_reply_error(kv_get(r, "id"), w.text);
		return;
	}
	const struct tmpl *t = e.cand.tmpl;
	const char *reason = t->check ? t->check(&e.shape, e.cand.params) : NULL;
	if (reason) {
		reply_result(&e, "pruned", NULL, NULL, reason);
		return;
	}
	gpu_error_clear();
	run_eval(g, &e);
}
