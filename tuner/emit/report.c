/*
 * report.c: the report's arithmetic (what runs per family and M, load
 * speedups, the score, floor fractions) and its tables. See report.h.
 */
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


double nominal_floor_us(int m, int n, int k, enum dtype w, enum dtype x,
			enum dtype y)
{
	double bytes = (double)n * k * dtype_size(w) + (double)m * k * dtype_size(x)
		+ (double)m * n * dtype_size(y);
	double flop = 2.0 * m * n * k;
	return 1e6 * fmax(bytes / NOMINAL_BYTES_PER_S, flop / NOMINAL_FLOP_PER_S);
}

void shape_figures_compute(const struct best_row *row,
			   const struct floor_row *floors, int nfloors,
			   struct shape_figures *out)
{
	memset(out, 0, sizeof(*out));
	out->row = row;
	/* the paired ratio decides, as it decides a dispatch entry; a NaN
	 * ratio compares false, so cuBLAS runs */
	out->wins = row->has_candidate && row->ratio > 1;
	out->run_us = out->wins ? row->cand_us : row->base_us;
	out->speedup = out->wins ? row->ratio : 1;
	out->lo = out->wins ? row->ratio_lo : NAN;
	out->hi = out->wins ? row->ratio_hi : NAN;
	out->floor_us = NAN;
	for (int i = 0; i < nfloors; i++)
		if (!strcmp(floors[i].family, row->family))
			out->floor_us = floors[i].us;
	out->nominal_us = nominal_floor_us(row->m, row->n, row->k, row->w, row->x, row->y);
	out->frac_floor = out->floor_us / out->run_us;
	out->frac_nominal = out->nominal_us / out->run_us;
}

/* Append name to a ", "-separated list held in a fixed buffer. */
static void list_add(char *list, size_t len, const char *name)
{
	size_t used = strlen(list);
	if (used < len)
		snprintf(list + used, len - used, "%s%s", used ? ", " : "", name);
}

/* Add the one figure of family fam at load m, times times, to out, or
 * list fam as missing or ambiguous. */
static void load_add_family(const struct shape_figures *f, int n, const char *fam, int times,
			    struct load_figures *out)
{
	const struct shape_figures *use = NULL;
	int count = 0;
	for (int j = 0; j < n; j++) {
		if (f[j].row->m == out->m && !strcmp(f[j].row->family, fam)) {
			use = &f[j];
			count++;
		}
	}
	out->nexpected++;
	if (!count) {
		list_add(out->missing, sizeof(out->missing), fam);
		return;
	}
	if (count > 1) {
		list_add(out->ambiguous, sizeof(out->ambiguous), fam);
		return;
	}
	out->nused++;
	out->base_us += times * use->row->base_us;
	out->run_us += times * use->run_us;
	out->floor_us += times * use->floor_us;
	out->nominal_us += times * use->nominal_us;
	if (use->row->has_candidate && !use->row->retested)
		list_add(out->screen, sizeof(out->screen), fam);
}

int load_figures_compute(const struct shape_figures *f, int n, int m,
			 const struct workload *wl, struct load_figures *out)
{
	memset(out, 0, sizeof(*out));
	out->m = m;
	for (int i = 0; i < wl->nparts; i++)
		if (workload_part_in(&wl->parts[i], m))
			load_add_family(f, n, wl->parts[i].family, wl->parts[i].count, out);
	out->speedup = out->base_us / out->run_us;
	out->complete = !out->missing[0] && !out->ambiguous[0] && out->nused > 0 &&
		isfinite(out->speedup);
	return out->nused > 0 || out->ambiguous[0];
}

double report_score(const struct load_figures *loads, int n, int *covered)
{
	double sum_log = 0;
	*covered = 0;
	for (int i = 0; i < n; i++) {
		if (!loads[i].complete)
			continue;
		sum_log += log(loads[i].speedup);
		(*covered)++;
	}
	return *covered ? exp(sum_log / *covered) : NAN;
}

/* The load speedup at m over p[0..n): 1 and *sp when every shape the
 * load runs at m has exactly one figure there; 0 when one has none (or
 * two shapes of one family do); -1 when the load runs nothing at m. */
static int load_at(const struct workload *wl, const struct timed_point *p, int n, int m,
		   double *sp)
{
	double base = 0, run = 0;
	int any_part = 0;
	for (int j = 0; j < wl->nparts; j++) {
		const struct workload_part *w = &wl->parts[j];
		const struct timed_point *at = NULL;
		int count = 0;
		if (!workload_part_in(w, m))
			continue;
		any_part = 1;
		for (int i = 0; i < n; i++) {
			if (p[i].m == m && p[i].ok && !strcmp(p[i].family, w->family)) {
				at = &p[i];
				count++;
			}
		}
		if (count != 1)
			return 0;
		base += w->count * at->base_us;
		run += w->count * at->run_us;
	}
	if (!any_part)
		return -1;
	if (!(run > 0) || !(base > 0))
		return 0;
	*sp = base / run;
	return 1;
}

double all_m_figure(const struct workload *wl, const struct timed_point *p, int n,
		    struct all_m *out)
{
	memset(out, 0, sizeof(*out));
	out->max_m = wl->all_m_max > workload_max_m(wl) ? wl->all_m_max : workload_max_m(wl);
	out->value = NAN;
	double sum_log = 0;
	for (int m = 1; m <= out->max_m; m++) {
		double sp;
		int st = load_at(wl, p, n, m, &sp);
		if (st < 0)
			continue;       /* a load of m tokens would run none of it */
		out->in_range++;
		if (!st)
			continue;       /* unmeasured: no figure, and no 1.0 either */
		sum_log += log(sp);
		out->measured++;
	}
	if (out->measured)
		out->value = exp(sum_log / out->measured);
	return out->value;
}

void report_build(const struct best_row *rows, int nrows,
		  const struct floor_row *floors, int nfloors, const struct workload *wl,
		  struct report *out)
{
	memset(out, 0, sizeof(*out));
	out->workload = wl;
	out->shapes = xcalloc((size_t)nrows, sizeof(*out->shapes));
	out->nshapes = nrows;
	for (int i = 0; i < nrows; i++)
		shape_figures_compute(&rows[i], floors, nfloors, &out->shapes[i]);
	for (int i = 0; i < wl->nloads; i++)
		if (load_figures_compute(out->shapes, nrows, wl->loads[i], wl,
					 &out->loads[out->nloads]))
			out->nloads++;
	out->score = report_score(out->loads, out->nloads, &out->covered);
	struct timed_point *tp = xcalloc((size_t)(nrows ? nrows : 1), sizeof(*tp));
	for (int i = 0; i < nrows; i++) {
		const struct best_row *b = &rows[i];
		tp[i] = (struct timed_point){ b->family, b->m, b->n, b->k, b->w, b->x, b->y,
					      b->base_us, out->shapes[i].run_us,
					      isfinite(b->base_us) && isfinite(out->shapes[i].run_us) };
	}
	all_m_figure(wl, tp, nrows, &out->all_m);
	free(tp);
}

void report_free(struct report *r)
{
	free(r->shapes);
	memset(r, 0, sizeof(*r));
}

/* A figure with prec decimals, or a NULL cell when it does not exist
 * ("-" in text and md, empty in csv). */
static void add_fixed(struct table *t, int prec, double v)
{
	if (isfinite(v))
		table_addf(t, "%.*f", prec, v);
	else
		table_add(t, NULL);
}

static void shapes_table(const struct report *r, struct table *t)
{
	static const char *const head[] = { "family", "M", "phase", "pairs",
		"base_us", "run_us", "speedup", "spread", "floor_frac",
		"nominal_frac", "winner" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0; i < r->nshapes; i++) {
		const struct shape_figures *s = &r->shapes[i];
		const struct best_row *b = s->row;
		table_add(t, b->family);
		table_addf(t, "%d", b->m);
		table_add(t, b->has_candidate ? b->phase : NULL);
		if (b->pairs >= 0)
			table_addf(t, "%d", b->pairs);
		else
			table_add(t, NULL);
		add_fixed(t, 2, b->base_us);
		add_fixed(t, 2, s->run_us);
		add_fixed(t, 3, s->speedup);
		if (s->wins && isfinite(s->lo) && isfinite(s->hi))
			table_addf(t, "%.3f..%.3f", s->lo, s->hi);
		else
			table_add(t, NULL);
		add_fixed(t, 2, s->frac_floor);
		add_fixed(t, 2, s->frac_nominal);
		/* a winner whose launch took more than one wave of blocks
		 * or clusters says so: the likeliest reason it reads slow */
		if (s->wins && b->waves > 1)
			table_addf(t, "%s %s (%d waves)", b->tmpl, b->params, b->waves);
		else if (s->wins)
			table_addf(t, "%s %s", b->tmpl, b->params);
		else
			table_add(t, "cublas");
	}
}

/* The per-(family, M) table as csv and json give it: one value per cell
 * (the shape's n and k, the spread's two ends, the floor's own time, the
 * winner's template, parameters and waves apart). */
static void shapes_table_tidy(const struct report *r, struct table *t)
{
	static const char *const head[] = { "family", "n", "k", "M", "phase", "pairs",
		"base_us", "run_us", "speedup", "spread_lo", "spread_hi", "floor_us",
		"floor_frac", "nominal_us", "nominal_frac", "template", "params", "waves" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0; i < r->nshapes; i++) {
		const struct shape_figures *s = &r->shapes[i];
		const struct best_row *b = s->row;
		table_add(t, b->family);
		table_addf(t, "%d", b->n);
		table_addf(t, "%d", b->k);
		table_addf(t, "%d", b->m);
		table_add(t, b->has_candidate ? b->phase : NULL);
		if (b->pairs >= 0)
			table_addf(t, "%d", b->pairs);
		else
			table_add(t, NULL);
		add_fixed(t, 2, b->base_us);
		add_fixed(t, 2, s->run_us);
		add_fixed(t, 3, s->speedup);
		add_fixed(t, 3, s->wins ? s->lo : NAN);
		add_fixed(t, 3, s->wins ? s->hi : NAN);
		add_fixed(t, 2, s->floor_us);
		add_fixed(t, 2, s->frac_floor);
		add_fixed(t, 2, s->nominal_us);
		add_fixed(t, 2, s->frac_nominal);
		table_add(t, s->wins ? b->tmpl : "cublas");
		table_add(t, s->wins ? b->params : NULL);
		if (s->wins && b->waves >= 0)
			table_addf(t, "%d", b->waves);
		else
			table_add(t, NULL);
	}
}

/* Why a load is not in the score, or which of its figures are screen
 * only: "missing: router; screen only: qkv". */
static void load_note(const struct load_figures *l, char *buf, size_t len)
{
	const char *label[] = { "missing: ", "more than one shape: ", "screen only: " };
	const char *list[] = { l->missing, l->ambiguous, l->screen };
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(list); i++) {
		if (!list[i][0] || used >= len)
			continue;
		used += snprintf(buf + used, len - used, "%s%s%s", used ? "; " : "",
				 label[i], list[i]);
	}
}

static void loads_table(const struct report *r, struct table *t)
{
	static const char *const head[] = { "M", "families", "expected",
		"base_us", "run_us", "speedup", "floor_frac", "nominal_frac", "note" };
	char note[1024];
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0; i < r->nloads; i++) {
		const struct load_figures *l = &r->loads[i];
		table_addf(t, "%d", l->m);
		table_addf(t, "%d", l->nused);
		table_addf(t, "%d", l->nexpected);
		add_fixed(t, 2, l->base_us);
		add_fixed(t, 2, l->run_us);
		add_fixed(t, 3, l->speedup);
		add_fixed(t, 2, l->floor_us / l->run_us);
		add_fixed(t, 2, l->nominal_us / l->run_us);
		load_note(l, note, sizeof(note));
		table_add(t, note);
	}
}

void print_all_m(const struct all_m *a, FILE *out)
{
	if (!isfinite(a->value)) {
		fprintf(out, "all-M: - (no M of 1..%d has every shape of its load measured)\n",
			a->max_m);
		return;
	}
	fprintf(out, "all-M: %.3f, the geometric mean over M = 1..%d of the load speedup at each "
		"M (every shape measured at %d of the %d Ms; the Ms not measured are left out, "
		"not counted as cuBLAS)\n", a->value, a->max_m, a->measured, a->in_range);
}

static void score_table(const struct report *r, struct table *t)
{
	static const char *const head[] = { "score", "loads", "of", "all_m",
		"all_m_measured", "all_m_of", "all_m_max" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	add_fixed(t, 3, r->score);
	table_addf(t, "%d", r->covered);
	table_addf(t, "%d", r->workload->nloads);
	add_fixed(t, 3, r->all_m.value);
	table_addf(t, "%d", r->all_m.measured);
	table_addf(t, "%d", r->all_m.in_range);
	table_addf(t, "%d", r->all_m.max_m);
}

/* "4 of 6 loads (M = 1, 8, 16, 32)" or the reason there is no score;
 * then the all-M figure. */
static void print_score(const struct report *r, FILE *out)
{
	int nloads = r->workload->nloads;
	if (!r->covered) {
		fprintf(out, "score: - (none of the %d loads is complete)\n", nloads);
	} else {
		fprintf(out, "score: %.3f, the geometric mean of the speedups of %d of %d loads (M =",
			r->score, r->covered, nloads);
		for (int i = 0, first = 1; i < r->nloads; i++) {
			if (!r->loads[i].complete)
				continue;
			fprintf(out, "%s %d", first ? "" : ",", r->loads[i].m);
			first = 0;
		}
		fputs(")\n", out);
	}
	print_all_m(&r->all_m, out);
}

/* What each load runs: "qkv, oproj, unpooler (m > 8), 32 x down". */
void workload_text(const struct workload *wl, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < wl->nparts && used < len; i++) {
		const struct workload_part *p = &wl->parts[i];
		used += (size_t)snprintf(buf + used, len - used, "%s", i ? ", " : "");
		if (used < len && p->count != 1)
			used += (size_t)snprintf(buf + used, len - used, "%d x ", p->count);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s", p->family);
		if (used < len && p->when_text)
			used += (size_t)snprintf(buf + used, len - used, " (%s)", p->when_text);
	}
}

/* A section's heading and what its columns mean (text and md only). */
static void print_heading(enum table_format f, const char *heading,
			  const char *prose, FILE *out)
{
	if (f != TABLE_CSV)
		fprintf(out, "%s%s\n\n%s\n\n", f == TABLE_MD ? "## " : "", heading, prose);
}

void json_environment(struct json *j, long long id, const struct env_info *e)
{
	json_key(j, "environment");
	json_begin_object(j);
	json_key(j, "id");
	json_int(j, id);
	json_key(j, "gpu");
	json_string(j, e->gpu_name);
	json_key(j, "gpu_uuid");
	json_string(j, e->gpu_uuid);
	json_key(j, "sm_count");
	json_int(j, e->sm_count);
	json_key(j, "sm_clock_mhz");
	json_int(j, e->sm_clock_mhz);
	json_key(j, "mem_clock_mhz");
	json_int(j, e->mem_clock_mhz);
	json_key(j, "l2_bytes");
	json_int(j, e->l2_bytes);
	const char *const key[] = { "driver", "cuda", "nvrtc", "cublas", "cublaslt" };
	const char *const val[] = { e->driver, e->cuda, e->nvrtc, e->cublas, e->cublaslt };
	for (size_t i = 0; i < ARRAY_SIZE(key); i++) {
		json_key(j, key[i]);
		json_string(j, val[i]);
	}
	json_key(j, "source_hash");
	json_string(j, e->source_hash[0] ? e->source_hash : NULL);
	json_end_object(j);
}

/* The one document of --format json: where it came from, then every
 * section asked for, each table as an array of row objects. */
static void report_json(const struct report *r, const struct report_source *src,
			unsigned sections, FILE *out)
{
	struct json j;
	struct table t;
	char parts[1024];
	json_init(&j, out);
	json_begin_object(&j);
	json_key(&j, "gemmtab");
	json_string(&j, "report");
	json_key(&j, "version");
	json_string(&j, GT_VERSION);
	json_command(&j);
	json_key(&j, "database");
	json_string(&j, src->db);
	json_environment(&j, src->env, src->e);
	workload_text(r->workload, parts, sizeof(parts));
	json_key(&j, "workload");
	json_begin_object(&j);
	json_key(&j, "source");
	json_string(&j, r->workload->source);
	json_key(&j, "shapes");
	json_string(&j, parts);
	json_end_object(&j);
	if (sections & REPORT_FAMILIES) {
		shapes_table_tidy(r, &t);
		json_key(&j, "families");
		table_json(&t, &j);
		table_free(&t);
	}
	if (sections & REPORT_LOADS) {
		loads_table(r, &t);
		json_key(&j, "loads");
		table_json(&t, &j);
		table_free(&t);
	}
	if (sections & REPORT_SCORE) {
		json_key(&j, "score");
		json_number(&j, r->covered ? r->score : NAN);
		json_key(&j, "loads_in_score");
		json_int(&j, r->covered);
		json_key(&j, "loads_of");
		json_int(&j, r->workload->nloads);
		json_key(&j, "all_m");
		json_begin_object(&j);
		json_key(&j, "value");
		json_number(&j, r->all_m.value);
		json_key(&j, "measured");
		json_int(&j, r->all_m.measured);
		json_key(&j, "of");
		json_int(&j, r->all_m.in_range);
		json_key(&j, "max_m");
		json_int(&j, r->all_m.max_m);
		json_end_object(&j);
	}
	json_end_object(&j);
}

void report_print(const struct report *r, const struct report_source *src,
		  enum table_format f, unsigned sections, FILE *out)
{
	struct table t;
	int first = 1;

	if (f == TABLE_JSON) {
		report_json(r, src, sections, out);
		return;
	}
	if (f == TABLE_CSV) {
		/* one tidy table: the first section asked for */
		if (sections & REPORT_FAMILIES)
			shapes_table_tidy(r, &t);
		else if (sections & REPORT_LOADS)
			loads_table(r, &t);
		else
			score_table(r, &t);
		table_print(&t, f, "", out);
		table_free(&t);
		return;
	}
	if (f == TABLE_TEXT)
		fprintf(out, "gemmtab report: %s\n\n", src->title);
	else
		fprintf(out, "# gemmtab report\n\n%s\n\n", src->title);
	if ((sections & REPORT_FAMILIES) && !(sections & REPORT_FULL) &&
	    r->nshapes > REPORT_SUMMARY_ROWS) {
		char *prose = xasprintf("%d rows in brief: a line per family and run of Ms with one\n"
					"winner; speedup is the geometric mean of the run's median paired\n"
					"ratios over cuBLAS (min..max: their range). --full lists every row.",
					r->nshapes);
		print_heading(f, "Per family and M range", prose, out);
		free(prose);
		report_summary_table(r, &t);
		table_print(&t, f, "-", out);
		table_free(&t);
		first = 0;
	} else if (sections & REPORT_FAMILIES) {
		print_heading(f, "Per family and M", "What the dispatch runs. Times in us; speedup is\n"
			      "the median paired ratio over cuBLAS (spread: its 10th..90th percentile);\n"
			      "floor_frac and nominal_frac are each floor's time over run_us.", out);
		shapes_table(r, &t);
		table_print(&t, f, "-", out);
		table_free(&t);
		first = 0;
	}
	if (sections & REPORT_LOADS) {
		char parts[1024], *prose;
		if (!first)
			fputc('\n', out);
		workload_text(r->workload, parts, sizeof(parts));
		prose = xasprintf("speedup = sum of base_us / sum of run_us over the load's shapes,\n"
				  "each times its count; only complete loads count in the score.\n"
				  "Workload (%s):\n%s.", r->workload->source, parts);
		print_heading(f, "Per load", prose, out);
		free(prose);
		loads_table(r, &t);
		table_print(&t, f, "-", out);
		table_free(&t);
		first = 0;
	}
	if (sections & REPORT_SCORE) {
		if (!first)
			fputc('\n', out);
		print_score(r, out);
	}
}

int report_sections_parse(const char *list, unsigned *out)
{
	static const char *const names[] = { "families", "loads", "score" };
	return table_sections_parse(list, names, (int)ARRAY_SIZE(names), out);
}
