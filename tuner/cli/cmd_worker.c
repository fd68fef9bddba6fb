/*
 * cmd_worker.c: `gemmtab worker [--device N]`, the one tuner process that
 * touches a GPU. It reads one request per line on stdin and answers each
 * with one line on stdout (tuner/sweep/proto.h); diagnostics go to stderr. A
 * CUDA error after which the context is unusable is answered with status
 * fault, and the worker then exits with status 3 so the supervisor starts
 * a fresh one; anything else is answered and the loop goes on.
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

#define DEFAULT_PAIRS 10

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
 * is gone; else launch_error when the candidate's part failed, and a
 * plain error when ours did. */
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
		reply_result(e, "launch_error", NULL, NULL, msg);
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

/*
 * GEMMTAB_CHECK_ONLY=1 in the worker's environment (read once, at start):
 * validate candidates against the FP64 reference and time nothing, so no
 * cuBLAS kernel runs in the process (compute-sanitizer's racecheck fails
 * inside cuBLAS's own kernels on the H200: tests/gpu/t_sanitizer.sh).
 * Results are "ok" with errors and no times, baselines all NaN: a
 * database for that run only.
 */
static int check_only;

static void run_eval(struct gpu *g, struct eval *e)
{
	const int timed_run = !check_only;
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

static void handle_eval(struct gpu *g, const struct kv *r)
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

/* --- baseline --- */

/* Validate the cuBLASLt algorithm and capture it over the timing copies.
 * Returns 0 (graphs built), 1 when it failed validation (desc extended),
 * -1 on a CUDA error. */
static int ready_lt(struct gpu *g, struct bench *b, struct lt_plan *lt, uint64_t seed,
		    cudaGraphExec_t *graphs)
{
	cudaGraphExec_t check = NULL;
	struct verdict v;
	if (validate_inputs(g, b, seed) ||
	    lt_capture(g, lt, b->vw, b->vx32 ? b->vx32 : b->vx, b->vy, &check))
		return -1;
	int rc = validate_graph(g, b, check, NULL, 0, &v);
	gpu_graph_destroy(&check);
	if (rc)
		return -1;
	if (!v.pass) {
		size_t used = strlen(lt->desc);
		snprintf(lt->desc + used, sizeof(lt->desc) - used, " failed validation: %s",
			 v.reason);
		return 1;
	}
	for (int i = 0; i < b->ncopies; i++)
		if (lt_capture(g, lt, b->w[i], b->x32[i] ? b->x32[i] : b->x[i], b->y[i],
			       &graphs[i]))
			return -1;
	return 0;
}

/* The baseline reply: cuBLAS's time, the cuBLASLt heuristic's time and
 * their paired ratio (NaN where not measured), the algorithm's text. */
static void reply_baseline(const char *id, double cublas_us, double lt_us, double ratio,
			   const char *algo)
{
	struct kv_out o;
	worker_begin(&o, "baseline", id);
	kv_addf(&o, "cublas_us", "%.4f", cublas_us);
	kv_addf(&o, "cublaslt_us", "%.4f", lt_us);
	kv_addf(&o, "ratio", "%.5f", ratio);
	kv_add(&o, "lt_algo", algo);
	worker_send(&o);
}

static void handle_baseline(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct shape s;
	struct why w;
	struct bench *b;
	struct lt_plan lt;
	struct pair_stats ps;
	cudaGraphExec_t graphs[BENCH_MAX_COPIES] = { 0 };
	int m, pairs = DEFAULT_PAIRS, lt_ok = 0;
	memset(&lt, 0, sizeof(lt));
	if (worker_get_shape(r, &s, 0, &w) || worker_get_int(r, "m", 1, MAX_M, &m, &w) ||
	    (kv_get(r, "pairs") && worker_get_int(r, "pairs", 1, MAX_PAIRS, &pairs, &w))) {
		worker_reply_error(id, w.text);
		return;
	}
	gpu_error_clear();
	if (check_only) {       /* nothing timed, no cuBLAS: see check_only */
		reply_baseline(id, NAN, NAN, NAN, "none (check only)");
		return;
	}
	if (worker_ready_bench(g, &s, m, worker_seed_of(r, &s, m, "baseline"), &b))
		goto cuda_error;
	int rc = lt_plan_create(g, &s, m, &lt);
	if (rc < 0)
		goto cuda_error;
	if (rc == 0) {
		rc = ready_lt(g, b, &lt, worker_seed_of(r, &s, m, "cublaslt"), graphs);
		if (rc < 0)
			goto cuda_error;
		lt_ok = rc == 0;
	}
	/* without a valid cuBLASLt algorithm, cuBLAS is paired with itself */
	if (bench_baseline_graphs(g, b) ||
	    timing_pairs(g, b->base_graph, lt_ok ? graphs : b->base_graph, b->ncopies, pairs, &ps))
		goto cuda_error;

	reply_baseline(id, ps.base_us, lt_ok ? ps.cand_us : NAN, lt_ok ? ps.ratio : NAN, lt.desc);
	goto cleanup;

cuda_error:
	worker_reply_cuda_error(g, id);
cleanup:
	for (int i = 0; i < BENCH_MAX_COPIES; i++)
		gpu_graph_destroy(&graphs[i]);
	lt_plan_destroy(&lt);
}

/* --- lt_algos: what the cuBLASLt heuristic proposes --- */

/* The most algorithms one lt_algos request may ask for, and the most it
 * names with their variants. */
#define LT_ALGOS_MAX 32
#define LT_NAMED_MAX 4096

/* The optional "splitk" of a request: 1 to PROTO_LT_SPLITK_MAX distinct
 * counts in [1, PROTO_LT_SPLITK_LIMIT], comma-separated (none without
 * it). */
static int get_splitk(const struct kv *r, struct lt_variation *v, struct why *w)
{
	const char *list = kv_get(r, "splitk"), *p = list;
	_Static_assert(PROTO_LT_SPLITK_MAX <= sizeof(v->splitk) / sizeof(v->splitk[0]),
		       "struct lt_variation holds a whole splitk list");
	v->nsplitk = 0;
	if (!list)
		return 0;
	do {
		char *end;
		long x = strtol(p, &end, 10);
		int fits = *p >= '0' && *p <= '9' && end != p && x >= 1 && x <= PROTO_LT_SPLITK_LIMIT &&
			   (*end == ',' ? end[1] != '\0' : !*end) && v->nsplitk < PROTO_LT_SPLITK_MAX;
		for (int i = 0; fits && i < v->nsplitk; i++)
			fits = v->splitk[i] != x;
		if (!fits)
			return worker_bad(w, "bad %s '%s': distinct split-K counts, comma-separated",
				   "splitk", list);
		v->splitk[v->nsplitk++] = (int)x;
		p = *end ? end + 1 : end;
	} while (*p);
	return 0;
}

/* The optional "vary" of a request: attribute names (a space's
 * cublaslt.vary: tile, stages, cluster, custom), comma-separated, into
 * v->what. */
static int get_vary(const struct kv *r, struct lt_variation *v, struct why *w)
{
	_Static_assert(LT_VARY_TILE == 1 << 0 && LT_VARY_STAGES == 1 << 1 &&
			       LT_VARY_CLUSTER == 1 << 2 && LT_VARY_CUSTOM == 1 << 3,
		       "space_lt_vary_names[i] is bit 1 << i");
	const char *list = kv_get(r, "vary"), *p = list;
	v->what = 0;
	if (!list)
		return 0;
	do {
		size_t len = strcspn(p, ",");
		unsigned bit = 0;
		for (unsigned i = 0; space_lt_vary_names[i]; i++)
			if (strlen(space_lt_vary_names[i]) == len &&
			    !strncmp(p, space_lt_vary_names[i], len))
				bit = 1u << i;
		if (!bit || (v->what & bit) || (p[len] == ',' && !p[len + 1]))
			return worker_bad(w, "bad %s '%s': distinct names of tile, stages, cluster, custom",
				   "vary", list);
		v->what |= bit;
		p += len + (p[len] == ',');
	} while (*p);
	return 0;
}

/* The optional "seeds" of a request: up to PROTO_LT_SEEDS_MAX algorithms'
 * attributes (lt_attr_names order) comma-separated, ';' between them (none
 * after the last), into seeds; *n their count (0 without it). */
static int get_seeds(const struct kv *r, long (*seeds)[LT_NATTRS], int *n, struct why *w)
{
	const char *list = kv_get(r, "seeds"), *p = list;
	/* worker_bad() formats two strings: the message names the limits as text */
	_Static_assert(PROTO_LT_SEEDS_MAX == 16 && LT_NATTRS == 9,
		       "get_seeds' message names both limits");
	*n = 0;
	if (!list)
		return 0;
	do {
		if (*n == PROTO_LT_SEEDS_MAX || lt_attrs_read(&p, seeds[*n], LT_NATTRS) ||
		    (p[-1] == ';' && !*p))
			return worker_bad(w, "bad %s '%s': at most 16 algorithms of 9 values, "
				   "comma-separated, ';' between them", "seeds", list);
		(*n)++;
	} while (*p);
	return 0;
}

/* Reply "count" and "algos": each algorithm's attributes (lt_attr_names
 * order) comma-separated, the algorithms ';'-separated, the heuristic's
 * best first, then the request's seeds cuBLASLt accepts, then the
 * variants of both (lt_vary), or of the seeds alone with seeds_only=1
 * (a later step of a climb: varying the proposals again would repeat
 * the first step's thousands of checks, and fill the list before the
 * seeds' variants, the step's only new ones). */
static void handle_lt_algos(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct shape s;
	struct why w;
	struct lt_variation v;
	int m, orient, max, nseeds, seeds_only = 0;
	static long attrs[LT_NAMED_MAX][LT_NATTRS];
	long seeds[PROTO_LT_SEEDS_MAX][LT_NATTRS];
	if (worker_get_shape(r, &s, 0, &w) || worker_get_int(r, "m", 1, MAX_M, &m, &w) ||
	    worker_get_int(r, "orient", 0, LT_NORIENTS - 1, &orient, &w) ||
	    worker_get_int(r, "max", 1, LT_ALGOS_MAX, &max, &w) || get_splitk(r, &v, &w) ||
	    get_vary(r, &v, &w) || get_seeds(r, seeds, &nseeds, &w) ||
	    (kv_get(r, "seeds_only") && worker_get_int(r, "seeds_only", 0, 1, &seeds_only, &w))) {
		worker_reply_error(id, w.text);
		return;
	}
	gpu_error_clear();
	int found = 0;
	if (CUBLAS_CHECK(lt_heuristic(g->lt, orient, s.n, s.k, m, STEP_LT_WS_BYTES, max, attrs,
				      &found))) {
		worker_reply_cuda_error(g, id);
		return;
	}
	/* the proposals stand whatever becomes of the seeds and variants */
	const int proposals = found;
	const char *vary_failed = NULL;
	cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
	for (int i = 0; i < nseeds && st == CUBLAS_STATUS_SUCCESS; i++)
		st = lt_seed(g->lt, orient, s.n, s.k, m, STEP_LT_WS_BYTES, seeds[i], attrs, &found,
			     LT_NAMED_MAX);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = lt_vary(g->lt, orient, s.n, s.k, m, STEP_LT_WS_BYTES, &v, attrs,
			     seeds_only ? proposals : 0, &found, LT_NAMED_MAX);
	if (st != CUBLAS_STATUS_SUCCESS) {
		vary_failed = cublasGetStatusString(st);
		found = proposals;
	}
	static char text[LT_NAMED_MAX * LT_NATTRS * 12];
	size_t used = 0;
	text[0] = '\0';
	/* 12 characters per value hold any int32 and its separator */
	for (int i = 0; i < found && used < sizeof(text); i++)
		for (int j = 0; j < LT_NATTRS && used < sizeof(text); j++)
			used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%ld",
						 j ? "," : i ? ";" : "", attrs[i][j]);
	struct kv_out o;
	worker_begin(&o, "lt_algos", id);
	kv_addf(&o, "count", "%d", found);
	if (found == LT_NAMED_MAX)
		kv_add(&o, "truncated", "1");
	if (vary_failed)
		kv_add(&o, "vary_error", vary_failed);
	/* algos is digits, ',' and ';' (nothing to escape), and thousands of
	 * variants outgrow a kv_out: it goes on the line after the rest */
	if (kv_send_tail(&o, "algos", text, stdout))
		die("cannot write a reply: %s", o.overflow ? "too long" : strerror(errno));
}

/* --- env, overhead, floor --- */

/* "13.0" from CUDA's 13000-style version numbers. */
static void cuda_version_text(int v, char *out, size_t len)
{
	snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}

static void handle_env(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct cudaDeviceProp prop;
	int sm_khz, mem_khz, drv, rt;
	char driver[16], cuda[16], cublas[32], cublaslt[32], uuid[64];
	gpu_error_clear();
	if (CUDA_CHECK(cudaGetDeviceProperties(&prop, g->device)) ||
	    CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, g->device)) ||
	    CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, g->device)) ||
	    CUDA_CHECK(cudaDriverGetVersion(&drv)) || CUDA_CHECK(cudaRuntimeGetVersion(&rt)) ||
	    blas_versions(g, cublas, cublaslt, sizeof(cublas))) {
		worker_reply_cuda_error(g, id);
		return;
	}
	const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
	/* nvidia-smi's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
	snprintf(uuid, sizeof(uuid),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	cuda_version_text(drv, driver, sizeof(driver));
	cuda_version_text(rt, cuda, sizeof(cuda));

	struct kv_out o;
	worker_begin(&o, "env", id);
	kv_add(&o, "gpu_name", prop.name);
	kv_add(&o, "gpu_uuid", uuid);
	kv_addf(&o, "sm_count", "%d", prop.multiProcessorCount);
	kv_addf(&o, "sm_clock_mhz", "%d", sm_khz / 1000);
	kv_addf(&o, "mem_clock_mhz", "%d", mem_khz / 1000);
	kv_addf(&o, "l2_bytes", "%d", prop.l2CacheSize);
	kv_addf(&o, "smem_optin", "%zu", prop.sharedMemPerBlockOptin);
	kv_addf(&o, "smem_sm", "%zu", prop.sharedMemPerMultiprocessor);
	kv_addf(&o, "smem_reserved", "%zu", prop.reservedSharedMemPerBlock);
	kv_add(&o, "driver", driver);
	kv_add(&o, "cuda", cuda);
	kv_add(&o, "nvrtc", jit_nvrtc_version());
	kv_add(&o, "cublas", cublas);
	kv_add(&o, "cublaslt", cublaslt);
	worker_send(&o);
}

static void handle_overhead(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct why w;
	int reps = TIMING_OVERHEAD_REPS;
	double us;
	if (kv_get(r, "pairs") && worker_get_int(r, "pairs", 1, MAX_PAIRS, &reps, &w)) {
		worker_reply_error(id, w.text);
		return;
	}
	gpu_error_clear();
	if (timing_overhead(g, reps, &us)) {
		worker_reply_cuda_error(g, id);
		return;
	}
	struct kv_out o;
	worker_begin(&o, "overhead", id);
	kv_addf(&o, "us", "%.4f", us);
	worker_send(&o);
}

static void handle_floor(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id"), *family = kv_get(r, "family");
	struct why w;
	struct floor_result f;
	uint64_t bytes;
	int reps = TIMING_OVERHEAD_REPS;
	if (worker_get_u64(r, "bytes", &bytes, &w) ||
	    (kv_get(r, "pairs") && worker_get_int(r, "pairs", 1, MAX_PAIRS, &reps, &w))) {
		worker_reply_error(id, w.text);
		return;
	}
	if (!bytes || bytes > MAX_WEIGHT_BYTES) {
		worker_reply_error(id, "bytes out of range");
		return;
	}
	gpu_error_clear();
	if (timing_floor(g, (size_t)bytes, reps, &f)) {
		worker_reply_cuda_error(g, id);
		return;
	}
	struct kv_out o;
	worker_begin(&o, "floor", id);
	kv_add(&o, "family", family ? family : "");
	kv_addf(&o, "bytes", "%" PRIu64, bytes);
	kv_addf(&o, "us", "%.4f", f.us);
	kv_addf(&o, "gbps", "%.1f", f.gbps);
	kv_add(&o, "config", f.config);
	worker_send(&o);
}

static const struct {
	const char *op;
	void (*fn)(struct gpu *g, const struct kv *r);
} requests[] = {
	{ "env", handle_env },
	{ "overhead", handle_overhead },
	{ "floor", handle_floor },
	{ "baseline", handle_baseline },
	{ "lt_algos", handle_lt_algos },
	{ "eval", handle_eval },
	{ "rt", worker_handle_rt },
};

static const char worker_usage[] = "usage: gemmtab worker [--device N | --count]";

/* The GPU of --device N (0 without it); -1 after --help, which prints
 * the usage, and after --count, which prints "devices N", the GPUs the
 * CUDA runtime sees (0 when it cannot start). */
static int parse_device(int argc, char **argv)
{
	long device = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("%s\n  (internal: gemmtab sweep, bench and probe start it and talk "
			       "to it over a pipe; tuner/sweep/proto.h has the protocol)\n", worker_usage);
			return -1;
		}
		if (!strcmp(argv[i], "--count")) {
			/* the supervisor's question for sweep --devices */
			printf("devices %d\n", gpu_count());
			return -1;
		}
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "--device=", 9))
			v = argv[i] + 9;
		else
			die("%s", worker_usage);
		char *end;
		errno = 0;
		device = strtol(v, &end, 10);
		if (!*v || *end || errno || device < 0 || device > 255)
			die("bad device '%s'", v);
	}
	return (int)device;
}

int cmd_worker(int argc, char **argv)
{
	struct gpu g;
	char *line = NULL;
	size_t cap = 0;
	int device = parse_device(argc, argv);
	if (device < 0)
		return 0;
	const char *only = getenv("GEMMTAB_CHECK_ONLY");
	check_only = only && !strcmp(only, "1");
	if (gpu_open(&g, device))
		die("cannot open cuda device %d", device);

	/* the supervisor set PR_SET_PDEATHSIG before exec; a worker whose
	 * supervisor is gone all the same (started by hand, or re-parented)
	 * does no more work */
	pid_t parent = getppid();
	while (getline(&line, &cap, stdin) > 0) {
		struct kv req;
		if (getppid() != parent)
			break;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (kv_parse(line, &req)) {
			worker_reply_error(NULL, "malformed request");
			continue;
		}
		int quit = !strcmp(req.op, "quit"), known = quit;
		for (size_t i = 0; i < ARRAY_SIZE(requests) && !known; i++)
			if (!strcmp(req.op, requests[i].op)) {
				requests[i].fn(&g, &req);
				known = 1;
			}
		if (!known) {
			char reason[64];
			snprintf(reason, sizeof(reason), "unknown request '%.32s'", req.op);
			worker_reply_error(kv_get(&req, "id"), reason);
		}
		kv_free(&req);
		if (quit)
			break;
	}
	free(line);
	bench_free(g.bench);
	g.bench = NULL;
	gpu_modules_free(&g);
	gpu_close(&g);
	return 0;
}
