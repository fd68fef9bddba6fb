/*
 * search.c: the new search (sweep --search new): at each anchor, the
 * baseline, then screens of every candidate that can beat it (floor
 * pruning) with few pairs (early stopping), then a race among those not
 * clearly behind (race.c); then the range shapes on emit's grid
 * (spans.c). Each part is switched by --search-opts (SEARCH_* in
 * sweep.h), so `make bench-search` can show what each buys; with none
 * it screens and retests as the dense method does, without its range
 * phase.
 *
 * A rerun (the same command after --time-limit stopped it) builds on
 * what the database holds for this environment: the screens, the
 * races' rounds and retests (race.c), the held-out Ms' retests.
 */
#include "engine.h"
#include "tasks.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Behind the point's best screen by more than this: no race. 79.5% of
 * db/h200.db's template screens end there (issue 43); none came back */
#define EARLY_BEHIND 1.25
/* The most finalists a point races */
#define RACE_MAX 8
/* SEARCH_THIN: the best screens of each neighbour anchor a thin anchor
 * takes (thin_keep). Over make bench-search's dense sweeps (every
 * candidate screened at every anchor), thin_keep's rule keeps the best
 * screen at 23 of Llama-3-8B's 25 thin anchors, 23 of the odd space's 25
 * and 11 of the reference space's 14 (lab/analysis/thin_keep.py); the
 * new search's regret over 1..512 stays 0.47%, 0.64% and 2.66% */
#define THIN_TOP 64

int sweep_search_parse(const char *method, const char *parts, enum sweep_search *search,
		       unsigned *out, char *why, size_t len)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "prune", SEARCH_PRUNE }, { "early", SEARCH_EARLY }, { "race", SEARCH_RACE },
		{ "grid", SEARCH_GRID }, { "carry", SEARCH_CARRY },
		{ "cross", SEARCH_CROSS }, { "bridge", SEARCH_BRIDGE }, { "thin", SEARCH_THIN },
		{ "none", 0 },
	};
	*search = SWEEP_DENSE;
	*out = SEARCH_ALL;
	if (method && !strcmp(method, "new"))
		*search = SWEEP_NEW;
	else if (method && strcmp(method, "dense")) {
		snprintf(why, len, "--search: '%s' is not dense or new", method);
		return -1;
	}
	if (!parts)
		return 0;
	if (*search != SWEEP_NEW) {
		snprintf(why, len, "--search-opts: the parts of --search new");
		return -1;
	}
	*out = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", parts);
	for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < ARRAY_SIZE(names) && strcmp(names[i].name, p))
			i++;
		if (i == ARRAY_SIZE(names)) {
			snprintf(why, len, "--search-opts: '%s' is not prune, early, race, grid, "
				 "carry, cross, bridge, thin or none", p);
			return -1;
		}
		*out |= names[i].bit;
	}
	return 0;
}

/* The read floor of shape si's weights on this GPU, in microseconds (the
 * worker's floor probe, asked once a shape), or -1 when it gave none. */
double sweep_floor_us(struct sweep *sw, int si)
{
	if (!sw->floor_us)
		sw->floor_us = xcalloc((size_t)sw->sp->nshapes, sizeof(*sw->floor_us));
	if (sw->floor_us[si] != 0)
		return sw->floor_us[si];
	const struct shape *s = &sw->sp->shapes[si];
	const double bytes = (double)s->n * s->k * (double)dtype_size(s->w);
	struct kv_out o;
	struct kv r;
	kv_begin(&o, "floor");
	kv_addf(&o, "id", "%d", si);
	kv_add(&o, "family", s->family);
	kv_addf(&o, "bytes", "%.0f", bytes);
	kv_addf(&o, "pairs", "%d", 20);
	sw->floor_us[si] = -1;
	if (sweep_ask(sw, kv_string(&o), sw->sp->sweep.deadline_s, &r, NULL) != CALL_OK)
		return -1;
	if (!strcmp(r.op, "floor"))
		sw->floor_us[si] = kv_get_double(&r, "us", -1);
	kv_free(&r);
	return sw->floor_us[si];
}

/* The least time task t can take at m, from the floor: every pass a
 * GEMV makes over W (one per `tokens` rows of X) streams W from memory
 * when W does not fit in L2; any other kernel reads W once at least. */
static double floor_bound_us(const struct sweep *sw, const struct task *t, int m, double floor)
{
	const struct shape *s = &sw->sp->shapes[t->shape];
	const double wbytes = (double)s->n * s->k * (double)dtype_size(s->w);
	const int tok = tmpl_param_index(t->cand.tmpl, "tokens");
	if (strcmp(t->cand.tmpl->stem, "gemv") || tok < 0 || wbytes <= sw->sp->dev.l2_bytes)
		return floor;
	const long tokens = t->cand.params[tok] > 0 ? t->cand.params[tok] : 1;
	return floor * (double)((m + tokens - 1) / tokens);
}

struct scored {
	int task;
	double ratio;
};

static int by_ratio(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;
	return (x->ratio < y->ratio) - (x->ratio > y->ratio);
}

int sweep_thin_anchor(const struct sweep *sw, const struct shape *s, int j)
{
	return sw->parts & SEARCH_THIN && shape_is_range(s) && s->n_ms >= 3 && j % 2 == 1;
}

/* How many parameters tasks a and b differ in (their templates alike),
 * or -1 where the templates differ. */
static int param_distance(const struct sweep *sw, int a, int b)
{
	const struct candidate *x = &sw->tl->t[a].cand, *y = &sw->tl->t[b].cand;
	if (x->tmpl != y->tmpl)
		return -1;
	int d = 0;
	for (int i = 0; i < x->tmpl->nparams; i++)
		d += x->params[i] != y->params[i];
	return d;
}

/* Whether one of lead[0..n) is task t's candidate (by template and
 * parameters: a candidate's id also names its code, which may differ by
 * M) or, where within is 1, differs from it in one parameter. */
static int near_leader(const struct sweep *sw, const int *lead, int n, int t, int within)
{
	for (int i = 0; i < n; i++) {
		const int d = param_distance(sw, lead[i], t);
		if (d >= 0 && d <= within)
			return 1;
	}
	return 0;
}

/* Mark in keep[] (of sw->tl->n, zeroed) the tasks of shape si that its
 * thin anchor j screens: cuBLASLt's, which its heuristic names per M;
 * the candidates among the THIN_TOP best screens at anchor j - 1 or
 * j + 1; and of those at neither anchor (a template's constraints admit
 * some parameter values at some Ms only: gemv's tokens), the ones one
 * parameter away from such a leader. */
static void thin_keep(struct sweep *sw, int si, int j, char *keep)
{
	const struct shape *s = &sw->sp->shapes[si];
	const struct tmpl *lt = tmpl_find("blas_lt");
	int *lead = xmalloc(sizeof(*lead) * 2 * THIN_TOP), nlead = 0, nst[2] = { 0, 0 }, nhere;
	struct cand_task *st[2] = { NULL, NULL };
	struct cand_task *here = sweep_point_tasks(sw, si, s->ms[j], &nhere);
	for (int q = 0; q < 2; q++) {
		const int jq = j - 1 + 2 * q;
		if (jq >= s->n_ms)
			continue;
		st[q] = sweep_point_tasks(sw, si, s->ms[jq], &nst[q]);
		nlead += sweep_leaders(sw, si, s->ms[jq], "screen", st[q], nst[q], THIN_TOP,
				       lead + nlead, NULL);
	}
	for (int i = 0; i < nhere; i++) {
		const int k = here[i].task;
		int seen = 0;
		for (int q = 0; q < 2 && !seen; q++)
			for (int e = 0; e < nst[q] && !seen; e++)
				seen = param_distance(sw, st[q][e].task, k) == 0;
		keep[k] = sw->tl->t[k].cand.tmpl == lt || near_leader(sw, lead, nlead, k, !seen);
	}
	free(lead);
	free(here);
	free(st[0]);
	free(st[1]);
}

/* Screen the tasks of shape si at anchor j (at m) from index from on
 * that have no screen yet, base_us the baseline's time there (-1:
 * unknown). At a thin anchor, those thin_keep() leaves out are done
 * unscreened (after floor pruning, which costs no GPU time). */
static void screen_point(struct sweep *sw, int si, int j, int m, int from, double base_us)
{
	const double floor = sw->parts & SEARCH_PRUNE && base_us > 0 ? sweep_floor_us(sw, si) : -1;
	const int pairs = sweep_screen_pairs(sw);
	char *keep = NULL;
	if (sweep_thin_anchor(sw, &sw->sp->shapes[si], j)) {
		keep = xcalloc((size_t)sw->tl->n + 1, 1);
		thin_keep(sw, si, j, keep);
	}
	for (int i = from; i < sw->tl->n && !sweep_time_up(sw); i++) {
		const struct task *t = &sw->tl->t[i];
		if (t->shape != si || t->m != m || sw->done[i])
			continue;
		const double bound = floor > 0 ? floor_bound_us(sw, t, m, floor) : 0;
		if (bound > base_us && base_us > 0) {
			char why[160];
			snprintf(why, sizeof(why), "its read floor (%.1f us: passes over W at %.1f "
				 "us) cannot beat cuBLAS's %.1f us", bound, floor, base_us);
			sweep_record(sw, i, m, "screen", NULL, "pruned", why);
			sw->evals_done++;
			sw->done[i] = 1;
			continue;
		}
		if (keep && !keep[i]) {
			sw->evals_done++;
			sw->done[i] = 1;
			continue;
		}
		sweep_eval(sw, i, m, "screen", pairs);
		sw->done[i] = !sw->stopped;
	}
	free(keep);
}

/* The point's screens, as the database holds them (this run's and a
 * stopped run's), of tasks from index from on: the ok ones into sc (of
 * *nsc) and, apart, those a race's round has replaced (a screen row of
 * RACE_ROUND_PAIRS where screens have other pairs) into raced (of
 * *nraced). Returns whether a retest of one of those is recorded (their
 * round ended). */
static int point_screens(struct sweep *sw, int si, int m, int from, struct scored *sc,
			 int *nsc, struct scored *raced, int *nraced)
{
	const int rounds = sweep_screen_pairs(sw) != RACE_ROUND_PAIRS;
	int ended = 0;
	*nsc = *nraced = 0;
	for (int i = from; i < sw->tl->n; i++) {
		const struct task *t = &sw->tl->t[i];
		int np;
		double r;
		if (t->shape != si || t->m != m || t->pruned)
			continue;
		const int got = db_result_figure(sw->db, sw->env_id, sw->shape_id[si], sw->cand_id[i],
						 m, "screen", NULL, &np, &r);
		if (got < 0)
			die("cannot read %s's results", sw->db_path);
		if (!got || r <= 0)
			continue;
		if (rounds && np == RACE_ROUND_PAIRS) {
			raced[(*nraced)++] = (struct scored){ i, r };
			ended = ended || db_has_result(sw->db, sw->env_id, sw->shape_id[si],
						       sw->cand_id[i], m, "retest", NULL) == 1;
		} else {
			sc[(*nsc)++] = (struct scored){ i, r };
		}
	}
	return ended;
}

/* The finalists of a point, into fin[]; returns the count. With
 * SEARCH_EARLY, up to RACE_MAX within best/EARLY_BEHIND of its screens
 * sc (sorted here), else the retest_top best. Those a round has raced
 * (race.c races the best last) stay finalists: all of them once a
 * retest of one is recorded (ended), else with as many of the screens
 * left within their best (the best finalist, not raced yet) as RACE_MAX
 * leaves, as the race that stopped had them. *done is set when the
 * round ended. */
static int finalists(struct sweep *sw, int si, int m, int from, int *fin, int *done)
{
	const int top = sw->sp->sweep.retest_top;
	struct scored *sc = xmalloc(sizeof(*sc) * (size_t)(sw->tl->n + 1));
	struct scored *raced = xmalloc(sizeof(*raced) * (size_t)(sw->tl->n + 1));
	int nsc, nraced, n = 0;
	*done = point_screens(sw, si, m, from, sc, &nsc, raced, &nraced);
	qsort(sc, (size_t)nsc, sizeof(*sc), by_ratio);
	qsort(raced, (size_t)nraced, sizeof(*raced), by_ratio);
	const int most = sw->parts & SEARCH_EARLY ? RACE_MAX : top < 64 ? top : 64;
	for (int i = 0; i < nraced && n < most; i++)
		fin[n++] = raced[i].task;
	for (int i = 0; i < nsc && n < most && !*done; i++)
		if (!(sw->parts & SEARCH_EARLY) || sc[i].ratio * EARLY_BEHIND >= sc[0].ratio)
			fin[n++] = sc[i].task;
	free(sc);
	free(raced);
	return n;
}

/* Time the winners of a list shape's anchor at its neighbour Ms and the
 * tuned Ms beside it (sweep_retest_ms), as the dense retest does, so emit
 * can cut between anchors; range shapes get spans.c's grid instead. */
static void retest_around(struct sweep *sw, int si, int m, const int *won, int nwon)
{
	const struct shape *s = &sw->sp->shapes[si];
	int ms[2 * MAX_MS + 3];
	const int nms = sweep_retest_ms(s, m, ms);
	for (int q = 1; q < nms && !sweep_time_up(sw); q++) {
		sweep_baseline_if_missing(sw, si, ms[q]);
		for (int i = 0; i < nwon; i++)
			if (db_has_result(sw->db, sw->env_id, sw->shape_id[si], sw->cand_id[won[i]],
					  ms[q], "retest", sw->retest_since) == 0)
				sweep_eval(sw, won[i], ms[q], "retest", sw->sp->sweep.retest_pairs);
	}
}

/* Phase 1 at an anchor: the baseline, the screens, the race. */
static void anchor_item(struct sweep *sw, const void *arg)
{
	const struct phase_item *it = arg;
	const int si = it->si, m = it->m, from = sw->phase_from;
	if (!sweep_point_runnable(sw, si, m, from))
		return;
	/* the baseline prices the pruning of the screens left to run */
	int left = 0;
	for (int i = from; i < sw->tl->n; i++)
		left += sw->tl->t[i].shape == si && sw->tl->t[i].m == m && !sw->done[i];
	double base_us = -1;
	if (from || !left) {
		sweep_baseline_if_missing(sw, si, m);
	} else {
		sweep_baseline(sw, si, m);
		base_us = sweep_dev->last_base_us;
	}
	int fin[RACE_MAX > 64 ? RACE_MAX : 64], won[64], ended;
	double ratio[64];
	screen_point(sw, si, it->j, m, from, base_us);
	if (!sw->retest || sweep_time_up(sw))
		return;
	const int nfin = finalists(sw, si, m, from, fin, &ended);
	const int range = shape_is_range(&sw->sp->shapes[si]);
	/* a range's anchor race that ended is spans.c's to build on: the grid
	 * races at its Ms replace rounds of candidates it did not race */
	if (range && ended)
		return;
	const int nwon = sweep_race(sw, si, m, fin, nfin, won, ratio, NULL);
	if (!range)
		retest_around(sw, si, m, won, nwon);
}

void sweep_search_points(struct sweep *sw, const char *family, int from)
{
	for (int i = from; i < sw->tl->n; i++)
		sw->evals_total += !sw->done[i];
	struct phase_item *items = xmalloc(sizeof(*items) * (size_t)(sw->sp->nshapes * MAX_MS + 1));
	struct phase_item *thin = xmalloc(sizeof(*thin) * (size_t)(sw->sp->nshapes * MAX_MS + 1));
	sw->phase_from = from;
	/* the thin anchors after the rest: they screen from their neighbours */
	const int n = sweep_anchor_items(sw, family, from, items);
	int nrest = 0, nthin = 0;
	for (int i = 0; i < n; i++) {
		if (sweep_thin_anchor(sw, &sw->sp->shapes[items[i].si], items[i].j))
			thin[nthin++] = items[i];
		else
			items[nrest++] = items[i];
	}
	sweep_phase(sw, anchor_item, items, sizeof(*items), nrest);
	sweep_phase(sw, anchor_item, thin, sizeof(*thin), nthin);
	free(items);
	free(thin);
	/* the grid waits for the cuBLASLt steps (sweep_search_ranges): its
	 * races take every step's best screens at once */
	if (sw->retest && !(sw->parts & SEARCH_GRID))
		sweep_ranges(sw, family);
}

void sweep_search_ranges(struct sweep *sw, const char *family)
{
	if (sw->search == SWEEP_NEW && sw->retest && sw->parts & SEARCH_GRID &&
	    !sweep_time_up(sw))
		sweep_spans(sw, family);
}
