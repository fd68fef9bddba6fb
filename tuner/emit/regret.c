/*
 * regret.c: what a table loses, M by M, against the best measured
 * candidate and against the baseline.
 */
#include "regret.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_key(const struct emit_key *k, int n, int kk, enum dtype w, enum dtype x,
		    enum dtype y)
{
	return k->n == n && k->k == kk && k->w == w && k->x == x && k->y == y;
}

/* p's entry, and the retests at its row's key and M with enough pairs:
 * the entry's candidate's and the best. */
static void point_of(struct regret_point *p, const struct retest_row *rt, int nrt,
		     const struct emit_incumbent *inc, int ninc)
{
	const struct best_row *b = p->row;
	p->entry = NULL;
	for (int i = 0; i < ninc; i++)
		if (same_key(&inc[i].key, b->n, b->k, b->w, b->x, b->y) && b->m >= inc[i].m_lo &&
		    b->m <= inc[i].m_hi)
			p->entry = &inc[i];
	p->table_ratio = p->entry ? NAN : 1.0;
	p->best_ratio = 1.0;
	p->best = NULL;
	for (int i = 0; i < nrt; i++) {
		const struct retest_row *r = &rt[i];
		if (r->m != b->m || r->n != b->n || r->k != b->k || r->w != b->w ||
		    r->x != b->x || r->y != b->y || r->pairs < EMIT_MIN_PAIRS || !isfinite(r->ratio))
			continue;
		if (r->ratio > p->best_ratio) {
			p->best_ratio = r->ratio;
			p->best = r;
		}
		/* the entry's candidate: its weakest row (emit's rule, when
		 * families share the key) */
		if (p->entry && !strcmp(r->tmpl, p->entry->cand.tmpl) &&
		    !strcmp(r->params, p->entry->cand.params) &&
		    (isnan(p->table_ratio) || r->ratio < p->table_ratio))
			p->table_ratio = r->ratio;
	}
	p->base_us = b->base_us;
	p->table_us = b->base_us / p->table_ratio;
	p->best_us = b->base_us / p->best_ratio;
}

static void sum_add(struct regret_sum *s, const struct regret_point *p)
{
	if (isnan(p->table_ratio)) {
		s->unmeasured++;
		return;
	}
	s->points++;
	s->base_us += p->base_us;
	s->table_us += p->table_us;
	s->best_us += p->best_us;
}

/* The weakest retest of >= EMIT_MIN_PAIRS pairs of cand at key and m
 * (emit's rule for families sharing a key), or NaN. */
static double cand_ratio(const struct retest_row *rt, int nrt, const struct emit_key *key,
			 int m, const struct emit_cand *cand)
{
	double r = NAN;
	for (int i = 0; i < nrt; i++) {
		const struct retest_row *x = &rt[i];
		if (x->m != m || !same_key(key, x->n, x->k, x->w, x->x, x->y) ||
		    x->pairs < EMIT_MIN_PAIRS || !isfinite(x->ratio) ||
		    strcmp(x->tmpl, cand->tmpl) || strcmp(x->params, cand->params))
			continue;
		if (isnan(r) || x->ratio < r)
			r = x->ratio;
	}
	return r;
}

/* What entry e serves against what rows measured, and its evidence. */
static void entry_of(struct regret_entry *x, const struct emit_incumbent *e,
		     const struct best_row *rows, int nrows, const struct retest_row *rt,
		     int nrt)
{
	int nfam = 1, last_m = 0, missing = 0;
	for (const char *c = e->families; *c; c++)
		nfam += *c == ',';
	memset(x, 0, sizeof(*x));
	x->entry = e;
	x->served = e->m_hi - e->m_lo + 1;
	x->family_ms = x->served * nfam;
	x->worst = INFINITY;
	/* rows come ordered by family, n, k, m: count each M once */
	for (int m = e->m_lo; m <= e->m_hi; m++) {
		int here = 0;
		for (int i = 0; i < nrows; i++)
			if (rows[i].m == m && same_key(&e->key, rows[i].n, rows[i].k, rows[i].w,
						       rows[i].x, rows[i].y))
				here++;
		if (!here)
			continue;
		x->measured++;
		x->family_measured += here;
		last_m = m;
		double r = cand_ratio(rt, nrt, &e->key, m, &e->cand);
		if (isnan(r))
			missing = 1;
		else if (r < x->worst) {
			x->worst = r;
			x->worst_m = m;
		}
	}
	if (missing || !last_m) {
		x->worst = NAN;
		x->worst_m = 0;
	}
	x->holdout_ratio = e->holdout ? cand_ratio(rt, nrt, &e->key, e->holdout, &e->cand) : NAN;
}

static void entries_build(const struct best_row *rows, int nrows, const struct retest_row *rt,
			  int nrt, const struct emit_incumbent *inc, int ninc, struct regret *out)
{
	out->e = xcalloc((size_t)(ninc ? ninc : 1), sizeof(*out->e));
	out->ne = ninc;
	for (int i = 0; i < ninc; i++) {
		struct regret_entry *x = &out->e[i];
		entry_of(x, &inc[i], rows, nrows, rt, nrt);
		out->family_ms += x->family_ms;
		out->family_measured += x->family_measured;
		out->unmeasured += x->served - x->measured;
		if (x->holdout_ratio > 1)
			out->certified += x->served - x->measured;
	}
}

void regret_build(const struct best_row *rows, int nrows, const struct retest_row *rt,
		  int nrt, const struct emit_incumbent *inc, int ninc, struct regret *out)
{
	memset(out, 0, sizeof(*out));
	out->p = xcalloc((size_t)(nrows ? nrows : 1), sizeof(*out->p));
	out->sums = xcalloc((size_t)nrows + 1, sizeof(*out->sums));
	for (int i = 0; i < nrows; i++) {
		if (!isfinite(rows[i].base_us) || rows[i].base_us <= 0)
			continue;
		struct regret_point *p = &out->p[out->n++];
		p->row = &rows[i];
		point_of(p, rt, nrt, inc, ninc);
		int s = 0;
		while (s < out->nsums && strcmp(out->sums[s].family, rows[i].family))
			s++;
		if (s == out->nsums)
			snprintf(out->sums[out->nsums++].family, FAMILY_MAX, "%s", rows[i].family);
		sum_add(&out->sums[s], p);
	}
	struct regret_sum *total = &out->sums[out->nsums];
	for (int i = 0; i < out->n; i++)
		sum_add(total, &out->p[i]);
	entries_build(rows, nrows, rt, nrt, inc, ninc, out);
}

void regret_free(struct regret *r)
{
	free(r->p);
	free(r->sums);
	free(r->e);
	memset(r, 0, sizeof(*r));
}

static void add_us(struct table *t, double v)
{
	if (isfinite(v))
		table_addf(t, "%.2f", v);
	else
		table_add(t, NULL);
}

/* table_us / best_us - 1 as a percentage, or NULL. */
static void add_loss(struct table *t, double table_us, double best_us)
{
	if (isfinite(table_us) && isfinite(best_us) && best_us > 0)
		table_addf(t, "%.1f", 100 * (table_us / best_us - 1));
	else
		table_add(t, NULL);
}

static void points_table(const struct regret *r, struct table *t)
{
	static const char *const head[] = { "family", "M", "table", "table_us", "best_us",
		"base_us", "loss_pct", "vs_base", "best" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0; i < r->n; i++) {
		const struct regret_point *p = &r->p[i];
		table_add(t, p->row->family);
		table_addf(t, "%d", p->row->m);
		if (p->entry)
			table_addf(t, "%s M %d..%d", p->entry->cand.tmpl, p->entry->m_lo,
				   p->entry->m_hi);
		else
			table_add(t, "cublas");
		add_us(t, p->table_us);
		add_us(t, p->best_us);
		add_us(t, p->base_us);
		add_loss(t, p->table_us, p->best_us);
		if (isfinite(p->table_ratio))
			table_addf(t, "%.3f", p->table_ratio);
		else
			table_add(t, NULL);
		if (p->best)
			table_addf(t, "%s %s", p->best->tmpl, p->best->params);
		else
			table_add(t, "cublas");
	}
}

static void entries_table(const struct regret *r, struct table *t)
{
	static const char *const head[] = { "families", "M", "template", "served",
		"measured", "worst", "worst_at", "held_out", "held_out_ratio" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0; i < r->ne; i++) {
		const struct regret_entry *x = &r->e[i];
		const struct emit_incumbent *e = x->entry;
		table_add(t, e->families);
		if (e->m_lo == e->m_hi)
			table_addf(t, "%d", e->m_lo);
		else
			table_addf(t, "%d..%d", e->m_lo, e->m_hi);
		table_add(t, e->cand.tmpl);
		table_addf(t, "%d", x->served);
		table_addf(t, "%d", x->measured);
		if (isfinite(x->worst))
			table_addf(t, "%.3f", x->worst);
		else
			table_add(t, NULL);
		if (x->worst_m)
			table_addf(t, "%d", x->worst_m);
		else
			table_add(t, NULL);
		if (e->holdout)
			table_addf(t, "%d", e->holdout);
		else
			table_add(t, NULL);
		if (isfinite(x->holdout_ratio))
			table_addf(t, "%.3f", x->holdout_ratio);
		else
			table_add(t, NULL);
	}
}

static void sums_table(const struct regret *r, struct table *t)
{
	static const char *const head[] = { "family", "Ms", "unmeasured", "table_us",
		"best_us", "base_us", "loss_pct", "vs_base" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0; i <= r->nsums; i++) {
		const struct regret_sum *s = &r->sums[i];
		table_add(t, i < r->nsums ? s->family : "total");
		table_addf(t, "%d", s->points);
		table_addf(t, "%d", s->unmeasured);
		add_us(t, s->table_us);
		add_us(t, s->best_us);
		add_us(t, s->base_us);
		add_loss(t, s->table_us, s->best_us);
		if (s->table_us > 0)
			table_addf(t, "%.3f", s->base_us / s->table_us);
		else
			table_add(t, NULL);
	}
}

void regret_print(const struct regret *r, const char *title, enum table_format f,
		  FILE *out)
{
	struct table t;
	if (f == TABLE_CSV) {
		/* one tidy table: the points (the sums are theirs, per family) */
		points_table(r, &t);
		table_print(&t, f, "", out);
		table_free(&t);
		return;
	}
	if (f == TABLE_JSON) {
		struct json j;
		json_init(&j, out);
		json_begin_object(&j);
		json_key(&j, "gemmtab");
		json_string(&j, "report --regret");
		json_key(&j, "version");
		json_string(&j, GT_VERSION);
		json_command(&j);
		json_key(&j, "title");
		json_string(&j, title);
		points_table(r, &t);
		json_key(&j, "points");
		table_json(&t, &j);
		table_free(&t);
		entries_table(r, &t);
		json_key(&j, "entries");
		table_json(&t, &j);
		table_free(&t);
		sums_table(r, &t);
		json_key(&j, "families");
		table_json(&t, &j);
		table_free(&t);
		json_key(&j, "family_ms_served");
		json_int(&j, r->family_ms);
		json_key(&j, "family_ms_measured");
		json_int(&j, r->family_measured);
		json_key(&j, "served_unmeasured");
		json_int(&j, r->unmeasured);
		json_key(&j, "served_unmeasured_certified");
		json_int(&j, r->certified);
		json_end_object(&j);
		return;
	}
	fprintf(out, "%sregret: %s\n\n", f == TABLE_MD ? "# " : "", title);
	points_table(r, &t);
	table_print(&t, f, "-", out);
	table_free(&t);
	fputc('\n', out);
	entries_table(r, &t);
	table_print(&t, f, "-", out);
	table_free(&t);
	fputc('\n', out);
	sums_table(r, &t);
	table_print(&t, f, "-", out);
	table_free(&t);
	const struct regret_sum *s = &r->sums[r->nsums];
	fprintf(out, "\nloss: the table takes %.2f us over the %d measured Ms where the best "
		"candidate measured at each takes %.2f (%.1f%% more; %.3fx the baseline's "
		"%.2f)", s->table_us, s->points, s->best_us,
		s->best_us > 0 ? 100 * (s->table_us / s->best_us - 1) : 0.0,
		s->table_us > 0 ? s->base_us / s->table_us : 0.0, s->base_us);
	if (s->unmeasured)
		fprintf(out, "; %d Ms where the table's candidate has no retest are "
			"left out", s->unmeasured);
	fprintf(out, "\nserved: %d entr%s serve %d family-Ms with a tuned kernel, %d of them "
		"measured; %d served Ms were not measured (%d of them inside spans certified "
		"by a held-out M)\n", r->ne, r->ne == 1 ? "y" : "ies", r->family_ms,
		r->family_measured, r->unmeasured, r->certified);
}
