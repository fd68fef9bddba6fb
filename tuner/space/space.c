/*
 * space.c: loads a search space (format in space.h): checks the node tree
 * ytree.c read from the YAML against the schema, converts it to struct
 * space, and enumerates the candidates of a shape and M. Every problem is
 * one "FILE:LINE:COL: what" line.
 */
#include "space.h"
#include "expr.h"
#include "tmpl.h"
#include "util.h"
#include "ytree.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Largest N or K: far beyond any projection, and it keeps N*K and the
 * products constraints form well inside a long. */
#define SPACE_MAX_DIM (1L << 20)
/* Largest M a load or neighbour may name (decode batches, not prefill). */
/* A grid bigger than this cannot be swept; it is a typo, not a plan. */
#define GRID_MAX_POINTS 1000000L

/* Builtin names a constraint may use, and their slots after the params. */
enum { SLOT_N = MAX_PARAMS, SLOT_K, SLOT_M, SLOT_W_BYTES, SLOT_X_BYTES,
       SLOT_Y_BYTES, SLOT_SM_COUNT, SLOT_SMEM_OPTIN, SLOT_SMEM_SM, SLOT_SMEM_RESERVED,
       SLOT_L2_BYTES, SLOT_MAX_CLUSTER, NSLOTS };
static const char *const builtin_names[] = {
	"n", "k", "m", "w_bytes", "x_bytes", "y_bytes",
	"sm_count", "smem_optin", "smem_sm", "smem_reserved", "l2_bytes", "max_cluster",
};

/* ---- schema helpers ---- */

static const char *kind_name(const struct ynode *n)
{
	if (n->kind == K_LIST)
		return "a list";
	if (n->kind == K_MAP)
		return "a mapping";
	if (!*n->text)
		return n->style == Y_PLAIN ? "an empty value" : "an empty string";
	return "a scalar";
}

static int expect(const struct loader *L, const struct ynode *n, enum kind kind,
		  const char *what)
{
	static const char *const names[] = { "a scalar", "a list", "a mapping" };
	if (n->kind != kind || (kind == K_SCALAR && !*n->text))
		return yfail(L, n, "%s must be %s, not %s", what, names[kind], kind_name(n));
	if (kind != K_SCALAR && !n->nkids)
		return yfail(L, n, "%s must not be empty", what);
	return 0;
}

/* The value of key in map, or NULL. */
static const struct ynode *lookup(const struct ynode *map, const char *key)
{
	for (int i = 0; i + 1 < map->nkids; i += 2)
		if (!strcmp(map->kids[i]->text, key))
			return map->kids[i + 1];
	return NULL;
}

/* Every key of map must be in the NULL-terminated allowed[]. */
static int check_keys(const struct loader *L, const struct ynode *map,
		      const char *const *allowed, const char *what)
{
	char buf[SHOWN_MAX], list[256] = "";
	for (int i = 0; i < map->nkids; i += 2) {
		const char *key = map->kids[i]->text;
		int j = 0;
		while (allowed[j] && strcmp(allowed[j], key))
			j++;
		if (allowed[j])
			continue;
		for (j = 0; allowed[j]; j++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 j ? ", " : "", allowed[j]);
		return yfail(L, map->kids[i], "unknown key '%s' in %s (expected %s)",
			    yshown(key, buf), what, list);
	}
	return 0;
}

static const struct ynode *require(const struct loader *L, const struct ynode *map,
				   const char *key, const char *what)
{
	const struct ynode *v = lookup(map, key);
	if (!v)
		yfail(L, map, "%s lacks required key '%s'", what, key);
	return v;
}

/* An integer scalar in [min, max]. */
static int get_long(const struct loader *L, const struct ynode *n, long min,
		    long max, const char *what, long *out)
{
	char buf[SHOWN_MAX];
	if (n->kind != K_SCALAR || n->style != Y_PLAIN || !*n->text)
		return yfail(L, n, "%s must be an integer, not %s", what,
			    n->kind == K_SCALAR && *n->text ? "a quoted string" : kind_name(n));
	const char *p = n->text + (*n->text == '-' || *n->text == '+');
	if (strspn(p, "0123456789") != strlen(p) || !*p)
		return yfail(L, n, "%s must be an integer, not '%s'", what, yshown(n->text, buf));
	errno = 0;
	long v = strtol(n->text, NULL, 10);
	if (errno || v < min || v > max)
		return yfail(L, n, "%s must be in [%ld, %ld], not %s", what, min, max,
			    yshown(n->text, buf));
	*out = v;
	return 0;
}

/* A finite number scalar in (lo, hi). */
static int get_double(const struct loader *L, const struct ynode *n, double lo,
		      double hi, const char *what, double *out)
{
	char buf[SHOWN_MAX], *end;
	if (n->kind != K_SCALAR || n->style != Y_PLAIN || !*n->text)
		return yfail(L, n, "%s must be a number, not %s", what,
			    n->kind == K_SCALAR && *n->text ? "a quoted string" : kind_name(n));
	double v = strtod(n->text, &end);
	if (*end || !isfinite(v))
		return yfail(L, n, "%s must be a number, not '%s'", what, yshown(n->text, buf));
	if (!(v > lo && v < hi))
		return yfail(L, n, "%s must be in (%g, %g), not %s", what, lo, hi,
			    yshown(n->text, buf));
	*out = v;
	return 0;
}

/* A non-empty list of distinct integers in [min, max], at most maxn. */
static int get_int_list(const struct loader *L, const struct ynode *n, long min,
			long max, int maxn, const char *what, int *out, int *nout)
{
	if (expect(L, n, K_LIST, what))
		return -1;
	if (n->nkids > maxn)
		return yfail(L, n->kids[maxn], "%s has more than %d values", what, maxn);
	for (int i = 0; i < n->nkids; i++) {
		long v;
		if (get_long(L, n->kids[i], min, max, what, &v))
			return -1;
		for (int j = 0; j < i; j++)
			if (out[j] == v)
				return yfail(L, n->kids[i], "duplicate %s value %ld", what, v);
		out[i] = (int)v;
	}
	*nout = n->nkids;
	return 0;
}

/* ---- the sections ---- */

static int load_sweep(const struct loader *L, const struct ynode *map,
		      struct sweep_settings *sw)
{
	static const char *const keys[] = {
		"screen_pairs", "retest_pairs", "retest_top", "deadline_s", "range_top",
		"range_pairs", NULL,
	};
	/* Sanity ceilings: a million timed replays, a day per candidate. */
	const long max_pairs = 1000000, max_top = 1000;
	const struct ynode *v;
	long x;
	if (expect(L, map, K_MAP, "sweep") || check_keys(L, map, keys, "sweep"))
		return -1;
	if ((v = lookup(map, "screen_pairs"))) {
		if (get_long(L, v, 1, max_pairs, "screen_pairs", &x))
			return -1;
		sw->screen_pairs = (int)x;
	}
	if ((v = lookup(map, "retest_pairs"))) {
		if (get_long(L, v, 1, max_pairs, "retest_pairs", &x))
			return -1;
		sw->retest_pairs = (int)x;
	}
	if ((v = lookup(map, "retest_top"))) {
		if (get_long(L, v, 1, max_top, "retest_top", &x))
			return -1;
		sw->retest_top = (int)x;
	}
	if ((v = lookup(map, "deadline_s")) &&
	    get_double(L, v, 1, 86400, "deadline_s", &sw->deadline_s))
		return -1;
	if ((v = lookup(map, "range_top"))) {
		if (get_long(L, v, 1, max_top, "range_top", &x))
			return -1;
		sw->range_top = (int)x;
	}
	if ((v = lookup(map, "range_pairs"))) {
		if (get_long(L, v, 1, max_pairs, "range_pairs", &x))
			return -1;
		sw->range_pairs = (int)x;
	}
	return 0;
}

static int get_dtype(const struct loader *L, const struct ynode *map, const char *key,
		     enum dtype *out)
{
	char buf[SHOWN_MAX];
	const struct ynode *v = require(L, map, key, "shape");
	if (!v || expect(L, v, K_SCALAR, key))
		return -1;
	if (dtype_parse(v->text, out))
		return yfail(L, v, "%s must be bf16 or fp32, not '%s'", key, yshown(v->text, buf));
	return 0;
}

/* The family name: 1..FAMILY_MAX-1 letters, digits or '_', unique. */
static int get_family(const struct loader *L, const struct ynode *map,
		      const struct shape *prev, int nprev, const struct ynode *const *prev_at,
		      char *out)
{
	char buf[SHOWN_MAX];
	const struct ynode *v = require(L, map, "family", "shape");
	if (!v || expect(L, v, K_SCALAR, "family"))
		return -1;
	size_t len = strlen(v->text);
	if (len >= FAMILY_MAX || strspn(v->text, "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
		return yfail(L, v, "family must be 1 to %d letters, digits or '_', not '%s'",
			    FAMILY_MAX - 1, yshown(v->text, buf));
	for (int i = 0; i < nprev; i++)
		if (!strcmp(prev[i].family, v->text))
			return yfail(L, v, "duplicate family '%s' (first at line %d)",
				    v->text, lookup(prev_at[i], "family")->line + 1);
	memcpy(out, v->text, len + 1);
	return 0;
}

/* A range "LO..HI" (1 <= LO < HI <= SPACE_MAX_M) into s->m_lo, s->m_hi. */
static int get_range(const struct loader *L, const struct ynode *v, struct shape *s)
{
	char buf[SHOWN_MAX], *end;
	const char *t = v->text;
	long lo, hi;
	if (v->style != Y_PLAIN || strspn(t, "0123456789") == 0)
		goto bad;
	errno = 0;
	lo = strtol(t, &end, 10);
	if (strncmp(end, "..", 2) || strspn(end + 2, "0123456789") == 0)
		goto bad;
	hi = strtol(end + 2, &end, 10);
	if (*end || errno)
		goto bad;
	if (lo < 1 || hi > SPACE_MAX_M || lo >= hi)
		return yfail(L, v, "m range %s must be LO..HI with 1 <= LO < HI <= %ld",
			    yshown(t, buf), SPACE_MAX_M);
	s->m_lo = (int)lo;
	s->m_hi = (int)hi;
	return 0;
bad:
	return yfail(L, v, "m must be a list of Ms ([1, 8, 16]) or a range (1..512), not '%s'",
		    yshown(t, buf));
}

/* A range's anchors (the Ms screened): anchors: [..] inside the range, or
 * by default its ends and every power of two between them. */
static int get_anchors(const struct loader *L, const struct ynode *map, struct shape *s)
{
	const struct ynode *v = lookup(map, "anchors");
	if (v) {
		if (get_int_list(L, v, s->m_lo, s->m_hi, MAX_MS, "anchors", s->ms, &s->n_ms))
			return -1;
		for (int i = 1; i < s->n_ms; i++)
			if (s->ms[i] < s->ms[i - 1])
				return yfail(L, v->kids[i], "anchors must ascend");
		return 0;
	}
	s->n_ms = 0;
	s->ms[s->n_ms++] = s->m_lo;
	for (long p = 1; p < s->m_hi; p *= 2)
		if (p > s->m_lo && s->n_ms < MAX_MS - 1)
			s->ms[s->n_ms++] = (int)p;
	s->ms[s->n_ms++] = s->m_hi;
	return 0;
}

/* One entry of shapes:. prev[0..nprev-1] are the shapes before it. */
static int load_shape(const struct loader *L, const struct ynode *map, struct shape *s,
		      const struct shape *prev, int nprev, const struct ynode *const *prev_at)
{
	static const char *const keys[] = {
		"family", "n", "k", "w", "x", "y", "tol", "m", "anchors", "neighbours", NULL,
	};
	const struct ynode *v;
	long x;
	if (expect(L, map, K_MAP, "a shape") || check_keys(L, map, keys, "shape") ||
	    get_family(L, map, prev, nprev, prev_at, s->family))
		return -1;
	if (!(v = require(L, map, "n", "shape")) || get_long(L, v, 1, SPACE_MAX_DIM, "n", &x))
		return -1;
	s->n = (int)x;
	if (!(v = require(L, map, "k", "shape")) || get_long(L, v, 1, SPACE_MAX_DIM, "k", &x))
		return -1;
	s->k = (int)x;
	if (get_dtype(L, map, "w", &s->w) || get_dtype(L, map, "x", &s->x) ||
	    get_dtype(L, map, "y", &s->y))
		return -1;
	if (!(v = require(L, map, "tol", "shape")) || get_double(L, v, 0, 1, "tol", &s->tol))
		return -1;
	if (!(v = require(L, map, "m", "shape")))
		return -1;
	if (v->kind == K_SCALAR) {
		if (get_range(L, v, s) || get_anchors(L, map, s))
			return -1;
	} else {
		if (get_int_list(L, v, 1, SPACE_MAX_M, MAX_MS, "m", s->ms, &s->n_ms))
			return -1;
		if ((v = lookup(map, "anchors")))
			return yfail(L, v, "anchors belong to a range (m: LO..HI); a list's Ms "
				     "are all anchors");
	}
	if (!(v = lookup(map, "neighbours")))
		return 0;
	if (shape_is_range(s))
		return yfail(L, v, "a range (m: %d..%d) times every M of it: it takes no "
			     "neighbours", s->m_lo, s->m_hi);
	if (get_int_list(L, v, 1, SPACE_MAX_M, MAX_MS, "neighbours", s->neighbours,
			 &s->n_neighbours))
		return -1;
	for (int i = 0; i < s->n_neighbours; i++)
		for (int j = 0; j < s->n_ms; j++)
			if (s->neighbours[i] == s->ms[j])
				return yfail(L, v->kids[i], "neighbour %d is also a tuned m",
					    s->ms[j]);
	return 0;
}

static int load_shapes(const struct loader *L, const struct ynode *list, struct space *sp)
{
	if (expect(L, list, K_LIST, "shapes"))
		return -1;
	sp->shapes = xcalloc((size_t)list->nkids, sizeof(*sp->shapes));
	for (int i = 0; i < list->nkids; i++) {
		if (load_shape(L, list->kids[i], &sp->shapes[i], sp->shapes, i,
			       (const struct ynode *const *)list->kids))
			return -1;
		sp->nshapes++;
	}
	return 0;
}

/* One parameter's list of values: integers in the template's range, or
 * symbols by name (stored as their index). Distinct. */
static int load_values(const struct loader *L, const struct ynode *list,
		       const struct tmpl_param *p, long *out)
{
	char buf[SHOWN_MAX], expected[256] = "";
	if (expect(L, list, K_LIST, p->name))
		return -1;
	for (int i = 0; i < list->nkids; i++) {
		const struct ynode *v = list->kids[i];
		if (!p->symbols) {
			if (get_long(L, v, p->min, p->max, p->name, &out[i]))
				return -1;
		} else {
			if (expect(L, v, K_SCALAR, p->name))
				return -1;
			int s = 0;
			while (p->symbols[s] && strcmp(p->symbols[s], v->text))
				s++;
			if (!p->symbols[s]) {
				for (s = 0; p->symbols[s]; s++)
					snprintf(expected + strlen(expected),
						 sizeof(expected) - strlen(expected), "%s%s",
						 s ? ", " : "", p->symbols[s]);
				return yfail(L, v, "unknown %s value '%s' (expected %s)",
					    p->name, yshown(v->text, buf), expected);
			}
			out[i] = s;
		}
		for (int j = 0; j < i; j++)
			if (out[j] == out[i])
				return yfail(L, v, "duplicate %s value %s", p->name,
					    yshown(v->text, buf));
	}
	return 0;
}

static int load_params(const struct loader *L, const struct ynode *map, struct grid *g)
{
	const struct tmpl *t = g->tmpl;
	char buf[SHOWN_MAX], names[256] = "";
	double points = 1;
	/* a template without parameters (blas_hilo) takes "params: {}" */
	if (t->nparams == 0 && map->kind == K_MAP && !map->nkids)
		return 0;
	if (expect(L, map, K_MAP, "params"))
		return -1;
	for (int i = 0; i < t->nparams; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", t->params[i].name);
	for (int i = 0; i < map->nkids; i += 2) {
		const struct ynode *key = map->kids[i], *list = map->kids[i + 1];
		int p = tmpl_param_index(t, key->text);
		if (p < 0)
			return yfail(L, key, "unknown parameter '%s' of template %s (expected %s)",
				    yshown(key->text, buf), t->stem, names);
		g->values[p] = xcalloc((size_t)(list->nkids ? list->nkids : 1), sizeof(long));
		if (load_values(L, list, &t->params[p], g->values[p]))
			return -1;
		g->nvalues[p] = list->nkids;
		points *= list->nkids;
	}
	for (int i = 0; i < t->nparams; i++)
		if (!g->values[i])
			return yfail(L, map, "params of %s lacks '%s' (every parameter needs "
				    "a list)", t->stem, t->params[i].name);
	if (points > GRID_MAX_POINTS)
		return yfail(L, map, "grid of %s has %.0f points (at most %ld)", t->stem,
			    points, GRID_MAX_POINTS);
	return 0;
}

/* The column of byte offset off of single-line scalar n's value in the
 * source (0-based, in characters), or -1 when n spans lines. */
static long value_column(const struct loader *L, const struct ynode *n, int off)
{
	if (n->end_line != n->line || n->style == Y_LITERAL ||
	    n->style == Y_FOLDED)
		return -1;
	int quoted = n->style == Y_SINGLE_QUOTED ||
		     n->style == Y_DOUBLE_QUOTED;
	const char *raw = L->buf + ybyte_of_index(L, n->index) + quoted, *end = L->buf + L->len;
	long col = n->col + quoted;
	/* Walk the value one character at a time and the source alongside,
	 * where an escape spells one character with several. */
	for (int d = 0; d < off && raw < end;) {
		int width = 1;  /* bytes of this character of the value */
		while (n->text[d + width] && ((unsigned char)n->text[d + width] & 0xc0) == 0x80)
			width++;
		d += width;
		int spelled = 1;        /* source characters spelling it */
		if (n->style == Y_SINGLE_QUOTED && *raw == '\'')
			spelled = 2;    /* '' stands for ' */
		else if (n->style == Y_DOUBLE_QUOTED && *raw == '\\')
			spelled = raw[1] == 'x' ? 4 : raw[1] == 'u' ? 6 : raw[1] == 'U' ? 10 : 2;
		raw += spelled == 1 ? width : spelled;
		col += spelled;
	}
	return col;
}

/* Parse every constraint of g against the template's names. */
static int load_constraints(const struct loader *L, const struct ynode *list, struct grid *g)
{
	const struct tmpl *t = g->tmpl;
	int nnames = 0, r = 0;
	size_t cap = (size_t)t->nparams + ARRAY_SIZE(builtin_names);
	for (int i = 0; i < t->nparams; i++)
		for (int s = 0; t->params[i].symbols && t->params[i].symbols[s]; s++)
			cap++;
	struct expr_name *names = xcalloc(cap, sizeof(*names));
	/* Parameters first, then builtins, then symbols: the first match wins. */
	for (int i = 0; i < t->nparams; i++)
		names[nnames++] = (struct expr_name){ t->params[i].name, i, 0 };
	for (size_t i = 0; i < ARRAY_SIZE(builtin_names); i++)
		names[nnames++] = (struct expr_name){ builtin_names[i], SLOT_N + (int)i, 0 };
	for (int i = 0; i < t->nparams; i++)
		for (int s = 0; t->params[i].symbols && t->params[i].symbols[s]; s++)
			names[nnames++] = (struct expr_name){ t->params[i].symbols[s], -1, s };

	if (expect(L, list, K_LIST, "constraints")) {
		r = -1;
		goto cleanup;
	}
	g->constraints = xcalloc((size_t)list->nkids, sizeof(*g->constraints));
	g->constraint_text = xcalloc((size_t)list->nkids, sizeof(*g->constraint_text));
	g->constraint_line = xcalloc((size_t)list->nkids, sizeof(*g->constraint_line));
	g->constraint_col = xcalloc((size_t)list->nkids, sizeof(*g->constraint_col));
	for (int i = 0; i < list->nkids; i++) {
		const struct ynode *v = list->kids[i];
		struct expr_error err;
		if (v->kind != K_SCALAR) {
			r = yfail(L, v, "a constraint must be a string, not %s", kind_name(v));
			goto cleanup;
		}
		g->constraints[i] = expr_parse(v->text, names, nnames, &err);
		if (!g->constraints[i]) {
			long col = value_column(L, v, err.offset);
			if (col >= 0)
				r = yreport(L, (size_t)v->line, (size_t)col, "constraint: %s", err.msg);
			else
				r = yfail(L, v, "constraint: %s (at character %d)", err.msg,
					 err.offset + 1);
			goto cleanup;
		}
		g->constraint_text[i] = xstrdup(v->text);
		g->constraint_line[i] = v->line;
		g->constraint_col[i] = v->col;
		g->nconstraints++;
	}
cleanup:
	free(names);
	return r;
}

static int load_grid(const struct loader *L, const struct ynode *key,
		     const struct ynode *map, struct grid *g)
{
	static const char *const keys[] = { "params", "constraints", NULL };
	char buf[SHOWN_MAX], known[256] = "";
	const struct ynode *v;
	if (!(g->tmpl = tmpl_find(key->text))) {
		for (int i = 0; tmpl_all[i]; i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", tmpl_all[i]->stem);
		return yfail(L, key, "unknown template '%s' (known: %s)",
			    yshown(key->text, buf), known);
	}
	if (expect(L, map, K_MAP, key->text) || check_keys(L, map, keys, key->text))
		return -1;
	if (!(v = require(L, map, "params", key->text)) || load_params(L, v, g))
		return -1;
	if ((v = lookup(map, "constraints")) && load_constraints(L, v, g))
		return -1;
	return 0;
}

static int load_templates(const struct loader *L, const struct ynode *map, struct space *sp)
{
	if (expect(L, map, K_MAP, "templates"))
		return -1;
	sp->grids = xcalloc((size_t)map->nkids / 2, sizeof(*sp->grids));
	for (int i = 0; i < map->nkids; i += 2) {
		/* counted before loading so space_free sees a partial grid */
		sp->ngrids++;
		if (load_grid(L, map->kids[i], map->kids[i + 1], &sp->grids[i / 2]))
			return -1;
	}
	return 0;
}

const char *const space_lt_vary_names[] = { "tile", "stages", "cluster", "custom", NULL };

static int load_cublaslt(const struct loader *L, const struct ynode *map, struct lt_search *lt)
{
	static const char *const keys[] = { "orient", "top", "splitk", "vary", "vary_min_m",
					     "vary_seeds", "vary_steps", NULL };
	static const struct tmpl_param vary = { "vary", 0, 3, space_lt_vary_names };
	const struct tmpl *t = tmpl_find("blas_lt");
	const struct ynode *v;
	long x;
	if (!t || expect(L, map, K_MAP, "cublaslt") || check_keys(L, map, keys, "cublaslt"))
		return -1;
	if (!(v = require(L, map, "orient", "cublaslt")) || expect(L, v, K_LIST, "orient"))
		return -1;
	if (v->nkids < 1)
		return yfail(L, v, "orient must not be empty");
	if (v->nkids > (int)ARRAY_SIZE(lt->orient))
		return yfail(L, v, "orient has more than %zu values", ARRAY_SIZE(lt->orient));
	if (load_values(L, v, &t->params[0], lt->orient))
		return -1;
	lt->norients = v->nkids;
	if (!(v = require(L, map, "top", "cublaslt")) ||
	    get_long(L, v, 1, SPACE_LT_TOP_MAX, "top", &x))
		return -1;
	lt->top = (int)x;
	if ((v = lookup(map, "splitk"))) {
		if (get_int_list(L, v, 1, SPACE_LT_SPLITK_LIMIT, SPACE_LT_SPLITK_MAX, "splitk",
				 lt->splitk, &lt->nsplitk))
			return -1;
		if (!lt->nsplitk)
			return yfail(L, v, "splitk must not be empty");
	}
	if ((v = lookup(map, "vary"))) {
		long which[4];
		/* the list, and no longer than which, before load_values fills it */
		if (expect(L, v, K_LIST, "vary"))
			return -1;
		if (v->nkids < 1)
			return yfail(L, v, "vary must not be empty");
		if (v->nkids > 4)
			return yfail(L, v->kids[4], "vary has more than 4 values");
		if (load_values(L, v, &vary, which))
			return -1;
		for (int i = 0; i < v->nkids; i++)
			snprintf(lt->vary + strlen(lt->vary), sizeof(lt->vary) - strlen(lt->vary),
				 "%s%s", i ? "," : "", space_lt_vary_names[which[i]]);
	}
	if ((v = lookup(map, "vary_min_m"))) {
		if (get_long(L, v, 1, SPACE_MAX_M, "vary_min_m", &x))
			return -1;
		if (!lt_varies(lt))
			return yfail(L, v, "vary_min_m without splitk or vary limits nothing");
		lt->vary_min_m = (int)x;
	}
	if ((v = lookup(map, "vary_seeds"))) {
		if (get_long(L, v, 0, SPACE_LT_SEEDS_MAX, "vary_seeds", &x))
			return -1;
		if (x && !lt_varies(lt))
			return yfail(L, v, "vary_seeds without splitk or vary varies nothing");
		lt->vary_seeds = (int)x;
	}
	if ((v = lookup(map, "vary_steps"))) {
		if (get_long(L, v, 1, SPACE_LT_STEPS_MAX, "vary_steps", &x))
			return -1;
		if (x > 1 && !lt->vary_seeds)
			return yfail(L, v, "vary_steps past 1 needs vary_seeds: each step is "
				     "seeded by the ones before");
		lt->vary_steps = (int)x;
	}
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* The `workload:` section: loads (token counts) and the shapes each runs,
 * by family (a shape of this space), with a count and an optional `when`
 * over m. */
static int load_workload(const struct loader *L, const struct ynode *map, struct space *sp)
{
	static const char *const keys[] = { "loads", "shapes", NULL };
	static const char *const part_keys[] = { "family", "count", "when", NULL };
	struct workload *w = &sp->workload;
	const struct ynode *v, *list;
	if (expect(L, map, K_MAP, "workload") || check_keys(L, map, keys, "workload"))
		return -1;
	if (!(v = require(L, map, "loads", "workload")) ||
	    get_int_list(L, v, 1, SPACE_MAX_M, WORKLOAD_MAX_LOADS, "loads", w->loads, &w->nloads))
		return -1;
	if (!w->nloads)
		return yfail(L, v, "loads must not be empty");
	const struct ynode *loads_at = v;
	if (!(list = require(L, map, "shapes", "workload")) ||
	    expect(L, list, K_LIST, "workload shapes"))
		return -1;
	if (!list->nkids)
		return yfail(L, list, "workload shapes must not be empty");
	for (int i = 0; i < list->nkids; i++) {
		const struct ynode *pm = list->kids[i], *f, *c, *when;
		long count = 1;
		char why[200], buf[SHOWN_MAX];
		int offset, known = 0;
		if (expect(L, pm, K_MAP, "a workload shape") ||
		    check_keys(L, pm, part_keys, "workload shape") ||
		    !(f = require(L, pm, "family", "workload shape")) ||
		    expect(L, f, K_SCALAR, "family"))
			return -1;
		for (int s = 0; s < sp->nshapes; s++)
			known |= !strcmp(sp->shapes[s].family, f->text);
		if (!known)
			return yfail(L, f, "workload family '%s' is not a shape of this space",
				     yshown(f->text, buf));
		for (int j = 0; j < w->nparts; j++)
			if (!strcmp(w->parts[j].family, f->text))
				return yfail(L, f, "workload family '%s' is listed twice",
					     yshown(f->text, buf));
		if ((c = lookup(pm, "count")) && get_long(L, c, 1, 1000000, "count", &count))
			return -1;
		if ((when = lookup(pm, "when")) && expect(L, when, K_SCALAR, "when"))
			return -1;
		if (workload_add(w, f->text, (int)count, when ? when->text : NULL, why,
				 sizeof(why), &offset)) {
			long col = when && offset >= 0 ? value_column(L, when, offset) : -1;
			if (col >= 0)
				return yreport(L, (size_t)when->line, (size_t)col, "%s", why);
			return yfail(L, when ? when : pm, "%s", why);
		}
	}
	qsort(w->loads, (size_t)w->nloads, sizeof(w->loads[0]), int_cmp);
	for (int l = 0; l < w->nloads; l++) {
		int any = 0;
		for (int j = 0; j < w->nparts; j++)
			any |= workload_part_in(&w->parts[j], w->loads[l]);
		if (!any)
			return yfail(L, loads_at, "load %d runs none of the workload's shapes "
				     "(every `when` is false there)", w->loads[l]);
	}
	w->source = "the space's workload: section";
	return 0;
}

/* Without a workload: section, a space's loads are its tuned Ms and each
 * family runs once in every load. */
static void derive_workload(struct space *sp)
{
	struct workload *w = &sp->workload;
	char why[160];
	int offset, cut = 0;
	for (int s = 0; s < sp->nshapes; s++) {
		const struct shape *sh = &sp->shapes[s];
		for (int i = 0; i < sh->n_ms; i++) {
			int seen = 0;
			for (int l = 0; l < w->nloads; l++)
				seen |= w->loads[l] == sh->ms[i];
			if (!seen && w->nloads == WORKLOAD_MAX_LOADS)
				cut = 1;
			else if (!seen)
				w->loads[w->nloads++] = sh->ms[i];
		}
		int listed = 0;
		for (int j = 0; j < w->nparts; j++)
			listed |= !strcmp(w->parts[j].family, sh->family);
		if (!listed && workload_add(w, sh->family, 1, NULL, why, sizeof(why), &offset))
			cut = 1;
	}
	qsort(w->loads, (size_t)w->nloads, sizeof(w->loads[0]), int_cmp);
	/* a report says so: past 32 Ms or families, name them in a workload: */
	w->source = cut ? "the space's shapes (it has no workload: section): each of its first "
			  "32 families once, at its first 32 tuned Ms; a workload: section names "
			  "more"
			: "the space's shapes (it has no workload: section): each family once, "
			  "at each tuned M";
}

/* The slots of a grid point: its parameters, then the builtins of (s, m). */
static void fill_slots(long *slots, const struct space *sp, const struct shape *s, int m)
{
	slots[SLOT_SM_COUNT] = sp->dev.sm_count;
	slots[SLOT_SMEM_OPTIN] = sp->dev.smem_optin;
	slots[SLOT_SMEM_SM] = sp->dev.smem_sm;
	slots[SLOT_SMEM_RESERVED] = sp->dev.smem_reserved;
	slots[SLOT_L2_BYTES] = sp->dev.l2_bytes;
	slots[SLOT_MAX_CLUSTER] = sp->dev.max_cluster;
	slots[SLOT_N] = s->n;
	slots[SLOT_K] = s->k;
	slots[SLOT_M] = m;
	slots[SLOT_W_BYTES] = (long)dtype_size(s->w);
	slots[SLOT_X_BYTES] = (long)dtype_size(s->x);
	slots[SLOT_Y_BYTES] = (long)dtype_size(s->y);
}

/* Call fn(ctx, slots) at every point of g's grid for (s, m), the point's
 * parameters in slots[0..nparams) and the builtins after them (an
 * odometer: the last parameter turns fastest). Stops at the first point
 * where fn returns nonzero and returns that, else 0. */
static int walk_grid(const struct space *sp, const struct grid *g, const struct shape *s, int m,
		     int (*fn)(void *ctx, const long *slots), void *ctx)
{
	int idx[MAX_PARAMS] = { 0 };
	long slots[NSLOTS] = { 0 };
	fill_slots(slots, sp, s, m);
	for (;;) {
		for (int i = 0; i < g->tmpl->nparams; i++)
			slots[i] = g->values[i][idx[i]];
		int r = fn(ctx, slots);
		if (r)
			return r;
		int i = g->tmpl->nparams - 1;
		while (i >= 0 && ++idx[i] == g->nvalues[i])
			idx[i--] = 0;
		if (i < 0)
			return 0;
	}
}

/* Is constraint c of g defined at some point of the grid, for some shape
 * and tuned M? (An undefined value counts as false: a constraint that is
 * never defined prunes every candidate without saying so.) */
static int is_defined(void *ctx, const long *slots)
{
	long v;
	return !expr_eval(ctx, slots, &v);
}

static int constraint_ever_defined(const struct space *sp, const struct grid *g, int c)
{
	for (int si = 0; si < sp->nshapes; si++)
		for (int mi = 0; mi < sp->shapes[si].n_ms; mi++)
			if (walk_grid(sp, g, &sp->shapes[si], sp->shapes[si].ms[mi], is_defined,
				      g->constraints[c]))
				return 1;
	return 0;
}

static int check_constraints(const struct loader *L, const struct space *sp)
{
	for (int gi = 0; gi < sp->ngrids; gi++) {
		const struct grid *g = &sp->grids[gi];
		for (int c = 0; c < g->nconstraints; c++)
			if (!constraint_ever_defined(sp, g, c))
				return yreport(L, (size_t)g->constraint_line[c], (size_t)g->constraint_col[c],
					       "constraint '%s' of %s is undefined (a division or "
					       "modulo by zero, or an overflow) for every candidate "
					       "at every shape and M: it would prune them all",
					       g->constraint_text[c], g->tmpl->stem);
	}
	return 0;
}

int space_set_device(struct space *sp, const struct device_profile *d)
{
	struct loader L = { sp->path, NULL, 0 };
	sp->dev = *d;
	return check_constraints(&L, sp);
}

static int loading_fragment;   /* space_load_fragment: an empty shapes list is no error */

static int load_root(const struct loader *L, const struct ynode *root, struct space *sp)
{
	static const char *const keys[] = { "sweep", "shapes", "workload", "cublaslt", "templates",
					    NULL };
	const struct ynode *v;
	if (expect(L, root, K_MAP, "the top level") ||
	    check_keys(L, root, keys, "the top level"))
		return -1;
	if ((v = lookup(root, "sweep")) && load_sweep(L, v, &sp->sweep))
		return -1;
	if (!(v = require(L, root, "shapes", "the top level")))
		return -1;
	/* a fragment may hold no shape (gt_untuned_write when all was tuned) */
	if (!(loading_fragment && v->kind == K_LIST && !v->nkids) && load_shapes(L, v, sp))
		return -1;
	if ((v = lookup(root, "workload"))) {
		if (load_workload(L, v, sp))
			return -1;
	} else {
		derive_workload(sp);
	}
	/* the all-M figure runs to the end of the workload's ranges */
	for (int i = 0; i < sp->nshapes; i++)
		for (int j = 0; j < sp->workload.nparts; j++)
			if (!strcmp(sp->workload.parts[j].family, sp->shapes[i].family) &&
			    sp->shapes[i].m_hi > sp->workload.all_m_max)
				sp->workload.all_m_max = sp->shapes[i].m_hi;
	if ((v = lookup(root, "cublaslt")) && load_cublaslt(L, v, &sp->lt))
		return -1;
	/* optional: a space of shapes alone serves bench and probe */
	if ((v = lookup(root, "templates")) && (load_templates(L, v, sp) || check_constraints(L, sp)))
		return -1;
	sp->top_line = root->line + 1;
	sp->top_col = root->col + 1;
	return 0;
}

int space_load(const char *path, struct space *out)
{
	struct loader L = { path, NULL, 0 };
	struct ynode *root = NULL;
	int r = -1;
	char *buf;

	memset(out, 0, sizeof(*out));
	out->sweep = (struct sweep_settings){ 10, 100, 3, 20.0, 3, 100 };
	device_profile_h200(&out->dev);
	if (!(buf = yread_file(&L, &L.len)))
		return -1;
	L.buf = buf;
	if (!(root = ybuild_tree(&L)) || load_root(&L, root, out))
		goto cleanup;
	out->path = xstrdup(path);
	r = 0;
cleanup:
	if (r)
		space_free(out);
	ynode_free(root);
	free(buf);
	return r;
}

/* Whether m is one of the Ms shape s times (a list's Ms, or its range). */
static int shape_has_m(const struct shape *s, int m)
{
	if (shape_is_range(s))
		return m >= s->m_lo && m <= s->m_hi;
	for (int i = 0; i < s->n_ms; i++)
		if (s->ms[i] == m)
			return 1;
	return 0;
}

int space_load_fragment(const char *path, struct space *out)
{
	loading_fragment = 1;
	int r = space_load(path, out);
	loading_fragment = 0;
	return r;
}

int space_add_shapes(struct space *sp, const struct space *frag)
{
	for (int i = 0; i < frag->nshapes; i++) {
		const struct shape *f = &frag->shapes[i];
		struct shape *b = NULL;
		for (int j = 0; j < sp->nshapes && !b; j++) {
			struct shape *c = &sp->shapes[j];
			if (c->n == f->n && c->k == f->k && c->w == f->w && c->x == f->x && c->y == f->y)
				b = c;
			else if (!strcmp(c->family, f->family)) {
				fprintf(stderr, "%s: shape %s (%d x %d): the base space %s has a family "
					"%s of another shape; rename one\n", frag->path, f->family, f->n,
					f->k, sp->path, c->family);
				return -1;
			}
		}
		if (!b) {
			sp->shapes = xrealloc(sp->shapes, (size_t)(sp->nshapes + 1) * sizeof(*sp->shapes));
			sp->shapes[sp->nshapes++] = *f;
			fprintf(stderr, "sweep: %s: shape %s (%d x %d) added\n", frag->path, f->family,
				f->n, f->k);
			continue;
		}
		if (b->tol != f->tol) {
			fprintf(stderr, "%s: shape %s (%d x %d): the base space's %s has the bound %g, "
				"the fragment %g\n", frag->path, f->family, f->n, f->k, b->family, b->tol,
				f->tol);
			return -1;
		}
		int lo = shape_is_range(f) ? f->m_lo : f->ms[0], hi = lo, covered = 1;
		if (shape_is_range(f)) {
			hi = f->m_hi;
			covered = shape_has_m(b, f->m_lo) && shape_has_m(b, f->m_hi) &&
				  (shape_is_range(b) || f->m_lo == f->m_hi);
		} else {
			for (int k = 0; k < f->n_ms; k++) {
				covered &= shape_has_m(b, f->ms[k]);
				lo = f->ms[k] < lo ? f->ms[k] : lo;
				hi = f->ms[k] > hi ? f->ms[k] : hi;
			}
		}
		if (covered) {
			fprintf(stderr, "sweep: %s: shape %s (%d x %d): every M is already the base "
				"space's %s\n", frag->path, f->family, f->n, f->k, b->family);
		} else if (shape_is_range(b)) {
			b->m_lo = lo < b->m_lo ? lo : b->m_lo;
			b->m_hi = hi > b->m_hi ? hi : b->m_hi;
			fprintf(stderr, "sweep: %s: shape %s (%d x %d): the base space's %s now "
				"ranges over %d..%d\n", frag->path, f->family, f->n, f->k, b->family,
				b->m_lo, b->m_hi);
		} else if (!shape_is_range(f)) {
			for (int k = 0; k < f->n_ms; k++) {
				if (shape_has_m(b, f->ms[k]))
					continue;
				if (b->n_ms == MAX_MS) {
					fprintf(stderr, "%s: shape %s (%d x %d): the base space's %s would "
						"have more than %d Ms; make it a range (m: LO..HI)\n",
						frag->path, f->family, f->n, f->k, b->family, MAX_MS);
					return -1;
				}
				int at = b->n_ms++;
				while (at > 0 && b->ms[at - 1] > f->ms[k]) {
					b->ms[at] = b->ms[at - 1];
					at--;
				}
				b->ms[at] = f->ms[k];
			}
			fprintf(stderr, "sweep: %s: shape %s (%d x %d): Ms added to the base space's "
				"%s\n", frag->path, f->family, f->n, f->k, b->family);
		} else {
			fprintf(stderr, "%s: shape %s (%d x %d) asks for the range %d..%d; the base "
				"space's %s is a list of Ms: make it a range there\n", frag->path,
				f->family, f->n, f->k, f->m_lo, f->m_hi, b->family);
			return -1;
		}
	}
	return 0;
}

void space_free(struct space *s)
{
	for (int i = 0; i < s->ngrids; i++) {
		struct grid *g = &s->grids[i];
		for (int p = 0; p < MAX_PARAMS; p++)
			free(g->values[p]);
		for (int c = 0; c < g->nconstraints; c++) {
			expr_free(g->constraints[c]);
			free(g->constraint_text[c]);
		}
		free(g->constraints);
		free(g->constraint_text);
		free(g->constraint_line);
		free(g->constraint_col);
	}
	free(s->grids);
	free(s->shapes);
	free(s->path);
	workload_free(&s->workload);
	memset(s, 0, sizeof(*s));
}

/* True when every constraint of g holds; an undefined value (division by
 * zero, overflow) makes a constraint false. */
static int constraints_hold(const struct grid *g, const long *slots)
{
	for (int i = 0; i < g->nconstraints; i++) {
		long v;
		if (expr_eval(g->constraints[i], slots, &v) || !v)
			return 0;
	}
	return 1;
}

struct enumerate_ctx {
	const struct grid *g;
	const struct shape *s;
	int m;
	space_visit_fn fn;
	void *ctx;
	long visited;
};

static int enumerate_point(void *ctx, const long *slots)
{
	struct enumerate_ctx *e = ctx;
	const struct tmpl *t = e->g->tmpl;
	if (!constraints_hold(e->g, slots))
		return 0;
	struct candidate c;
	memset(&c, 0, sizeof(c));
	c.tmpl = t;
	memcpy(c.params, slots, (size_t)t->nparams * sizeof(c.params[0]));
	const char *reason = t->check ? t->check(e->s, c.params) : NULL;
	if (e->fn)
		e->fn(e->ctx, e->s, e->m, &c, reason);
	e->visited++;
	return 0;
}

long space_enumerate(const struct space *sp, const struct shape *s, int m,
		     space_visit_fn fn, void *ctx)
{
	struct enumerate_ctx e = { NULL, s, m, fn, ctx, 0 };
	for (int gi = 0; gi < sp->ngrids; gi++) {
		e.g = &sp->grids[gi];
		walk_grid(sp, e.g, s, m, enumerate_point, &e);
	}
	return e.visited;
}

/* What rejects each point: the first constraint that fails, else the
 * template's check. */
struct why_ctx {
	const struct grid *g;
	const struct shape *s;
	long points, checked;
	long *first;            /* per constraint: the points it rejects first */
	const char *reason;     /* the check's last reason */
};

static int why_point(void *ctx, const long *slots)
{
	struct why_ctx *w = ctx;
	const struct grid *g = w->g;
	long v;
	int k = 0;
	w->points++;
	while (k < g->nconstraints && !expr_eval(g->constraints[k], slots, &v) && v)
		k++;
	if (k < g->nconstraints) {
		w->first[k]++;
		return 0;
	}
	long params[MAX_PARAMS] = { 0 };
	memcpy(params, slots, (size_t)g->tmpl->nparams * sizeof(params[0]));
	const char *why = g->tmpl->check ? g->tmpl->check(w->s, params) : NULL;
	if (why) {
		w->checked++;
		w->reason = why;
	}
	return 0;
}

void space_why_none(const struct space *sp, const struct shape *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int gi = 0; gi < sp->ngrids && used < len; gi++) {
		const struct grid *g = &sp->grids[gi];
		const struct tmpl *t = g->tmpl;
		struct why_ctx w = { g, s, 0, 0, xcalloc((size_t)g->nconstraints + 1, sizeof(long)),
				     NULL };
		for (int mi = 0; mi < s->n_ms; mi++)
			walk_grid(sp, g, s, s->ms[mi], why_point, &w);
		long *first = w.first;
		used += (size_t)snprintf(buf + used, len - used, "%s%s (%ld points):", gi ? "; " : "",
					 t->stem, w.points);
		/* the two constraints that reject the most, then the adapter */
		for (int shown = 0; shown < 2 && used < len; shown++) {
			int best = -1;
			for (int k = 0; k < g->nconstraints; k++)
				if (first[k] && (best < 0 || first[k] > first[best]))
					best = k;
			if (best < 0)
				break;
			used += (size_t)snprintf(buf + used, len - used, "%s '%s' rejects %ld",
						 shown ? "," : "", g->constraint_text[best], first[best]);
			first[best] = 0;
		}
		if (w.checked && used < len)
			used += (size_t)snprintf(buf + used, len - used, " the adapter prunes %ld (%s)",
						 w.checked, w.reason);
		free(first);
	}
	if (!sp->ngrids)
		snprintf(buf, len, "no template grid");
}

void device_profile_h200(struct device_profile *d)
{
	*d = (struct device_profile){ "NVIDIA H200", 132, 227 * 1024, 228 * 1024, 1024, 60L << 20, 8 };
}

static int device_profile_builtin(const char *name, struct device_profile *d)
{
	if (!strcmp(name, "h200")) {
		device_profile_h200(d);
		return 0;
	}
	/* the H100 SXM: the H200's SMs and shared memory, a 50 MiB L2
	 * (`SELECT sm_count, l2_bytes FROM env` in examples/llama-3-8b/h100.db:
	 * 132, 52428800) */
	if (!strcmp(name, "h100")) {
		*d = (struct device_profile){ "NVIDIA H100 80GB HBM3", 132, 227 * 1024, 228 * 1024,
					      1024, 50L << 20, 8 };
		return 0;
	}
	return -1;
}

int device_profile_load(const char *path, struct device_profile *d)
{
	static const char *const keys[] = { "name", "sm_count", "smem_optin", "smem_sm",
					    "smem_reserved", "l2_bytes", "max_cluster", NULL };
	if (!device_profile_builtin(path, d))
		return 0;
	if (access(path, F_OK)) {
		fprintf(stderr, "%s: neither a device profile file nor a built-in name (h200, h100)\n",
			path);
		return -1;
	}
	struct loader L = { path, NULL, 0 };
	struct ynode *root = NULL;
	char *buf = yread_file(&L, &L.len);
	int r = -1;
	long *fields[] = { &d->sm_count, &d->smem_optin, &d->smem_sm, &d->smem_reserved,
			   &d->l2_bytes, &d->max_cluster };
	if (!buf)
		return -1;
	L.buf = buf;
	const struct ynode *v;
	if (!(root = ybuild_tree(&L)) || expect(&L, root, K_MAP, "a device profile") ||
	    check_keys(&L, root, keys, "a device profile") ||
	    !(v = require(&L, root, "name", "a device profile")) ||
	    expect(&L, v, K_SCALAR, "name"))
		goto out;
	snprintf(d->name, sizeof(d->name), "%s", v->text);
	for (int i = 0; i < (int)ARRAY_SIZE(fields); i++)
		if (!(v = require(&L, root, keys[i + 1], "a device profile")) ||
		    get_long(&L, v, 1, 1L << 40, keys[i + 1], fields[i]))
			goto out;
	r = 0;
out:
	ynode_free(root);
	free(buf);
	return r;
}
