/*
 * retest.c: a point's tasks by candidate id, its leaders in the database
 * (paging past other template code's rows), and the retest of its best
 * screened candidates with many pairs at the Ms around it.
 */
#include "engine.h"
#include "tasks.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_cand(const void *a, const void *b)
{
	const long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The tasks at (shape si, m), or with m 0 every task of shape si (a
 * candidate measured at an M is run there through any of its tasks: the
 * M is the eval's, not the task's), sorted by candidate id (*n of them;
 * caller frees). */
struct cand_task *sweep_point_tasks(const struct sweep *sw, int si, int m, int *n)
{
	struct cand_task *pt = xmalloc(sizeof(*pt) * (size_t)(sw->tl->n ? sw->tl->n : 1));
	*n = 0;
	for (int i = 0; i < sw->tl->n; i++)
		if (sw->tl->t[i].shape == si && (!m || sw->tl->t[i].m == m))
			pt[(*n)++] = (struct cand_task){ sw->cand_id[i], i };
	qsort(pt, (size_t)*n, sizeof(*pt), cmp_cand);
	return pt;
}

/* The task of candidate id cand among a point's tasks, or -1 (a candidate
 * of other template code). */
int sweep_point_task(const struct cand_task *pt, int n, long long cand)
{
	const struct cand_task *hit = bsearch(&cand, pt, (size_t)n, sizeof(*pt), cmp_cand);
	return hit ? hit->task : -1;
}

/* The Ms at which finalists of tuned m are retested: m itself, the
 * neighbour Ms between the previous and the next tuned M, and those two
 * tuned Ms. A dispatch range may only span Ms where one candidate won
 * every measured M (gemmtab emit), so finalists must be measured past
 * their own M for ranges to meet at the crossovers. Returns the count. */
int sweep_retest_ms(const struct shape *s, int m, int *out)
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
int sweep_point_new_tasks(const struct sweep *sw, int si, int m, int from)
{
	int n = 0;
	for (int i = from; i < sw->tl->n; i++)
		n += sw->tl->t[i].shape == si && sw->tl->t[i].m == m;
	return n;
}

/* How many candidates shape si can run at m from task index from on:
 * its tasks there not pruned statically, and in a dry run the cuBLASLt
 * proposals the GPU would add (lt.top per orientation at a bf16 shape). */
int sweep_point_runnable(const struct sweep *sw, int si, int m, int from)
{
	const struct shape *s = &sw->sp->shapes[si];
	int n = 0;
	for (int i = from; i < sw->tl->n; i++)
		n += sw->tl->t[i].shape == si && sw->tl->t[i].m == m && !sw->tl->t[i].pruned;
	if (sw->dry && sw->sp->lt.top && s->w == DT_BF16 && s->x == DT_BF16 && s->y == DT_BF16)
		n += sw->sp->lt.top * sw->sp->lt.norients;
	return n;
}

/* sweep_retest() pages through a point's screens this many at a time: a resumed
 * database holds the screens of template code that has changed since
 * (not this sweep's to retest), which may outrank all of the current
 * code's (read unpaged, a re-sweep after a template change retests
 * almost nothing: measured, it emitted a table of 32 entries). */
#define RETEST_PAGE 256

/* How many times sweep_settle() looks again at one M: re-measured leaders may
 * fall out of the best and let an older one in. */
#define SETTLE_ROUNDS 4

/* The best up to max candidates of phase at (shape si, M q) that are
 * among tasks (sweep_point_tasks(), n of them), paging past other code's: the
 * task of each into ti[] (its candidate is sw->cand_id[ti[i]]) and, when
 * runs is not NULL, the run that measured it into runs[]. Returns the
 * count. */
int sweep_leaders(struct sweep *sw, int si, int q, const char *phase,
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
			const int t = sweep_point_task(tasks, n, page[i]);
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

/* Retest the best screened candidates of (shape, m) among this sweep's
 * own (the current code's) with many pairs at the Ms sweep_retest_ms() names
 * (into ms[], their count returned), and record the baselines at the
 * neighbours. */
int sweep_retest(struct sweep *sw, int si, int m, int *ms)
{
	const struct shape *s = &sw->sp->shapes[si];
	const int top = sw->sp->sweep.retest_top;
	const int nms = sweep_retest_ms(s, m, ms);
	int npt;
	struct cand_task *pt = sweep_point_tasks(sw, si, m, &npt);
	int *ti = xmalloc(sizeof(*ti) * (size_t)top);

	const int n = sweep_leaders(sw, si, m, "screen", pt, npt, top, ti, NULL);
	for (int i = 0; i < n; i++)
		for (int q = 0; q < nms; q++) {
			int r = db_has_result(sw->db, sw->env_id, sw->shape_id[si],
					      sw->cand_id[ti[i]], ms[q], "retest", sw->retest_since);
			if (r == 0)
				sweep_eval(sw, ti[i], ms[q], "retest", sw->sp->sweep.retest_pairs);
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
			sweep_baseline_if_missing(sw, si, ms[q]);
	}
	return nms;
}

/* The anchors of family (all when NULL) into items: each shape's tuned
 * Ms, and at a later step (from > 0) only those where it added tasks.
 * Returns how many; items holds nshapes * MAX_MS at least. */
int sweep_anchor_items(struct sweep *sw, const char *family, int from,
		       struct phase_item *items)
{
	int n = 0;
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if (family && strcmp(family, s->family))
			continue;
		for (int j = 0; j < s->n_ms; j++)
			/* a later step screens and retests only where it added */
			if (!from || sweep_point_new_tasks(sw, si, s->ms[j], from))
				items[n++] = (struct phase_item){ .si = si, .m = s->ms[j], .j = j };
	}
	return n;
}
