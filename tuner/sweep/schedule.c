/*
 * schedule.c: the order of the sweep's work: phase 1 screens and retests
 * every anchor, phase 2 settles each M the retests reached, phase 3 times
 * the ranges; each phase's items are handed to the next free GPU.
 */
#include "engine.h"
#include "tasks.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A phase of the sweep: n items of size bytes, each handed to fn by the
 * next free GPU (in the main thread when there is one GPU). Items of one
 * phase are independent of each other; a phase ends when every GPU is
 * done with its last item, so what a phase reads (the retests of the one
 * before) is complete. Called and returns holding sweep_lock, in the
 * main thread, which starts the workers the phase's threads ask for
 * (sweep_start_worker) while they run. */
struct phase {
	struct sweep *sw;
	void (*fn)(struct sweep *sw, const void *item);
	const char *items;
	size_t size;
	int n, next;
};

struct phase_thread {
	struct phase *p;
	struct dev *dev;
};

static void phase_drain(struct phase *p)
{
	while (p->next < p->n && !sweep_time_up(p->sw)) {
		const int i = p->next++;
		p->fn(p->sw, p->items + (size_t)i * p->size);
	}
}

static void *phase_main(void *arg)
{
	struct phase_thread *t = arg;
	sweep_dev = t->dev;
	pthread_mutex_lock(&sweep_lock);
	phase_drain(t->p);
	t->p->sw->running--;
	pthread_cond_broadcast(&t->p->sw->wake);
	pthread_mutex_unlock(&sweep_lock);
	return NULL;
}

void sweep_phase(struct sweep *sw, void (*fn)(struct sweep *, const void *),
		      const void *items, size_t size, int n)
{
	struct phase p = { sw, fn, items, size, n, 0 };
	struct dev *main_dev = sweep_dev;
	if (sw->ndev == 1 || n <= 1) {
		phase_drain(&p);
		return;
	}
	pthread_t *th = xmalloc(sizeof(*th) * (size_t)sw->ndev);
	struct phase_thread *pt = xmalloc(sizeof(*pt) * (size_t)sw->ndev);
	/* the threads wait for sweep_lock until sweep_serve_starts waits */
	sw->running = sw->ndev;
	for (int d = 0; d < sw->ndev; d++) {
		pt[d] = (struct phase_thread){ &p, &sw->devs[d] };
		if (pthread_create(&th[d], NULL, phase_main, &pt[d]))
			die("cannot start a thread for GPU %d", sw->devs[d].device);
	}
	sweep_serve_starts(sw);
	pthread_mutex_unlock(&sweep_lock);
	for (int d = 0; d < sw->ndev; d++)
		pthread_join(th[d], NULL);
	pthread_mutex_lock(&sweep_lock);
	sweep_dev = main_dev;
	free(th);
	free(pt);
}

/* Phase 1 at anchor item->j of shape si: screen every task from
 * sw->phase_from on that has no screen yet (the baseline first), then
 * retest the point's best (when the sweep retests), and note the Ms the
 * retests reached for phase 2. */
static void anchor_item(struct sweep *sw, const void *arg)
{
	const struct phase_item *it = arg;
	const int si = it->si, m = it->m, from = sw->phase_from;
	int any = 0;
	for (int i = from; i < sw->tl->n && !sweep_time_up(sw); i++) {
		if (sw->tl->t[i].shape != si || sw->tl->t[i].m != m || sw->done[i])
			continue;
		/* the baseline beside the point's screens; a later step's
		 * screens take the one the database holds (this run's, or an
		 * earlier run's where step 1 had nothing here to screen) */
		if (!any++) {
			if (from)
				sweep_baseline_if_missing(sw, si, m);
			else
				sweep_baseline(sw, si, m);
		}
		sweep_eval(sw, i, m, "screen", sw->sp->sweep.screen_pairs);
		sw->done[i] = !sw->stopped;
	}
	if (!sw->retest)
		return;
	int ms[2 * MAX_MS + 3];
	const int nms = sweep_retest(sw, si, m, ms);
	int *reached = &sw->reached[(size_t)si * 2 * MAX_MS];
	for (int q = 0; q < nms; q++) {
		int seen = 0;
		for (int r = 0; r < sw->nreached[si]; r++)
			seen |= reached[r] == ms[q];
		if (!seen && sw->nreached[si] < 2 * MAX_MS)
			reached[sw->nreached[si]++] = ms[q];
	}
}

/* Screen every task from on that has no screen yet, point by point (the
 * baseline first), and retest each point's best (when the sweep
 * retests): phase 1, a point an item; then sweep_settle() once each M those
 * retests reached (phase 2); then time the range shapes' finalists across
 * their ranges (sweep_ranges, phase 3): the whole sweep, or what a
 * cuBLASLt step added. Every shape's anchors come first: a sweep stopped
 * in a later phase has finalists at every anchor to emit from. */
void sweep_points(struct sweep *sw, const char *family, int from)
{
	if (sw->search == SWEEP_NEW) {
		sweep_search_points(sw, family, from);
		return;
	}
	long range_baselines;   /* (the baselines are not evals) */
	for (int i = from; i < sw->tl->n; i++)
		sw->evals_total += !sw->done[i];
	sw->evals_total += sw->retest ? sweep_planned_retests(sw, family, from) : 0;
	sw->evals_total += sw->retest ? sweep_planned_range(sw, family, &range_baselines) : 0;
	struct phase_item *items = xmalloc(sizeof(*items) * (size_t)(sw->sp->nshapes * 2 * MAX_MS + 1));
	sw->phase_from = from;
	memset(sw->nreached, 0, sizeof(*sw->nreached) * (size_t)sw->sp->nshapes);
	sweep_phase(sw, anchor_item, items, sizeof(*items),
		    sweep_anchor_items(sw, family, from, items));
	int n = 0;
	for (int si = 0; si < sw->sp->nshapes && sw->retest; si++)
		for (int r = 0; r < sw->nreached[si]; r++)
			items[n++] = (struct phase_item){ .si = si,
						    .m = sw->reached[(size_t)si * 2 * MAX_MS + r] };
	sweep_phase(sw, sweep_settle_item, items, sizeof(*items), n);
	free(items);
	if (sw->retest)
		sweep_ranges(sw, family);
}
