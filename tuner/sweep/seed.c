/*
 * seed.c: `gemmtab sweep --seed-from DB_OR_TABLE`: a table moved to a new
 * card screens only what won on the old one, and what lies next to it.
 *
 * The source is read once into rows (shape key, M range, candidate,
 * ratio): a database's retests under its newest environment (one M
 * each), or a table's entries (their M ranges, no ratio). At anchor m of
 * a shape, whose window runs from the anchor below to the anchor above
 * (the Ms the range phase times its finalists at), the finalists are
 *   - from a database: the SEED_TOP best at the source's M nearest m,
 *     and the best at every source M inside the window;
 *   - from a table: every entry of the key whose range meets the window.
 * A task there is kept when it is a finalist (same template and
 * canonical params text, candidate_key) or a neighbour of one in the
 * grid: the same template, one parameter moved one step among the values
 * the point's tasks take, every other the same. A blas_lt finalist that
 * this GPU's heuristic did not name is added as a task (its attributes
 * are the candidate; the worker checks it on this card). A shape the
 * source does not hold keeps all its tasks: it is swept in full.
 * The retests and settles are the sweep's as usual; the range phase
 * times emit's grid Ms and their held-out Ms alone (seed_times_m), and
 * the cuBLASLt climb's later steps are left out (run.c): the source's
 * finalists are its climb's.
 */
#include "seed.h"
#include "db.h"
#include "emit.h"
#include "engine.h"
#include "grid.h"
#include "tablefile.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Finalists taken at the source's M nearest an anchor: half the
 * reference space's retest_top (search_spaces/h200.yaml), so that with
 * the window's winners and their neighbours a transfer screens about a
 * tenth of a full sweep (make bench-search, its transfer line). */
#define SEED_TOP 4

/* One finalist of the source. */
struct seed_row {
	struct emit_key key;
	int m_lo, m_hi;              /* inclusive; one M for a retest */
	double ratio;                /* its retest's median; NAN for a table's */
	int best;                    /* the best retest at its key and M */
	char tmpl[64];
	char params[512];
};

struct seed {
	char *path;
	int from_table;
	struct seed_row *rows;
	int n;
};

/* Whether the file at path starts as an SQLite database does: 1, 0, or
 * -1 after a message when it cannot be read. */
static int is_database(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return error("sweep: --seed-from %s: cannot open it: %s", path, strerror(errno));
	const size_t got = fread(head, 1, sizeof(head), f);
	fclose(f);
	return got == sizeof(head) && !memcmp(head, magic, sizeof(magic));
}

/* The retests of the newest environment of the database at path into s.
 * Returns 0 or -1 (message printed). */
static int load_database(const char *path, struct seed *s)
{
	struct db *db;
	struct env_info env;
	struct retest_row *rows = NULL;
	long long env_id;
	int n = -1;
	if (db_open_read(path, &db))
		return error("sweep: --seed-from %s: cannot read it as a gemmtab database", path);
	if (db_env_pick(db, "sweep", 0, &env_id, &env) == 0)
		n = db_retest_rows(db, env_id, &rows);
	db_close(db);
	if (n <= 0) {
		free(rows);
		return error("sweep: --seed-from %s: the database holds no retest to seed from%s",
			     path, n < 0 ? " (or cannot be read)" : "");
	}
	s->rows = xmalloc(sizeof(*s->rows) * (size_t)n);
	for (int i = 0; i < n; i++) {
		struct seed_row *r = &s->rows[s->n];
		if (!isfinite(rows[i].ratio) || rows[i].ratio <= 0)
			continue;
		*r = (struct seed_row){ { rows[i].n, rows[i].k, rows[i].w, rows[i].x, rows[i].y },
					rows[i].m, rows[i].m, rows[i].ratio, 0, "", "" };
		snprintf(r->tmpl, sizeof(r->tmpl), "%s", rows[i].tmpl);
		snprintf(r->params, sizeof(r->params), "%s", rows[i].params);
		s->n++;
	}
	free(rows);
	fprintf(stderr, "sweep: --seed-from %s: %d retests of %s (env %lld)\n", path, s->n,
		env.gpu_name, env_id);
	return 0;
}

/* The entries of the table at path into s. Returns 0 or -1. */
static int load_table(const char *path, struct seed *s)
{
	struct emit_incumbent *inc;
	const int n = table_file_read(path, "sweep: --seed-from", &inc);
	if (n < 0)
		return -1;
	s->rows = xmalloc(sizeof(*s->rows) * (size_t)n);
	for (int i = 0; i < n; i++) {
		struct seed_row *r = &s->rows[s->n++];
		*r = (struct seed_row){ inc[i].key, inc[i].m_lo, inc[i].m_hi, NAN, 0, "", "" };
		snprintf(r->tmpl, sizeof(r->tmpl), "%s", inc[i].cand.tmpl);
		snprintf(r->params, sizeof(r->params), "%s", inc[i].cand.params);
	}
	free(inc);
	s->from_table = 1;
	fprintf(stderr, "sweep: --seed-from %s: %d table entries\n", path, s->n);
	return 0;
}

/* By key, M, then the better ratio first. */
static int cmp_rows(const void *a, const void *b)
{
	const struct seed_row *x = a, *y = b;
	const int d = x->key.n != y->key.n ? (x->key.n > y->key.n) - (x->key.n < y->key.n)
		    : x->key.k != y->key.k ? (x->key.k > y->key.k) - (x->key.k < y->key.k)
		    : x->key.w != y->key.w ? (int)x->key.w - (int)y->key.w
		    : x->key.x != y->key.x ? (int)x->key.x - (int)y->key.x
		    : x->key.y != y->key.y ? (int)x->key.y - (int)y->key.y
		    : x->m_lo != y->m_lo ? (x->m_lo > y->m_lo) - (x->m_lo < y->m_lo) : 0;
	return d ? d : (x->ratio < y->ratio) - (x->ratio > y->ratio);
}

static int same_point(const struct seed_row *a, const struct seed_row *b)
{
	return a->key.n == b->key.n && a->key.k == b->key.k && a->key.w == b->key.w &&
	       a->key.x == b->key.x && a->key.y == b->key.y && a->m_lo == b->m_lo;
}

int seed_load(const char *path, struct seed **out)
{
	struct seed *s = xcalloc(1, sizeof(*s));
	const int db = is_database(path);
	int rc = db < 0 ? -1 : db ? load_database(path, s) : load_table(path, s);
	if (rc) {
		seed_free(s);
		return -1;
	}
	if (!s->from_table) {
		qsort(s->rows, (size_t)s->n, sizeof(*s->rows), cmp_rows);
		for (int i = 0; i < s->n; i++)
			s->rows[i].best = !i || !same_point(&s->rows[i - 1], &s->rows[i]);
	}
	s->path = xstrdup(path);
	*out = s;
	return 0;
}

void seed_free(struct seed *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s->path);
	free(s);
}

static int same_key(const struct emit_key *k, const struct shape *s)
{
	return k->n == s->n && k->k == s->k && k->w == s->w && k->x == s->x && k->y == s->y;
}

/* The window of anchor j of s: from the tuned M below it to the one above
 * it (a range's ends, and past its end its check points, beyond the first
 * and the last). */
static void anchor_window(const struct shape *s, int j, int *lo, int *hi)
{
	const int m = s->ms[j];
	*lo = shape_is_range(s) ? 1 : m;
	*hi = shape_is_range(s) ? 1 << 30 : m;
	int below = 0, above = 1 << 30;
	for (int q = 0; q < s->n_ms; q++) {
		if (s->ms[q] < m && s->ms[q] > below)
			below = s->ms[q];
		if (s->ms[q] > m && s->ms[q] < above)
			above = s->ms[q];
	}
	if (below)
		*lo = below;
	if (above < 1 << 30)
		*hi = above;
}

static int by_ratio(const void *a, const void *b)
{
	const struct seed_row *x = *(const struct seed_row *const *)a;
	const struct seed_row *y = *(const struct seed_row *const *)b;
	return (x->ratio < y->ratio) - (x->ratio > y->ratio);
}

/* The finalists of s at anchor j of shape sh, distinct candidates, into
 * a heap array *out of pointers into s->rows (caller frees); returns the
 * count, or -1 (*out NULL) when the source holds nothing of sh's key. */
static int finalists(const struct seed *s, const struct shape *sh, int j,
		     const struct seed_row ***out)
{
	const int m = sh->ms[j];
	int lo, hi, n = 0, held = 0, nearest = 0;
	anchor_window(sh, j, &lo, &hi);
	/* the SEED_TOP at the nearest M, then the best at each M: 2n at most */
	const struct seed_row **pick = xmalloc(sizeof(*pick) * (2 * (size_t)s->n + 1));
	int npick = 0;
	for (int i = 0; i < s->n; i++) {
		const struct seed_row *r = &s->rows[i];
		if (!same_key(&r->key, sh))
			continue;
		held = 1;
		if (s->from_table) {
			if (r->m_hi >= lo && r->m_lo <= hi)
				pick[npick++] = r;
			continue;
		}
		/* the source M nearest m, by ratio (the smaller first on a tie) */
		const double d = fabs(log((double)r->m_lo / m));
		const double dn = nearest ? fabs(log((double)nearest / m)) : INFINITY;
		if (d < dn - 1e-12 || (fabs(d - dn) <= 1e-12 && r->m_lo < nearest))
			nearest = r->m_lo;
	}
	if (!s->from_table && held) {
		/* the SEED_TOP best at the nearest M */
		for (int i = 0; i < s->n; i++)
			if (same_key(&s->rows[i].key, sh) && s->rows[i].m_lo == nearest)
				pick[npick++] = &s->rows[i];
		qsort(pick, (size_t)npick, sizeof(*pick), by_ratio);
		if (npick > SEED_TOP)
			npick = SEED_TOP;
		/* and the best at every M of the window */
		for (int i = 0; i < s->n; i++) {
			const struct seed_row *r = &s->rows[i];
			if (r->best && same_key(&r->key, sh) && r->m_lo >= lo && r->m_lo <= hi)
				pick[npick++] = r;
		}
	}
	for (int i = 0; i < npick; i++) {
		int seen = 0;
		for (int q = 0; q < n && !seen; q++)
			seen = !strcmp(pick[q]->tmpl, pick[i]->tmpl) &&
			       !strcmp(pick[q]->params, pick[i]->params);
		if (!seen)
			pick[n++] = pick[i];
	}
	if (!held) {
		free(pick);
		pick = NULL;
	}
	*out = pick;
	return held ? n : -1;
}

/* Whether value v of parameter p and value w are one step apart among
 * the values the tasks at[] (na of them, of template t) take there. */
static int one_step(const struct tasklist *tl, const int *at, int na, const struct tmpl *t,
		    int p, long v, long w)
{
	const long lo = v < w ? v : w, hi = v < w ? w : v;
	for (int a = 0; a < na; a++) {
		const struct task *x = &tl->t[at[a]];
		if (x->cand.tmpl == t && x->cand.params[p] > lo && x->cand.params[p] < hi)
			return 0;
	}
	return 1;
}

/* Whether task x is finalist c (params cp) or its neighbour in the grid
 * of the point's tasks at[]. */
static int seeds_task(const struct tasklist *tl, const int *at, int na, const struct task *x,
		const struct tmpl *t, const long *cp)
{
	int differ = -1;
	if (x->cand.tmpl != t)
		return 0;
	for (int p = 0; p < t->nparams; p++) {
		if (x->cand.params[p] == cp[p])
			continue;
		if (differ >= 0)
			return 0;
		differ = p;
	}
	return differ < 0 || one_step(tl, at, na, t, differ, cp[differ], x->cand.params[differ]);
}

/* What seed_keep counted, for its line. */
struct seed_counts {
	int anchors, unheld, finalists, unknown, added, kept, before;
};

/* Mark in keep[] the tasks at anchor j of shape si that s seeds (or all
 * of them where s holds nothing of the shape), adding blas_lt finalists
 * the tasks lack; keep[] grows with sw->tl (room for *cap). */
static void keep_point(struct sweep *sw, const struct seed *s, int si, int j, char **keep,
		       int *cap, struct seed_counts *c)
{
	const struct shape *sh = &sw->sp->shapes[si];
	const int m = sh->ms[j];
	const struct seed_row **fin;
	const int nfin = finalists(s, sh, j, &fin);
	c->anchors++;
	if (nfin < 0) {
		c->unheld++;
		for (int i = 0; i < sw->tl->n; i++)
			(*keep)[i] |= sw->tl->t[i].shape == si && sw->tl->t[i].m == m;
		return;
	}
	for (int f = 0; f < nfin; f++) {
		const struct tmpl *t = tmpl_find(fin[f]->tmpl);
		struct candidate cand = { t, { 0 } };
		if (!t || emit_params_parse_quiet(t, fin[f]->params, cand.params)) {
			c->unknown++;   /* a template or parameter this build lacks */
			continue;
		}
		c->finalists++;
		/* a blas_lt finalist is this card's to check (a template of
		 * ours is a task wherever the space's grid holds it) */
		if (tasks_add(sw->tl, sw->sp, si, m, &cand) > 0) {
			c->added++;
			if (sw->tl->n > *cap) {
				*keep = xrealloc(*keep, (size_t)(*cap = 2 * sw->tl->n));
				memset(*keep + sw->tl->n - 1, 0, (size_t)(*cap - sw->tl->n + 1));
			}
		}
		int *at = xmalloc(sizeof(*at) * (size_t)sw->tl->n), na = 0;
		for (int i = 0; i < sw->tl->n; i++)
			if (sw->tl->t[i].shape == si && sw->tl->t[i].m == m)
				at[na++] = i;
		for (int a = 0; a < na; a++)
			(*keep)[at[a]] |= seeds_task(sw->tl, at, na, &sw->tl->t[at[a]], t, cand.params);
		free(at);
	}
	free(fin);
}

int seed_keep(struct sweep *sw, const struct seed *s, const char *family)
{
	struct seed_counts c = { .before = sw->tl->n };
	int cap = sw->tl->n + 1;
	char *keep = xcalloc((size_t)cap, 1);
	for (int si = 0; si < sw->sp->nshapes; si++) {
		if (family && strcmp(family, sw->sp->shapes[si].family))
			continue;
		for (int j = 0; j < sw->sp->shapes[si].n_ms; j++)
			keep_point(sw, s, si, j, &keep, &cap, &c);
	}
	int n = 0;
	for (int i = 0; i < sw->tl->n; i++)
		if (keep[i])
			sw->tl->t[n++] = sw->tl->t[i];
	sw->tl->n = c.kept = n;
	free(keep);
	fprintf(stderr, "sweep: --seed-from %s: %d of %d candidates kept at %d anchors: %d "
		"finalists (%d blas_lt added) and their grid neighbours", s->path, c.kept,
		c.before, c.anchors, c.finalists, c.added);
	if (c.unknown)
		fprintf(stderr, "; %d finalists of templates or parameters this build lacks "
			"left out", c.unknown);
	if (c.unheld)
		fprintf(stderr, "; %d anchors of shapes the source lacks swept in full", c.unheld);
	fputc('\n', stderr);
	return 0;
}

int seed_times_m(const struct shape *s, int m)
{
	if (m < s->m_lo || m > s->m_hi || grid_on(m, s->m_lo, s->m_hi))
		return 1;
	int a = m - 1;
	while (!grid_on(a, s->m_lo, s->m_hi))
		a--;
	return grid_holdout(a, grid_next(a, s->m_lo, s->m_hi)) == m;
}
