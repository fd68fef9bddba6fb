/*
 * engine.h: the sweep's state and the functions its files share (only
 * tuner/sweep/ includes this; sweep.h is the entry).
 *
 * The sweep is one process with a thread per GPU (sweep --devices) in a
 * phase, each talking to its own worker. Everything but the wait for a
 * worker's reply runs under sweep_lock, so the supervisor's state and its
 * one database connection are used by one thread at a time; sweep_dev is
 * the GPU of the calling thread (the first GPU's in the main thread).
 * Workers are started by the main thread only (sweep_start_worker): the
 * kernel kills a worker when the thread that forked it ends (its death
 * signal, PR_SET_PDEATHSIG, follows the forking thread), and the main
 * thread outlives every phase.
 */
#ifndef GT_SWEEP_ENGINE_H
#define GT_SWEEP_ENGINE_H

#include <pthread.h>
#include <stdint.h>

#include "db.h"
#include "supervise.h"
#include "sweep.h"

/* What the cuBLASLt search asked a point and orientation this run. */
struct lt_sent {
	uint64_t seeds;         /* a hash of the seeds its last request carried */
	int whole;              /* a reply named every proposal's variants: no
				 * error, no failed or truncated variants */
};

/* One GPU of the sweep: its worker process and what it has in flight. */
struct dev {
	struct worker w;
	int device;
	long evals;              /* evals and baselines it ran this run */
	int busy;                /* a claim: (shape, cand, m, phase) is being timed here */
	int cl_shape, cl_m;
	long long cl_cand;       /* -1: a baseline */
	const char *cl_phase;
	int want_start;          /* its phase thread waits for the main thread to
				  * start its worker (sweep_start_worker) */
	int start_rc;            /* worker_start's answer to that */
	double last_ratio;       /* its last eval's ratio (-1: not ok) */
	double last_base_us;     /* its last baseline's cuBLAS time (-1: none) */
};

/* The statuses a result row may carry, "other" last. */
#define SWEEP_NSTATUS 8
extern const char *const sweep_status_names[SWEEP_NSTATUS];

struct sweep {
	struct space *sp;
	struct tasklist *tl;
	struct jit_options jit;
	struct db *db;
	struct dev *devs;        /* the GPUs (--devices), each with its worker */
	int ndev;
	const char *db_path;
	int retest;
	const char *retest_since;       /* --retest-since: older retests are redone */
	char run_id[DB_RUN_MAX];        /* this run, as its rows record it (its start) */
	long long env_id;
	long long *shape_id;     /* per space shape */
	long long *cand_id;      /* per task */
	char *done;              /* per task: screen result already recorded */
	long counts[SWEEP_NSTATUS];     /* per status, this run */
	long evals_total, evals_done;
	int lt_seeds;            /* seeds the cuBLASLt search sent this step */
	struct lt_sent *lt_sent; /* per shape, tuned m and orientation */
	double started;
	double stop_at;          /* --time-limit: start no eval after this (0: none) */
	int seeded;              /* --seed-from: ranges on emit's grid (seed_times_m) */
	int phase_from;          /* sweep_points' from, for its items */
	int *reached;            /* per shape, 2 * MAX_MS: the Ms its retests reached */
	int *nreached;
	int stopped;             /* it passed: the rest is left to a rerun */
	pthread_t main_thread;   /* the thread that starts workers */
	pthread_cond_t wake;     /* a start asked or done, a phase thread done */
	int running;             /* a phase's threads still draining */
	int dry;                 /* a dry run: no GPU, no database written */
	enum sweep_search search;
	unsigned parts;          /* SEARCH_* of the new search */
	double *floor_us;        /* per shape: W's read floor (0: not asked yet) */
	double evals_started;    /* when the first request went out: the
				  * progress clock (the compile before is not
				  * the evals' rate) */
};

extern pthread_mutex_t sweep_lock;
extern _Thread_local struct dev *sweep_dev;

/* A point's tasks by candidate id (sweep_point_tasks). */
struct cand_task {
	long long cand;         /* first: cmp_cand compares it */
	int task;
};

struct range_plan;
/* An item of a phase: shape si at M m (an anchor's index j in phase 1;
 * the range plan in phase 3). */
struct phase_item {
	int si, m, j;
	const struct range_plan *plan;
};

/* The anchors of family (all when NULL) as phase items: each shape's
 * tuned Ms, and at a later step (from > 0) only those where it added
 * tasks. Returns how many (retest.c). */
int sweep_anchor_items(struct sweep *sw, const char *family, int from, struct phase_item *items);

/* ask.c: the worker's requests and their records */
int sweep_time_up(struct sweep *sw);
int sweep_record(struct sweep *sw, int ti, int m, const char *phase, const struct kv *r,
		 const char *status, const char *reason);
enum call_result sweep_ask(struct sweep *sw, char *req, double deadline, struct kv *r,
			   int *wst);
void sweep_eval(struct sweep *sw, int ti, int m, const char *phase, int pairs);
void sweep_baseline(struct sweep *sw, int si, int m);
void sweep_baseline_if_missing(struct sweep *sw, int si, int m);
/* Start v's worker (worker_start) in the main thread, which outlives the
 * calling phase thread; called holding sweep_lock. Returns 0 or -1. */
int sweep_start_worker(struct sweep *sw, struct dev *v);
/* The main thread while a phase's threads run: start the workers they
 * ask for until every thread is done (sw->running 0). */
void sweep_serve_starts(struct sweep *sw);
/* Die after a failed write of what to the database, naming it, and the
 * file-size limit when there is one (the sweep stops: nothing is
 * measured twice, and what was committed stands). */
_Noreturn void sweep_write_failed(const struct sweep *sw, const char *what);

/* climb.c: the cuBLASLt search */
int sweep_lt_step(struct sweep *sw, const char *family, int step);

/* retest.c: a point's tasks, its leaders and their retests */
struct cand_task *sweep_point_tasks(const struct sweep *sw, int si, int m, int *n);
int sweep_point_task(const struct cand_task *pt, int n, long long cand);
int sweep_retest_ms(const struct shape *s, int m, int *out);
int sweep_point_new_tasks(const struct sweep *sw, int si, int m, int from);
int sweep_point_runnable(const struct sweep *sw, int si, int m, int from);
int sweep_leaders(struct sweep *sw, int si, int q, const char *phase,
		  const struct cand_task *tasks, int n, int max, int *ti,
		  char (*runs)[DB_RUN_MAX]);
int sweep_retest(struct sweep *sw, int si, int m, int *ms);

/* settle.c: like with like at one M */
void sweep_settle(struct sweep *sw, int si, int q, const struct cand_task *st, int nst);
void sweep_settle_item(struct sweep *sw, const void *arg);

/* ranges.c: the M ranges of range shapes */
int sweep_range_ms(const struct shape *s, int **out);
int sweep_anchor_covers(const struct shape *s, int j, int m);
long sweep_planned_range(const struct sweep *sw, const char *family, long *baselines);
void sweep_ranges(struct sweep *sw, const char *family);

/* schedule.c: the phases, one GPU thread each */
void sweep_phase(struct sweep *sw, void (*fn)(struct sweep *, const void *),
		 const void *items, size_t size, int n);
void sweep_points(struct sweep *sw, const char *family, int from);

/* estimate.c: the plan, the estimate and the dry run */
long sweep_planned_retests(const struct sweep *sw, const char *family, int from);
long sweep_shape_runnable(const struct sweep *sw, int si);
void sweep_say_no_candidate(const struct sweep *sw, int si, const char *on);
int sweep_print_plan(const struct sweep *sw, const char *family);
int sweep_print_resume(const struct sweep *sw, const char *family);

/* coverage.c: per shape (of family only, when given), one line of the
 * templates of the space with their candidates there, or why they have
 * none. Returns how many times a template gets none at a shape of its
 * dtypes (what --strict refuses). */
int sweep_print_coverage(const struct sweep *sw, const char *family);

/* ids.c: the database ids of shapes and candidates */
void sweep_load_shape_ids(struct sweep *sw);
void sweep_load_ids(struct sweep *sw, int from);
void sweep_resolve_ids(struct sweep *sw, int from);
void sweep_record_static(struct sweep *sw, int from);

/* search.c: the new search (--search new) */
void sweep_search_points(struct sweep *sw, const char *family, int from);
/* The range shapes on the grid, once every cuBLASLt step screened
 * (SEARCH_GRID; nothing otherwise) */
void sweep_search_ranges(struct sweep *sw, const char *family);
/* Whether anchor j of shape s is thin (SEARCH_THIN: the odd anchors of a
 * range of three or more), screened after the rest from their best. */
int sweep_thin_anchor(const struct sweep *sw, const struct shape *s, int j);
double sweep_floor_us(struct sweep *sw, int si);
/* Pairs of an early-stopping screen: enough to tell a candidate 25% behind
 * (the median of 3 ratios of 2% spread, one replay in 50 an outlier) */
#define EARLY_PAIRS 3
/* The pairs of an anchor's screen: EARLY_PAIRS with SEARCH_EARLY, else
 * screen_pairs (search.c's screens, spans.c's cross screens) */
static inline int sweep_screen_pairs(const struct sweep *sw)
{
	return sw->parts & SEARCH_EARLY ? EARLY_PAIRS : sw->sp->sweep.screen_pairs;
}

/* Pairs of a race's elimination round: a median of 10 ratios is within
 * about 2% of the 100-pair figure on the modelled GPU (2% spread per
 * replay, a per-eval offset of 1.5%: tests/fake/gpumodel.c) */
#define RACE_ROUND_PAIRS 10
/* race.c: task ti at m in phase with pairs pairs, unless the database
 * holds that row for this environment (a retest recorded since
 * --retest-since; a row of other pairs is timed again): its ratio, or -1
 * where it is not ok, into sweep_dev->last_ratio either way */
void sweep_eval_once(struct sweep *sw, int ti, int m, const char *phase, int pairs);
/* race.c: a race among finalists ti[0..n) at one M: the survivors into
 * won[] with their retest ratios, each finalist's round figure into
 * round[] when not NULL; returns how many got retest pairs */
int sweep_race(struct sweep *sw, int si, int m, const int *ti, int n, int *won,
	       double *won_ratio, double *round);

/* SEARCH_CARRY keeps the best SPAN_CARRY_EACH of each template (of
 * SPAN_TMPLS at most) at an anchor and at the grid M before (spans.c;
 * price.c counts them): with one, a cuBLASLt algorithm that is the
 * fastest at every M above 64 (down in Llama-3-8B) fell out wherever
 * noise put another ahead in a round */
#define SPAN_TMPLS 8
#define SPAN_CARRY_EACH 2
/* SEARCH_CROSS: from this M on, an anchor of a range shape also screens
 * every cuBLASLt algorithm screened at the anchor before or after it
 * (spans.c, cross_neighbours) */
#define CROSS_WIDE_MIN_M 256
/* spans.c: the range shapes on emit's grid (SEARCH_GRID) */
void sweep_spans(struct sweep *sw, const char *family);

/* price.c: the dry run's GPU estimate for the sweep's method, priced
 * with costmodel.h request by request */
struct sweep_price {
	double gpu_s;
	long screens, retests, ranged;
};
void sweep_price(const struct sweep *sw, const char *family, struct sweep_price *p);
/* The priced GPU seconds of range shape si's range phase at m (new: m a
 * grid M, with its segment to the next). */
double sweep_price_range_m(const struct sweep *sw, int si, int m);

/* progress.c */
void sweep_summary(const struct sweep *sw);

#endif
