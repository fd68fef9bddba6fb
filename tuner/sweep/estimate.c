/*
 * estimate.c: the dry run: the plan per point, what the sweep would run
 * and its cost estimate, the shapes that get no candidate and why, and
 * what an existing database holds already. Reads, never writes.
 */
#include "engine.h"
#include "grid.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most retest evals a sweep runs: retest_top finalists at every M
 * sweep_retest_ms() names, for each tuned M of each shape (of family
 * only, when given), or as many as the point has candidates to run (from
 * a later cuBLASLt step, tasks from index from on: what it added). The
 * progress total and the --dry-run estimate both use it; what
 * sweep_settle() measures again is not in it (the total grows as it
 * runs). */
long sweep_planned_retests(const struct sweep *sw, const char *family, int from)
{
	long n = 0;
	int ms[2 * MAX_MS + 3];
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if (family && strcmp(family, s->family))
			continue;
		for (int j = 0; j < s->n_ms; j++) {
			int top = sw->sp->sweep.retest_top;
			const int run = sweep_point_runnable(sw, si, s->ms[j], from);
			if (run < top)
				top = run;
			n += (long)top * sweep_retest_ms(s, s->ms[j], ms);
		}
	}
	return n;
}

/* The tasks of shape si a template can run (not pruned by its check). */
long sweep_shape_runnable(const struct sweep *sw, int si)
{
	long n = 0;
	for (int i = 0; i < sw->tl->n; i++)
		n += sw->tl->t[i].shape == si && !sw->tl->t[i].pruned;
	return n;
}

/* Say that shape si gets no candidate of a template, and why (what
 * rejects its grid points); on names the GPU when it is not the
 * profile. */
void sweep_say_no_candidate(const struct sweep *sw, int si, const char *on)
{
	const struct shape *s = &sw->sp->shapes[si];
	char why[2048];
	int lt = sw->sp->lt.top && s->w == DT_BF16 && s->x == DT_BF16 && s->y == DT_BF16;
	space_why_none(sw->sp, s, why, sizeof(why));
	fprintf(stderr, "gemmtab sweep: %s%s%s%s (n %d, k %d) gets no candidate of a template at "
		"any M%s: %s\n", on ? "on " : "", on ? on : "", on ? ", " : "", s->family, s->n,
		s->k, lt ? " (the cuBLASLt search may name some on the GPU)" : "", why);
}

/* Print the plan of a dry run; returns how many shapes get no candidate
 * the sweep can run (those are listed with the reasons). */
int sweep_print_plan(const struct sweep *sw, const char *family)
{
	long total = 0, pruned = 0;
	int empty = 0;
	const struct sweep_settings *ss = &sw->sp->sweep;
	printf("%-16s %5s %10s %8s\n", "family", "m", "candidates", "pruned");
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		/* (a space of the cuBLASLt search alone has no template to miss) */
		if (!sweep_shape_runnable(sw, si) && sw->sp->ngrids &&
		    (!family || !strcmp(family, s->family))) {
			sweep_say_no_candidate(sw, si, NULL);
			empty++;
		}
		for (int j = 0; j < s->n_ms; j++) {
			long c = 0, p = 0;
			for (int i = 0; i < sw->tl->n; i++) {
				const struct task *t = &sw->tl->t[i];
				if (t->shape == si && t->m == s->ms[j]) {
					c++;
					p += t->pruned != NULL;
				}
			}
			if (c == 0)
				continue;
			/* candidates: what the sweep runs; pruned: the rest */
			printf("%-16s %5d %10ld %8ld\n", s->family, s->ms[j], c - p, p);
			total += c;
			pruned += p;
		}
	}
	/* the GPU time priced eval by eval (price.c); the counts below are
	 * the dense method's plan */
	long run = total - pruned, retests = sweep_planned_retests(sw, family, 0), range_base = 0;
	long ranged = sweep_planned_range(sw, family, &range_base);
	struct sweep_price price;
	sweep_price(sw, family, &price);
	const double gpu_s = price.gpu_s;
	double rate = 0;
	const int measured = sweep_compile_rate(sw->jit.cache_dir, &rate) == 0 && sw->tl->nitems;
	if (!measured)
		rate = 100;
	long lt_points = 0;
	for (int si = 0; si < sw->sp->nshapes && sw->sp->lt.top; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if ((!family || !strcmp(family, s->family)) && s->w == DT_BF16 &&
		    s->x == DT_BF16 && s->y == DT_BF16)
			lt_points += s->n_ms;
	}
	const long lt_screens = lt_points * sw->sp->lt.top * sw->sp->lt.norients;
	printf("total: %ld candidates (%ld pruned statically), %d instantiations to compile\n",
	       total, pruned, sw->tl->nitems);
	const double compile_s = sw->tl->nitems / rate;
	if (compile_s > 60)
		fprintf(stderr, "gemmtab sweep: compiling %d instantiations will take about %.0f "
			"minutes here (%.0f/s%s)\n", sw->tl->nitems, compile_s / 60, rate,
			measured ? ", as gemmtab compile measured this machine" : "");
	printf("estimate: compile %.0f s at %.0f/s%s; GPU %.0f s (%ld screens of %d pairs, "
	       "up to %ld retests of %d pairs", compile_s, rate, measured ? " (measured)" : "",
	       gpu_s, run,
	       ss->screen_pairs, retests, ss->retest_pairs);
	if (ranged)
		printf(", up to %ld retests of %d pairs across the ranges and %ld baselines there",
		       ranged, ss->range_pairs, range_base);
	printf("; in a database of earlier runs, up to as many again to compare each M "
	       "within this run)\n");
	if (sw->search == SWEEP_NEW)
		printf("estimate: --search new: %ld screens of 3 pairs with the cuBLASLt split-K "
		       "variants, about %ld retests of %d pairs after its races, %ld grid Ms of "
		       "the ranges with their held-out Ms; GPU %.0f s\n", price.screens,
		       price.retests, ss->retest_pairs, price.ranged, gpu_s);
	if (sw->sp->lt.top) {
		char from[128] = "";
		int used = 0;
		if (sw->sp->lt.vary_min_m)
			used = snprintf(from, sizeof(from), " from m=%d on", sw->sp->lt.vary_min_m);
		if (sw->sp->lt.vary_seeds)
			used += snprintf(from + used, sizeof(from) - (size_t)used,
					 ", the database's best %d also varied", sw->sp->lt.vary_seeds);
		if (sw->sp->lt.vary_steps > 1)
			snprintf(from + used, sizeof(from) - (size_t)used, ", in up to %d steps",
				 sw->sp->lt.vary_steps);
		printf("cublaslt: up to %d blas_lt candidates per orientation (%d) at each bf16 "
		       "shape and tuned m (%ld in all, in the GPU estimate as screens), named by "
		       "the heuristic on the GPU%s%s%s\n", sw->sp->lt.top, sw->sp->lt.norients,
		       lt_screens, lt_varies(&sw->sp->lt) ? ", each with its variants" : "",
		       lt_varies(&sw->sp->lt) ? from : "",
		       lt_varies(&sw->sp->lt) ? " (the variants are in the estimate as "
					      "priced by price.c: split-K counts, varied attributes, "
					      "later steps)" : "");
	}
	return empty;
}

/* Whether the database holds an ok retest at (shape, m) in env: a
 * race's end (1), 0 if not, -1 on error. */
static int has_retest(struct db *db, long long env, long long shape, int m)
{
	long long id;
	return db_best(db, env, shape, m, "retest", 0, &id, NULL, 1);
}

/* The Ms of range shape si a sweep still has to time, added to *n with
 * their priced GPU seconds to *gpu_s: dense's every M with no baseline
 * yet; new's grid Ms with no retest yet (a grid M's race retests its
 * survivors; its baseline comes first, so a stopped race has one).
 * shape is its database id, 0 when it has none. Returns 0 or -1. */
static int range_todo(const struct sweep *sw, struct db *db, long long env, int si,
		      long long shape, long *n, double *gpu_s)
{
	const struct shape *s = &sw->sp->shapes[si];
	if (!shape_is_range(s))
		return 0;
	for (int m = s->m_lo; m; m = sw->search == SWEEP_NEW ? grid_next(m, s->m_lo, s->m_hi)
					     : (m < s->m_hi ? m + 1 : 0)) {
		int r = !shape ? 0 : sw->search == SWEEP_NEW ? has_retest(db, env, shape, m)
				    : db_has_baseline(db, env, shape, m);
		if (r < 0)
			return -1;
		*n += !r;
		*gpu_s += r ? 0 : sweep_price_range_m(sw, si, m);
	}
	return 0;
}

/* --search new: the anchors of shape si (database id shape, 0: none)
 * whose race has not ended (no retest there yet), added to *n; whether
 * each anchor's race ended into ended[] (of s->n_ms). Returns 0 or -1. */
static int races_todo(const struct sweep *sw, struct db *db, long long env, int si,
		      long long shape, long *n, char *ended)
{
	const struct shape *s = &sw->sp->shapes[si];
	for (int j = 0; j < s->n_ms; j++) {
		ended[j] = 0;
		if (sw->search != SWEEP_NEW || !sw->retest || !sweep_point_runnable(sw, si, s->ms[j], 0))
			continue;
		const int r = shape ? has_retest(db, env, shape, s->ms[j]) : 0;
		if (r < 0)
			return -1;
		ended[j] = (char)r;
		*n += !r;
	}
	return 0;
}

/* Whether m is a thin anchor of shape si (search.c, SEARCH_THIN) whose
 * race ended (ended[], races_todo's): it screens nothing more. */
static int thin_ended(const struct sweep *sw, int si, int m, const char *ended)
{
	const struct shape *s = &sw->sp->shapes[si];
	for (int j = 0; j < s->n_ms; j++)
		if (s->ms[j] == m)
			return sw->search == SWEEP_NEW && sweep_thin_anchor(sw, s, j) && ended[j];
	return 0;
}

/* With --dry-run and a database that exists: how many of the screens
 * the plan counts that database already holds, in its newest environment,
 * for this build's template text (a (candidate, shape) the variant map
 * knows), and the GPU estimate of the rest. A candidate the map does not
 * know (new, or a template text changed since) counts as to do: a sweep
 * compiles it to learn its key and may find it measured. Read only;
 * returns -1 when the database cannot be read. */
int sweep_print_resume(const struct sweep *sw, const char *family)
{
	struct db *db;
	struct env_info e;
	long long env;
	long done = 0, todo = 0, unknown = 0, range_ms = 0, races = 0;
	double range_s = 0;
	if (access(sw->db_path, F_OK))
		return 0;
	if (db_open_read(sw->db_path, &db))
		return -1;
	int rc = db_env_pick(db, "sweep", 0, &env, &e);
	if (rc) {
		db_close(db);
		if (rc == 1)
			printf("resume: %s holds no measurements yet\n", sw->db_path);
		return rc == 1 ? 0 : -1;
	}
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		long long shape = 0, cand;
		if (family && strcmp(family, s->family))
			continue;
		char ended[MAX_MS];
		int have = db_shape_find(db, s, &shape);
		if (have < 0 || range_todo(sw, db, env, si, have ? shape : 0, &range_ms, &range_s) ||
		    races_todo(sw, db, env, si, have ? shape : 0, &races, ended))
			goto fail;
		for (int i = 0; i < sw->tl->n; i++) {
			const struct task *t = &sw->tl->t[i];
			if (t->shape != si || t->pruned)
				continue;
			int known = have ? db_variant(db, t->cand.tmpl->stem, t->key, shape,
						      tmpl_source_hash(t->cand.tmpl), &cand, NULL) : 0;
			if (known < 0)
				goto fail;
			int r = known ? db_has_result(db, env, shape, cand, t->m, "screen", NULL) : 0;
			if (r < 0)
				goto fail;
			if (!r && thin_ended(sw, si, t->m, ended))
				continue;
			done += r;
			todo += !r;
			unknown += !known;
		}
	}
	db_close(db);
	const struct sweep_settings *ss = &sw->sp->sweep;
	printf("resume: %s (env %lld: %s) holds %ld of the %ld screens for this build's "
	       "template text; %ld to screen there (%ld of them unknown to its variant map: "
	       "a sweep compiles those to learn their keys), GPU %.0f s for those screens "
	       "(the retests follow from the screens as it runs); another GPU is another "
	       "environment and screens all\n", sw->db_path, env,
	       e.gpu_name, done, done + todo, todo, unknown,
	       todo * (0.002 + ss->screen_pairs * 2 * 1e-4));
	if (sw->search == SWEEP_NEW)
		printf("resume: --search new: %ld anchors still to race and %ld grid Ms of the "
		       "ranges still to race (no retest there yet), GPU about %.0f s for those "
		       "grid Ms; what the database holds is not timed again\n", races, range_ms,
		       range_s);
	else if (range_ms)
		printf("resume: the ranges have %ld Ms still to time (no baseline there yet), "
		       "GPU about %.0f s\n", range_ms, range_s);
	return 0;
fail:
	db_close(db);
	return -1;
}
