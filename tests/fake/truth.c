/*
 * truth.c: fake_truth, what the modelled GPU (gpumodel.h) knows and a
 * search can only estimate: at every M of every shape of a space, the
 * best candidate a table could serve there (build_truth) and the
 * baseline; and, given a table gemmtab emit wrote, its regret
 * against that truth over the space's workload at every M.
 *
 *   fake_truth --space FILE [--model h200|h100] [--m-max M]
 *       one line per (family, M): family m best_us base_us best_candidate
 *   fake_truth --space FILE --table TABLE.h [--model ...] [--m-max M] [--per-m]
 *       per M (--per-m) the workload's time with the table, the truth's
 *       and the baseline's, then one line:
 *       regret geo=G% max=W% at_m=M slower=K ms=N
 *   fake_truth --space FILE --table TABLE.h --per-shape [...]
 *       per (family, M) of the workload: family m table_us best_us base_us,
 *       then the table's entry there ("baseline" when none) and the
 *       truth's best, separated by " | " (where a table's regret comes from)
 *
 * A table's entry serves M when M lies in its range and its families
 * name the shape's; anything unserved runs the baseline. The regret at
 * M is the workload's time with the table over its time with the best
 * of the truth and the baseline at each shape, minus 1.
 */
#include "emit.h"
#include "gpumodel.h"
#include "space.h"
#include "tablefile.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct best {
	double us;
	char key[600];
};

/* A shape's candidates, each once: an array and an open-addressing index
 * of it (slot: index + 1, 0 empty). */
struct pool {
	struct candidate *c;
	int n, cap;
	int *slot;
	size_t nslots;
};

static uint64_t cand_hash(const struct candidate *c)
{
	return hash_bytes(hash_str(HASH_INIT, c->tmpl->stem), c->params,
			  (size_t)c->tmpl->nparams * sizeof(long));
}

static int same(const struct candidate *a, const struct candidate *b)
{
	return a->tmpl == b->tmpl &&
	       !memcmp(a->params, b->params, (size_t)a->tmpl->nparams * sizeof(long));
}

static void pool_add(struct pool *p, const struct candidate *c)
{
	if (2 * (size_t)(p->n + 1) > p->nslots) {
		p->nslots = p->nslots ? 2 * p->nslots : 1024;
		free(p->slot);
		p->slot = xcalloc(p->nslots, sizeof(int));
		for (int i = 0; i < p->n; i++) {
			size_t h = cand_hash(&p->c[i]) & (p->nslots - 1);
			while (p->slot[h])
				h = (h + 1) & (p->nslots - 1);
			p->slot[h] = i + 1;
		}
	}
	size_t h = cand_hash(c) & (p->nslots - 1);
	for (; p->slot[h]; h = (h + 1) & (p->nslots - 1))
		if (same(&p->c[p->slot[h] - 1], c))
			return;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->c = xrealloc(p->c, (size_t)p->cap * sizeof(*p->c));
	}
	p->c[p->n] = *c;
	p->slot[h] = ++p->n;
}

static void visit_cand(void *ctx, const struct shape *s, int m, const struct candidate *c,
		       const char *reason)
{
	(void)s, (void)m;
	if (!reason)
		pool_add(ctx, c);
}

struct lt_visit {
	long orient;
	struct pool *p;
};

static void visit_lt(void *ctx, const long *a)
{
	struct lt_visit *v = ctx;
	struct candidate c = { tmpl_find("blas_lt"), { v->orient } };
	memcpy(&c.params[1], a, GPUMODEL_LT_ATTRS * sizeof(long));
	pool_add(v->p, &c);
}

/* The cuBLASLt algorithms the fake worker names at (s, m) for sp's
 * cublaslt section, into p. */
static void add_lt(const struct space *sp, const struct shape *s, int m, struct pool *p)
{
	const struct lt_search *lt = &sp->lt;
	if (!lt->top || s->w != DT_BF16 || s->x != DT_BF16 || s->y != DT_BF16)
		return;
	const int lists = !lt->vary_min_m || m >= lt->vary_min_m;
	int vary = 0;
	for (int i = 0; lists && space_lt_vary_names[i]; i++)
		if (strstr(lt->vary, space_lt_vary_names[i]))
			vary |= 1 << i;
	for (int o = 0; o < lt->norients; o++) {
		struct lt_visit v = { lt->orient[o], p };
		for (int i = 0; i < lt->top && i < 8; i++) {
			long a[GPUMODEL_LT_ATTRS];
			gpumodel_lt_proposal(s, m, (int)lt->orient[o], i, a);
			gpumodel_lt_variants(a, lt->splitk, lists ? lt->nsplitk : 0, vary, visit_lt, &v);
		}
	}
}

/* With seeded climbs (vary_seeds), a sweep may reach any combination of
 * the varied attributes from a proposal named where the variants are
 * asked (its tuned Ms from vary_min_m on): the best such at m into b. */
static void best_climb(const struct gpu_profile *g, const struct space *sp, const struct shape *s,
		       int m, struct best *b)
{
	const struct lt_search *lt = &sp->lt;
	if (!lt->top || !lt->vary_seeds || !lt_varies(lt) || s->w != DT_BF16 || s->x != DT_BF16 ||
	    s->y != DT_BF16)
		return;
	int vary = 0;
	for (int i = 0; space_lt_vary_names[i]; i++)
		if (strstr(lt->vary, space_lt_vary_names[i]))
			vary |= 1 << i;
	for (int j = 0; j <= s->n_ms; j++) {
		const int from = j < s->n_ms ? s->ms[j] : m;
		if (lt->vary_min_m && from < lt->vary_min_m)
			continue;
		for (int o = 0; o < lt->norients; o++)
			for (int i = 0; i < lt->top && i < 8; i++) {
				long a[GPUMODEL_LT_ATTRS];
				gpumodel_lt_proposal(s, from, (int)lt->orient[o], i, a);
				const double us = gpumodel_lt_closure_us(g, s, m, (int)lt->orient[o], a,
									 lt->splitk, lt->nsplitk, vary);
				if (us < b->us) {
					b->us = us;
					snprintf(b->key, sizeof(b->key),
						 "blas_lt climbed from m=%d's proposal %d (orient %ld)",
						 from, i, lt->orient[o]);
				}
			}
	}
}

static void best_of(const struct gpu_profile *g, const struct shape *s, int m,
		    const struct pool *p, struct best *b)
{
	int at = -1;
	for (int i = 0; i < p->n; i++) {
		const double us = gpumodel_kernel_us(g, s, &p->c[i], m);
		if (us < b->us) {
			b->us = us;
			at = i;
		}
	}
	if (at >= 0) {
		char params[512];
		snprintf(b->key, sizeof(b->key), "%s %s", p->c[at].tmpl->stem,
			 candidate_key(&p->c[at], params, sizeof(params)));
	}
}

static int shape_has_m(const struct shape *s, int m)
{
	if (shape_is_range(s))
		return m >= s->m_lo && m <= s->m_hi;
	for (int i = 0; i < s->n_ms; i++)
		if (s->ms[i] == m)
			return 1;
	for (int i = 0; i < s->n_neighbours; i++)
		if (s->neighbours[i] == m)
			return 1;
	return 0;
}

/* truth[si * (m_max + 1) + m]: the best candidate at (shape si, m), us
 * HUGE_VAL where the shape has no such M or no candidate. A table may
 * serve any candidate of the shape at any M (the sweep times finalists
 * away from the Ms that admitted them), so the best at m is over every
 * candidate the shape's grids admit at any of its Ms, the cuBLASLt
 * algorithms named at its tuned Ms, those named at m, and those a climb
 * reaches (best_climb). */
static struct best *build_truth(const struct gpu_profile *g, const struct space *sp, int m_max)
{
	struct best *t = xcalloc((size_t)sp->nshapes * (size_t)(m_max + 1), sizeof(*t));
	for (int si = 0; si < sp->nshapes; si++) {
		const struct shape *s = &sp->shapes[si];
		struct pool all = { 0 };
		for (int m = 1; m <= m_max; m++)
			if (shape_has_m(s, m))
				space_enumerate(sp, s, m, visit_cand, &all);
		for (int i = 0; i < s->n_ms; i++)
			add_lt(sp, s, s->ms[i], &all);
		for (int m = 1; m <= m_max; m++) {
			struct best *b = &t[(size_t)si * (size_t)(m_max + 1) + (size_t)m];
			b->us = HUGE_VAL;
			if (!shape_has_m(s, m))
				continue;
			struct pool here = { 0 };
			add_lt(sp, s, m, &here);
			best_of(g, s, m, &all, b);
			best_of(g, s, m, &here, b);
			best_climb(g, sp, s, m, b);
			free(here.c);
			free(here.slot);
		}
		free(all.c);
		free(all.slot);
	}
	return t;
}

static void print_truth(const struct gpu_profile *g, const struct space *sp,
			const struct best *t, int m_max)
{
	for (int si = 0; si < sp->nshapes; si++)
		for (int m = 1; m <= m_max; m++) {
			const struct shape *s = &sp->shapes[si];
			const struct best *b = &t[(size_t)si * (size_t)(m_max + 1) + (size_t)m];
			if (!shape_has_m(s, m))
				continue;
			printf("%s %d %.4f %.4f %s\n", s->family, m, b->us,
			       gpumodel_cublas_us(g, s, m), b->us < HUGE_VAL ? b->key : "-");
		}
}

/* Whether families text "a, b" names family. */
static int names_family(const char *families, const char *family)
{
	size_t n = strlen(family);
	for (const char *p = families; (p = strstr(p, family)); p += n)
		if ((p == families || p[-1] == ' ' || p[-1] == ',') && (!p[n] || p[n] == ','))
			return 1;
	return 0;
}

/* The time the table gives shape s at m: its entry's candidate, or the
 * baseline; the entry's index into *at (-1: the baseline) when at is not
 * NULL. */
static double table_us(const struct gpu_profile *g, const struct shape *s, int m,
		       const struct emit_incumbent *inc, int ninc, int *at)
{
	if (at)
		*at = -1;
	for (int i = 0; i < ninc; i++) {
		if (m < inc[i].m_lo || m > inc[i].m_hi || !names_family(inc[i].families, s->family))
			continue;
		struct candidate c = { tmpl_find(inc[i].cand.tmpl), { 0 } };
		if (!c.tmpl || emit_params_parse_quiet(c.tmpl, inc[i].cand.params, c.params))
			die("fake_truth: entry %s %s: not a candidate this build knows",
			    inc[i].cand.tmpl, inc[i].cand.params);
		if (at)
			*at = i;
		return gpumodel_kernel_us(g, s, &c, m);
	}
	return gpumodel_cublas_us(g, s, m);
}

/* --per-shape: per (family, M) of the workload, the table's time, the
 * truth's and the baseline's, the table's entry and the truth's best. */
static void print_per_shape(const struct gpu_profile *g, const struct space *sp,
			    const struct best *t, int m_max, const struct emit_incumbent *inc,
			    int ninc)
{
	for (int si = 0; si < sp->nshapes; si++) {
		const struct shape *s = &sp->shapes[si];
		for (int m = 1; m <= m_max; m++) {
			int in = 0, at;
			for (int p = 0; p < sp->workload.nparts; p++)
				in |= !strcmp(sp->workload.parts[p].family, s->family) &&
				      workload_part_in(&sp->workload.parts[p], m);
			if (!in || !shape_has_m(s, m))
				continue;
			const struct best *b = &t[(size_t)si * (size_t)(m_max + 1) + (size_t)m];
			const double tab = table_us(g, s, m, inc, ninc, &at);
			printf("%s %d %.4f %.4f %.4f %s%s%s | %s\n", s->family, m, tab,
			       fmin(b->us, gpumodel_cublas_us(g, s, m)), gpumodel_cublas_us(g, s, m),
			       at < 0 ? "baseline" : inc[at].cand.tmpl, at < 0 ? "" : " ",
			       at < 0 ? "" : inc[at].cand.params, b->us < HUGE_VAL ? b->key : "-");
		}
	}
}

static int print_regret(const struct gpu_profile *g, const struct space *sp, const struct best *t,
			int m_max, const struct emit_incumbent *inc, int ninc, int per_m)
{
	double sum_log = 0, worst = -HUGE_VAL;
	int n = 0, worst_m = 0, slower = 0;
	for (int m = 1; m <= m_max; m++) {
		double tab = 0, best = 0, base = 0;
		for (int p = 0; p < sp->workload.nparts; p++) {
			const struct workload_part *wp = &sp->workload.parts[p];
			if (!workload_part_in(wp, m))
				continue;
			for (int si = 0; si < sp->nshapes; si++) {
				const struct shape *s = &sp->shapes[si];
				if (strcmp(s->family, wp->family) || !shape_has_m(s, m))
					continue;
				const double b = gpumodel_cublas_us(g, s, m);
				const double tb = t[(size_t)si * (size_t)(m_max + 1) + (size_t)m].us;
				tab += wp->count * table_us(g, s, m, inc, ninc, NULL);
				best += wp->count * fmin(b, tb);
				base += wp->count * b;
			}
		}
		if (!(best > 0))
			continue;
		const double r = tab / best - 1;
		if (per_m)
			printf("m=%d table_us=%.4f best_us=%.4f base_us=%.4f regret=%.3f%%\n", m, tab,
			       best, base, 100 * r);
		sum_log += log(tab / best);
		n++;
		slower += tab > base * (1 + 1e-9);
		if (r > worst) {
			worst = r;
			worst_m = m;
		}
	}
	if (!n)
		return error("fake_truth: the workload runs no shape at M = 1..%d", m_max);
	printf("regret geo=%.2f%% max=%.2f%% at_m=%d slower=%d ms=%d\n",
	       100 * (exp(sum_log / n) - 1), 100 * worst, worst_m, slower, n);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: fake_truth --space FILE [--model h200|h100] [--m-max M] "
			"[--table TABLE.h [--per-m | --per-shape]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *space = NULL, *table = NULL, *model = "h200";
	int m_max = 512, per_m = 0, per_shape = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--space") && i + 1 < argc)
			space = argv[++i];
		else if (!strcmp(argv[i], "--table") && i + 1 < argc)
			table = argv[++i];
		else if (!strcmp(argv[i], "--model") && i + 1 < argc)
			model = argv[++i];
		else if (!strcmp(argv[i], "--m-max") && i + 1 < argc)
			m_max = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--per-m"))
			per_m = 1;
		else if (!strcmp(argv[i], "--per-shape"))
			per_shape = 1;
		else
			usage();
	}
	struct gpu_profile g;
	if (!space || m_max < 1 || m_max > SPACE_MAX_M)
		usage();
	if (gpumodel_profile(model, &g))
		die("fake_truth: --model %s: not h200 or h100", model);
	struct space sp;
	if (space_load(space, &sp))
		return 1;
	/* the figures the fake worker's env reports */
	struct device_profile d = sp.dev;
	d.sm_count = g.sm_count;
	d.l2_bytes = g.l2_bytes;
	if (space_set_device(&sp, &d))
		return 1;
	struct best *t = build_truth(&g, &sp, m_max);
	int rc = 0;
	if (!table) {
		print_truth(&g, &sp, t, m_max);
	} else {
		struct emit_incumbent *inc = NULL;
		int ninc = table_file_read(table, "--table", &inc);
		if (ninc >= 0 && per_shape)
			print_per_shape(&g, &sp, t, m_max, inc, ninc);
		else
			rc = ninc < 0 || print_regret(&g, &sp, t, m_max, inc, ninc, per_m);
		free(inc);
	}
	free(t);
	space_free(&sp);
	return rc;
}
