/*
 * bench_print.c: the report of `gemmtab bench` (bench_run.h): per family
 * and M, each point's times, speedup, spread, floor fractions and check;
 * per load, the sums over the workload's shapes at that M; and the score,
 * the geometric mean over the loads of sum(t_baseline) / sum(t_library),
 * with the counts of failed and slower points and the all-M figure. As
 * text or md (the headed sections), csv (one tidy table) or json (one
 * document).
 */
#include "bench_run.h"
#include "report.h"
#include "space.h"
#include "texttable.h"
#include "util.h"

#include "../../runtime/gemmtab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int find_point(const struct point *p, int n, const char *family, int m)
{
	for (int i = 0; i < n; i++)
		if (p[i].m == m && !strcmp(p[i].s->family, family))
			return i;
	return -1;
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

int bench_sections_parse(const char *list, unsigned *out)
{
	static const char *const names[] = { "points", "loads", "score" };
	return table_sections_parse(list, names, (int)ARRAY_SIZE(names), out);
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

void bench_print(const struct bench_run *b, enum table_format f, unsigned sections, FILE *out)
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
