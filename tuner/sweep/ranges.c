/*
 * ranges.c: the range phase of range shapes: every M of a shape's range
 * (and its check points) timed with the finalists of the anchors on both
 * sides of it, so a crossover is measured wherever it falls.
 */
#include "engine.h"
#include "seed.h"
#include "tasks.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int sweep_range_ms(const struct shape *s, int **out)
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
int sweep_anchor_covers(const struct shape *s, int j, int m)
{
	int lo, hi;
	anchor_window(s, j, &lo, &hi);
	return (m >= lo && m <= hi) || (m > s->m_hi && j == s->n_ms - 1);
}

/* The most retests the range phase runs (range_top finalists of every
 * anchor at every M it covers, or as many as the anchor has candidates
 * to run) over the range shapes (of family only, when given), and in
 * *baselines the Ms it times baselines at (those some finalist covers). */
long sweep_planned_range(const struct sweep *sw, const char *family, long *baselines)
{
	long n = 0;
	int fin[MAX_MS];
	*baselines = 0;
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if (!shape_is_range(s) || (family && strcmp(family, s->family)))
			continue;
		for (int j = 0; j < s->n_ms; j++) {
			const int run = sweep_point_runnable(sw, si, s->ms[j], 0);
			fin[j] = run < sw->sp->sweep.range_top ? run : sw->sp->sweep.range_top;
		}
		int *ms;
		const int nms = sweep_range_ms(s, &ms);
		for (int i = 0; i < nms; i++) {
			if (sw->seeded && !seed_times_m(s, ms[i]))
				continue;
			long at = 0;
			for (int j = 0; j < s->n_ms; j++)
				at += sweep_anchor_covers(s, j, ms[i]) ? fin[j] : 0;
			n += at;
			*baselines += at > 0;
		}
		free(ms);
	}
	return n;
}

/* The finalists of a range shape's anchors (range_top retests of the
 * current code at each), for its range phase. */
struct range_plan {
	int si;
	struct cand_task *st;    /* sweep_point_tasks() of si at every M */
	int nst;
	int *fin, *nfin;         /* anchor j's finalists: fin[j * top ..], nfin[j] of them */
};

/* The range phase at M item->m of range shape si: the finalists of the
 * anchors whose windows cover m (anchor_covers), each once, timed with
 * range_pairs pairs after the baseline, back to back (one window per M,
 * so the ratios a crossover is cut at come from one stretch of time, on
 * one GPU), then sweep_settle() there. The constraints are the anchors' (they
 * chose what was screened); a finalist runs at every M of its window
 * whatever they say of m, as the table will run it. What the database
 * holds already (a resumed sweep) is not timed again. */
static void range_item(struct sweep *sw, const void *arg)
{
	const struct phase_item *it = arg;
	const struct range_plan *pl = it->plan;
	const struct shape *s = &sw->sp->shapes[it->si];
	const int top = sw->sp->sweep.range_top, m = it->m;
	int *at = xmalloc(sizeof(*at) * (size_t)s->n_ms * (size_t)top);
	int nat = 0;
	for (int j = 0; j < s->n_ms; j++) {
		if (!sweep_anchor_covers(s, j, m))
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
		sweep_baseline_if_missing(sw, it->si, m);
		for (int a = 0; a < nat; a++) {
			int r = db_has_result(sw->db, sw->env_id, sw->shape_id[it->si],
					      sw->cand_id[at[a]], m, "retest", sw->retest_since);
			if (r == 0)
				sweep_eval(sw, at[a], m, "retest", sw->sp->sweep.range_pairs);
			else
				sw->evals_done++;   /* sweep_planned_range() counted it */
		}
		sweep_settle(sw, it->si, m, pl->st, pl->nst);
	}
	free(at);
}

/* The range phase of every range shape (of family only, when given):
 * each M of its range and its check points an item (range_item). */
void sweep_ranges(struct sweep *sw, const char *family)
{
	const int top = sw->sp->sweep.range_top;
	struct range_plan *plans = xcalloc((size_t)sw->sp->nshapes, sizeof(*plans));
	struct phase_item *items = NULL;
	int nitems = 0, cap = 0;
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if (!shape_is_range(s) || (family && strcmp(family, s->family)))
			continue;
		struct range_plan *pl = &plans[si];
		pl->si = si;
		pl->st = sweep_point_tasks(sw, si, 0, &pl->nst);
		pl->fin = xmalloc(sizeof(*pl->fin) * (size_t)s->n_ms * (size_t)top);
		pl->nfin = xcalloc((size_t)s->n_ms, sizeof(*pl->nfin));
		for (int j = 0; j < s->n_ms; j++)
			pl->nfin[j] = sweep_leaders(sw, si, s->ms[j], "retest", pl->st, pl->nst, top,
					      &pl->fin[j * top], NULL);
		int *ms;
		const int nms = sweep_range_ms(s, &ms);
		for (int i = 0; i < nms; i++) {
			if (sw->seeded && !seed_times_m(s, ms[i]))
				continue;
			if (nitems == cap) {
				cap = cap ? 2 * cap : 1024;
				items = xrealloc(items, sizeof(*items) * (size_t)cap);
			}
			items[nitems++] = (struct phase_item){ .si = si, .m = ms[i], .plan = pl };
		}
		free(ms);
	}
	sweep_phase(sw, range_item, items, sizeof(*items), nitems);
	for (int si = 0; si < sw->sp->nshapes; si++) {
		free(plans[si].st);
		free(plans[si].fin);
		free(plans[si].nfin);
	}
	free(plans);
	free(items);
}
