/*
 * worker_rt.c: the worker's "rt" request, what `gemmtab bench` measures:
 * libgemmtab itself (its compiled-in dispatch table, its kernels, its
 * cuBLAS fallback) through the public API, validated against the FP64
 * reference and timed paired against the baseline by the same harness that
 * times candidates.
 *
 *   rt id= family= n= k= w= x= y= tol= m= pairs= seed=
 *      [floor_blocks= floor_unroll=]
 *   -> result id= status=ok|fail err_global= err_row= base_us= cand_us=
 *      ratio= ratio_lo= ratio_hi= pairs= explain=
 *      [floor_us= floor_lib_us= floor_frac= floor_frac_lo= floor_frac_hi=]
 *
 * With floor_blocks (blocks per SM) and floor_unroll (4 or 8), the probe's
 * streaming read of the weight's bytes (harness_stream_read over the same
 * weight copies, that configuration; the bench's own copy count, not the
 * probe's) is also timed paired against the library's graphs, in a second
 * batch right after the first: floor_us and floor_lib_us are that batch's
 * median net times of the read and of the library, floor_frac the median
 * of its per-pair ratios floor / library, so the floor fraction comes from
 * one process, one batch and one overhead figure, as a speedup does. A
 * read that fails without breaking the context leaves the reply ok,
 * without the floor's fields.
 */
#include "harness.h"
#include "stats.h"
#include "util.h"
#include "worker.h"
#include "bench.h"
#include "validate.h"
#include "timing.h"
#include "baseline.h"

#include "../../runtime/gemmtab.h"

#include <stdio.h>
#include <string.h>

static gt_context *rt_ctx;

static int rt_check(int st, const char *what)
{
	if (st == GT_OK)
		return 0;
	return gpu_fail("%s: %s", what, gt_status_string(st));
}

/* Prepare a weight over w and capture gt_linear(x -> y) into a graph on
 * the worker's stream. w was just filled on that stream; the prepare waits
 * for the whole device before it reads w (runtime/weight.c), and makes its
 * re-layouts on the worker's stream too: made on the legacy stream, they
 * left every two-kernel graph timed after them (the baseline's split-K
 * pair, the router's plans) ~0.3 us slower than the sweep reads it (runs
 * 126-128 and 139-152). */
static int rt_capture(struct gpu *g, const struct shape *s, int m, void *w, void *x,
		      void *y, gt_weight **wt, cudaGraphExec_t *exec)
{
	if (rt_check(gt_weight_prepare_on(rt_ctx, w, s->n, s->k, (gt_dtype)s->w, (gt_dtype)s->x,
					  (gt_dtype)s->y, g->stream, wt),
		     "gt_weight_prepare_on"))
		return -1;
	if (gpu_capture_begin(g))
		return -1;
	int st = gt_linear(*wt, x, m, y, g->stream);
	if (gpu_capture_end(g, st != GT_OK, exec))
		return -1;
	return rt_check(st, "gt_linear");
}

/* The library context an rt request uses, created on first use. */
static int worker_rt_context(struct gpu *g)
{
	if (!rt_ctx && rt_check(gt_context_create(g->device, &rt_ctx), "gt_context_create"))
		return -1;
	return 0;
}


static void reply(const char *id, const char *status, const struct verdict *v,
		  const struct pair_stats *ps, const struct pair_stats *fs, const char *explain)
{
	struct kv_out o;
	worker_begin(&o, "result", id);
	kv_add(&o, "status", status);
	worker_add_figures(&o, v, ps);
	if (fs) {
		kv_addf(&o, "floor_us", "%.4f", fs->base_us);
		kv_addf(&o, "floor_lib_us", "%.4f", fs->cand_us);
		kv_addf(&o, "floor_frac", "%.5f", fs->ratio);
		kv_addf(&o, "floor_frac_lo", "%.5f", fs->ratio_lo);
		kv_addf(&o, "floor_frac_hi", "%.5f", fs->ratio_hi);
	}
	if (!ps)
		kv_add(&o, "reason", v->reason);
	kv_add(&o, "explain", explain);
	worker_send(&o);
}

void worker_handle_rt(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct shape s;
	struct why w;
	int m, pairs;
	struct bench *b;
	struct verdict v;
	struct pair_stats ps, fs;
	char explain[512] = "";
	int floor_blocks = 0, floor_unroll = 0;
	gt_weight *check_wt = NULL, *wts[BENCH_MAX_COPIES] = { 0 };
	cudaGraphExec_t check = NULL, timed[BENCH_MAX_COPIES] = { 0 };
	cudaGraphExec_t floor[BENCH_MAX_COPIES] = { 0 };

	if (worker_get_shape(r, &s, 1, &w) || worker_get_int(r, "m", 1, MAX_M, &m, &w) ||
	    worker_get_int(r, "pairs", 1, MAX_PAIRS, &pairs, &w) ||
	    ((kv_get(r, "floor_blocks") || kv_get(r, "floor_unroll")) &&
	     (worker_get_int(r, "floor_blocks", 1, FLOOR_MAX_BLOCKS_PER_SM, &floor_blocks, &w) ||
	      worker_get_int(r, "floor_unroll", 4, 8, &floor_unroll, &w)))) {
		worker_reply_error(id, w.text);
		return;
	}
	if (floor_unroll && !floor_config_valid(floor_blocks, floor_unroll)) {
		worker_reply_error(id, "floor_unroll must be 4 or 8");
		return;
	}
	gpu_error_clear();
	if (worker_rt_context(g))
		goto cuda_error;
	if (worker_ready_bench(g, &s, m, worker_seed_of(r, &s, m, "rt-baseline"), &b) ||
	    validate_inputs(g, b, worker_seed_of(r, &s, m, "rt")) ||
	    rt_capture(g, &s, m, b->vw, b->vx, b->vy, &check_wt, &check) ||
	    validate_graph(g, b, check, NULL, 0, &v))
		goto cuda_error;
	gt_weight_explain(check_wt, m, explain, sizeof(explain));
	if (!v.pass) {
		reply(id, "fail", &v, NULL, NULL, explain);
		goto cleanup;
	}
	if (bench_baseline_graphs(g, b))
		goto cuda_error;
	for (int i = 0; i < b->ncopies; i++)
		if (rt_capture(g, &s, m, b->w[i], b->x[i], b->y[i], &wts[i], &timed[i]))
			goto cuda_error;
	if (timing_pairs(g, b->base_graph, timed, b->ncopies, pairs, &ps))
		goto cuda_error;
	int floor_ok = floor_blocks && !timing_capture_read(g, b->w, b->ncopies, b->w_bytes,
							     floor_blocks * g->sm_count, floor_unroll,
							     floor) &&
		       !timing_pairs(g, floor, timed, b->ncopies, pairs, &fs);
	if (floor_blocks && !floor_ok) {
		/* the library's figures stand; the floor's are left out */
		if (gpu_error_sticky(g))
			goto cuda_error;
		gpu_error_clear();
	}
	reply(id, "ok", &v, &ps, floor_ok ? &fs : NULL, explain);
	goto cleanup;
cuda_error:
	worker_reply_cuda_error(g, id);
cleanup:
	gpu_graph_destroy(&check);
	gt_weight_destroy(check_wt);
	for (int i = 0; i < BENCH_MAX_COPIES; i++) {
		gpu_graph_destroy(&timed[i]);
		gpu_graph_destroy(&floor[i]);
		gt_weight_destroy(wts[i]);
	}
}
