/*
 * current.c: this build's code key of stored candidates (current.h).
 */
#include "current.h"
#include "codekey.h"
#include "emit.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int current_codes(struct db *db, const struct jit_options *jit, struct code_query *q, int n)
{
	struct jit_item *items = NULL;
	int nitems = 0, cap = 0, ncompile = 0;
	int *first = xcalloc((size_t)(n ? n : 1), sizeof(int));
	char (*names)[TMPL_NAME_MAX] = xmalloc(TMPL_MAX_KERNELS * sizeof(*names));
	long (*params)[MAX_PARAMS] = xcalloc((size_t)(n ? n : 1), sizeof(*params));
	int *nk = xcalloc((size_t)(n ? n : 1), sizeof(int));
	int ret = -1;

	for (int i = 0; i < n; i++) {
		struct code_query *c = &q[i];
		long long id;
		c->code[0] = '\0';
		c->compiled = 0;
		nk[i] = -1;
		if (!(c->t = tmpl_find(c->tmpl)))
			continue;
		int known = db_variant(db, c->tmpl, c->params, c->shape_id,
				       tmpl_source_hash(c->t), &id, c->code);
		if (known < 0)
			goto out;
		if (known || emit_params_parse_quiet(c->t, c->params, params[i]))
			continue;
		/* as the sweep keys them: what never reaches the GPU by its text */
		if (c->t->check(&c->s, params[i])) {
			memcpy(c->code, tmpl_source_hash(c->t), 17);
			continue;
		}
		nk[i] = c->t->kernels(&c->s, params[i], names, TMPL_MAX_KERNELS);
		if (nk[i] < 0 || nk[i] > TMPL_MAX_KERNELS) {
			nk[i] = -1;
			continue;
		}
		if (nk[i] == 0) {
			code_key(c->t, params[i], &c->s, NULL, 0, c->code);
			continue;
		}
		if (!jit) {
			nk[i] = -1;
			continue;
		}
		first[i] = nitems;
		for (int j = 0; j < nk[i]; j++) {
			if (nitems == cap)
				items = xrealloc(items, (size_t)(cap = cap ? 2 * cap : 64) *
						 sizeof(*items));
			memset(&items[nitems], 0, sizeof(items[nitems]));
			items[nitems].source_name = c->t->source;
			snprintf(items[nitems].name, sizeof(items[nitems].name), "%s", names[j]);
			nitems++;
		}
		c->compiled = 1;
		ncompile++;
	}
	if (ncompile >= 100)
		fprintf(stderr, "gemmtab: compiling %d candidates (%d kernel instantiations) to learn "
			"what this build's template text runs; the database has no variant row "
			"for that text (`gemmtab prune --db` records them)\n", ncompile, nitems);
	if (nitems && jit_compile_all(jit, items, nitems, NULL, NULL))
		goto out;
	for (int i = 0; i < n; i++) {
		struct code_query *c = &q[i];
		char codes[TMPL_MAX_KERNELS][17], why[512];
		if (!c->compiled)
			continue;
		int ok = 1, built = 1;
		for (int j = 0; j < nk[i] && ok; j++) {
			struct jit_item *it = &items[first[i] + j];
			const char *h = it->ok ? jit_item_code(it, why, sizeof(why)) : NULL;
			if (h)
				memcpy(codes[j], h, 17);
			built &= it->ok;
			ok = h != NULL;
		}
		if (ok)
			code_key(c->t, params[i], &c->s, (const char (*)[17])codes, nk[i], c->code);
		else if (!built)        /* a compile error, keyed by its text */
			memcpy(c->code, tmpl_source_hash(c->t), 17);
	}
	ret = ncompile;
out:
	free(items);
	free(first);
	free(names);
	free(params);
	free(nk);
	return ret;
}

int current_pairs(struct db *db, const struct jit_options *jit, const char *cmd,
		  const struct db_pair *pairs, long n, enum pair_state *state)
{
	struct code_query *q = xcalloc((size_t)(n ? n : 1), sizeof(*q));
	for (long i = 0; i < n; i++) {
		q[i].tmpl = pairs[i].tmpl;
		q[i].params = pairs[i].params;
		q[i].s = pairs[i].s;
		q[i].shape_id = pairs[i].shape_id;
	}
	int compiled = current_codes(db, jit, q, (int)n);
	if (compiled > 0)
		fprintf(stderr, "gemmtab %s: compiled %d candidates to learn what this build's "
			"templates run (the database had not seen their text)\n", cmd, compiled);
	for (long i = 0; i < n && compiled >= 0; i++)
		state[i] = !q[i].t ? PAIR_ABSENT : strcmp(q[i].code, pairs[i].code) ?
			PAIR_SUPERSEDED : PAIR_CURRENT;
	free(q);
	return compiled < 0 ? -1 : 0;
}

/* Keep only the retest rows that measured the code this build runs
 * (current.h): the library is built from this build's templates. Rows of
 * templates this build lacks are passed by and counted in *absent; the
 * return is how many rows of this build's templates measured other code
 * (superseded, or an edit changed the code since), or -1. */
int current_retests(struct db *db, const struct jit_options *jit, const char *cmd,
		    struct retest_row *rows, int *n, int *absent)
{
	struct code_query *q = xcalloc((size_t)(*n ? *n : 1), sizeof(*q));
	int nq = *n, kept = 0, stale = 0;
	*absent = 0;
	/* one query per row: the variant map answers repeats at once, and the
	 * compile service compiles a repeated kernel once */
	for (int i = 0; i < *n; i++) {
		struct code_query *c = &q[i];
		c->tmpl = rows[i].tmpl;
		c->params = rows[i].params;
		c->shape_id = rows[i].shape_id;
		c->s.n = rows[i].n;
		c->s.k = rows[i].k;
		c->s.w = rows[i].w;
		c->s.x = rows[i].x;
		c->s.y = rows[i].y;
	}
	int compiled = current_codes(db, jit, q, nq);
	if (compiled < 0) {
		free(q);
		return -1;
	}
	if (compiled)
		fprintf(stderr, "gemmtab %s: compiled %d candidates to learn what this build's "
			"templates run (the database had not seen their text)\n", cmd, compiled);
	for (int i = 0; i < *n; i++) {
		const struct code_query *c = &q[i];
		if (!c->t)
			(*absent)++;
		else if (strcmp(c->code, rows[i].code))
			stale++;
		else
			rows[kept++] = rows[i];
	}
	*n = kept;
	free(q);
	return stale;
}
