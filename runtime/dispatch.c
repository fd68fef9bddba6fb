/*
 * dispatch.c: the runtime's dispatch decisions, as pure functions over the
 * table a device uses (choose.c picks it): which entries serve a weight
 * and whether each is well formed (its template known, its parameters legal for the shape, its launch
 * plan sound at every M it covers), which entry a given M uses, and the
 * one-line explanation of that choice. No CUDA calls: the CPU tests run
 * every branch.
 */
#include "rt.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An entry's range is checked at every M up to this many (tables cover
 * the tuned Ms, a few hundred at most); a longer range is checked at its
 * ends only, so a malformed table cannot stall gt_weight_prepare. */
#define RT_PLAN_SCAN 4096

void rt_shape_init(struct shape *s, int n, int k, gt_dtype w, gt_dtype x, gt_dtype y)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->k = k;
	s->w = w == GT_FP32 ? DT_FP32 : DT_BF16;
	s->x = x == GT_FP32 ? DT_FP32 : DT_BF16;
	s->y = y == GT_FP32 ? DT_FP32 : DT_BF16;
}

static const char *text_or(const char *s, const char *fallback)
{
	return s && *s ? s : fallback;
}

void rt_route_disable(struct rt_route *r, const char *fmt, ...)
{
	if (!r->usable)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->usable = 0;
}

static int entry_matches(const struct gt_table_entry *e, const struct shape *s)
{
	return e->n == s->n && e->k == s->k && e->w == (int)s->w && e->x == (int)s->x &&
	       e->y == (int)s->y;
}

/* Checks of one kernel step of route r that the launcher relies on. */
static int step_ok(const struct rt_route *r, const struct shape *s,
		   const struct launch_step *st, int nkernels)
{
	const struct gt_table_entry *e = r->e;
	if (st->kernel < 0 || st->kernel >= e->nkernels)
		return 0;
	int k = e->kernel[st->kernel];
	if (k < 0 || k >= nkernels)
		return 0;
	for (int d = 0; d < 3; d++)
		if (!st->grid[d] || !st->block[d])
			return 0;
	if (st->nargs < 0 || st->nargs > PLAN_MAX_ARGS)
		return 0;
	for (int a = 0; a < st->nargs; a++) {
		const struct launch_arg *arg = &st->args[a];
		switch (arg->kind) {
		case ARG_W: case ARG_X: case ARG_Y: case ARG_WS: case ARG_SYNC:
		case ARG_M: case ARG_N: case ARG_K:
			break;
		case ARG_PREP:  /* a kernel reads the prepared weight: there must be one */
			if (!relayout_bytes(&r->relayout, s))
				return 0;
			break;
		case ARG_INT:
			if (arg->value < INT32_MIN || arg->value > INT32_MAX)
				return 0;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* The route workspace a plan needs: none for a plan of cuBLASLt steps
 * alone, which run in the weight's cuBLAS workspace (RT_BLAS_WS_BYTES, as
 * large as the STEP_LT_WS_BYTES the tuner timed them with). */
static size_t plan_route_ws(const struct launch_plan *p)
{
	for (int i = 0; i < p->nsteps; i++)
		if (p->steps[i].kind != STEP_LT)
			return p->ws_bytes;
	return 0;
}

int rt_plan(const struct rt_route *r, const struct shape *s, int m, int nkernels,
	    size_t ws_limit, struct launch_plan *plan)
{
	if (!r->t || r->t->plan(s, r->e->params, m, plan))
		return -1;
	if (plan->nsteps < 1 || plan->nsteps > PLAN_MAX_STEPS || plan_route_ws(plan) > ws_limit ||
	    plan_pdl_misplaced(plan) >= 0)
		return -1;
	size_t y_bytes = (size_t)m * (size_t)s->n * dtype_size(s->y);
	for (int i = 0; i < plan->nsteps; i++) {
		const struct launch_step *st = &plan->steps[i];
		switch (st->kind) {
		case STEP_KERNEL:
			if (!step_ok(r, s, st, nkernels))
				return -1;
			break;
		case STEP_MEMSET_Y:
			if (st->bytes > y_bytes)
				return -1;
			break;
		case STEP_MEMSET_WS:
			if (st->bytes > plan->ws_bytes)
				return -1;
			break;
		case STEP_GEMM_BF16:
			if (!plan_gemm_fits(st, s->n, s->k, relayout_bytes(&r->relayout, s)))
				return -1;
			break;
		case STEP_LT:   /* the algorithm itself is checked at prepare (rt_lt_check) */
			if (st->lt[0] < 0 || st->lt[0] >= STEP_LT_ORIENTS)
				return -1;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/* Check the plan at m and keep the largest workspace and counters;
 * 0 or -1. */
static int check_at(struct rt_route *r, const struct shape *s, int m, int nkernels,
		    size_t *ws)
{
	struct launch_plan plan;
	if (rt_plan(r, s, m, nkernels, SIZE_MAX, &plan)) {
		rt_route_disable(r, "no well-formed launch plan at m=%d", m);
		return -1;
	}
	if (plan_route_ws(&plan) > *ws)
		*ws = plan_route_ws(&plan);
	if (plan.sync_bytes > r->sync_bytes)
		r->sync_bytes = plan.sync_bytes;
	for (int i = 0; i < plan.nsteps; i++)
		r->lt |= plan.steps[i].kind == STEP_LT;
	return 0;
}

/* The static checks of rt_route_check before the plan scan: NULL when
 * the entry is well formed, else the reason (in buf). */
static const char *entry_problem(struct rt_route *r, const struct shape *s, int nkernels,
				 char *buf, size_t len)
{
	const struct gt_table_entry *e = r->e;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	if (e->m_lo < 1 || e->m_lo > e->m_hi) {
		snprintf(buf, len, "empty or invalid m range %d-%d", e->m_lo, e->m_hi);
		return buf;
	}
	if (!r->t) {
		snprintf(buf, len, "template '%s' is not compiled into this library",
			 text_or(e->tmpl, "(null)"));
		return buf;
	}
	if (r->t->nparams > GT_TABLE_MAX_PARAMS)
		return "its template has more parameters than a table entry holds";
	const char *bad = r->t->check(s, e->params);
	if (bad) {
		snprintf(buf, len, "parameters illegal for this shape: %s", bad);
		return buf;
	}
	int want = r->t->kernels(s, e->params, names, TMPL_MAX_KERNELS);
	if (e->nkernels < 0 || e->nkernels > GT_TABLE_MAX_KERNELS || want != e->nkernels) {
		snprintf(buf, len, "names %d kernels, its template launches %d", e->nkernels,
			 want);
		return buf;
	}
	for (int i = 0; i < e->nkernels; i++)
		if (e->kernel[i] < 0 || e->kernel[i] >= nkernels) {
			snprintf(buf, len, "kernel index %d outside the %d compiled kernels",
				 e->kernel[i], nkernels);
			return buf;
		}
	return NULL;
}

void rt_route_check(struct rt_route *r, const struct shape *s, int nkernels)
{
	const struct gt_table_entry *e = r->e;
	char buf[RT_WHY_MAX];
	size_t *ws = &r->ws_bytes;
	*ws = 0;
	r->sync_bytes = 0;
	r->lt = 0;
	r->usable = 1;
	r->why[0] = '\0';
	r->t = e->tmpl ? tmpl_find(e->tmpl) : NULL;
	r->relayout = (struct relayout){ RELAYOUT_NONE, 0, 0 };
	const char *problem = entry_problem(r, s, nkernels, buf, sizeof(buf));
	if (problem) {
		rt_route_disable(r, "%s", problem);
		return;
	}
	r->relayout = tmpl_relayout(r->t, e->params);
	long span = (long)e->m_hi - e->m_lo + 1;
	if (span <= RT_PLAN_SCAN) {
		for (long i = 0; i < span; i++)
			if (check_at(r, s, (int)(e->m_lo + i), nkernels, ws))
				break;
	} else if (!check_at(r, s, e->m_lo, nkernels, ws)) {
		check_at(r, s, e->m_hi, nkernels, ws);
	}
	if (!r->usable)
		*ws = r->sync_bytes = 0;
}

int rt_routes_collect(const struct gt_table *t, const struct shape *s, int nkernels,
		      struct rt_route **out)
{
	int count = 0, used = 0;
	*out = NULL;
	for (int i = 0; i < t->nentries; i++)
		count += entry_matches(&t->entries[i], s);
	if (!count)
		return 0;
	struct rt_route *routes = calloc((size_t)count, sizeof(*routes));
	if (!routes)
		return -1;
	for (int i = 0; i < t->nentries; i++) {
		if (!entry_matches(&t->entries[i], s))
			continue;
		struct rt_route *r = &routes[used++];
		r->index = i;
		r->e = &t->entries[i];
		rt_route_check(r, s, nkernels);
	}
	*out = routes;
	return count;
}

const struct rt_route *rt_route_find(const struct rt_route *routes, int n, int m)
{
	for (int i = 0; i < n; i++)
		if (routes[i].e->m_lo <= m && m <= routes[i].e->m_hi)
			return &routes[i];
	return NULL;
}

/* "gemv warps=16,rows=4,..." for an entry, or its stem alone. */
static void describe_entry(const struct rt_route *r, char *buf, size_t len)
{
	const char *stem = text_or(r->e->tmpl, "(null)");
	if (!r->t || r->t->nparams > MAX_PARAMS) {
		snprintf(buf, len, "%s", stem);
		return;
	}
	struct candidate c = { .tmpl = r->t };
	char key[RT_WHY_MAX];
	memcpy(c.params, r->e->params, sizeof(long) * (size_t)r->t->nparams);
	snprintf(buf, len, "%s %s", stem, candidate_key(&c, key, sizeof(key)));
}

/* What the baseline runs for s, in words, into buf. */
static const char *baseline_text(const struct shape *s, char *buf, size_t len)
{
	if (s->w == DT_FP32)
		snprintf(buf, len, "baseline (x to fp32 in chunks of %d rows, cublasGemmEx fp32, "
			 "compute 32F, no TF32)", RT_X32_CHUNK_ROWS);
	else
		snprintf(buf, len, "baseline (cublasGemmEx bf16, compute 32F)");
	return buf;
}

void rt_cluster_note(long clusters, int size, int fit, int m, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (fit <= 0 || clusters <= fit)
		return;
	snprintf(buf, len, "at m=%d its %ld clusters of %d blocks take %ld waves on this GPU "
		 "(%d fit at once)", m, clusters, size, (clusters + fit - 1) / fit, fit);
}

void rt_explain(const struct shape *s, const struct rt_route *r, int m,
		unsigned long misaligned, unsigned long refused, char *buf, size_t len)
{
	char entry[RT_WHY_MAX + TMPL_NAME_MAX], base[RT_WHY_MAX];
	if (!r) {
		snprintf(buf, len, "m=%d: %s: no table entry for n=%d k=%d %s*%s->%s covers "
			 "m=%d", m, baseline_text(s, base, sizeof(base)), s->n, s->k,
			 dtype_name(s->w), dtype_name(s->x), dtype_name(s->y), m);
		return;
	}
	describe_entry(r, entry, sizeof(entry));
	if (!r->usable) {
		snprintf(buf, len, "m=%d: %s: entry %d (%s) not used: %s", m,
			 baseline_text(s, base, sizeof(base)), r->index, entry, r->why);
		return;
	}
	int used = snprintf(buf, len, "m=%d: entry %d (%s, m %d-%d, retest ratio >= %.3f over "
			    ">= %d pairs); calls with x or y not %d-byte aligned run the "
			    "baseline", m, r->index, entry, r->e->m_lo, r->e->m_hi,
			    r->e->ratio_min, r->e->pairs_min, RT_VECTOR_ALIGN);
	if (misaligned && used > 0 && (size_t)used < len)
		used += snprintf(buf + used, len - (size_t)used, " (%lu calls so far)", misaligned);
	if (refused && used > 0 && (size_t)used < len)
		used += snprintf(buf + used, len - (size_t)used, "; cuBLASLt refused its step in "
				 "%lu calls, which ran the baseline", refused);
	if (r->note[0] && used > 0 && (size_t)used < len)
		snprintf(buf + used, len - (size_t)used, "; %s", r->note);
}
