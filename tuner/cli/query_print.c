/*
 * query_print.c: `gemmtab query`'s output (query_print.h), a db_query sink
 * over texttable and json.
 */
#include "query_print.h"
#include "json.h"
#include "texttable.h"
#include "util.h"

#include <stdlib.h>

struct printer {
	enum table_format f;
	FILE *out;
	int printed;            /* statements printed so far (text, csv, md) */
	struct table t;
	struct json j;          /* json: the document */
};

static int begin_table(void *ctx, const char *sql, int ncols, const char *const *names)
{
	struct printer *p = ctx;
	(void)sql;
	table_init(&p->t, ncols);
	for (int c = 0; c < ncols; c++)
		table_add(&p->t, names[c]);
	return 0;
}

static int row_table(void *ctx, int ncols, const struct db_cell *cells)
{
	struct printer *p = ctx;
	for (int c = 0; c < ncols; c++)
		table_add(&p->t, cells[c].text);
	return 0;
}

static int end_table(void *ctx)
{
	struct printer *p = ctx;
	if (p->printed++)
		fputc('\n', p->out);
	table_print(&p->t, p->f, "NULL", p->out);
	table_free(&p->t);
	return 0;
}

/* json: one object per statement, {"sql", "rows": [{column: value}]},
 * each value typed as SQLite stores it */
struct json_ctx {
	struct json *j;
	int ncols;
	const char **names;
};

static int begin_json(void *ctx, const char *sql, int ncols, const char *const *names)
{
	struct json_ctx *c = ctx;
	c->ncols = ncols;
	free(c->names);
	c->names = xcalloc((size_t)ncols + 1, sizeof(*c->names));
	for (int i = 0; i < ncols; i++)
		c->names[i] = xstrdup(names[i]);
	json_begin_object(c->j);
	json_key(c->j, "sql");
	json_string(c->j, sql);
	json_key(c->j, "rows");
	json_begin_array(c->j);
	return 0;
}

static int row_json(void *ctx, int ncols, const struct db_cell *cells)
{
	struct json_ctx *c = ctx;
	json_begin_object(c->j);
	for (int i = 0; i < ncols; i++) {
		json_key(c->j, c->names[i]);
		switch (cells[i].type) {
		case DB_INTEGER:
			json_int(c->j, cells[i].i);
			break;
		case DB_REAL:
			json_number(c->j, cells[i].r);
			break;
		case DB_NULL:
			json_null(c->j);
			break;
		default:
			json_string(c->j, cells[i].text);
		}
	}
	json_end_object(c->j);
	return 0;
}

static int end_json(void *ctx)
{
	struct json_ctx *c = ctx;
	for (int i = 0; i < c->ncols; i++)
		free((char *)c->names[i]);
	free(c->names);
	c->names = NULL;
	c->ncols = 0;
	json_end_array(c->j);
	json_end_object(c->j);
	return 0;
}

/* The json document: written to out only when every statement ran. */
static int print_json(struct db *db, const char *sql, FILE *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *doc = open_memstream(&buf, &len);
	if (!doc)
		die("out of memory");
	struct json j;
	json_init(&j, doc);
	json_begin_object(&j);
	json_key(&j, "gemmtab");
	json_string(&j, "query");
	json_key(&j, "version");
	json_string(&j, GT_VERSION);
	json_command(&j);
	json_key(&j, "database");
	json_string(&j, db_path(db));
	json_key(&j, "results");
	json_begin_array(&j);
	struct json_ctx c = { &j, 0, NULL };
	const struct db_query_sink sink = { &c, begin_json, row_json, end_json };
	int ret = db_query(db, sql, &sink);
	for (int i = 0; i < c.ncols; i++)
		free((char *)c.names[i]);
	free(c.names);
	json_end_array(&j);
	json_end_object(&j);
	fclose(doc);
	if (!ret)
		fwrite(buf, 1, len, out);
	free(buf);
	return ret ? -1 : 0;
}

int query_fprint(struct db *db, const char *sql, const char *format, FILE *out)
{
	enum table_format f;
	if (table_format_parse(format, &f))
		return error("unknown format '%s' (text, csv, md or json)", format);
	if (f == TABLE_JSON)
		return print_json(db, sql, out);
	struct printer p = { .f = f, .out = out };
	const struct db_query_sink sink = { &p, begin_table, row_table, end_table };
	int ret = db_query(db, sql, &sink);
	/* a statement stopped midway still holds its table */
	if (ret && p.t.cells)
		table_free(&p.t);
	return ret ? -1 : 0;
}
