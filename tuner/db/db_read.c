/*
 * db_read.c: the reads of report, emit and bench (best rows, retests,
 * floors, environments, (candidate, shape) pairs) and of the sweep's
 * ranking. A row is trusted only after the checks of what gemmtab writes:
 * an M of 1..65536, figures finite and above 0, known dtypes, N and K
 * above 0; a row that fails is refused with its name, and nothing is
 * read.
 */
#include "db_internal.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int db_best(struct db *db, long long env, long long shape, int m, const char *phase, int skip,
	    long long *cand_ids, char (*runs)[DB_RUN_MAX], int max)
{
	sqlite3_stmt *st = db_stmt(db, ST_PHASE_BEST);
	int n = 0, rc = SQLITE_DONE;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	sqlite3_bind_int(st, 4, max);
	sqlite3_bind_int(st, 5, skip);
	bind_text(st, 6, phase);
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		cand_ids[n] = sqlite3_column_int64(st, 0);
		if (runs)
			col_text(st, 1, runs[n], DB_RUN_MAX);
		n++;
	}
	if (n < max && rc != SQLITE_DONE)
		n = db_error(db, "best of a phase");
	sqlite3_reset(st);
	return n;
}

int db_run_retests(struct db *db, long long env, long long shape, int m, const char *run)
{
	sqlite3_stmt *st = db_stmt(db, ST_RUN_COUNT);
	long long n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	bind_text(st, 4, run);
	return step_int64(db, st, "run retests", &n) < 0 ? -1 : (int)n;
}

int db_lt_seeds(struct db *db, long long env, long long shape, int m, const char *orient,
		char **params, int max)
{
	sqlite3_stmt *st = db_stmt(db, ST_LT_SEEDS);
	char like[32];  /* the params' first field */
	int n = 0, rc = SQLITE_DONE;
	if (!st)
		return -1;
	snprintf(like, sizeof(like), "orient=%s,", orient);
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	bind_text(st, 4, like);
	sqlite3_bind_int(st, 5, max);
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
		params[n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
	if (n < max && rc != SQLITE_DONE) {
		while (n > 0)
			free(params[--n]);
		n = db_error(db, "cuBLASLt seeds");
	}
	sqlite3_reset(st);
	return n;
}

int db_candidate_get(struct db *db, long long cand, char **tmpl, char **params)
{
	sqlite3_stmt *st = db_stmt(db, ST_CAND_GET);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, cand);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*tmpl = xstrdup((const char *)sqlite3_column_text(st, 0));
		*params = xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return error("DB: no candidate with id %lld", cand);
	return db_error(db, "candidate");
}

long long db_latest_env(struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, ST_ENV_LATEST);
	long long id;
	if (!st)
		return -1;
	return step_int64(db, st, "latest env", &id) == 1 ? id : -1;
}

int db_env_get(struct db *db, long long id, struct env_info *e)
{
	sqlite3_stmt *st = db_stmt(db, ST_ENV_GET);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		memset(e, 0, sizeof(*e));
		col_text(st, 0, e->gpu_name, sizeof(e->gpu_name));
		col_text(st, 1, e->gpu_uuid, sizeof(e->gpu_uuid));
		e->sm_count = sqlite3_column_int(st, 2);
		e->sm_clock_mhz = sqlite3_column_int(st, 3);
		e->mem_clock_mhz = sqlite3_column_int(st, 4);
		e->l2_bytes = sqlite3_column_int64(st, 5);
		col_text(st, 6, e->driver, sizeof(e->driver));
		col_text(st, 7, e->cuda, sizeof(e->cuda));
		col_text(st, 8, e->nvrtc, sizeof(e->nvrtc));
		col_text(st, 9, e->cublas, sizeof(e->cublas));
		col_text(st, 10, e->cublaslt, sizeof(e->cublaslt));
		col_text(st, 11, e->source_hash, sizeof(e->source_hash));
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return db_error(db, "env");
}

int db_env_pick(struct db *db, const char *cmd, int arg, long long *id,
		struct env_info *e)
{
	*id = arg > 0 ? arg : db_latest_env(db);
	int found = *id < 0 ? 1 : db_env_get(db, *id, e);
	if (found > 0 && arg > 0) {
		fprintf(stderr, "gemmtab %s: --env: %s has no environment %d\n", cmd,
			db->path, arg);
		return 2;
	}
	if (found > 0)
		error("%s holds no environment yet (run gemmtab sweep)", db->path);
	return found ? 1 : 0;
}

/* Columns 0-5 of a row joined with its shape: family, n, k and the three
 * dtype names. Returns 0 or -1 (an unknown dtype name). */
/* The checks of a row a reader is about to trust against what gemmtab
 * writes: an M of 1..65536 stored as an integer, and each figure a
 * finite number above 0 (or NULL). Returns 0, or -1 after naming the row
 * and the check. */
static int col_m_valid(sqlite3_stmt *st, int i, const char *family)
{
	long long m = sqlite3_column_int64(st, i);
	if (sqlite3_column_type(st, i) != SQLITE_INTEGER || m < 1 || m > 65536)
		return error("DB: a result of %s has M '%s', not 1..65536: not a row gemmtab "
			     "writes (the database is damaged); nothing trusted", family,
			     (const char *)sqlite3_column_text(st, i));
	return 0;
}

static int col_figures_valid(sqlite3_stmt *st, int first, int last, const char *family, int m)
{
	for (int i = first; i <= last; i++) {
		int type = sqlite3_column_type(st, i);
		double v = sqlite3_column_double(st, i);
		if (type == SQLITE_NULL)
			continue;
		if ((type != SQLITE_FLOAT && type != SQLITE_INTEGER) || !isfinite(v) || v <= 0)
			return error("DB: the result of %s at M %d has %s '%s', not a finite number "
				     "above 0: not a row gemmtab writes (the database is damaged); "
				     "nothing trusted", family, m, sqlite3_column_name(st, i),
				     (const char *)sqlite3_column_text(st, i));
	}
	return 0;
}

static int col_shape(sqlite3_stmt *st, char family[FAMILY_MAX], int *n, int *k,
		     enum dtype *w, enum dtype *x, enum dtype *y)
{
	char dt[3][8];
	col_text(st, 0, family, FAMILY_MAX);
	*n = sqlite3_column_int(st, 1);
	*k = sqlite3_column_int(st, 2);
	for (int i = 0; i < 3; i++)
		col_text(st, 3 + i, dt[i], sizeof(dt[i]));
	if (dtype_parse(dt[0], w) || dtype_parse(dt[1], x) || dtype_parse(dt[2], y))
		return error("DB: shape %s has an unknown dtype", family);
	if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || *n < 1 ||
	    sqlite3_column_type(st, 2) != SQLITE_INTEGER || *k < 1)
		return error("DB: shape %s has n '%s' and k '%s', not integers above 0: not a "
			     "shape gemmtab writes (the database is damaged); nothing trusted",
			     family, (const char *)sqlite3_column_text(st, 1),
			     (const char *)sqlite3_column_text(st, 2));
	return 0;
}

/* Every row statement id yields for env (bound to ?1), each read by read
 * into the next element (size bytes) of a growing heap array, returned
 * (NULL when there is no row; caller frees) with the count in *n. On an
 * error nothing is kept: NULL, *n = -1, message printed. */
/* Step st (bound) to its end, reading each row through read into a heap
 * array of size-byte rows; *n is the count, or -1 (NULL returned) on an
 * error (message printed) or a row read refused. Resets st. */
static void *step_rows(struct db *db, sqlite3_stmt *st, const char *what, size_t size,
		       int (*read)(sqlite3_stmt *st, void *row), int *n)
{
	char *rows = NULL;
	int count = 0, cap = 0, rc;
	*n = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap)
			rows = xrealloc(rows, (size_t)(cap = cap ? 2 * cap : 32) * size);
		if (read(st, rows + (size_t)count * size))
			break;          /* rc stays SQLITE_ROW: a failure */
		count++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_error(db, what);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(rows);
		return NULL;
	}
	*n = count;
	return rows;
}

/* The rows of cached statement id for env (its ?1). */
static void *env_rows(struct db *db, enum stmt_id id, long long env, const char *what,
		      size_t size, int (*read)(sqlite3_stmt *st, void *row), int *n)
{
	sqlite3_stmt *st = db_stmt(db, id);
	*n = -1;
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, env);
	return step_rows(db, st, what, size, read, n);
}

/* One row of ST_BEST_ROWS into *row (a struct best_row). Returns 0 or -1. */
static int read_best_row(sqlite3_stmt *st, void *row)
{
	struct best_row *b = row;
	memset(b, 0, sizeof(*b));
	if (col_shape(st, b->family, &b->n, &b->k, &b->w, &b->x, &b->y) ||
	    col_m_valid(st, 6, b->family) ||
	    col_figures_valid(st, 11, 15, b->family, sqlite3_column_int(st, 6)))
		return -1;
	b->m = sqlite3_column_int(st, 6);
	b->has_candidate = sqlite3_column_int(st, 7);
	col_text(st, 8, b->phase, sizeof(b->phase));
	b->retested = sqlite3_column_int(st, 9);
	b->pairs = col_count(st, 10);
	b->base_us = col_figure(st, 11);
	b->cand_us = col_figure(st, 12);
	b->ratio = col_figure(st, 13);
	b->ratio_lo = col_figure(st, 14);
	b->ratio_hi = col_figure(st, 15);
	col_text(st, 16, b->tmpl, sizeof(b->tmpl));
	col_text(st, 17, b->params, sizeof(b->params));
	b->waves = col_count(st, 18);
	return 0;
}

/* As ST_BEST_ROWS, over the results of the (candidate, shape)s in
 * temp.cur_pair only (db_best_rows_current fills it). */
static const char best_current_sql[] =
	"WITH cur AS MATERIALIZED (SELECT r.* FROM result r JOIN temp.cur_pair p "
	"ON p.c = r.candidate_id AND p.s = r.shape_id WHERE r.env_id = ?1 "
	"AND r.status = 'ok' AND r.ratio IS NOT NULL), "
	"ranked AS (SELECT r.*, row_number() OVER (PARTITION BY r.shape_id, r.m ORDER BY "
	"(r.phase = 'retest' AND coalesce(r.pairs, 0) >= 100) DESC, r.ratio DESC, "
	"r.candidate_id) AS rank FROM cur r) "
	"SELECT s.family, s.n, s.k, s.w, s.x, s.y, b.m, 1, b.phase, "
	"(b.phase = 'retest' AND coalesce(b.pairs, 0) >= 100), b.pairs, b.base_us, b.cand_us, "
	"b.ratio, b.ratio_lo, b.ratio_hi, c.template, c.params, b.waves "
	"FROM ranked b JOIN shape s ON s.id = b.shape_id JOIN candidate c "
	"ON c.id = b.candidate_id WHERE b.rank = 1 "
	"UNION ALL "
	"SELECT s.family, s.n, s.k, s.w, s.x, s.y, bl.m, 0, '', 0, NULL, "
	"bl.cublas_us, NULL, NULL, NULL, NULL, '', '', NULL "
	"FROM baseline bl JOIN shape s ON s.id = bl.shape_id "
	"WHERE bl.env_id = ?1 AND bl.cublas_us IS NOT NULL AND NOT EXISTS "
	"(SELECT 1 FROM cur r WHERE r.shape_id = bl.shape_id AND r.m = bl.m) "
	"ORDER BY 1, 2, 3, 4, 5, 6, 7";

int db_best_rows_current(struct db *db, long long env, const struct db_pair *cur, long n,
			 struct best_row **out)
{
	sqlite3_stmt *st = NULL;
	int count = -1;
	*out = NULL;
	if (db_temp_pairs(db, "cur_pair", cur, n))
		goto out;
	if (sqlite3_prepare_v2(db->h, best_current_sql, -1, &st, NULL)) {
		db_error(db, "best rows");
		goto out;
	}
	sqlite3_bind_int64(st, 1, env);
	*out = step_rows(db, st, "best rows", sizeof(**out), read_best_row, &count);
out:
	sqlite3_finalize(st);
	sqlite3_exec(db->h, "DROP TABLE IF EXISTS temp.cur_pair", NULL, NULL, NULL);
	return count;
}

int db_best_rows(struct db *db, long long env, struct best_row **out)
{
	int n;
	*out = env_rows(db, ST_BEST_ROWS, env, "best rows", sizeof(**out), read_best_row, &n);
	return n;
}

/* One row of ST_RETEST_ROWS into *row (a struct retest_row). Returns 0 or -1. */
static int read_retest_row(sqlite3_stmt *st, void *row)
{
	struct retest_row *r = row;
	memset(r, 0, sizeof(*r));
	if (col_shape(st, r->family, &r->n, &r->k, &r->w, &r->x, &r->y) ||
	    col_m_valid(st, 6, r->family) || col_figures_valid(st, 9, 9, r->family,
							     sqlite3_column_int(st, 6)))
		return -1;
	r->m = sqlite3_column_int(st, 6);
	col_text(st, 7, r->tmpl, sizeof(r->tmpl));
	col_text(st, 8, r->params, sizeof(r->params));
	r->ratio = col_figure(st, 9);
	r->pairs = col_count(st, 10);
	col_text(st, 11, r->code, sizeof(r->code));
	r->shape_id = sqlite3_column_int64(st, 12);
	r->candidate_id = sqlite3_column_int64(st, 13);
	return 0;
}

int db_retest_rows(struct db *db, long long env, struct retest_row **out)
{
	int n;
	*out = env_rows(db, ST_RETEST_ROWS, env, "retest rows", sizeof(**out), read_retest_row,
			&n);
	return n;
}

/* One row of ST_FLOORS into *row (a struct floor_row). Returns 0. */
static int read_floor_row(sqlite3_stmt *st, void *row)
{
	struct floor_row *f = row;
	col_text(st, 0, f->family, sizeof(f->family));
	f->bytes = col_figure(st, 1);
	f->us = col_figure(st, 2);
	col_text(st, 3, f->config, sizeof(f->config));
	return 0;
}

int db_floors(struct db *db, long long env, struct floor_row **out)
{
	int n;
	*out = env_rows(db, ST_FLOORS, env, "floors", sizeof(**out), read_floor_row, &n);
	return n;
}

long db_pairs(struct db *db, struct db_pair **out)
{
	sqlite3_stmt *st;
	long n = 0, cap = 0;
	struct db_pair *v = NULL;
	*out = NULL;
	if (sqlite3_prepare_v2(db->h, "SELECT r.candidate_id, r.shape_id, c.template, c.params, "
			       "c.code, s.family, s.n, s.k, s.w, s.x, s.y, count(*) FROM result r "
			       "JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON "
			       "s.id = r.shape_id GROUP BY r.candidate_id, r.shape_id "
			       "ORDER BY r.candidate_id, r.shape_id", -1, &st, NULL))
		return db_error(db, "pairs");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap)
			v = xrealloc(v, (size_t)(cap = cap ? 2 * cap : 1024) * sizeof(*v));
		struct db_pair *p = &v[n];
		memset(p, 0, sizeof(*p));
		p->candidate_id = sqlite3_column_int64(st, 0);
		p->shape_id = sqlite3_column_int64(st, 1);
		col_text(st, 2, p->tmpl, sizeof(p->tmpl));
		col_text(st, 3, p->params, sizeof(p->params));
		col_text(st, 4, p->code, sizeof(p->code));
		col_text(st, 5, p->s.family, sizeof(p->s.family));
		p->s.n = sqlite3_column_int(st, 6);
		p->s.k = sqlite3_column_int(st, 7);
		const char *w = (const char *)sqlite3_column_text(st, 8);
		const char *x = (const char *)sqlite3_column_text(st, 9);
		const char *y = (const char *)sqlite3_column_text(st, 10);
		if (!w || !x || !y || dtype_parse(w, &p->s.w) || dtype_parse(x, &p->s.x) ||
		    dtype_parse(y, &p->s.y)) {
			sqlite3_finalize(st);
			long long id = p->shape_id;
			free(v);
			return error("DB: %s: shape %lld has an unknown dtype", db->path, id);
		}
		p->rows = sqlite3_column_int64(st, 11);
		n++;
	}
	if (rc != SQLITE_DONE) {
		db_error(db, "pairs");
		sqlite3_finalize(st);
		free(v);
		return -1;
	}
	sqlite3_finalize(st);
	*out = v;
	return n;
}
