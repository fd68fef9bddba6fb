/*
 * spans.c: the range shapes on emit's grid (sweep --search new, part
 * grid). emit (tuner/emit/grid.h) chooses only on the grid Ms (every M up
 * to 64, then 16t and 16t + 1, and the range's ends) and serves the Ms
 * between two grid neighbours only where the candidate it picks there
 * also wins at a held-out M off the grid. So, per range shape:
 *
 * 1. at every grid M, the baseline and a race (race.c) among the
 *    finalists of the anchors whose windows hold it (ranges.c's windows);
 * 2. between grid neighbours a < b with Ms between them: every candidate
 *    retested at both that wins at both is timed at grid_holdout(a, b),
 *    the one emit will pick there (the larger smaller ratio) among them;
 *    where none wins at both but a and b have different winners, with
 *    SEARCH_BRIDGE each is retested at the other end first
 *    (segment_bridge); where still no candidate wins at both, or the
 *    pick loses to the baseline, every M between a and b is raced by
 *    the winners of a and b
 *    (emit serves a measured M on its own), so no M is served blind and
 *    none is left to the baseline where a finalist wins.
 *
 * With SEARCH_CARRY the pool at a grid M also holds, of each template,
 * the best screen at each anchor whose window holds it and the best of
 * the round at the grid M before (a shape's grid Ms are raced in order,
 * one item a shape): cuBLASLt's heuristic names an algorithm at one
 * anchor only, and one that is never an anchor's top few there (down at
 * 64 in Llama-3-8B: tenth of 348, first of its 102 cuBLASLt screens) may
 * be the fastest at every M above it (make bench-search; fake_truth
 * --per-shape).
 */
#include "engine.h"
#include "grid.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The most retests a grid M keeps for step 2 */
#define SPAN_KEEP 16
#define SPAN_CARRIED (SPAN_TMPLS * SPAN_CARRY_EACH)

/* What a range shape's grid Ms gave: per M of lo..hi, the retested
 * tasks and their ratios. */
struct span_plan {
	int si, lo, hi, top;
	int cap;                 /* finalists an anchor keeps: top, and with
				  * SEARCH_CARRY each template's best */
	int *fin, *nfin;         /* anchor j's finalists: fin[j * cap ..], nfin[j] */
	int *nwon;               /* per M - lo */
	int *won;                /* per M - lo, SPAN_KEEP each */
	double *ratio;
	int end[SPAN_CARRIED];   /* SEARCH_CROSS: each template's best screens at
				  * the range's end, for the Ms past the last
				  * anchor */
	int nend;
	int carry[SPAN_CARRIED]; /* SEARCH_CARRY: each template's best of the
				  * round at the last grid M raced */
	int ncarry;
};

struct span_item {
	struct span_plan *pl;
	int m, b;                /* a grid M; in step 2 the segment m..b */
};

/* Task t into out[0..*n) unless a task of its candidate is there. */
static void pool_add(const struct sweep *sw, int *out, int *n, int t)
{
	for (int a = 0; a < *n; a++)
		if (sw->cand_id[out[a]] == sw->cand_id[t])
			return;
	out[(*n)++] = t;
}

/* The finalists of the anchors whose windows hold m, past the last
 * anchor the range end's best screens (SEARCH_CROSS), then the carried
 * tasks, each once, into out[] (of s->n_ms * cap + 2 * SPAN_CARRIED);
 * returns the count. */
static int pool_at(const struct sweep *sw, const struct span_plan *pl, int m, int *out)
{
	const struct shape *s = &sw->sp->shapes[pl->si];
	int n = 0;
	for (int j = 0; j < s->n_ms; j++) {
		if (!sweep_anchor_covers(s, j, m))
			continue;
		for (int f = 0; f < pl->nfin[j]; f++)
			pool_add(sw, out, &n, pl->fin[j * pl->cap + f]);
	}
	for (int i = 0; m > s->ms[s->n_ms - 1] && i < pl->nend; i++)
		pool_add(sw, out, &n, pl->end[i]);
	for (int i = 0; i < pl->ncarry; i++)
		pool_add(sw, out, &n, pl->carry[i]);
	return n;
}

/* Of tasks ti[0..n), the best SPAN_CARRY_EACH of each template (of
 * SPAN_TMPLS templates at most) into best[] (of SPAN_CARRIED): by r[i]
 * (> 0: ok), or without r the first met (ti[] in order, best first).
 * Returns the count. */
static int best_per_template(const struct sweep *sw, const int *ti, const double *r, int n,
			     int *best)
{
	const struct tmpl *seen[SPAN_TMPLS];
	int count[SPAN_TMPLS], nseen = 0, nb = 0;
	char *taken = xcalloc((size_t)(n ? n : 1), 1);
	for (;;) {
		int pick = -1;      /* the next in order: the best r not taken */
		for (int i = 0; i < n && (pick < 0 || r); i++)
			if (!taken[i] && (!r || (r[i] > 0 && (pick < 0 || r[i] > r[pick]))))
				pick = i;
		if (pick < 0 || nb == SPAN_CARRIED)
			break;
		taken[pick] = 1;
		const struct tmpl *t = sw->tl->t[ti[pick]].cand.tmpl;
		int k = 0;
		while (k < nseen && seen[k] != t)
			k++;
		if (k == nseen) {
			if (nseen == SPAN_TMPLS)
				continue;
			seen[nseen] = t;
			count[nseen++] = 0;
		}
		if (count[k] < SPAN_CARRY_EACH) {
			count[k]++;
			best[nb++] = ti[pick];
		}
	}
	free(taken);
	return nb;
}

/* The baseline and a race among pool[0..n) at m, kept in the plan; with
 * carry, each template's best of its round is what the plan carries to
 * the next grid M. */
static void race_at(struct sweep *sw, struct span_plan *pl, int m, const int *pool, int n,
		    int carry)
{
	const int at = m - pl->lo;
	int *won = xmalloc(sizeof(*won) * (size_t)(n ? n : 1));
	double *r = xmalloc(sizeof(*r) * (size_t)(n ? n : 1));
	double *round = xmalloc(sizeof(*round) * (size_t)(n ? n : 1));
	sweep_baseline_if_missing(sw, pl->si, m);
	const int nw = sweep_race(sw, pl->si, m, pool, n, won, r, round);
	pl->nwon[at] = 0;
	for (int i = 0; i < nw && pl->nwon[at] < SPAN_KEEP; i++) {
		pl->won[at * SPAN_KEEP + pl->nwon[at]] = won[i];
		pl->ratio[at * SPAN_KEEP + pl->nwon[at]++] = r[i];
	}
	if (carry && !sw->stopped)
		pl->ncarry = best_per_template(sw, pool, round, n, pl->carry);
	free(won);
	free(r);
	free(round);
}

/* Whether m is where the new search screens range shape s (an anchor,
 * or with SEARCH_CROSS the range's end past the last anchor). */
static int screened_at(const struct sweep *sw, const struct shape *s, int m)
{
	for (int j = 0; j < s->n_ms; j++)
		if (s->ms[j] == m)
			return 1;
	return sw->parts & SEARCH_CROSS && m == s->m_hi && m > s->ms[s->n_ms - 1];
}

/* Whether grid M m's race has ended, as the database holds it: a retest
 * at m (its survivors'), or at an M where the shape is screened (whose
 * own race retests there) the next grid M's race ended (a shape's grid
 * Ms are raced in order with SEARCH_CARRY). */
static int grid_ended(struct sweep *sw, const struct span_plan *pl, int m)
{
	const struct shape *s = &sw->sp->shapes[pl->si];
	for (; m && screened_at(sw, s, m); m = grid_next(m, pl->lo, pl->hi))
		if (!(sw->parts & SEARCH_CARRY))
			return 0;
	long long id;
	const int r = m ? db_best(sw->db, sw->env_id, sw->shape_id[pl->si], m, "retest", 0, &id,
				  NULL, 1) : 0;
	if (r < 0)
		die("cannot read %s's results", sw->db_path);
	return r > 0;
}

/* The tasks whose race round at m the database holds (screens of
 * RACE_ROUND_PAIRS; where m is screened with as many pairs, none) added
 * to out[] (of *n). */
static void rounds_at(struct sweep *sw, const struct span_plan *pl, int m,
		      const struct cand_task *st, int nst, int *out, int *n)
{
	const struct shape *s = &sw->sp->shapes[pl->si];
	if (sweep_screen_pairs(sw) == RACE_ROUND_PAIRS && screened_at(sw, s, m))
		return;
	int *all = xmalloc(sizeof(*all) * (size_t)(nst + 1));
	const int nall = sweep_leaders(sw, pl->si, m, "screen", st, nst, nst, all, NULL);
	for (int i = 0; i < nall; i++) {
		int np;
		double r;
		if (db_result_figure(sw->db, sw->env_id, sw->shape_id[pl->si], sw->cand_id[all[i]], m,
				     "screen", NULL, &np, &r) < 0)
			die("cannot read %s's results", sw->db_path);
		if (np == RACE_ROUND_PAIRS)
			pool_add(sw, out, n, all[i]);
	}
	free(all);
}

static int by_cand(const void *a, const void *b, void *arg)
{
	const struct sweep *sw = arg;
	const long long x = sw->cand_id[*(const int *)a], y = sw->cand_id[*(const int *)b];
	return (x > y) - (x < y);
}

/* Step 1 at grid M item->m; with SEARCH_CARRY at every grid M of the
 * shape from item->m on, in order (each carries to the next). The pool
 * at a grid M is what the database holds raced there (a rerun's) with,
 * unless that race ended, pool_at's; in candidate order, so a rerun
 * races an ended grid M as the run before did, whatever the ranking of
 * the anchors' screens that later rounds replaced. */
static void grid_item(struct sweep *sw, const void *arg)
{
	const struct span_item *it = arg;
	struct span_plan *pl = it->pl;
	const struct shape *s = &sw->sp->shapes[pl->si];
	const int carry = !!(sw->parts & SEARCH_CARRY);
	int nst;
	struct cand_task *st = sweep_point_tasks(sw, pl->si, 0, &nst);
	int *pool = xmalloc(sizeof(*pool) *
			    (size_t)(s->n_ms * pl->cap + 2 * SPAN_CARRIED + nst + 1));
	for (int m = it->m; m && !sweep_time_up(sw); m = carry ? grid_next(m, pl->lo, pl->hi) : 0) {
		int n = grid_ended(sw, pl, m) ? 0 : pool_at(sw, pl, m, pool);
		rounds_at(sw, pl, m, st, nst, pool, &n);
		qsort_r(pool, (size_t)n, sizeof(*pool), by_cand, sw);
		race_at(sw, pl, m, pool, n, carry);
	}
	free(pool);
	free(st);
}

/* Task t's retest ratio at m as the plan holds it, or -1. */
static double ratio_of(const struct span_plan *pl, int m, int t)
{
	const int at = m - pl->lo;
	for (int i = 0; i < pl->nwon[at]; i++)
		if (pl->won[at * SPAN_KEEP + i] == t)
			return pl->ratio[at * SPAN_KEEP + i];
	return -1;
}

/* The best of m's retests, or -1 when none wins. */
static int winner_at(const struct span_plan *pl, int m)
{
	const int at = m - pl->lo;
	int w = -1;
	for (int i = 0; i < pl->nwon[at]; i++)
		if (pl->ratio[at * SPAN_KEEP + i] > 1 &&
		    (w < 0 || pl->ratio[at * SPAN_KEEP + i] > ratio_of(pl, m, w)))
			w = pl->won[at * SPAN_KEEP + i];
	return w;
}

/* emit's pick on the segment a..b (tuner/emit/emit.c, segment_pick): of
 * the tasks that win at both, the one whose smaller ratio is largest;
 * -1 when none does. */
static int segment_pick(const struct span_plan *pl, int a, int b)
{
	int pick = -1;
	double best = 0;
	for (int i = 0; i < pl->nwon[a - pl->lo]; i++) {
		const int t = pl->won[(a - pl->lo) * SPAN_KEEP + i];
		const double ra = ratio_of(pl, a, t), rb = ratio_of(pl, b, t);
		const double low = ra < rb ? ra : rb;
		if (ra > 1 && rb > 1 && (pick < 0 || low > best)) {
			pick = t;
			best = low;
		}
	}
	return pick;
}

/* Where no retested candidate wins at both ends of the segment a..b but
 * each end has a winner (wa at a, wb at b, different), the bridge: wa
 * retested at b and wb at a; returns the one of them that wins at both
 * whose smaller ratio is the larger (emit's pick among them), or -1. Two
 * retests where racing every M between costs a baseline and a race at
 * each (make bench-search's Llama-3-8B space: 11 segments raced whole,
 * 154 Ms, all with different winners at the ends). */
static int segment_bridge(struct sweep *sw, const struct span_plan *pl, int a, int b)
{
	const int wa = winner_at(pl, a), wb = winner_at(pl, b);
	if (wa < 0 || wb < 0 || wa == wb)
		return -1;
	sweep_eval_once(sw, wa, b, "retest", sw->sp->sweep.retest_pairs);
	const double ra_b = sw->stopped ? -1 : sweep_dev->last_ratio;
	sweep_eval_once(sw, wb, a, "retest", sw->sp->sweep.retest_pairs);
	const double rb_a = sw->stopped ? -1 : sweep_dev->last_ratio;
	const double la = fmin(ratio_of(pl, a, wa), ra_b), lb = fmin(rb_a, ratio_of(pl, b, wb));
	if (la <= 1 && lb <= 1)
		return -1;
	return la >= lb ? wa : wb;
}

/* Step 2 on the segment item->m .. item->b. */
static void segment_item(struct sweep *sw, const void *arg)
{
	const struct span_item *it = arg;
	struct span_plan *pl = it->pl;
	const int a = it->m, b = it->b;
	int c = segment_pick(pl, a, b), bridged = 0;
	if (c < 0 && sw->parts & SEARCH_BRIDGE && !sw->stopped) {
		c = segment_bridge(sw, pl, a, b);
		bridged = c >= 0;
	}
	if (c >= 0) {
		/* every candidate that wins at both ends: emit certifies a
		 * candidate's span over several segments only where it wins at
		 * each measured M off the grid inside it, so one measured at a
		 * held-out M must be measured at the others of its span too */
		const int h = grid_holdout(a, b);
		double held = -1;
		sweep_baseline_if_missing(sw, pl->si, h);
		for (int i = 0; i < pl->nwon[a - pl->lo] && !sw->stopped && !bridged; i++) {
			const int t = pl->won[(a - pl->lo) * SPAN_KEEP + i];
			if (ratio_of(pl, a, t) <= 1 || ratio_of(pl, b, t) <= 1)
				continue;
			sweep_eval_once(sw, t, h, "retest", sw->sp->sweep.retest_pairs);
			if (t == c)
				held = sweep_dev->last_ratio;
		}
		if (bridged && !sw->stopped) {
			sweep_eval_once(sw, c, h, "retest", sw->sp->sweep.retest_pairs);
			held = sweep_dev->last_ratio;
		}
		if (held > 1 || sw->stopped)
			return;
	}
	int pool[2], n = 0;
	const int wa = winner_at(pl, a), wb = winner_at(pl, b);
	if (wa >= 0)
		pool[n++] = wa;
	if (wb >= 0 && wb != wa)
		pool[n++] = wb;
	for (int m = a + 1; m < b && n && !sweep_time_up(sw); m++)
		race_at(sw, pl, m, pool, n, 0);
}

/* Task t of range shape si screened at m unless the database holds a
 * screen of it there. */
static void screen_missing(struct sweep *sw, int si, int t, int m)
{
	if (db_has_result(sw->db, sw->env_id, sw->shape_id[si], sw->cand_id[t], m, "screen",
			  NULL) == 0)
		sweep_eval(sw, t, m, "screen", sweep_screen_pairs(sw));
}

/* SEARCH_CROSS at the anchors of range shape si from CROSS_WIDE_MIN_M on:
 * every cuBLASLt algorithm screened at a neighbour anchor (st[0..nst):
 * the shape's tasks; all: room for them) screened there too. The
 * heuristic's names follow its tile choice for the M it is asked at; the
 * fastest between two large anchors can be named only below them, far
 * from the best there (make bench-search's Llama-3-8B gate_up: the
 * truth's best at M = 321..478 is named at 8 and 128 only, 23rd of 121
 * cuBLASLt screens at 128; most of the table's regret was there). */
static void cross_neighbours(struct sweep *sw, int si, const struct cand_task *st, int nst,
			     int *all)
{
	const struct shape *s = &sw->sp->shapes[si];
	const struct tmpl *lt = tmpl_find("blas_lt");
	for (int j = 0; lt && j < s->n_ms && !sweep_time_up(sw); j++) {
		if (s->ms[j] < CROSS_WIDE_MIN_M)
			continue;
		for (int q = j - 1; q <= j + 1; q += 2) {
			if (q < 0 || q >= s->n_ms)
				continue;
			const int nall = sweep_leaders(sw, si, s->ms[q], "screen", st, nst, nst, all, NULL);
			for (int i = 0; i < nall && !sweep_time_up(sw); i++)
				if (sw->tl->t[all[i]].cand.tmpl == lt)
					screen_missing(sw, si, all[i], s->ms[j]);
		}
	}
}

/* SEARCH_CROSS for range shape si (one item a shape, before its plan):
 * the best SPAN_CARRY_EACH cuBLASLt screens of each anchor, as the
 * anchors' screens left them, screened at each other anchor where they
 * have no screen. cuBLASLt's heuristic names an algorithm at one anchor;
 * the one fastest at the large Ms may be named only at a small anchor,
 * where it is not the fastest (lm_head in Llama-3-8B at 4). A range that
 * ends past its last anchor gets them screened at its end too, and its
 * Ms past the last anchor race the end's best of each template
 * (search_spaces/h200.yaml's unpooler, 9..512, last anchor 256: its
 * regret against the truth 5.28% -> 4.91%, make bench-search). Then the
 * large anchors' neighbours' (cross_neighbours). */
static void cross_item(struct sweep *sw, const void *arg)
{
	const struct span_item *it = arg;
	const int si = it->m;
	const struct shape *s = &sw->sp->shapes[si];
	const struct tmpl *lt = tmpl_find("blas_lt");
	int nst;
	struct cand_task *st = sweep_point_tasks(sw, si, 0, &nst);
	int *all = xmalloc(sizeof(*all) * (size_t)(nst + 1));
	int *best = xmalloc(sizeof(*best) * (size_t)(s->n_ms * SPAN_CARRY_EACH + 1)), nb = 0;
	for (int j = 0; j < s->n_ms && lt; j++) {
		const int nall = sweep_leaders(sw, si, s->ms[j], "screen", st, nst, nst, all, NULL);
		for (int i = 0, k = 0; i < nall && k < SPAN_CARRY_EACH; i++)
			if (sw->tl->t[all[i]].cand.tmpl == lt) {
				pool_add(sw, best, &nb, all[i]);
				k++;
			}
	}
	/* at the anchors, and at the range's end past the last anchor */
	const int last = s->ms[s->n_ms - 1], nat = s->n_ms + (s->m_hi > last);
	for (int j = 0; j < nat && !sweep_time_up(sw); j++)
		for (int b = 0; b < nb && !sweep_time_up(sw); b++)
			screen_missing(sw, si, best[b], j < s->n_ms ? s->ms[j] : s->m_hi);
	cross_neighbours(sw, si, st, nst, all);
	free(best);
	free(all);
	free(st);
}

/* The plan of range shape si: its anchors' finalists (the range_top best
 * retests at each), and room for its grid Ms' races. */
static void plan_init(struct sweep *sw, int si, struct span_plan *pl)
{
	const struct shape *s = &sw->sp->shapes[si];
	int nst;
	struct cand_task *st = sweep_point_tasks(sw, si, 0, &nst);
	pl->si = si;
	pl->lo = s->m_lo;
	pl->hi = s->m_hi;
	pl->top = sw->sp->sweep.range_top + 1;
	pl->cap = pl->top + (sw->parts & SEARCH_CARRY ? SPAN_CARRIED : 0);
	pl->fin = xmalloc(sizeof(*pl->fin) * (size_t)(s->n_ms * pl->cap + 1));
	pl->nfin = xcalloc((size_t)s->n_ms, sizeof(*pl->nfin));
	/* the best screens at each anchor (its race's round among them):
	 * the race retests one or two, and a runner-up there may win
	 * between anchors; with SEARCH_CARRY each template's best too */
	int *all = xmalloc(sizeof(*all) * (size_t)(nst + 1)), best[SPAN_CARRIED];
	for (int j = 0; j < s->n_ms; j++) {
		int *fin = &pl->fin[j * pl->cap];
		const int nall = sweep_leaders(sw, si, s->ms[j], "screen", st, nst,
					       pl->cap > pl->top ? nst : pl->top, all, NULL);
		pl->nfin[j] = nall < pl->top ? nall : pl->top;
		memcpy(fin, all, sizeof(*fin) * (size_t)pl->nfin[j]);
		if (pl->cap == pl->top)
			continue;
		const int nb = best_per_template(sw, all, NULL, nall, best);
		for (int b = 0; b < nb; b++)
			pool_add(sw, fin, &pl->nfin[j], best[b]);
	}
	if (sw->parts & SEARCH_CROSS && s->m_hi > s->ms[s->n_ms - 1]) {
		const int nall = sweep_leaders(sw, si, s->m_hi, "screen", st, nst, nst, all, NULL);
		pl->nend = best_per_template(sw, all, NULL, nall, pl->end);
	}
	free(all);
	free(st);
	const size_t nm = (size_t)(pl->hi - pl->lo + 1);
	pl->nwon = xcalloc(nm, sizeof(*pl->nwon));
	pl->won = xmalloc(sizeof(*pl->won) * nm * SPAN_KEEP);
	pl->ratio = xmalloc(sizeof(*pl->ratio) * nm * SPAN_KEEP);
}

/* Item it appended to *items (of *n, room for *cap). */
static void item_add(struct span_item **items, int *n, int *cap, struct span_item it)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		*items = xrealloc(*items, sizeof(**items) * (size_t)*cap);
	}
	(*items)[(*n)++] = it;
}

void sweep_spans(struct sweep *sw, const char *family)
{
	struct span_plan *plans = xcalloc((size_t)sw->sp->nshapes, sizeof(*plans));
	struct span_item *items = NULL;
	int n = 0, cap = 0;
	for (int step = sw->parts & SEARCH_CROSS ? 0 : 1; step <= 2; step++) {
		n = 0;
		for (int si = 0; si < sw->sp->nshapes; si++) {
			const struct shape *s = &sw->sp->shapes[si];
			if (!shape_is_range(s) || (family && strcmp(family, s->family)))
				continue;
			if (step == 0) {
				item_add(&items, &n, &cap, (struct span_item){ NULL, si, 0 });
				continue;
			}
			if (step == 1)
				plan_init(sw, si, &plans[si]);
			/* SEARCH_CARRY: step 1 is one item a shape (grid_item) */
			const int whole = step == 1 && sw->parts & SEARCH_CARRY;
			for (int m = s->m_lo; m; m = whole ? 0 : grid_next(m, s->m_lo, s->m_hi)) {
				const int b = grid_next(m, s->m_lo, s->m_hi);
				if (step == 2 && (!b || b - m < 2))
					continue;
				item_add(&items, &n, &cap, (struct span_item){ &plans[si], m, b });
			}
		}
		sweep_phase(sw, step == 0 ? cross_item : step == 1 ? grid_item : segment_item, items,
			    sizeof(*items), n);
	}
	for (int si = 0; si < sw->sp->nshapes; si++) {
		free(plans[si].fin);
		free(plans[si].nfin);
		free(plans[si].nwon);
		free(plans[si].won);
		free(plans[si].ratio);
	}
	free(plans);
	free(items);
}
