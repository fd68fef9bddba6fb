/*
 * db_query.c: running the SQL of `gemmtab query`: statement by statement,
 * only those that do not write, each row handed as typed cells to the
 * caller's sink (which formats them: tuner/cli/query_print.c).
 */
#include "db_internal.h"
#include "util.h"

#include <stdlib.h>

/* One statement's rows into sink. Returns 0, or the sink's nonzero
 * return, or -1 on an error (message printed). */
static int query_statement(struct db *db, sqlite3_stmt *st, const struct db_query_sink *sink)
{
	int ncols = sqlite3_column_count(st), rc, ret;
	const char **names = xcalloc((size_t)ncols + 1, sizeof(*names));
	struct db_cell *cells = xcalloc((size_t)ncols + 1, sizeof(*cells));
	for (int c = 0; c < ncols; c++)
		names[c] = sqlite3_column_name(st, c);
	ret = sink->begin(sink->ctx, sqlite3_sql(st), ncols, names);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < ncols; c++) {
			struct db_cell *v = &cells[c];
			int type = sqlite3_column_type(st, c);
			v->type = type == SQLITE_INTEGER ? DB_INTEGER : type == SQLITE_FLOAT ? DB_REAL
				: type == SQLITE_NULL ? DB_NULL : DB_TEXT;
			v->i = sqlite3_column_int64(st, c);
			v->r = sqlite3_column_double(st, c);
			v->text = (const char *)sqlite3_column_text(st, c);
		}
		ret = sink->row(sink->ctx, ncols, cells);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(db, "query");
	if (!ret)
		ret = sink->end(sink->ctx);
	free(names);
	free(cells);
	return ret;
}

int db_query(struct db *db, const char *sql, const struct db_query_sink *sink)
{
	const char *tail = sql;
	int ret = 0;
	while (!ret && *tail) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db->h, tail, -1, &st, &tail) != SQLITE_OK)
			return db_error(db, "query");
		if (!st)        /* only blanks or a comment were left */
			break;
		if (!sqlite3_stmt_readonly(st))
			ret = error("DB: query: \"%s\" would write to the database; "
				    "use sqlite3 for that", sqlite3_sql(st));
		else if (sqlite3_column_count(st))
			ret = query_statement(db, st, sink);
		else
			ret = sqlite3_step(st) == SQLITE_DONE ? 0 : db_error(db, "query");
		sqlite3_finalize(st);
	}
	return ret;
}

const char *db_path(const struct db *db)
{
	return db->path;
}
