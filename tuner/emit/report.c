/*
 * report.c: the report's arithmetic (what runs per family and M, load
 * speedups, the score, floor fractions) and its tables. See report.h.
 */
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int report_loads[REPORT_NLOADS] = { 1, 8, 16, 32, 128, 256 };

/* docs/workload.md: a load of M <= 8 tokens uses unpooler_slice, the first 1024
 * rows of the unpooler weight, instead of unpooler. */
#define SLICE_MAX_M 8
#define GT_STR_(x) #x
#define GT_STR(x) GT_STR_(x)

double nominal_floor_us(int m, int n, int k, enum dtype w, enum dtype x,
			enum dtype y)
{
	double bytes = (double)n * k * dtype_size(w) + (double)m * k * dtype_size(x)
		+ (double)m * n * dtype_size(y);
	double flop = 2.0 * m * n * k;
	return 1e6 * fmax(bytes / NOMINAL_BYTES_PER_S, flop / NOMINAL_FLOP_PER_S);
}

const char *load_family(const char *family, int m)
{
	if (strcmp(family, "unpooler") && strcmp(family, "unpooler_slice"))
		return family;
	return m <= SLICE_MAX_M ? "unpooler_slice" : "unpooler";
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

/* The scored workload's families (docs/workload.md): a load without one of
 * them is incomplete, whatever else the database holds. */
const char *const report_families[REPORT_NFAMILIES] = {
	"qkv", "oproj", "pooler", "unpooler", "router",
};

static int listed(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* Add the one figure of family fam at load m to out, or list fam as
 * missing or ambiguous. */
static void load_add_family(const struct shape_figures *f, int n, const char *fam,
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
	out->base_us += use->row->base_us;
	out->run_us += use->run_us;
	out->floor_us += use->floor_us;
	out->nominal_us += use->nominal_us;
	if (use->row->has_candidate && !use->row->retested)
		list_add(out->screen, sizeof(out->screen), fam);
}

int load_figures_compute(const struct shape_figures *f, int n, int m,
			 struct load_figures *out)
{
	int nwork = (int)ARRAY_SIZE(report_families), nnames = 0;
	const char **names = xmalloc((size_t)(nwork + n) * sizeof(*names));

	memset(out, 0, sizeof(*out));
	out->m = m;
	/* the workload's families first, then any other family in the rows */
	for (int i = 0; i < nwork + n; i++) {
		const char *fam = load_family(i < nwork ? report_families[i]
					      : f[i - nwork].row->family, m);
		if (listed(names, nnames, fam))
			continue;
		names[nnames++] = fam;
		load_add_family(f, n, fam, out);
	}
	free(names);
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

void report_build(const struct best_row *rows, int nrows,
		  const struct floor_row *floors, int nfloors, struct report *out)
{
	memset(out, 0, sizeof(*out));
	out->shapes = xcalloc((size_t)nrows, sizeof(*out->shapes));
	out->nshapes = nrows;
	for (int i = 0; i < nrows; i++)
		shape_figures_compute(&rows[i], floors, nfloors, &out->shapes[i]);
	for (int i = 0; i < REPORT_NLOADS; i++)
		if (load_figures_compute(out->shapes, nrows, report_loads[i],
					 &out->loads[out->nloads]))
			out->nloads++;
	out->score = report_score(out->loads, out->nloads, &out->covered);
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

/* "4 of 6 loads (M = 1, 8, 16, 32)" or the reason there is no score. */
static void print_score(const struct report *r, enum table_format f, FILE *out)
{
	if (f == TABLE_CSV) {
		struct table t;
		table_init(&t, 3);
		table_add(&t, "score");
		table_add(&t, "loads");
		table_add(&t, "of");
		add_fixed(&t, 3, r->score);
		table_addf(&t, "%d", r->covered);
		table_addf(&t, "%d", REPORT_NLOADS);
		table_print(&t, f, "", out);
		table_free(&t);
		return;
	}
	if (!r->covered) {
		fprintf(out, "score: - (none of the %d loads is complete)\n", REPORT_NLOADS);
		return;
	}
	fprintf(out, "score: %.3f, the geometric mean of the speedups of %d of %d loads (M =",
		r->score, r->covered, REPORT_NLOADS);
	for (int i = 0, first = 1; i < r->nloads; i++) {
		if (!r->loads[i].complete)
			continue;
		fprintf(out, "%s %d", first ? "" : ",", r->loads[i].m);
		first = 0;
	}
	fputs(")\n", out);
}

/* A section's heading and what its columns mean (text and md only). */
static void print_heading(enum table_format f, const char *heading,
			  const char *prose, FILE *out)
{
	if (f != TABLE_CSV)
		fprintf(out, "%s%s\n\n%s\n\n", f == TABLE_MD ? "## " : "", heading, prose);
}

void report_print(const struct report *r, const char *title,
		  enum table_format f, FILE *out)
{
	struct table t;

	if (f == TABLE_TEXT)
		fprintf(out, "gemmtab report: %s\n\n", title);
	else if (f == TABLE_MD)
		fprintf(out, "# gemmtab report\n\n%s\n\n", title);
	print_heading(f, "Per family and M", "What the dispatch runs. Times in us; speedup is\n"
		      "the median paired ratio over cuBLAS (spread: its 10th..90th percentile);\n"
		      "floor_frac and nominal_frac are each floor's time over run_us.", out);
	shapes_table(r, &t);
	table_print(&t, f, "-", out);
	table_free(&t);

	fputc('\n', out);
	print_heading(f, "Per load", "speedup = sum of base_us / sum of run_us over the load's\n"
		      "families (unpooler_slice in place of unpooler for M <= "
		      GT_STR(SLICE_MAX_M) "); only\ncomplete loads count in the score.", out);
	loads_table(r, &t);
	table_print(&t, f, "-", out);
	table_free(&t);

	fputc('\n', out);
	print_score(r, f, out);
}
