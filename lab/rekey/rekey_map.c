/*
 * rekey_map.c: writes db/rekey-4.map, the (template text, candidate,
 * shape) -> code key pairs schema 4's migration re-keys schema-3 rows by.
 * It must run with the template files as they were when the rows were
 * measured (before any of them moves or changes), which is why its output
 * is committed and embedded rather than computed by the migration.
 *
 * usage: rekey_map CACHE_DIR DB... > db/rekey-4.map
 * Every (candidate, shape) with results whose candidate carries this
 * build's hash of its template's text gets a line; its kernels are
 * compiled through the cubin cache.
 */
#include "codekey.h"
#include "db.h"
#include "emit.h"
#include "jit.h"
#include "tmpl.h"
#include "util.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct row {
	const struct tmpl *t;
	char params[512], w[8], x[8], y[8];
	int n, k, nk, first;
	long p[MAX_PARAMS];
	unsigned long long key;
	char code[17];
};

static int cmp_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

int main(int argc, char **argv)
{
	struct jit_options jit;
	struct row *rows = NULL;
	struct jit_item *items = NULL;
	long n = 0, cap = 0, ni = 0, icap = 0;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	if (argc < 3) {
		fprintf(stderr, "usage: rekey_map CACHE_DIR DB...\n");
		return 2;
	}
	jit_options_default(&jit);
	jit.cache_dir = argv[1];
	for (int a = 2; a < argc; a++) {
		sqlite3 *h;
		sqlite3_stmt *st;
		if (sqlite3_open_v2(argv[a], &h, SQLITE_OPEN_READONLY, NULL) ||
		    sqlite3_prepare_v2(h, "SELECT DISTINCT c.template, c.source_hash, c.params, "
				       "s.n, s.k, s.w, s.x, s.y FROM result r JOIN candidate c ON "
				       "c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id WHERE r.status "
				       "NOT IN ('pruned', 'compile_error')", -1,
				       &st, NULL))
			die("%s: %s", argv[a], sqlite3_errmsg(h));
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *stem = (const char *)sqlite3_column_text(st, 0);
			const char *old = (const char *)sqlite3_column_text(st, 1);
			const struct tmpl *t = tmpl_find(stem);
			if (!t || strcmp(old, tmpl_source_hash(t)))
				continue;
			if (n == cap)
				rows = xrealloc(rows, (size_t)(cap = cap ? 2 * cap : 4096) * sizeof(*rows));
			struct row *r = &rows[n];
			memset(r, 0, sizeof(*r));
			r->t = t;
			snprintf(r->params, sizeof(r->params), "%s", sqlite3_column_text(st, 2));
			r->n = sqlite3_column_int(st, 3);
			r->k = sqlite3_column_int(st, 4);
			snprintf(r->w, sizeof(r->w), "%s", sqlite3_column_text(st, 5));
			snprintf(r->x, sizeof(r->x), "%s", sqlite3_column_text(st, 6));
			snprintf(r->y, sizeof(r->y), "%s", sqlite3_column_text(st, 7));
			if (emit_params_parse(t, r->params, r->p))
				die("%s: %s %s", argv[a], stem, r->params);
			struct shape s = { .n = r->n, .k = r->k };
			if (dtype_parse(r->w, &s.w) || dtype_parse(r->x, &s.x) || dtype_parse(r->y, &s.y))
				die("%s: bad dtypes", argv[a]);
			r->key = db_rekey4_key(stem, old, r->n, r->k, r->w, r->x, r->y, r->params);
			r->nk = t->kernels(&s, r->p, names, TMPL_MAX_KERNELS);
			r->first = (int)ni;
			for (int j = 0; j < r->nk; j++) {
				if (ni == icap)
					items = xrealloc(items, (size_t)(icap = icap ? 2 * icap : 4096) *
							 sizeof(*items));
				memset(&items[ni], 0, sizeof(items[ni]));
				items[ni].source_name = t->source;
				snprintf(items[ni].name, sizeof(items[ni].name), "%s", names[j]);
				ni++;
			}
			n++;
		}
		sqlite3_finalize(st);
		sqlite3_close(h);
	}
	fprintf(stderr, "rekey_map: %ld (candidate, shape) pairs, %ld kernels\n", n, ni);
	if (ni && jit_compile_all(&jit, items, (int)ni, NULL, NULL))
		die("compile failed");
	for (long i = 0; i < n; i++) {
		struct row *r = &rows[i];
		char codes[TMPL_MAX_KERNELS][17], why[512];
		struct shape s = { .n = r->n, .k = r->k };
		dtype_parse(r->w, &s.w);
		dtype_parse(r->x, &s.x);
		dtype_parse(r->y, &s.y);
		for (int j = 0; j < r->nk; j++) {
			const char *c = jit_item_code(&items[r->first + j], why, sizeof(why));
			if (!c)
				die("%s %s: %s", r->t->stem, r->params, why);
			memcpy(codes[j], c, 17);
		}
		code_key(r->t, r->p, &s, (const char (*)[17])codes, r->nk, r->code);
	}
	qsort(rows, (size_t)n, sizeof(*rows), cmp_key);
	printf("# db/rekey-4.map: schema 4's re-keying of schema-3 rows (tuner/db.c "
	       "rekey_step),\n# written by lab/rekey/rekey_map: db_rekey4_key of (template, "
	       "source hash, shape,\n# params) and the code key (tuner/codekey.h) of what it "
	       "ran. %ld pairs.\n", n);
	for (long i = 0; i < n; i++)
		if (!i || rows[i].key != rows[i - 1].key)
			printf("%016llx %s\n", rows[i].key, rows[i].code);
	free(rows);
	free(items);
	return 0;
}
