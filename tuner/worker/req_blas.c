/*
 * req_blas.c: the worker's cuBLAS requests: "baseline" (cuBLAS and the
 * cuBLASLt heuristic's first algorithm, validated and timed in pairs) and
 * "lt_algos" (what the cuBLASLt heuristic proposes, with the variants a
 * space asks for) (worker.h).
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

void worker_handle_baseline(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct shape s;
	struct why w;
	struct bench *b;
	struct lt_plan lt;
	struct pair_stats ps;
	cudaGraphExec_t graphs[BENCH_MAX_COPIES] = { 0 };
	int m, pairs = WORKER_DEFAULT_PAIRS, lt_ok = 0;
	memset(&lt, 0, sizeof(lt));
	if (worker_get_shape(r, &s, 0, &w) || worker_get_int(r, "m", 1, MAX_M, &m, &w) ||
	    (kv_get(r, "pairs") && worker_get_int(r, "pairs", 1, MAX_PAIRS, &pairs, &w))) {
		worker_reply_error(id, w.text);
		return;
	}
	gpu_error_clear();
	if (worker_check_only) {       /* nothing timed, no cuBLAS (worker.h) */
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
void worker_handle_lt_algos(struct gpu *g, const struct kv *r)
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
