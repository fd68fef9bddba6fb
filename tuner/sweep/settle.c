/*
 * settle.c: compare like with like at one M: where the leaders' retests
 * come from different runs, measure again in this run those it did not.
 */
#include "engine.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many times sweep_settle() looks again at one M: re-measured leaders may
 * fall out of the best and let an older one in. */
#define SETTLE_ROUNDS 4

/* Compare like with like at shape si's M q: emit ranks the retests there
 * by ratio, and ratios taken on different machines or days differ by
 * more than the candidates do (on an H200, retests from two runs put qkv
 * at M = 1 on the slower of two kernels). Where this run has retested anything at
 * q, or where the best retest_top retests of the current code there come
 * from different runs (a sweep stopped half way, say), each of those not
 * measured by this run is measured again now, replacing its row. Decided
 * from the rows alone, so a resumed sweep settles what a stopped one left;
 * a database whose best at q all come from one run is left as it is.
 * st: sweep_point_tasks() of si at every M, nst of them. */
void sweep_settle(struct sweep *sw, int si, int q, const struct cand_task *st, int nst)
{
	const int top = sw->sp->sweep.retest_top;
	char (*lead)[DB_RUN_MAX] = xmalloc(sizeof(*lead) * (size_t)top);
	int *ti = xmalloc(sizeof(*ti) * (size_t)top);
	for (int round = 0; round < SETTLE_ROUNDS; round++) {
		/* the current code's best at q, with the run of each */
		const int n = sweep_leaders(sw, si, q, "retest", st, nst, top, ti, lead);
		int mixed = db_run_retests(sw->db, sw->env_id, sw->shape_id[si], q, sw->run_id) > 0;
		for (int i = 1; i < n; i++)
			mixed |= strcmp(lead[i], lead[0]) != 0;
		int ran = 0;
		for (int i = 0; mixed && i < n; i++) {
			if (!strcmp(lead[i], sw->run_id))
				continue;
			sw->evals_total++;      /* sweep_planned_retests() counts finalists only */
			sweep_eval(sw, ti[i], q, "retest", sw->sp->sweep.retest_pairs);
			ran++;
		}
		if (!ran)
			break;
	}
	free(lead);
	free(ti);
}

/* Phase 2 at shape si's M item->m: sweep_settle() there, over the shape's
 * tasks at every M (a leader at an M may be a task of another). */
void sweep_settle_item(struct sweep *sw, const void *arg)
{
	const struct phase_item *it = arg;
	int nst;
	struct cand_task *st = sweep_point_tasks(sw, it->si, 0, &nst);
	sweep_settle(sw, it->si, it->m, st, nst);
	free(st);
}
