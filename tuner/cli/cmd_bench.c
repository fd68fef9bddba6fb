/*
 * cmd_bench.c: `gemmtab bench`, the project's headline benchmark. It
 * measures the built library (libgemmtab with its compiled-in dispatch
 * table), not the tuner's candidates: for every family of a space at its
 * loads and neighbour Ms, the worker validates gt_linear against the FP64
 * reference and times it paired against the cuBLAS baseline (docs/workload.md's
 * method). Prints per family and M, per load, and the score: the
 * geometric mean over the six loads of sum(t_baseline) / sum(t_library).
 * With --floors DB, every point and load also shows the practical read
 * floor that `gemmtab probe` recorded in DB over the library's time; with
 * --paired too, the worker also times that read (the probe's configuration
 * of it) paired against the library's graphs, so the fraction comes from
 * the bench's own process and batch (the replay overhead each process
 * subtracts moves by ~0.2 us, a few percent of a 3 us kernel).
 */
#include "commands.h"
#include "db.h"
#include "options.h"
#include "plotset.h"
#include "report.h"
#include "space.h"
#include "stats.h"
#include "supervise.h"
#include "tasks.h"
#include "texttable.h"
#include "util.h"

#include "../../runtime/gemmtab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A neighbour M may be slower than the baseline only within noise
 * (docs/workload.md); the bound is 3%. */
#define REGRESSION_RATIO 0.97
/* The most --pairs accepted: far more than a point needs, so only a typo
 * is refused. */
#define MAX_PAIRS 4096
/* The most rounds a point is measured, --rounds and --recheck's together. */
#define MAX_ROUNDS 32

static const char usage_text[] =
	"usage: gemmtab bench [--table FILE] [--space FILE] [--device N] [--pairs N]\n"
	"                     [--rounds N] [--recheck R] [--floors DB [--paired]]\n"
	"                     [--range-step S]\n"
	"                     [--format text|csv|md|json] [--section LIST] [--out FILE]\n"
	"                     [--plot FILE.svg]\n"
	"       gemmtab bench --from BENCH.md --plot FILE.svg\n"
	"  --table FILE   the table the library must have compiled in (checked)\n"
	"  --space FILE   families, loads and neighbour Ms [search_spaces/h200.yaml]\n"
	"  --device N     GPU [0]\n"
	"  --pairs N      paired repetitions per (family, M) [100]\n"
	"  --rounds N     measure every point N times, all points per round (fresh\n"
	"                 buffers each time), and report each figure's median [1]\n"
	"  --recheck R    measure each point slower than the baseline by more than\n"
	"                 3% after the rounds R more rounds, and report the median\n"
	"                 of all its rounds (its check names the first reading) [0]\n"
	"  --floors DB    also show each point's and load's floor_frac: the\n"
	"                 practical read floor gemmtab probe recorded in DB (its\n"
	"                 newest environment) over the library's time\n"
	"  --paired       with --floors: also time the probe's read of each point's\n"
	"                 weight bytes (its configuration in DB) paired against the\n"
	"                 library, in the same batch: the 'paired' column is the\n"
	"                 median of the per-pair ratios floor / library\n"
	"  --range-step S of a range shape (m: LO..HI), every M up to 64 and every\n"
	"                 S-th above (with the range's end and check points) [1]\n"
	"  --format F     text, csv, md or json [text]; csv is one tidy table (the\n"
	"                 first --section), json one document with every section\n"
	"  --section LIST points, loads, score, comma-separated [all; csv: points]\n"
	"  --out FILE     write the report there (atomically) instead of stdout\n"
	"  --plot FILE    also draw speedup against M per family (with the floor's\n"
	"                 bound and the baseline at 1) and the fraction of the floor\n"
	"  --from MD      with --plot and nothing else: redraw a saved --format md\n"
	"                 report (no GPU needed)\n";

struct point {
	const struct shape *s;
	int m;
	char status[16];
	double base_us, lib_us, ratio, lo, hi, err;
	double floor_us;        /* the family's probed floor (--floors), or NaN */
	/* --paired: the probe's read configuration (0: none), and the read's
	 * and the library's median net times in their batch and the median
	 * floor / library ratio of its pairs (NaN when not measured) */
	int floor_blocks, floor_unroll;
	double pfloor_us, plib_us, pfrac, plo, phi;
	char explain[512];
	/* --recheck: the rounds it added to this point (0: none), and the
	 * point's ratio over the bench's rounds before them */
	int rechecked;
	double first_ratio;
};

/* The floors of --floors: the newest environment of DB. Returns the count
 * (0: none recorded, a warning) or -1 (error printed); *label names
 * where they come from. */
static int load_floors(const char *path, struct floor_row **out, char *label, size_t len)
{
	struct db *db;
	struct env_info e;
	long long env;
	int n = -1;
	*out = NULL;
	if (db_open_read(path, &db))
		return error("--floors %s: not a database gemmtab can read", path);
	if (db_integrity(db)) {
		db_close(db);
		return -1;
	}
	if (!db_env_pick(db, "bench", 0, &env, &e))
		n = db_floors(db, env, out);
	db_close(db);
	if (n < 0)
		return error("--floors %s: no floors to read (gemmtab probe --db %s records them)",
			     path, path);
	if (n == 0)
		warning("--floors %s: env %lld has no floor probe (gemmtab probe records one)", path,
			env);
	snprintf(label, len, "%s, env %lld: %s", path, n >= 0 ? env : 0, n >= 0 ? e.gpu_name : "");
	return n;
}

/* The floor probed for shape s: its family's, where the probe read as
 * many bytes as s's weights (a probe of another space's family of that
 * name read other bytes: NULL, and *other set). */
static const struct floor_row *floor_of(const struct floor_row *f, int n, const struct shape *s,
					int *other)
{
	const double bytes = (double)s->n * s->k * dtype_size(s->w);
	*other = 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].family, s->family)) {
			if (isnan(f[i].bytes) || f[i].bytes == bytes)
				return &f[i];
			*other = 1;
		}
	return NULL;
}

static int find_point(const struct point *p, int n, const char *family, int m)
{
	for (int i = 0; i < n; i++)
		if (p[i].m == m && !strcmp(p[i].s->family, family))
			return i;
	return -1;
}

static void measure(struct worker *w, struct point *p, int pairs, int round, int device)
{
	const struct shape *s = p->s;
	struct kv_out o;
	struct kv r;

	kv_begin(&o, "rt");
	kv_add_shape(&o, s, p->m);
	kv_addf(&o, "pairs", "%d", pairs);
	kv_addf(&o, "round", "%d", round);
	if (round > 0)  /* fresh random inputs in each later round */
		kv_addf(&o, "seed", "%d", round);
	if (p->floor_blocks) {
		kv_addf(&o, "floor_blocks", "%d", p->floor_blocks);
		kv_addf(&o, "floor_unroll", "%d", p->floor_unroll);
	}
	char *req = kv_string(&o);
	if (w->pid <= 0 && worker_start(w, device))
		die("cannot start the GPU worker");
	enum call_result cr = worker_call(w, req, 120 + pairs * 0.05, &r, NULL);
	free(req);
	p->base_us = p->lib_us = p->ratio = p->lo = p->hi = p->err = NAN;
	p->pfloor_us = p->plib_us = p->pfrac = p->plo = p->phi = NAN;
	if (cr != CALL_OK) {
		snprintf(p->status, sizeof(p->status), "%s", cr == CALL_TIMEOUT ? "timeout" : "fault");
		snprintf(p->explain, sizeof(p->explain), "the worker %s",
			 cr == CALL_TIMEOUT ? "passed its deadline" : "died");
		worker_kill(w);
		return;
	}
	const char *st = kv_get(&r, "status");
	snprintf(p->status, sizeof(p->status), "%s", strcmp(r.op, "result") || !st ? "error" : st);
	p->base_us = kv_get_double(&r, "base_us", NAN);
	p->lib_us = kv_get_double(&r, "cand_us", NAN);
	p->ratio = kv_get_double(&r, "ratio", NAN);
	p->lo = kv_get_double(&r, "ratio_lo", NAN);
	p->hi = kv_get_double(&r, "ratio_hi", NAN);
	p->err = kv_get_double(&r, "err_global", NAN);
	p->pfloor_us = kv_get_double(&r, "floor_us", NAN);
	p->plib_us = kv_get_double(&r, "floor_lib_us", NAN);
	p->pfrac = kv_get_double(&r, "floor_frac", NAN);
	p->plo = kv_get_double(&r, "floor_frac_lo", NAN);
	p->phi = kv_get_double(&r, "floor_frac_hi", NAN);
	const char *ex = kv_get(&r, "explain");
	const char *why = kv_get(&r, "reason");
	snprintf(p->explain, sizeof(p->explain), "%s%s%s", ex ? ex : "", why ? ": " : "",
		 why ? why : "");
	kv_free(&r);
}

/* The median of v[0..n) (stats_median), NaN when any of them is. */
static double median_of(const double *v, int n)
{
	for (int i = 0; i < n; i++)
		if (isnan(v[i]))
			return NAN;
	return stats_median(v, n);
}

/* One point from its rounds q[0..n): the median of each time and of the
 * ratio, the widest spread, the worst error; a round that failed fails
 * the point (its status and explanation). */
static void combine_rounds(struct point *out, const struct point *q, int n)
{
	double base[MAX_ROUNDS] = { 0 }, lib[MAX_ROUNDS] = { 0 }, ratio[MAX_ROUNDS] = { 0 };
	double pfloor[MAX_ROUNDS] = { 0 }, plib[MAX_ROUNDS] = { 0 }, pfrac[MAX_ROUNDS] = { 0 };
	if (n < 1 || n > MAX_ROUNDS)
		die("combine_rounds: %d rounds", n);
	*out = q[0];
	for (int r = 0; r < n; r++) {
		if (strcmp(q[r].status, "ok")) {
			*out = q[r];
			return;
		}
		base[r] = q[r].base_us;
		lib[r] = q[r].lib_us;
		ratio[r] = q[r].ratio;
		out->lo = fmin(out->lo, q[r].lo);
		out->hi = fmax(out->hi, q[r].hi);
		out->err = fmax(out->err, q[r].err);
		pfloor[r] = q[r].pfloor_us;
		plib[r] = q[r].plib_us;
		pfrac[r] = q[r].pfrac;
		out->plo = fmin(out->plo, q[r].plo);
		out->phi = fmax(out->phi, q[r].phi);
	}
	out->pfloor_us = median_of(pfloor, n);
	out->plib_us = median_of(plib, n);
	out->pfrac = median_of(pfrac, n);
	out->base_us = median_of(base, n);
	out->lib_us = median_of(lib, n);
	out->ratio = median_of(ratio, n);
}

/* Rounds r0..r1 of the points whose want[i] is set, round by round over
 * them: each point's buffers are made afresh in every round (the worker
 * keeps one (shape, m) at a time). q holds n x cap rounds. */
static void measure_rounds(struct worker *w, struct point *p, struct point *q, int n, int cap,
			   const unsigned char *want, int r0, int r1, int pairs, int device)
{
	long todo = 0, done = 0;
	for (int i = 0; i < n; i++)
		todo += want[i] ? r1 - r0 : 0;
	double t0 = now_seconds();
	for (int r = r0; r < r1; r++)
		for (int i = 0; i < n; i++) {
			if (!want[i])
				continue;
			char label[96];
			snprintf(label, sizeof(label), "%s %d/%d %s m=%d", r0 ? "recheck" : "round",
				 r - r0 + 1, r1 - r0, p[i].s->family, p[i].m);
			progress_show(label, done++, todo, t0);
			struct point *one = &q[(size_t)i * cap + r];
			*one = p[i];
			measure(w, one, pairs, r, device);
		}
	progress_show("done", todo, todo, t0);
	progress_end();
}

/* Every point over rounds rounds, into its medians (combine_rounds); then,
 * with recheck, each point still slower than REGRESSION_RATIO over
 * recheck more rounds, numbered on from the first (fresh inputs), into
 * the medians over all of its rounds. */
static void measure_all(struct point *p, int n, int pairs, int rounds, int recheck, int device)
{
	const int cap = rounds + recheck;
	struct point *q = xcalloc((size_t)n * (size_t)cap, sizeof(*q));
	unsigned char *want = xcalloc((size_t)n + 1, 1);
	struct worker w = { 0 };
	if (worker_start(&w, device))
		die("cannot start the GPU worker");
	memset(want, 1, (size_t)n);
	measure_rounds(&w, p, q, n, cap, want, 0, rounds, pairs, device);
	int again = 0;
	for (int i = 0; i < n; i++) {
		combine_rounds(&p[i], &q[(size_t)i * cap], rounds);
		want[i] = recheck && !strcmp(p[i].status, "ok") && p[i].ratio < REGRESSION_RATIO;
		again += want[i];
	}
	if (again) {
		measure_rounds(&w, p, q, n, cap, want, rounds, cap, pairs, device);
		for (int i = 0; i < n; i++)
			if (want[i]) {
				double first = p[i].ratio;
				combine_rounds(&p[i], &q[(size_t)i * cap], cap);
				p[i].rechecked = recheck;
				p[i].first_ratio = first;
			}
	}
	worker_stop(&w);
	free(want);
	free(q);
}

/* A figure with fmt, or "-" where it was not measured. */
static void add_or_dash(struct table *t, const char *fmt, double v)
{
	if (isnan(v))
		table_add(t, "-");
	else
		table_addf(t, fmt, v);
}

/* The library ran the baseline's own call for this point (gt_weight_explain
 * says "m=5: baseline (...)"): a reading below 1 there is the noise
 * between two identical calls, not a slower dispatch. */
static int runs_baseline(const struct point *q)
{
	return strstr(q->explain, ": baseline (") != NULL;
}

/* The check column into buf: ok, a failure's status, or a slower point;
 * a rechecked point names its ratio over the first rounds. */
static const char *point_check(const struct point *q, int rounds, char *buf, size_t len)
{
	const char *verdict = q->ratio >= REGRESSION_RATIO ? "ok"
			      : runs_baseline(q) ? "ok, SLOWER (same call)" : "ok, SLOWER";
	if (strcmp(q->status, "ok"))
		verdict = q->status;
	if (q->rechecked)
		snprintf(buf, len, "%s (rechecked: %.3f over the first %d round%s, %d in all)",
			 verdict, q->first_ratio, rounds, rounds == 1 ? "" : "s",
			 rounds + q->rechecked);
	else
		snprintf(buf, len, "%s", verdict);
	return buf;
}

/* The per-point table. floors: the floor_frac column (after the spread);
 * paired: the paired one too, with its spread. tidy (csv, json): every
 * column, one value per cell (the spreads' ends apart, the floor's time,
 * '-' where a figure was not measured). */
static void points_table(const struct point *p, int n, int floors, int paired, int rounds,
			 int tidy, struct table *t)
{
	static const char *const head[] = { "family", "M", "base_us", "lib_us", "speedup",
		"spread", "floor_frac", "paired", "paired_spread", "err/tol", "check",
		"dispatch" };
	static const char *const tidy_head[] = { "family", "n", "k", "M", "base_us", "lib_us",
		"speedup", "spread_lo", "spread_hi", "floor_us", "floor_frac", "paired",
		"paired_lo", "paired_hi", "err_tol", "check", "dispatch" };
	if (tidy) {
		table_init(t, ARRAY_SIZE(tidy_head));
		for (size_t c = 0; c < ARRAY_SIZE(tidy_head); c++)
			table_add(t, tidy_head[c]);
	} else {
		table_init(t, 9 + (floors != 0) + 2 * (paired != 0));
		for (int i = 0; i < 12; i++)
			if ((floors || i != 6) && (paired || (i != 7 && i != 8)))
				table_add(t, head[i]);
	}
	for (int i = 0; i < n; i++) {
		const struct point *q = &p[i];
		table_add(t, q->s->family);
		if (tidy) {
			table_addf(t, "%d", q->s->n);
			table_addf(t, "%d", q->s->k);
		}
		table_addf(t, "%d", q->m);
		table_addf(t, "%.2f", q->base_us);
		table_addf(t, "%.2f", q->lib_us);
		table_addf(t, "%.3f", q->ratio);
		if (tidy) {
			table_addf(t, "%.3f", q->lo);
			table_addf(t, "%.3f", q->hi);
			add_or_dash(t, "%.2f", q->floor_us);
		} else {
			table_addf(t, "%.3f..%.3f", q->lo, q->hi);
		}
		if (floors || tidy)
			add_or_dash(t, "%.2f", q->floor_us / q->lib_us);
		if (tidy) {
			add_or_dash(t, "%.2f", q->pfrac);
			add_or_dash(t, "%.2f", isnan(q->pfrac) ? NAN : q->plo);
			add_or_dash(t, "%.2f", isnan(q->pfrac) ? NAN : q->phi);
		} else if (paired && isnan(q->pfrac)) {
			table_add(t, "-");
			table_add(t, "-");
		} else if (paired) {
			table_addf(t, "%.2f", q->pfrac);
			table_addf(t, "%.2f..%.2f", q->plo, q->phi);
		}
		table_addf(t, "%.3f", q->err / q->s->tol);
		char check[128];
		table_add(t, point_check(q, rounds, check, sizeof(check)));
		table_add(t, q->explain);
	}
}

/* Per load: sums over the workload's shapes at that M, each times its
 * count, into *t. Returns the score over the complete loads (report_score:
 * NaN if none); *covered counts them. */
static double loads_table(const struct point *p, int n, const struct workload *wl, int floors,
			  int paired, struct table *t, int *covered)
{
	struct load_figures loads[WORKLOAD_MAX_LOADS];
	table_init(t, 5 + (floors != 0) + (paired != 0));
	table_add(t, "M");
	table_add(t, "base_us");
	table_add(t, "lib_us");
	table_add(t, "speedup");
	if (floors)
		table_add(t, "floor_frac");
	if (paired)
		table_add(t, "paired");
	table_add(t, "note");
	for (int l = 0; l < wl->nloads; l++) {
		int m = wl->loads[l], complete = 1;
		double base = 0, lib = 0, floor_sum = 0, pfloor_sum = 0, plib_sum = 0;
		char missing[128] = "";
		for (int j = 0; j < wl->nparts; j++) {
			const struct workload_part *w = &wl->parts[j];
			if (!workload_part_in(w, m))
				continue;
			int i = find_point(p, n, w->family, m);
			if (i < 0 || strcmp(p[i].status, "ok")) {
				complete = 0;
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 "%s%s", missing[0] ? ", " : "missing or failed: ", w->family);
				continue;
			}
			base += w->count * p[i].base_us;
			lib += w->count * p[i].lib_us;
			floor_sum += w->count * p[i].floor_us;
			pfloor_sum += w->count * p[i].pfloor_us;
			plib_sum += w->count * p[i].plib_us;
		}
		loads[l] = (struct load_figures){ .m = m, .base_us = base, .run_us = lib,
						  .speedup = base / lib, .complete = complete };
		table_addf(t, "%d", m);
		table_addf(t, "%.2f", base);
		table_addf(t, "%.2f", lib);
		add_or_dash(t, "%.3f", complete ? loads[l].speedup : NAN);
		if (floors)
			add_or_dash(t, "%.2f", complete ? floor_sum / lib : NAN);
		if (paired)
			add_or_dash(t, "%.2f", complete ? pfloor_sum / plib_sum : NAN);
		table_add(t, missing);
	}
	return report_score(loads, wl->nloads, covered);
}

/* The all-M figure over the points benched: the Ms a --range-step
 * skipped have no figure and are left out of the mean (its coverage,
 * measured of in_range Ms, prints with it), never counted as cuBLAS. */
static void bench_all_m(const struct point *p, int n, const struct workload *wl,
			struct all_m *out)
{
	struct timed_point *tp = xcalloc((size_t)(n ? n : 1), sizeof(*tp));
	for (int i = 0; i < n; i++) {
		const struct shape *s = p[i].s;
		tp[i] = (struct timed_point){ s->family, p[i].m, s->n, s->k, s->w, s->x, s->y,
					      p[i].base_us, p[i].lib_us, !strcmp(p[i].status, "ok") };
	}
	all_m_figure(wl, tp, n, out);
	free(tp);
}

/* One bench's points and what they were measured under, for printing. */
struct bench_run {
	const struct point *p;
	int n;
	const struct workload *wl;
	const char *space;
	int device, pairs, rounds, recheck;
	const char *floors;     /* the floors' label, or NULL without --floors */
	int paired;
};

#define BENCH_POINTS 1u
#define BENCH_LOADS 2u
#define BENCH_SCORE 4u
#define BENCH_ALL 7u

static int sections_parse(const char *list, unsigned *out)
{
	static const char *const names[] = { "points", "loads", "score" };
	char *copy = xstrdup(list), *save = NULL;
	*out = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < ARRAY_SIZE(names) && strcmp(w, names[i]))
			i++;
		if (i == ARRAY_SIZE(names)) {
			free(copy);
			return -1;
		}
		*out |= 1u << i;
	}
	free(copy);
	return *out ? 0 : -1;
}

/* The summary counts: failed points, slower ones, and of those the ones
 * running the baseline's own call. */
static void bench_counts(const struct bench_run *b, int *bad, int *slower, int *same_call)
{
	*bad = *slower = *same_call = 0;
	for (int i = 0; i < b->n; i++) {
		int s = !strcmp(b->p[i].status, "ok") && b->p[i].ratio < REGRESSION_RATIO;
		*bad += strcmp(b->p[i].status, "ok") != 0;
		*slower += s;
		*same_call += s && runs_baseline(&b->p[i]);
	}
}

/* --recheck's line: how many points it measured again, and how many of
 * them their first rounds had read slower by noise. */
static void print_rechecked(const struct bench_run *b, FILE *out)
{
	int again = 0, cleared = 0;
	for (int i = 0; i < b->n; i++)
		if (b->p[i].rechecked) {
			again++;
			cleared += b->p[i].ratio >= REGRESSION_RATIO;
		}
	fprintf(out, "rechecked: %d points measured %d more round%s, %d of them no longer "
		"slower by more than %.0f%%\n", again, b->recheck, b->recheck == 1 ? "" : "s",
		cleared, (1 - REGRESSION_RATIO) * 100);
}

static void bench_json(const struct bench_run *b, unsigned sections, FILE *out)
{
	struct json j;
	struct table t;
	struct all_m all;
	int covered, bad, slower, same_call;
	char parts[1024];
	const int floors = b->floors != NULL;
	double score = loads_table(b->p, b->n, b->wl, floors, b->paired, &t, &covered);
	bench_counts(b, &bad, &slower, &same_call);
	bench_all_m(b->p, b->n, b->wl, &all);
	workload_text(b->wl, parts, sizeof(parts));
	json_init(&j, out);
	json_begin_object(&j);
	json_key(&j, "gemmtab");
	json_string(&j, "bench");
	json_key(&j, "version");
	json_string(&j, GT_VERSION);
	json_command(&j);
	json_key(&j, "table");
	json_string(&j, gt_table_description());
	json_key(&j, "space");
	json_string(&j, b->space);
	json_key(&j, "workload");
	json_string(&j, parts);
	json_key(&j, "device");
	json_int(&j, b->device);
	json_key(&j, "pairs");
	json_int(&j, b->pairs);
	json_key(&j, "rounds");
	json_int(&j, b->rounds);
	json_key(&j, "recheck");
	json_int(&j, b->recheck);
	json_key(&j, "floors");
	json_string(&j, b->floors);
	json_key(&j, "paired");
	json_int(&j, b->paired);
	if (sections & BENCH_POINTS) {
		struct table pt;
		points_table(b->p, b->n, floors, b->paired, b->rounds, 1, &pt);
		json_key(&j, "points");
		table_json(&pt, &j);
		table_free(&pt);
	}
	if (sections & BENCH_LOADS) {
		json_key(&j, "loads");
		table_json(&t, &j);
	}
	if (sections & BENCH_SCORE) {
		json_key(&j, "score");
		json_number(&j, covered ? score : NAN);
		json_key(&j, "loads_in_score");
		json_int(&j, covered);
		json_key(&j, "loads_of");
		json_int(&j, b->wl->nloads);
		json_key(&j, "all_m");
		json_number(&j, all.value);
		json_key(&j, "all_m_measured");
		json_int(&j, all.measured);
		json_key(&j, "all_m_of");
		json_int(&j, all.in_range);
		json_key(&j, "points_measured");
		json_int(&j, b->n);
		json_key(&j, "failed");
		json_int(&j, bad);
		json_key(&j, "slower");
		json_int(&j, slower);
		json_key(&j, "slower_same_call");
		json_int(&j, same_call);
		json_key(&j, "slower_bound");
		json_number(&j, REGRESSION_RATIO);
	}
	json_end_object(&j);
	table_free(&t);
}

/* The bench report in format f: text and md the headed sections asked
 * for, csv one tidy table (the first section asked for), json one
 * document. */
static void bench_print(const struct bench_run *b, enum table_format f, unsigned sections,
			FILE *out)
{
	struct table t;
	struct all_m all;
	int covered, bad, slower, same_call;
	const int floors = b->floors != NULL;
	const char *h2 = f == TABLE_MD ? "## " : "";

	if (f == TABLE_JSON) {
		bench_json(b, sections, out);
		return;
	}
	if (f == TABLE_CSV) {
		if (sections & BENCH_POINTS) {
			points_table(b->p, b->n, floors, b->paired, b->rounds, 1, &t);
		} else if (sections & BENCH_LOADS) {
			loads_table(b->p, b->n, b->wl, floors, b->paired, &t, &covered);
		} else {
			double score = loads_table(b->p, b->n, b->wl, floors, b->paired, &t,
						   &covered);
			table_free(&t);
			bench_counts(b, &bad, &slower, &same_call);
			bench_all_m(b->p, b->n, b->wl, &all);
			table_init(&t, 7);
			const char *head[] = { "score", "loads", "of", "all_m", "points",
					       "failed", "slower" };
			for (int c = 0; c < 7; c++)
				table_add(&t, head[c]);
			add_or_dash(&t, "%.3f", covered ? score : NAN);
			table_addf(&t, "%d", covered);
			table_addf(&t, "%d", b->wl->nloads);
			add_or_dash(&t, "%.3f", all.value);
			table_addf(&t, "%d", b->n);
			table_addf(&t, "%d", bad);
			table_addf(&t, "%d", slower);
		}
		table_print(&t, f, "", out);
		table_free(&t);
		return;
	}
	fprintf(out, "%sgemmtab bench: libgemmtab against cuBLAS (%s), %d pairs per point",
		f == TABLE_MD ? "# " : "", gt_table_description(), b->pairs);
	if (b->rounds > 1)
		fprintf(out, ", each figure the median of %d rounds (the spread over all "
			"of them)", b->rounds);
	if (b->recheck)
		fprintf(out, "; a point slower than the baseline by more than %.0f%% after "
			"%s is measured %d more round%s, and its figures are the medians of all "
			"%d (its check gives the first reading)", (1 - REGRESSION_RATIO) * 100,
			b->rounds > 1 ? "them" : "its round", b->recheck, b->recheck == 1 ? "" : "s",
			b->rounds + b->recheck);
	fprintf(out, "\n\n");
	if (sections & BENCH_POINTS) {
		fprintf(out, "%sPer family and M\n\n", h2);
		if (floors)
			fprintf(out, "floor_frac: the practical read floor of the family (gemmtab "
				"probe in %s) over lib_us\n\n", b->floors);
		if (b->paired)
			fprintf(out, "paired: the same read of the point's weight bytes (the probe's "
				"configuration) timed by this bench, paired with the library in one "
				"batch of its own: the median of the per-pair ratios floor / library "
				"(per load: the sum of the reads' median times over the sum of the "
				"library's in those batches)\n\n");
		points_table(b->p, b->n, floors, b->paired, b->rounds, 0, &t);
		table_print(&t, f, "-", out);
		table_free(&t);
		fputc('\n', out);
	}
	double score = loads_table(b->p, b->n, b->wl, floors, b->paired, &t, &covered);
	if (sections & BENCH_LOADS) {
		char parts[1024];
		workload_text(b->wl, parts, sizeof(parts));
		fprintf(out, "%sPer load\n\n", h2);
		fprintf(out, "Workload: %s, from %s of %s.\n\n", parts, b->wl->source, b->space);
		table_print(&t, f, "-", out);
		fputc('\n', out);
	}
	table_free(&t);
	if (sections & BENCH_SCORE) {
		bench_counts(b, &bad, &slower, &same_call);
		bench_all_m(b->p, b->n, b->wl, &all);
		fprintf(out, "%d points, %d failed the FP64 check, %d slower than the baseline by "
			"more than %.0f%% (%d of them running the baseline's own call); %d of %d "
			"loads complete\n", b->n, bad, slower, (1 - REGRESSION_RATIO) * 100,
			same_call, covered, b->wl->nloads);
		if (b->recheck)
			print_rechecked(b, out);
		print_all_m(&all, out);
		fprintf(out, "score: %.3f\n", score);
	}
}

/* A table's short name for a plot's title: from its description
 * ("gemmtab emit --db D --out T ...; tuned on GPU with ...") the --out
 * file and the GPU; the description itself when it has neither. */
static const char *table_name(const char *desc)
{
	static char buf[256];
	const char *out = desc ? strstr(desc, "--out ") : NULL;
	const char *gpu = desc ? strstr(desc, "tuned on ") : NULL;
	if (!out || !gpu)
		return desc ? desc : "";
	out += 6;
	gpu += 9;
	snprintf(buf, sizeof(buf), "%.*s, tuned on %.*s", (int)strcspn(out, " ;)"), out,
		 (int)strcspn(gpu, ",;)"), gpu);
	return buf;
}

/* The plot of the points: speedup, the floor's bound (base / floor) and
 * the fraction of the floor (the paired one where measured). */
static int bench_plot(const struct bench_run *b, const char *path)
{
	struct plot_set ps = { 0 };
	for (int i = 0; i < b->n; i++) {
		const struct point *q = &b->p[i];
		int ok = !strcmp(q->status, "ok");
		double frac = !isnan(q->pfrac) ? q->pfrac : q->floor_us / q->lib_us;
		plot_set_add(&ps, q->s->family, q->m, ok ? q->ratio : NAN,
			     q->base_us / q->floor_us, frac);
	}
	char *t = xasprintf("gemmtab bench: %s", table_name(gt_table_description()));
	int ret = plot_set_write(&ps, t, "--plot", path);
	free(t);
	plot_set_free(&ps);
	return ret;
}

/* The cells of one Markdown table row into cell[0..max), '|' split where
 * not escaped, trimmed; the count. Modifies line. */
static int md_cells(char *line, char **cell, int max)
{
	int n = 0;
	char *p = strchr(line, '|');
	while (p && n < max) {
		char *start = p + 1, *q = start;
		while (*q && !(*q == '|' && q[-1] != '\\'))
			q++;
		if (!*q)
			break;
		*q = '\0';
		while (*start == ' ')
			start++;
		for (char *e = q - 1; e >= start && *e == ' '; e--)
			*e = '\0';
		cell[n++] = start;
		p = q;
	}
	return n;
}

static int column_of(char **head, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(head[i], name))
			return i;
	return -1;
}

/* bench --from FILE.md --plot FILE.svg: the plot of a saved `bench
 * --format md` report (its "Per family and M" table), no GPU needed. */
static int plot_from_md(const char *md, const char *path)
{
	size_t len;
	char *text = read_file(md, &len);
	if (!text)
		return error("--from %s: cannot read it: %s", md, strerror(errno));
	struct plot_set ps = { 0 };
	char *title = NULL, *head[32], *cell[32];
	int cols = 0, c_base = -1, c_sp = -1, c_ff = -1, c_pf = -1;
	int line_no = 0, ret = -1, in_table = 0;
	for (char *line = text, *next; line && *line; line = next) {
		/* line by line, empty ones counted, so errors name the right one */
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line_no++;
		if (!title && !strncmp(line, "# ", 2))
			title = xstrdup(line + 2);
		if (line[0] != '|') {
			if (in_table)
				break;
			continue;
		}
		char *dup = xstrdup(line);
		int n = md_cells(dup, cell, 32);
		if (!in_table) {
			if (n < 2 || strcmp(cell[0], "family") || strcmp(cell[1], "M")) {
				free(dup);
				continue;
			}
			in_table = 1;
			cols = n;
			for (int i = 0; i < n; i++)
				head[i] = xstrdup(cell[i]);
			c_base = column_of(head, n, "base_us");
			c_sp = column_of(head, n, "speedup");
			c_ff = column_of(head, n, "floor_frac");
			c_pf = column_of(head, n, "paired");
			free(dup);
			if (c_base < 0 || c_sp < 0) {
				error("--from %s:%d: the table has no base_us or speedup column (not a "
				      "bench report?)", md, line_no);
				goto out;
			}
			continue;
		}
		if (n && !strncmp(cell[0], "---", 3)) {
			free(dup);
			continue;
		}
		if (n != cols) {
			error("--from %s:%d: a row of %d cells under a header of %d", md, line_no, n,
			      cols);
			free(dup);
			goto out;
		}
		char *end;
		long m = strtol(cell[1], &end, 10);
		double sp = strtod(cell[c_sp], NULL);
		if (*end || m < 1 || m > SPACE_MAX_M) {
			error("--from %s:%d: M '%s' is not a number in 1..%d", md, line_no, cell[1],
			      (int)SPACE_MAX_M);
			free(dup);
			goto out;
		}
		double ff = c_ff >= 0 && strcmp(cell[c_ff], "-") ? strtod(cell[c_ff], NULL) : NAN;
		double pf = c_pf >= 0 && strcmp(cell[c_pf], "-") ? strtod(cell[c_pf], NULL) : NAN;
		/* floor_frac = floor / lib and speedup = base / lib: base / floor
		 * is speedup / floor_frac */
		plot_set_add(&ps, cell[0], (int)m, sp, sp / ff, !isnan(pf) ? pf : ff);
		free(dup);
	}
	if (!in_table) {
		error("--from %s: no 'Per family and M' table (| family | M | ...) in it", md);
	} else {
		char *t = xasprintf("gemmtab bench: %s (%s)", md, table_name(title));
		ret = plot_set_write(&ps, t, "--plot", path);
		free(t);
	}
out:
	for (int i = 0; i < cols; i++)
		free(head[i]);
	free(title);
	free(text);
	plot_set_free(&ps);
	return ret;
}

/* The first line of the table file must be the compiled-in table's. */
static int check_table(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return error("--table %s: cannot read it", path);
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	/* The description names the command that generated each table
	 * compiled in, ended by ';', ')' or the end; the file's first line
	 * quotes its own between backticks. */
	const char *desc = gt_table_description(), *hit = NULL;
	char *open = strchr(text, '`'), *close = open ? strchr(open + 1, '`') : NULL;
	if (close) {
		*close = '\0';
		for (hit = strstr(desc, open + 1); hit; hit = strstr(hit + 1, open + 1))
			if (strchr(";)", hit[strlen(open + 1)]))
				break;
	}
	int same = hit != NULL;
	if (!same)
		error("--table %s is not the table built into this gemmtab (%s); rebuild with "
		      "make TABLE=%s", path, gt_table_description(), path);
	free(text);
	return same ? 0 : -1;
}

/* The Ms bench times shape s at, into a heap array (count returned): a
 * list's tuned and neighbour Ms; a range's every M up to 64 and from
 * there every step-th (with its end), then its check points. */
static int bench_ms(const struct shape *s, int step, int **out)
{
	int checks[SHAPE_CHECKS], n = 0;
	const int nc = shape_checks(s, SPACE_MAX_M, checks);
	if (!shape_is_range(s)) {
		*out = xmalloc(sizeof(**out) * (size_t)(s->n_ms + s->n_neighbours + 1));
		for (int j = 0; j < s->n_ms + s->n_neighbours; j++)
			(*out)[n++] = j < s->n_ms ? s->ms[j] : s->neighbours[j - s->n_ms];
		return n;
	}
	*out = xmalloc(sizeof(**out) * (size_t)(s->m_hi - s->m_lo + 2 + nc));
	for (int m = s->m_lo; m <= s->m_hi; m++)
		if (m <= 64 || (m - 64) % step == 0 || m == s->m_hi)
			(*out)[n++] = m;
	for (int c = 0; c < nc; c++)
		(*out)[n++] = checks[c];
	return n;
}

int cmd_bench(int argc, char **argv)
{
	const char *space = "search_spaces/h200.yaml", *table_path = NULL, *out_path = NULL;
	const char *floors_path = NULL, *section = NULL, *plot = NULL, *from = NULL;
	unsigned sections = BENCH_ALL;
	struct floor_row *floors = NULL;
	int nfloors = 0;
	char floors_label[256] = "";
	enum table_format f = TABLE_TEXT;
	int device = 0, pairs = 100, rounds = 1, recheck = 0, paired = 0, step = 1;
	struct space sp;
	const struct opt opts[] = {
		OPT_STRING("table", &table_path, 0),
		OPT_STRING("space", &space, 0),
		OPT_INT("device", &device, 0, OPT_MAX_DEVICE),
		OPT_INT("pairs", &pairs, 1, MAX_PAIRS),
		OPT_INT("rounds", &rounds, 1, MAX_ROUNDS),
		OPT_INT("recheck", &recheck, 0, MAX_ROUNDS),
		OPT_INT("range-step", &step, 1, 4096),
		OPT_STRING("floors", &floors_path, 0),
		OPT_FLAG("paired", &paired),
		OPT_FORMAT("format", &f, 0),
		OPT_STRING("section", &section, 0),
		OPT_STRING("plot", &plot, 0),
		OPT_STRING("from", &from, 0),
		OPT_STRING("out", &out_path, 0),
		OPT_END(),
	};

	int st = parse_options("bench", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (rounds + recheck > MAX_ROUNDS)
		return usage_error("bench", usage_text, "--rounds %d and --recheck %d: at most %d "
				   "rounds in all", rounds, recheck, MAX_ROUNDS);
	if (paired && !floors_path)
		return usage_error("bench", usage_text, "--paired needs --floors");
	if (from && !plot)
		return usage_error("bench", usage_text, "--from needs --plot (it redraws a saved "
				   "report)");
	if (from)
		return plot_from_md(from, plot) ? 1 : 0;
	if (section && sections_parse(section, &sections))
		return usage_error("bench", usage_text, "--section: '%s' is not a list of points, "
				   "loads and score", section);
	if (!section && f == TABLE_CSV)
		sections = BENCH_POINTS;
	if (worker_device_check("bench"))
		return 1;
	if (table_path && check_table(table_path))
		return 2;
	if (floors_path &&
	    (nfloors = load_floors(floors_path, &floors, floors_label, sizeof(floors_label))) < 0)
		return 2;
	if (space_load(space, &sp)) {
		free(floors);
		return 2;
	}

	int n = 0, cap = 0;
	struct point *p = NULL;
	for (int si = 0; si < sp.nshapes; si++) {
		const struct shape *s = &sp.shapes[si];
		int other;
		const struct floor_row *fr = floor_of(floors, nfloors, s, &other);
		if (other)
			warning("--floors %s: %s's floor was probed for weights of other bytes than "
				"%s's %d x %d: its floor_frac reads '-' (gemmtab probe --space %s "
				"measures its own)", floors_path, s->family, space, s->n, s->k, space);
		const double floor_us = fr ? fr->us : NAN;
		int fblocks = 0, funroll = 0;
		if (paired && fr && floor_config_parse(fr->config, &fblocks, &funroll)) {
			warning("--floors %s: %s's floor has no read configuration gemmtab can "
				"time ('%s'); its paired column reads '-'", floors_path, s->family,
				fr->config);
			fblocks = funroll = 0;
		}
		int *ms, nms = bench_ms(s, step, &ms);
		for (int j = 0; j < nms; j++) {
			if (n == cap)
				p = xrealloc(p, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*p));
			memset(&p[n], 0, sizeof(p[n]));
			p[n].s = s;
			p[n].m = ms[j];
			p[n].floor_us = floor_us;
			p[n].floor_blocks = fblocks;
			p[n].floor_unroll = funroll;
			n++;
		}
		free(ms);
		if (floors_path && nfloors && isnan(floor_us))
			warning("--floors %s: no floor for %s; its floor_frac%s reads '-'",
				floors_path, s->family, paired ? " and paired" : "");
	}
	measure_all(p, n, pairs, rounds, recheck, device);

	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		die("out of memory");
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += strcmp(p[i].status, "ok") != 0;
	struct bench_run run = { p, n, &sp.workload, space, device, pairs, rounds, recheck,
				 floors_path ? floors_label : NULL, paired };
	bench_print(&run, f, sections, out);
	if (plot && bench_plot(&run, plot))
		bad++;
	fclose(out);
	if (out_path) {
		if (write_file_atomic(out_path, buf, len))
			die("cannot write %s", out_path);
	} else {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
	free(p);
	free(floors);
	space_free(&sp);
	return bad ? 1 : 0;
}
