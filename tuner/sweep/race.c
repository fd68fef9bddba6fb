/*
 * race.c: the race among the finalists of one M (sweep --search new).
 *
 * The finalists are timed one request each (the worker times a candidate
 * against the baseline in alternated pairs; a batched request that times
 * several candidates against one baseline would need a worker change that
 * this CPU-only work could not test): a short round of RACE_ROUND_PAIRS
 * pairs, after which a finalist clearly behind the leader leaves, then
 * retest_pairs (the pairs emit needs) for the leader and every finalist
 * within the noise of it. The round's rows are the point's screens; the
 * last ones its retests.
 *
 * What the database holds for this environment stands: a finalist whose
 * round (a screen row of RACE_ROUND_PAIRS pairs) or retest (a retest row
 * of retest_pairs, recorded since --retest-since) is recorded at the M is
 * not timed again (sweep_eval_once), so a sweep stopped by --time-limit
 * and run again goes on where it stopped. The round times the finalists
 * best last: a stopped round leaves the best screen unraced, which is how
 * search.c's finalists() finds the rest of a point's finalists again.
 */
#include "engine.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Within this of the leader after the round: timed with retest_pairs too
 * (the rest leave). make bench-search (with the bridge and the wide
 * cross, the cost model before its W term): 1.01 against 1.02 spends
 * 198.7 against 211.9 modelled GPU s on Llama-3-8B, 162.8 against 178.5 on search_spaces/h200.yaml and 80.2
 * against 87.2 on the odd shapes, for a regret of 0.46% / 2.66% / 0.64%
 * against 0.48% / 2.68% / 0.65%; 1.00 (the leader alone) 189.3 s and
 * 0.53% on Llama-3-8B, 2.77% on h200.yaml */
#define RACE_NEAR 1.01

void sweep_eval_once(struct sweep *sw, int ti, int m, const char *phase, int pairs)
{
	const int retest = !strcmp(phase, "retest");
	int np;
	double r;
	const int got = db_result_figure(sw->db, sw->env_id, sw->shape_id[sw->tl->t[ti].shape],
					 sw->cand_id[ti], m, phase, retest ? sw->retest_since : NULL,
					 &np, &r);
	if (got < 0)
		die("cannot read %s's results", sw->db_path);
	if (got && (np < 0 || np == pairs)) {
		sweep_dev->last_ratio = r;
		return;
	}
	sweep_eval(sw, ti, m, phase, pairs);
}

/* Race tasks ti[0..n) at shape si's M m: the elimination round (with
 * SEARCH_RACE, and more than one finalist), then retest pairs for the
 * survivors. Their tasks into won[] and their retest ratios into
 * won_ratio[] (-1 where not ok), both of n; returns how many. When
 * round is not NULL, each task's figure into round[i] (of n): its
 * round's ratio, or its retest's without a round (-1: not ok, not run). */
int sweep_race(struct sweep *sw, int si, int m, const int *ti, int n, int *won,
	       double *won_ratio, double *round)
{
	(void)si;
	int na = 0, raced = (sw->parts & SEARCH_RACE) && n > 1;
	for (int i = 0; round && i < n; i++)
		round[i] = -1;
	if (!raced) {
		for (int i = 0; i < n; i++)
			won[na++] = ti[i];
	} else {
		double *r = xmalloc(sizeof(*r) * (size_t)n), lead = 0;
		for (int i = 0; i < n; i++)
			r[i] = -1;
		for (int i = n - 1; i >= 0 && !sweep_time_up(sw); i--) {
			sweep_eval_once(sw, ti[i], m, "screen", RACE_ROUND_PAIRS);
			r[i] = sweep_dev->last_ratio;
			if (r[i] > lead)
				lead = r[i];
		}
		for (int i = 0; i < n && !sw->stopped; i++) {
			if (round)
				round[i] = r[i];
			if (r[i] > 0 && r[i] * RACE_NEAR >= lead)
				won[na++] = ti[i];
		}
		free(r);
	}
	for (int i = 0; i < na; i++) {
		sweep_eval_once(sw, won[i], m, "retest", sw->sp->sweep.retest_pairs);
		won_ratio[i] = sw->stopped ? -1 : sweep_dev->last_ratio;
		if (round && !raced)
			round[i] = won_ratio[i];
	}
	return na;
}
