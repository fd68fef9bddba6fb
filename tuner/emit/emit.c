/*
 * emit.c: the dispatch table's decisions: grouping retests by the key the
 * runtime looks up, and choosing what serves each M.
 *
 * The rule (docs/guide.md, "gemmtab emit"; emit_choose in emit.h):
 * - an entry serves a measured M only where its candidate is the fastest
 *   winner measured there (>= EMIT_MIN_PAIRS pairs, median ratio > 1; the
 *   incumbent's bonus aside), so a candidate that spans more Ms never
 *   displaces a faster one;
 * - it serves an unmeasured M only inside a certified span: the Ms between
 *   two measured grid Ms (grid.h: every M up to 64, then 16t and 16t + 1,
 *   and the range ends) at most EMIT_SPAN_GAP apart, where the candidate
 *   chosen on the grid alone also wins at a held-out measured M off the
 *   grid within its span; a measured M it loses cuts the span there, and
 *   each piece needs a held-out M of its own;
 * - everything else runs the baseline. A sweep with no range phase, or
 *   one stopped before it, measured no segment's two grid ends with a
 *   held-out M between, so its table serves its measured Ms only.
 * The choice maximises the workload-weighted sum of log ratios over the
 * served Ms; since each measured M and each segment is decided alone, the
 * weights change no choice and emit needs no workload.
 */
#include "emit.h"
#include "grid.h"
#include "tmpl.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two sums of log ratios closer than this are equal: the same ratios
 * added in another order differ in the last bits, and another libm's
 * log() may too, which must not change a generated table. */
#define LOG_TIE 1e-9

int emit_cell_wins(const struct emit_cell *c)
{
	return c->pairs >= EMIT_MIN_PAIRS && c->ratio > 1.0;
}

/* Candidate c's score at measured M i: log ratio plus its bonus. */
static double score_at(const struct emit_cell *cells, int nms, int c, int i)
{
	const struct emit_cell *x = &cells[(size_t)c * nms + i];
	return log(x->ratio) + x->bonus;
}

static int wins_at(const struct emit_cell *cells, int nms, int c, int i)
{
	return emit_cell_wins(&cells[(size_t)c * nms + i]);
}

/* The winner of the largest score at measured M i, or -1. */
static int point_pick(const struct emit_cell *cells, int nms, int ncand, int i)
{
	int pick = -1;
	double best = 0;
	for (int c = 0; c < ncand; c++) {
		if (!wins_at(cells, nms, c, i))
			continue;
		double s = score_at(cells, nms, c, i);
		if (pick < 0 || s > best + LOG_TIE) {
			pick = c;
			best = s;
		}
	}
	return pick;
}

/* The segment from measured grid M a to the next measured grid M b
 * (indices): chosen on the grid alone, the winner at both whose smaller
 * score is the largest, or -1. */
static int segment_pick(const struct emit_cell *cells, int nms, int ncand, int a, int b)
{
	int pick = -1;
	double best = 0;
	for (int c = 0; c < ncand; c++) {
		if (!wins_at(cells, nms, c, a) || !wins_at(cells, nms, c, b))
			continue;
		double s = fmin(score_at(cells, nms, c, a), score_at(cells, nms, c, b));
		if (pick < 0 || s > best + LOG_TIE) {
			pick = c;
			best = s;
		}
	}
	return pick;
}

/* The index of the next measured grid M after index i that is also the
 * next grid M, at most EMIT_SPAN_GAP away (a segment's far end); -1 when
 * there is none. */
static int segment_end(const int *ms, int nms, int i)
{
	int lo = ms[0], hi = ms[nms - 1], want = grid_next(ms[i], lo, hi);
	if (!want || want - ms[i] > EMIT_SPAN_GAP)
		return -1;
	for (int j = i + 1; j < nms && ms[j] <= want; j++)
		if (ms[j] == want)
			return j;
	return -1;
}

/* The span of candidate c through the segment a..b (indices of grid Ms):
 * from a down and from b up over the segments whose grid Ms c wins at,
 * into *first and *last. */
static void span_of(const int *ms, int nms, const struct emit_cell *cells, int c, int a,
		    int b, int *first, int *last)
{
	int lo = ms[0], hi = ms[nms - 1];
	*first = a;
	*last = b;
	for (int p = a - 1; p >= 0; p--) {
		if (!grid_on(ms[p], lo, hi))
			continue;
		if (segment_end(ms, nms, p) != *first || !wins_at(cells, nms, c, p))
			break;
		*first = p;
	}
	for (int n = segment_end(ms, nms, *last); n >= 0 && wins_at(cells, nms, c, n);
	     n = segment_end(ms, nms, *last))
		*last = n;
}

/*
 * The held-out M certifying candidate c on the unmeasured Ms between
 * ms[i] and ms[i + 1], inside c's span first..last (span_of). The span is
 * cut at every measured M inside it that c does not win: the sub-span is
 * the run of measured Ms through i and i + 1 that c wins, and it must hold
 * a measured M off the grid strictly between its ends (a held-out M: no
 * choice read it). Returns the one nearest the gap (the lower of two as
 * near), or 0 when c loses at ms[i] or ms[i + 1] or nothing certifies it.
 */
static int gap_holdout(const int *ms, int nms, const struct emit_cell *cells, int c,
		       int first, int last, int i)
{
	int lo = ms[0], hi = ms[nms - 1], from = i, to = i + 1, holdout = 0, dh = 0;
	if (!wins_at(cells, nms, c, i) || !wins_at(cells, nms, c, i + 1))
		return 0;
	while (from > first && wins_at(cells, nms, c, from - 1))
		from--;
	while (to < last && wins_at(cells, nms, c, to + 1))
		to++;
	for (int j = from + 1; j < to; j++) {
		if (grid_on(ms[j], lo, hi))
			continue;
		int d = ms[j] < ms[i] ? ms[i] - ms[j] : ms[j] > ms[i + 1] ? ms[j] - ms[i + 1] : 0;
		if (!holdout || d < dh) {
			holdout = ms[j];
			dh = d;
		}
	}
	return holdout;
}

/* Append the piece (cand, Ms m_lo..m_hi, evidence lo..hi) to out,
 * joining the last range when it is cand's and ends at m_lo - 1. */
static int piece_add(struct emit_range *out, int nout, struct emit_range p)
{
	struct emit_range *last = nout ? &out[nout - 1] : NULL;
	if (last && last->cand == p.cand && last->m_hi + 1 == p.m_lo) {
		last->m_hi = p.m_hi;
		last->hi = p.hi;
		if (!last->holdout)
			last->holdout = p.holdout;
		return nout;
	}
	out[nout] = p;
	return nout + 1;
}

int emit_choose(const int *ms, int nms, const struct emit_cell *cells,
		int ncand, struct emit_range *out)
{
	int nout = 0;
	if (nms <= 0 || ncand <= 0)
		return 0;
	/* gap[i]: who serves the Ms strictly between ms[i] and ms[i + 1] */
	int *gap = xmalloc((size_t)nms * sizeof(*gap)), *held = xcalloc((size_t)nms, sizeof(*held));
	for (int i = 0; i < nms; i++)
		gap[i] = -1;
	for (int a = 0; a < nms; a++) {
		if (!grid_on(ms[a], ms[0], ms[nms - 1]))
			continue;
		int b = segment_end(ms, nms, a), c, first, last;
		if (b < 0 || ms[b] - ms[a] < 2 || (c = segment_pick(cells, nms, ncand, a, b)) < 0)
			continue;
		span_of(ms, nms, cells, c, a, b, &first, &last);
		for (int i = a; i < b; i++) {
			int h = ms[i + 1] - ms[i] > 1 ? gap_holdout(ms, nms, cells, c, first, last, i) : 0;
			if (h) {
				gap[i] = c;
				held[i] = h;
			}
		}
	}
	for (int i = 0; i < nms; i++) {
		int c = point_pick(cells, nms, ncand, i);
		if (c >= 0)
			nout = piece_add(out, nout, (struct emit_range){ c, i, i, ms[i], ms[i], 0 });
		if (gap[i] >= 0 && i + 1 < nms && ms[i + 1] - ms[i] > 1)
			nout = piece_add(out, nout, (struct emit_range){ gap[i], i, i + 1, ms[i] + 1,
					 ms[i + 1] - 1, held[i] });
	}
	free(gap);
	free(held);
	return nout;
}

static int key_cmp(const struct emit_key *a, const struct emit_key *b)
{
	int d[] = { a->n - b->n, a->k - b->k, (int)a->w - (int)b->w,
		    (int)a->x - (int)b->x, (int)a->y - (int)b->y };
	for (size_t i = 0; i < ARRAY_SIZE(d); i++)
		if (d[i])
			return d[i] < 0 ? -1 : 1;
	return 0;
}

static int key_cmp_void(const void *a, const void *b)
{
	return key_cmp(a, b);
}

static int int_cmp_void(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int cand_cmp_void(const void *a, const void *b)
{
	const struct emit_cand *x = a, *y = b;
	int d = strcmp(x->tmpl, y->tmpl);
	return d ? d : strcmp(x->params, y->params);
}

static int family_cmp_void(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

#define KEY_OF(r) ((struct emit_key){ (r)->n, (r)->k, (r)->w, (r)->x, (r)->y })

/* Sort base[0..n) with cmp and drop repeats; returns the new count. */
static int sort_unique(void *base, int n, size_t size,
		       int (*cmp)(const void *, const void *))
{
	char *b = base;
	int out = 0;
	if (n <= 0)
		return 0;
	qsort(base, (size_t)n, size, cmp);
	for (int i = 1; i < n; i++)
		if (cmp(b + (size_t)out * size, b + (size_t)i * size))
			memmove(b + (size_t)++out * size, b + (size_t)i * size, size);
	return out + 1;
}

/* The index of v in the sorted base[0..n), which must hold it. */
static int find_sorted(const void *v, const void *base, int n, size_t size,
		       int (*cmp)(const void *, const void *))
{
	const char *hit = bsearch(v, base, (size_t)n, size, cmp);
	return (int)((hit - (const char *)base) / (long)size);
}

/* Fill g (whose key is set) from the rows of its key. */
static void group_fill(struct emit_group *g, const struct best_row *measured,
		       int nmeasured, const struct retest_row *retests, int nretests)
{
	const char **fam = xmalloc((size_t)(nmeasured + nretests) * sizeof(*fam));
	int nfam = 0;

	g->ms = xmalloc((size_t)(nmeasured + nretests) * sizeof(*g->ms));
	g->cands = xmalloc((size_t)(nretests ? nretests : 1) * sizeof(*g->cands));
	for (int i = 0; i < nmeasured; i++) {
		struct emit_key k = KEY_OF(&measured[i]);
		if (key_cmp(&k, &g->key))
			continue;
		g->ms[g->nms++] = measured[i].m;
		fam[nfam++] = measured[i].family;
	}
	for (int i = 0; i < nretests; i++) {
		const struct retest_row *r = &retests[i];
		struct emit_key k = KEY_OF(r);
		if (key_cmp(&k, &g->key))
			continue;
		g->ms[g->nms++] = r->m;
		fam[nfam++] = r->family;
		snprintf(g->cands[g->ncand].tmpl, sizeof(g->cands->tmpl), "%s", r->tmpl);
		snprintf(g->cands[g->ncand].params, sizeof(g->cands->params), "%s", r->params);
		g->ncand++;
	}
	g->nms = sort_unique(g->ms, g->nms, sizeof(*g->ms), int_cmp_void);
	g->ncand = sort_unique(g->cands, g->ncand, sizeof(*g->cands), cand_cmp_void);
	nfam = sort_unique(fam, nfam, sizeof(*fam), family_cmp_void);
	for (int i = 0, used = 0; i < nfam && used < (int)sizeof(g->families); i++)
		used += snprintf(g->families + used, sizeof(g->families) - used, "%s%s",
				 i ? ", " : "", fam[i]);
	free(fam);

	g->cells = xmalloc((size_t)(g->ncand ? g->ncand : 1) * g->nms * sizeof(*g->cells));
	for (int i = 0; i < g->ncand * g->nms; i++)
		g->cells[i] = (struct emit_cell){ NAN, -1, 0 };
	for (int i = 0; i < nretests; i++) {
		const struct retest_row *r = &retests[i];
		struct emit_key k = KEY_OF(r);
		struct emit_cand c;
		if (key_cmp(&k, &g->key))
			continue;
		snprintf(c.tmpl, sizeof(c.tmpl), "%s", r->tmpl);
		snprintf(c.params, sizeof(c.params), "%s", r->params);
		int ci = find_sorted(&c, g->cands, g->ncand, sizeof(c), cand_cmp_void);
		int mi = find_sorted(&r->m, g->ms, g->nms, sizeof(int), int_cmp_void);
		struct emit_cell *cell = &g->cells[(size_t)ci * g->nms + mi];
		int first = isnan(cell->ratio);
		/* the weakest row decides: one dispatch serves every family */
		if (first || r->ratio < cell->ratio)
			cell->ratio = r->ratio;
		if (first || r->pairs < cell->pairs)
			cell->pairs = r->pairs;
	}
}

int emit_group_rows(const struct best_row *measured, int nmeasured,
		    const struct retest_row *retests, int nretests,
		    struct emit_group **out)
{
	struct emit_key *keys = xmalloc((size_t)(nmeasured + nretests + 1) * sizeof(*keys));
	struct emit_group *g;
	int nkeys = 0;

	for (int i = 0; i < nmeasured; i++)
		keys[nkeys++] = KEY_OF(&measured[i]);
	for (int i = 0; i < nretests; i++)
		keys[nkeys++] = KEY_OF(&retests[i]);
	nkeys = sort_unique(keys, nkeys, sizeof(*keys), key_cmp_void);
	g = xcalloc((size_t)(nkeys ? nkeys : 1), sizeof(*g));
	for (int i = 0; i < nkeys; i++) {
		g[i].key = keys[i];
		group_fill(&g[i], measured, nmeasured, retests, nretests);
	}
	free(keys);
	*out = g;
	return nkeys;
}

void emit_groups_free(struct emit_group *g, int n)
{
	for (int i = 0; g && i < n; i++) {
		free(g[i].ms);
		free(g[i].cands);
		free(g[i].cells);
	}
	free(g);
}

int emit_incumbent_parse(const char *line, struct emit_incumbent *out)
{
	static const char head[] = "\t/* ";
	const char *p, *colon, *space;
	char *end;
	if (strncmp(line, head, sizeof(head) - 1))
		return 0;
	line += sizeof(head) - 1;
	/* families, then ", M " */
	if (!(p = strstr(line, ", M ")) || (size_t)(p - line) >= sizeof(out->families))
		return 0;
	memset(out, 0, sizeof(*out));
	memcpy(out->families, line, (size_t)(p - line));
	p += 4;
	if (*p < '0' || *p > '9')
		return 0;
	long lo = strtol(p, &end, 10), hi = lo;
	if (lo < 1)
		return 0;
	if (!strncmp(end, "..", 2)) {
		p = end + 2;
		if (*p < '0' || *p > '9')
			return 0;
		hi = strtol(p, &end, 10);
		if (hi < lo)
			return 0;
	}
	if (strncmp(end, ": ", 2) || hi > INT_MAX)
		return 0;
	colon = end + 2;
	/* the template stem, one space, the params to the end of the line */
	if (!(space = strchr(colon, ' ')) || (size_t)(space - colon) >= sizeof(out->cand.tmpl))
		return 0;
	size_t n = strcspn(space + 1, " \r\n");
	const char *tail = space + 1 + n;
	int holdout = 0, used = 0;
	/* a certified range names its held-out M after the params */
	if (!strncmp(tail, " (held out: M ", 14) &&
	    sscanf(tail, " (held out: M %d)%n", &holdout, &used) == 1 && used && holdout >= 1)
		tail += used;
	/* (a template without parameters, blas_hilo, has an empty params text) */
	if (n >= sizeof(out->cand.params) || (*tail && *tail != '\n' && *tail != '\r'))
		return 0;
	out->holdout = holdout;
	memcpy(out->cand.tmpl, colon, (size_t)(space - colon));
	memcpy(out->cand.params, space + 1, n);
	out->m_lo = (int)lo;
	out->m_hi = (int)hi;
	return 1;
}

int emit_incumbent_key(const char *line, struct emit_incumbent *inc)
{
	int v[7], used = 0;
	if (sscanf(line, "\t{ %d, %d, %d, %d, %d, %d, %d,%n", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &used) != 7 || !used)
		return 0;
	for (int i = 2; i < 5; i++)
		if (v[i] != DT_BF16 && v[i] != DT_FP32)
			return 0;
	if (v[5] != inc->m_lo || v[6] != inc->m_hi)
		return 0;
	inc->key = (struct emit_key){ v[0], v[1], (enum dtype)v[2], (enum dtype)v[3],
				      (enum dtype)v[4] };
	return 1;
}

/* A group by its key (groups are sorted by key: emit_group_rows). */
static int group_key_cmp_void(const void *key, const void *group)
{
	return key_cmp(key, &((const struct emit_group *)group)->key);
}

int emit_prefer(struct emit_group *groups, int ngroups, const struct emit_incumbent *inc,
		int ninc, double margin)
{
	int matched = 0;
	for (int j = 0; j < ninc; j++) {
		struct emit_group *g = ngroups ? bsearch(&inc[j].key, groups, (size_t)ngroups,
							 sizeof(*groups), group_key_cmp_void) : NULL;
		if (!g || strcmp(g->families, inc[j].families))
			continue;
		const struct emit_cand *hit =
			g->ncand ? bsearch(&inc[j].cand, g->cands, (size_t)g->ncand,
					   sizeof(*g->cands), cand_cmp_void) : NULL;
		if (!hit)
			continue;
		matched++;
		struct emit_cell *row = &g->cells[(size_t)(hit - g->cands) * g->nms];
		for (int i = 0; i < g->nms; i++)
			if (g->ms[i] >= inc[j].m_lo && g->ms[i] <= inc[j].m_hi)
				row[i].bonus = log1p(margin);
	}
	return matched;
}

int emit_select(const struct emit_group *groups, int ngroups,
		struct emit_entry **out)
{
	struct emit_entry *e = NULL;
	int n = 0, cap = 0;

	for (int gi = 0; gi < ngroups; gi++) {
		const struct emit_group *g = &groups[gi];
		struct emit_range *r = xmalloc((size_t)(g->nms ? 2 * g->nms : 1) * sizeof(*r));
		int nr = emit_choose(g->ms, g->nms, g->cells, g->ncand, r);
		for (int j = 0; j < nr; j++) {
			const struct emit_cell *row = &g->cells[(size_t)r[j].cand * g->nms];
			struct emit_entry *x;
			if (n == cap)
				e = xrealloc(e, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(*e));
			x = &e[n++];
			*x = (struct emit_entry){ g, &g->cands[r[j].cand], r[j].m_lo, r[j].m_hi,
						  r[j].lo, r[j].hi, r[j].holdout, INFINITY,
						  row[r[j].lo].pairs };
			for (int i = r[j].lo; i <= r[j].hi; i++) {
				if (row[i].ratio < x->ratio_min)
					x->ratio_min = row[i].ratio;
				if (row[i].pairs < x->pairs_min)
					x->pairs_min = row[i].pairs;
			}
		}
		free(r);
	}
	*out = e;
	return n;
}

/* One "name=value" of a params text into params[]; seen[] marks names
 * given. Returns 0 or -1 (message printed). */
static int param_parse(const struct tmpl *t, const char *text, const char *item,
		       long *params, char *seen, int loud)
{
	const char *eq = strchr(item, '=');
	char name[64];
	if (!eq || eq == item || (size_t)(eq - item) >= sizeof(name))
		return !loud ? -1 : error("params '%s': '%s' is not name=value", text, item);
	memcpy(name, item, (size_t)(eq - item));
	name[eq - item] = '\0';
	int i = tmpl_param_index(t, name);
	if (i < 0)
		return !loud ? -1 : error("params '%s': template %s has no parameter '%s'", text,
			     t->stem, name);
	if (seen[i]++)
		return !loud ? -1 : error("params '%s': '%s' given twice", text, name);
	const struct tmpl_param *p = &t->params[i];
	const char *v = eq + 1;
	if (p->symbols) {
		long s = 0;
		while (p->symbols[s] && strcmp(p->symbols[s], v))
			s++;
		if (!p->symbols[s])
			return !loud ? -1 : error("params '%s': '%s' is not a value of %s", text, v, name);
		params[i] = s;
		return 0;
	}
	char *end;
	errno = 0;
	params[i] = strtol(v, &end, 10);
	if (errno || end == v || *end || params[i] < p->min || params[i] > p->max)
		return !loud ? -1 : error("params '%s': %s=%s is not in %ld..%ld", text, name, v,
			     p->min, p->max);
	return 0;
}

static int params_parse(const struct tmpl *t, const char *text, long *params, int loud)
{
	char seen[MAX_PARAMS] = { 0 }, key[512];
	char *copy = xstrdup(text), *save = NULL;
	struct candidate c = { t, { 0 } };
	int ret = -1;

	if (t->nparams > MAX_PARAMS) {
		if (loud)
			error("template %s has more than %d parameters", t->stem, MAX_PARAMS);
		goto cleanup;
	}
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if (param_parse(t, text, item, c.params, seen, loud))
			goto cleanup;
	for (int i = 0; i < t->nparams; i++) {
		if (!seen[i]) {
			if (loud)
				error("params '%s': %s is missing", text, t->params[i].name);
			goto cleanup;
		}
	}
	if (strcmp(candidate_key(&c, key, sizeof(key)), text)) {
		if (loud)
			error("params '%s' are not in canonical form ('%s')", text, key);
		goto cleanup;
	}
	memcpy(params, c.params, sizeof(c.params[0]) * (size_t)t->nparams);
	ret = 0;
cleanup:
	free(copy);
	return ret;
}

int emit_params_parse(const struct tmpl *t, const char *text, long *params)
{
	return params_parse(t, text, params, 1);
}

int emit_params_parse_quiet(const struct tmpl *t, const char *text, long *params)
{
	return params_parse(t, text, params, 0);
}
