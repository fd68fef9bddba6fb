/*
 * price.c: the dry run's GPU estimate, priced request by request with
 * the cost model the modelled GPU charges (costmodel.h: the fixed cost of
 * an eval, its FP64 reference, its pairs at the two kernels' times), for
 * the method the sweep would use (--search dense or new).
 *
 * With no GPU, a kernel's time is estimated from the shape: W's bytes and
 * X's and Y's over the profile's practical bandwidth at cuBLAS's read
 * efficiency, or the tensor cores' time where that is longer. A screened
 * candidate is taken to run PRICE_SCREEN_SLOWER times the baseline (most
 * screens end far behind it; issue 43), a finalist
 * PRICE_FINALIST_SLOWER times.
 */
#include "engine.h"
#include "grid.h"
#include "costmodel.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Practical read bandwidth (0.93 of the data sheet's, as `gemmtab probe`
 * measured it on an H200: docs/guide.md, "The fake worker and the
 * modelled GPU") and BF16 dense tensor-core peak */
#define PRICE_BW_H200 (0.93 * 4.8e12)
#define PRICE_BW_H100 (0.93 * 3.35e12)
#define PRICE_TC_FLOPS 989e12
/* cuBLAS's read efficiency at small M, and of the tensor-core peak */
#define PRICE_READ_EFF 0.78
#define PRICE_TC_EFF 0.78
/* A screened candidate against the baseline, on average, and a finalist
 * (the range phase times each anchor's across its window, where others
 * win) */
#define PRICE_SCREEN_SLOWER 1.4
#define PRICE_FINALIST_SLOWER 1.15
/* The values cuBLASLt takes of an attribute `vary` names, besides the
 * proposal's own; and what each further cuBLASLt step adds, as a share
 * of the first step's variants, to the screens and to the dense range
 * phase: bench-search's sweep of search_spaces/h200.yaml (the heuristic
 * named 8,145 candidates with 24 proposals at each of the 8 points from
 * m = 128, steps 2 and 3 named 2,780 and 1,879; its dense range phase
 * timed 17,625 retests against 11,589 counted for one step) */
#define PRICE_VARY_VALUES 7.75
#define PRICE_STEP_ADDS 0.3
#define PRICE_STEP_RANGED 0.26
/* Of the finalists of a further anchor whose window holds an M, the
 * share not among the first's (the range phase times each once): in
 * bench-search's Llama-3-8B dense sweep 12,188 range and anchor retests
 * against 15,900 counted without sharing */
#define PRICE_SHARED 0.5
/* Of the cuBLASLt algorithms a neighbour anchor names, the share an
 * anchor from CROSS_WIDE_MIN_M on has not screened (spans.c,
 * cross_neighbours) */
#define PRICE_CROSS_NEW 0.8
/* Of a thin anchor's template candidates, the share it screens (search.c,
 * thin_keep): make bench-search's Llama-3-8B space kept 0.63 to 0.81 at
 * M = 2, 8 and 32, about 0.85 at 128 and 512 */
#define PRICE_THIN_KEPT 0.7
/* The new search's races: finalists a point races, those retested */
#define PRICE_RACED 5.0
#define PRICE_RETESTED 1.3
/* Segments whose ends have different winners, each retested at the
 * other end (spans.c's bridge): a share of the segments (make
 * bench-search's Llama-3-8B space: 11 of 140) */
#define PRICE_BRIDGED 0.08
/* Its held-out Ms that lose, or segments with no candidate winning at
 * both ends after the bridge, whose Ms between are then all raced: a
 * share of the segments (the Llama-3-8B space: 1 of 140; odd shapes: 6
 * of 84) */
#define PRICE_FILLED 0.04

/* The cuBLASLt variants of all its steps over those of the first */
static double lt_steps(const struct sweep *sw)
{
	const struct lt_search *lt = &sw->sp->lt;
	return lt->vary_steps > 1 ? 1 + PRICE_STEP_ADDS * (lt->vary_steps - 1) : 1;
}

/* The baseline's time at shape s and m, in microseconds. */
static double kernel_us(const struct sweep *sw, const struct shape *s, int m)
{
	const double bw = strstr(sw->sp->dev.name, "H100") ? PRICE_BW_H100 : PRICE_BW_H200;
	const double bytes = (double)s->n * s->k * (double)dtype_size(s->w) +
			     (double)m * (s->k * (double)dtype_size(s->x) + s->n * (double)dtype_size(s->y));
	const double mem = bytes / (bw * PRICE_READ_EFF) * 1e6;
	const double comp = 2.0 * (m < 16 ? 16 : m) * s->n * (double)s->k /
			    (PRICE_TC_FLOPS * PRICE_TC_EFF) * 1e6;
	return 2.0 + fmax(mem, comp) + fmin(mem, comp) / 3;
}

/* One eval of pairs pairs at m, the candidate slower times the baseline. */
static double eval_s(const struct sweep *sw, const struct shape *s, int m, int pairs,
		     double slower)
{
	const double b = kernel_us(sw, s, m);
	return costmodel_eval_s(pairs, b, b * slower, s->n, s->k, m);
}

/* A baseline request at m (cuBLAS against cuBLASLt, validated once). */
static double baseline_s(const struct sweep *sw, const struct shape *s, int m)
{
	return eval_s(sw, s, m, 2 * sw->sp->sweep.screen_pairs, 1.02);
}

/* The candidates a point screens: its runnable tasks, and the cuBLASLt
 * heuristic's proposals with the split-K variants it takes. */
static long point_screens(const struct sweep *sw, int si, int m)
{
	const struct lt_search *lt = &sw->sp->lt;
	long n = sweep_point_runnable(sw, si, m, 0);
	if (!lt->top || !lt_varies(lt) || (lt->vary_min_m && m < lt->vary_min_m) ||
	    !sweep_point_runnable(sw, si, m, sw->tl->n))
		return n;
	int nvary = 0;
	for (const char *c = lt->vary; *c; c++)
		nvary += c == lt->vary || c[-1] == ',';
	const double each = (lt->nsplitk ? lt->nsplitk - 1 : 0) + nvary * PRICE_VARY_VALUES;
	return n + (long)(lt->top * lt->norients * each * lt_steps(sw));
}

/* The finalists the dense range phase times at M m of range shape si. */
static double dense_finalists(const struct sweep *sw, int si, int m)
{
	const struct shape *s = &sw->sp->shapes[si];
	double at = 0;
	for (int j = 0; j < s->n_ms; j++)
		if (sweep_anchor_covers(s, j, m)) {
			const long n = point_screens(sw, si, s->ms[j]);
			const int fin = n < sw->sp->sweep.range_top ? (int)n : sw->sp->sweep.range_top;
			at += at > 0 ? PRICE_SHARED * fin : fin;
		}
	return at;
}

/* The screens of shape si at anchor m with pairs pairs: each runnable
 * task at PRICE_SCREEN_SLOWER times the baseline, or a GEMV at its
 * passes over W when W outgrows L2 (with prune, one that cannot beat
 * the baseline so is not run), share of them (a thin anchor screens
 * some: PRICE_THIN_KEPT), and the cuBLASLt variants. Their count is added
 * to p->screens. */
static double screens_s(const struct sweep *sw, int si, int m, int pairs, int prune, double share,
			struct sweep_price *p)
{
	const struct shape *s = &sw->sp->shapes[si];
	const double base = kernel_us(sw, s, m), wbytes = (double)s->n * s->k * (double)dtype_size(s->w);
	const double floor = wbytes / (strstr(sw->sp->dev.name, "H100") ? PRICE_BW_H100 : PRICE_BW_H200) * 1e6;
	double n = 0, t = 0;
	for (int i = 0; i < sw->tl->n; i++) {
		const struct task *k = &sw->tl->t[i];
		if (k->shape != si || k->m != m || k->pruned)
			continue;
		const int tok = tmpl_param_index(k->cand.tmpl, "tokens");
		double us = base * PRICE_SCREEN_SLOWER;
		if (!strcmp(k->cand.tmpl->stem, "gemv") && tok >= 0 && wbytes > sw->sp->dev.l2_bytes) {
			const long passes = (m + k->cand.params[tok] - 1) / (k->cand.params[tok] > 0 ? k->cand.params[tok] : 1);
			if (prune && passes * floor > base)
				continue;
			us = fmax(us, passes * floor / 0.9);
		}
		t += share * costmodel_eval_s(pairs, base, us, s->n, s->k, m);
		n += share;
	}
	const long lt = point_screens(sw, si, m) - sweep_point_runnable(sw, si, m, 0) +
			sweep_point_runnable(sw, si, m, sw->tl->n);
	p->screens += (long)n + lt;
	return t + lt * eval_s(sw, s, m, pairs, PRICE_SCREEN_SLOWER);
}

/* The dense method at shape si: screens, retests around each anchor,
 * every M of the range with its anchors' finalists (the range phase runs
 * again at each cuBLASLt step, for the finalists the step adds). */
static double dense_shape_s(const struct sweep *sw, int si, struct sweep_price *p)
{
	const struct shape *s = &sw->sp->shapes[si];
	const struct sweep_settings *ss = &sw->sp->sweep;
	double t = 0;
	int ms[2 * MAX_MS + 3];
	for (int j = 0; j < s->n_ms; j++) {
		const long n = point_screens(sw, si, s->ms[j]);
		const int top = n < ss->retest_top ? (int)n : ss->retest_top;
		if (!n)
			continue;   /* nothing to screen: no baseline either */
		t += baseline_s(sw, s, s->ms[j]) + screens_s(sw, si, s->ms[j], ss->screen_pairs, 0, 1, p);
		const int nms = sweep_retest_ms(s, s->ms[j], ms);
		for (int q = 0; q < nms; q++)
			t += top * eval_s(sw, s, ms[q], ss->retest_pairs, PRICE_FINALIST_SLOWER);
		p->retests += (long)top * nms;
	}
	if (!shape_is_range(s))
		return t;
	for (int m = s->m_lo; m <= s->m_hi; m++) {
		const double at = dense_finalists(sw, si, m);
		if (at <= 0)
			continue;
		const double steps = 1 + PRICE_STEP_RANGED * (lt_steps(sw) > 1 ? sw->sp->lt.vary_steps - 1 : 0);
		t += baseline_s(sw, s, m) + at * steps * eval_s(sw, s, m, ss->range_pairs, PRICE_FINALIST_SLOWER);
		p->ranged += (long)(at * steps);
	}
	return t;
}

/* A race at m: PRICE_RACED finalists (at most n) for a round of 10
 * pairs, PRICE_RETESTED of them with retest pairs. */
static double race_s(const struct sweep *sw, const struct shape *s, int m, double n,
		     struct sweep_price *p)
{
	const double raced = n < PRICE_RACED ? n : PRICE_RACED;
	const double kept = raced < PRICE_RETESTED ? raced : PRICE_RETESTED;
	p->retests += (long)ceil(kept);
	return (raced > 1 ? raced * eval_s(sw, s, m, 10, 1.05) : 0) +
	       kept * eval_s(sw, s, m, sw->sp->sweep.retest_pairs, PRICE_FINALIST_SLOWER);
}

/* The templates whose screens shape si's plan at anchor m keeps the best
 * of (spans.c, SEARCH_CARRY): those of its runnable tasks, and blas_lt
 * where cuBLASLt names candidates (a bf16 shape); SPAN_TMPLS at most. */
static int point_templates(const struct sweep *sw, int si, int m)
{
	const struct tmpl *seen[SPAN_TMPLS];
	const struct shape *s = &sw->sp->shapes[si];
	const int lt = sw->sp->lt.top && s->w == DT_BF16 && s->x == DT_BF16 && s->y == DT_BF16;
	int n = 0;
	for (int i = 0; i < sw->tl->n && n + lt < SPAN_TMPLS; i++) {
		const struct task *t = &sw->tl->t[i];
		int known = 0;
		if (t->shape != si || t->m != m || t->pruned)
			continue;
		for (int a = 0; a < n; a++)
			known |= seen[a] == t->cand.tmpl;
		if (!known)
			seen[n++] = t->cand.tmpl;
	}
	return n + lt;
}

/* The finalists range shape si's plan keeps at anchor j (spans.c,
 * plan_init): the range_top + 1 best screens, and with SEARCH_CARRY the
 * best SPAN_CARRY_EACH of each template, the best overall among them
 * (so as many as the larger), as many as the anchor screens at most. */
static double plan_finalists(const struct sweep *sw, int si, int j)
{
	const struct shape *s = &sw->sp->shapes[si];
	const double n = (double)point_screens(sw, si, s->ms[j]);
	double f = sw->sp->sweep.range_top + 1;
	if (sw->parts & SEARCH_CARRY)
		f = fmax(f, SPAN_CARRY_EACH * point_templates(sw, si, s->ms[j]));
	return fmin(f, n);
}

/* The pool a grid M m of range shape si races (spans.c, pool_at): the
 * finalists of the anchors whose windows hold m, the first anchor's
 * whole and PRICE_SHARED of a further one's (neighbour anchors share
 * finalists: tests/spaces/search.yaml races 5 a grid M, where two whole
 * anchors would price 8), and, past the last anchor with SEARCH_CROSS,
 * the range end's best cuBLASLt screens. The carried bests of the grid
 * M before are taken to be among those anchors' finalists (make
 * bench-search's reference space races 17 to 20 at qkv's grid Ms 9..64;
 * the carried ones outside are not counted). */
static double grid_pool(const struct sweep *sw, int si, int m)
{
	const struct shape *s = &sw->sp->shapes[si];
	double pool = 0;
	for (int j = 0; j < s->n_ms; j++)
		if (sweep_anchor_covers(s, j, m)) {
			const double f = plan_finalists(sw, si, j);
			pool += pool > 0 ? PRICE_SHARED * f : f;
		}
	if (sw->parts & SEARCH_CROSS && m > s->ms[s->n_ms - 1] && sw->sp->lt.top &&
	    s->w == DT_BF16 && s->x == DT_BF16 && s->y == DT_BF16)
		pool += SPAN_CARRY_EACH;
	return pool;
}

/* A grid M's race among its pool (raced whole: sweep_race races every
 * finalist it is given), PRICE_RETESTED of them retested; at an anchor
 * the anchor's race (new_shape_s) raced and retested its finalists,
 * whose rounds and retests the grid's race takes from the database. */
static double grid_race_s(const struct sweep *sw, const struct shape *s, int si, int m,
			  struct sweep_price *p)
{
	double raced = grid_pool(sw, si, m), kept = PRICE_RETESTED;
	for (int j = 0; j < s->n_ms; j++)
		if (s->ms[j] == m) {
			const double n = (double)point_screens(sw, si, m);
			raced -= n < PRICE_RACED ? n : PRICE_RACED;
			kept = 0;
		}
	if (raced < 0)
		raced = 0;
	p->retests += (long)ceil(kept);
	return raced * eval_s(sw, s, m, RACE_ROUND_PAIRS, 1.05) +
	       kept * eval_s(sw, s, m, sw->sp->sweep.retest_pairs, PRICE_FINALIST_SLOWER);
}

/* The new search at grid M m of range shape si: its race, and the
 * segment to the next grid M (its held-out M, the share filled). */
static double new_grid_m_s(const struct sweep *sw, int si, int m, struct sweep_price *p)
{
	const struct shape *s = &sw->sp->shapes[si];
	const int b = grid_next(m, s->m_lo, s->m_hi);
	double t = baseline_s(sw, s, m) + grid_race_s(sw, s, si, m, p);
	if (!b || b - m < 2)
		return t;
	const int h = grid_holdout(m, b);
	t += baseline_s(sw, s, h) + eval_s(sw, s, h, sw->sp->sweep.retest_pairs, PRICE_FINALIST_SLOWER);
	if (sw->parts & SEARCH_BRIDGE)
		t += PRICE_BRIDGED * (eval_s(sw, s, m, sw->sp->sweep.retest_pairs, PRICE_FINALIST_SLOWER) +
			      eval_s(sw, s, b, sw->sp->sweep.retest_pairs, PRICE_FINALIST_SLOWER));
	/* without the bridge, every segment of different winners is filled */
	const double filled = PRICE_FILLED + (sw->parts & SEARCH_BRIDGE ? 0 : PRICE_BRIDGED);
	for (int q = m + 1; q < b; q++)
		t += filled * (baseline_s(sw, s, q) + race_s(sw, s, q, 2, p));
	return t;
}

/* SEARCH_CROSS at range shape si: the best SPAN_CARRY_EACH cuBLASLt
 * screens of each anchor screened at each other anchor, and at the
 * range's end past its last anchor (spans.c, cross_item), and at each
 * anchor from CROSS_WIDE_MIN_M on the cuBLASLt algorithms its neighbour
 * anchors name (the heuristic's top in each orientation with its split-K
 * variants, PRICE_CROSS_NEW of them not named there too); counted in
 * p->screens. */
static double cross_s(const struct sweep *sw, int si, struct sweep_price *p)
{
	const struct shape *s = &sw->sp->shapes[si];
	if (!(sw->parts & SEARCH_CROSS) || !sw->sp->lt.top || s->w != DT_BF16 ||
	    s->x != DT_BF16 || s->y != DT_BF16)
		return 0;
	const int last = s->ms[s->n_ms - 1];
	double t = 0;
	for (int j = 0; j <= s->n_ms; j++) {
		if (j == s->n_ms && s->m_hi <= last)
			break;
		const int m = j < s->n_ms ? s->ms[j] : s->m_hi;
		double n = SPAN_CARRY_EACH * (s->n_ms - (j < s->n_ms));
		if (j < s->n_ms && m >= CROSS_WIDE_MIN_M)
			n += PRICE_CROSS_NEW * ((j > 0) + (j + 1 < s->n_ms)) * sw->sp->lt.top *
			     sw->sp->lt.norients * (sw->sp->lt.nsplitk > 1 ? sw->sp->lt.nsplitk : 1);
		t += n * eval_s(sw, s, m, sweep_screen_pairs(sw), PRICE_SCREEN_SLOWER);
		p->screens += (long)n;
	}
	return t;
}

double sweep_price_range_m(const struct sweep *sw, int si, int m)
{
	const struct shape *s = &sw->sp->shapes[si];
	struct sweep_price p = { 0 };
	if (sw->search == SWEEP_NEW)
		return new_grid_m_s(sw, si, m, &p);
	return baseline_s(sw, s, m) +
	       dense_finalists(sw, si, m) * eval_s(sw, s, m, sw->sp->sweep.range_pairs, PRICE_FINALIST_SLOWER);
}

/* The new search at shape si (every part on). */
static double new_shape_s(const struct sweep *sw, int si, struct sweep_price *p)
{
	const struct shape *s = &sw->sp->shapes[si];
	double t = 0;
	long any = 0;
	for (int j = 0; j < s->n_ms; j++) {
		const long n = point_screens(sw, si, s->ms[j]);
		if (!n)
			continue;
		t += baseline_s(sw, s, s->ms[j]) + screens_s(sw, si, s->ms[j], 3, 1,
					   sweep_thin_anchor(sw, s, j) ? PRICE_THIN_KEPT : 1, p);
		t += race_s(sw, s, s->ms[j], (double)n, p);
		any += n;
	}
	if (!shape_is_range(s) || !any)
		return t;
	t += cross_s(sw, si, p);
	for (int m = s->m_lo; m; m = grid_next(m, s->m_lo, s->m_hi)) {
		t += new_grid_m_s(sw, si, m, p);
		p->ranged++;
	}
	return t;
}

void sweep_price(const struct sweep *sw, const char *family, struct sweep_price *p)
{
	memset(p, 0, sizeof(*p));
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if (family && strcmp(family, s->family))
			continue;
		double t = sw->search == SWEEP_NEW ? new_shape_s(sw, si, p) : dense_shape_s(sw, si, p);
		p->gpu_s += t;
	}
}

/* The file in a cubin cache that holds this machine's compile rate */
#define RATE_FILE "compile-rate"

int sweep_compile_rate(const char *cache_dir, double *rate)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", cache_dir ? cache_dir : ".cache/gemmtab", RATE_FILE);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fscanf(f, "%lf", rate) == 1 && *rate > 0;
	fclose(f);
	return ok ? 0 : -1;
}

int sweep_compile_rate_save(const char *cache_dir, int n, double seconds)
{
	char path[4096], tmp[4200];
	const char *dir = cache_dir ? cache_dir : ".cache/gemmtab";
	if (n <= 0 || seconds <= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, RATE_FILE);
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return error("cannot write %s", tmp);
	fprintf(f, "%.1f instantiations/s (gemmtab compile: %d in %.1f s)\n", n / seconds, n,
		seconds);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return error("cannot write %s", path);
	}
	return 0;
}
