/*
 * bench_measure.c: the points of `gemmtab bench` and their measurement
 * (bench_run.h). Every point is timed by the GPU worker (the library's
 * gt_linear paired against the cuBLAS baseline, docs/workload.md's method)
 * over the bench's rounds, all points per round, and reported as its
 * medians; a point still slower than the baseline can be rechecked over
 * more rounds. With --floors, each point carries its family's practical
 * read floor from a probe's database (and with --paired the probe's read
 * configuration, which the worker times in the point's own batch).
 */
#include "bench_run.h"
#include "db.h"
#include "space.h"
#include "stats.h"
#include "supervise.h"
#include "tasks.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_load_floors(const char *path, struct floor_row **out, char *label, size_t len)
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

void bench_measure_all(struct point *p, int n, int pairs, int rounds, int recheck, int device)
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


int bench_points(const struct space *sp, const char *space, int step, const char *floors_path,
		 const struct floor_row *floors, int nfloors, int paired, struct point **out)
{
	int n = 0, cap = 0;
	struct point *p = NULL;
	for (int si = 0; si < sp->nshapes; si++) {
		const struct shape *s = &sp->shapes[si];
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
	*out = p;
	return n;
}
