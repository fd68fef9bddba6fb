/*
 * db_stmt.c: the statements of the results database, prepared once per
 * connection and cached, and the helpers that bind their parameters and
 * read their columns (absent figures are NULL in the file, NaN or -1 in
 * C).
 */
#include "db_internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SQL of each cached statement (db_stmt). */
static const char *const stmt_sql[NSTMT] = {
	[ST_ENV_INSERT] = "INSERT INTO env (" ENV_COLS ") VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT DO NOTHING",
	/* the unit (gpu_uuid, ?2) is recorded, not matched: see db_env_id
	 * (bind_env binds it; a parameter the text does not use is legal) */
	[ST_ENV_SELECT] = "SELECT max(id) FROM env WHERE gpu_name = ?1 "
		"AND sm_count = ?3 AND sm_clock_mhz = ?4 AND mem_clock_mhz = ?5 "
		"AND l2_bytes = ?6 AND driver = ?7 AND cuda = ?8 AND nvrtc = ?9 "
		"AND cublas = ?10 AND cublaslt = ?11 AND source_hash = ?12",
	[ST_ENV_GET] = "SELECT " ENV_COLS " FROM env WHERE id = ?1",
	[ST_ENV_LATEST] = "SELECT max(id) FROM env",
	[ST_SHAPE_INSERT] = "INSERT INTO shape (family, n, k, w, x, y, tol) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
	[ST_SHAPE_SELECT] = "SELECT id FROM shape WHERE family = ?1 AND n = ?2 "
		"AND k = ?3 AND w = ?4 AND x = ?5 AND y = ?6 AND tol = ?7",
	[ST_CAND_INSERT] = "INSERT INTO candidate (template, params, code, pkey) "
		"SELECT ?1, ?2, ?3, gemmtab_pkey(?1, ?2) WHERE NOT EXISTS (SELECT 1 FROM "
		"candidate WHERE pkey = gemmtab_pkey(?1, ?2) AND template = ?1 AND params = ?2 "
		"AND code = ?3)",
	[ST_CAND_SELECT] = "SELECT id FROM candidate WHERE pkey = gemmtab_pkey(?1, ?2) "
		"AND template = ?1 AND params = ?2 AND code = ?3",
	[ST_VARIANT_GET] = "SELECT v.candidate_id, c.code FROM candidate c JOIN variant v "
		"ON v.candidate_id = c.id WHERE c.pkey = gemmtab_pkey(?1, ?2) "
		"AND c.template = ?1 AND c.params = ?2 "
		"AND v.shape_id = ?3 AND v.source_hash = ?4",
	[ST_VARIANT_PUT] = "INSERT OR IGNORE INTO variant (candidate_id, shape_id, source_hash) "
		"VALUES (?5, ?3, ?4)",
	[ST_CAND_GET] = "SELECT template, params FROM candidate WHERE id = ?1",
	[ST_RESULT_RECORD] = "INSERT OR REPLACE INTO result (env_id, shape_id, "
		"candidate_id, m, phase, status, reason, err_global, err_row, "
		"base_us, cand_us, ratio, ratio_lo, ratio_hi, pairs, regs, "
		"local_bytes, smem, waves, run, device) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
		"?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
	[ST_RESULT_HAS] = "SELECT 1 FROM result WHERE env_id = ?1 AND shape_id = ?2 "
		"AND candidate_id = ?3 AND m = ?4 AND phase = ?5 AND recorded_at >= ?6",
	[ST_RESULT_FIGURE] = "SELECT status = 'ok', pairs, ratio FROM result WHERE env_id = ?1 "
		"AND shape_id = ?2 AND candidate_id = ?3 AND m = ?4 AND phase = ?5 "
		"AND recorded_at >= ?6",
	[ST_BASELINE_HAS] = "SELECT 1 FROM baseline WHERE env_id = ?1 AND shape_id = ?2 "
		"AND m = ?3",
	[ST_PHASE_BEST] = "SELECT candidate_id, COALESCE(run, '') FROM result WHERE env_id = ?1 "
		"AND shape_id = ?2 AND m = ?3 AND phase = ?6 AND status = 'ok' "
		"AND ratio IS NOT NULL ORDER BY ratio DESC, candidate_id LIMIT ?4 OFFSET ?5",
	[ST_RUN_COUNT] = "SELECT count(*) FROM result WHERE env_id = ?1 AND shape_id = ?2 "
		"AND m = ?3 AND phase = 'retest' AND status = 'ok' AND run = ?4",
	/* one row per params (a candidate keeps its params across source
	 * hashes); as the best view ranks them, the retested (>= 100 pairs)
	 * before the rest, each by its retest where it has one, else its
	 * best other figure */
	[ST_LT_SEEDS] = "SELECT c.params FROM result r JOIN candidate c ON c.id = "
		"r.candidate_id WHERE r.env_id = ?1 AND r.shape_id = ?2 AND r.m = ?3 AND "
		"r.status = 'ok' AND r.ratio IS NOT NULL AND c.template = 'blas_lt' AND "
		"substr(c.params, 1, length(?4)) = ?4 GROUP BY c.params ORDER BY "
		"MAX(r.phase = 'retest' AND r.pairs >= 100) DESC, COALESCE(MAX(CASE WHEN "
		"r.phase = 'retest' AND r.pairs >= 100 THEN r.ratio END), MAX(r.ratio)) DESC, "
		"MIN(c.id) LIMIT ?5",
	[ST_PROBE_RECORD] = "INSERT INTO probe (env_id, what, family, bytes, us, "
		"config) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_BASELINE_RECORD] = "INSERT OR REPLACE INTO baseline (env_id, shape_id, "
		"m, cublas_us, cublaslt_us, ratio, lt_algo, device) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* best rows, then baselines of (shape, m)s no candidate has a timing
	 * for (the same condition as the best view's, on the indexed table) */
	[ST_BEST_ROWS] = "SELECT s.family, s.n, s.k, s.w, s.x, s.y, b.m, 1, "
		"b.phase, b.retested, b.pairs, b.base_us, b.cand_us, b.ratio, "
		"b.ratio_lo, b.ratio_hi, b.template, b.params, r.waves "
		"FROM best b JOIN shape s ON s.id = b.shape_id "
		"JOIN result r ON r.id = b.result_id WHERE b.env_id = ?1 "
		"UNION ALL "
		"SELECT s.family, s.n, s.k, s.w, s.x, s.y, bl.m, 0, '', 0, NULL, "
		"bl.cublas_us, NULL, NULL, NULL, NULL, '', '', NULL "
		"FROM baseline bl JOIN shape s ON s.id = bl.shape_id "
		"WHERE bl.env_id = ?1 AND bl.cublas_us IS NOT NULL AND NOT EXISTS "
		"(SELECT 1 FROM result r WHERE r.env_id = bl.env_id "
		"AND r.shape_id = bl.shape_id AND r.m = bl.m AND r.status = 'ok' "
		"AND r.ratio IS NOT NULL) "
		"ORDER BY 1, 2, 3, 4, 5, 6, 7",
	[ST_RETEST_ROWS] = "SELECT s.family, s.n, s.k, s.w, s.x, s.y, r.m, "
		"c.template, c.params, r.ratio, r.pairs, c.code, r.shape_id, r.candidate_id "
		"FROM result r JOIN shape s ON s.id = r.shape_id "
		"JOIN candidate c ON c.id = r.candidate_id "
		"WHERE r.env_id = ?1 AND r.phase = 'retest' AND r.status = 'ok' "
		"AND r.ratio IS NOT NULL "
		"ORDER BY s.n, s.k, s.w, s.x, s.y, r.m, c.template, c.params, s.family",
	[ST_FLOORS] = "SELECT family, bytes, us, config FROM floors WHERE env_id = ?1 "
		"AND family IS NOT NULL ORDER BY family",
};

/* Report the connection's last error as "DB: what: message"; returns -1. */
int db_error(struct db *db, const char *what)
{
	int code = sqlite3_extended_errcode(db->h) & 0xff;
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return error("DB: %s: %s: another program holds %s locked (an open write "
			     "transaction: waited %d s for it); nothing recorded is lost: rerun "
			     "once it is closed", what, sqlite3_errmsg(db->h),
			     db->path ? db->path : "the database",
			     BUSY_TIMEOUT_MS / 1000);
	return error("DB: %s: %s", what, sqlite3_errmsg(db->h));
}

/* The cached statement id, prepared on first use and reset after the
 * previous one. NULL on error (message printed). */
sqlite3_stmt *db_stmt(struct db *db, enum stmt_id id)
{
	sqlite3_stmt **st = &db->stmt[id];
	if (*st) {
		sqlite3_reset(*st);
		sqlite3_clear_bindings(*st);
		return *st;
	}
	if (sqlite3_prepare_v3(db->h, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
			       st, NULL) != SQLITE_OK) {
		db_error(db, "prepare");
		return NULL;
	}
	return *st;
}

/* Bind helpers: NULL strings and absent figures (NaN or negative: every
 * figure stored is a time, a ratio, an error or a count) bind NULL. */
void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void bind_figure(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v) || v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

void bind_count(sqlite3_stmt *st, int i, long long v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* Column readers: NULL reads as NaN, -1 or "". */
double col_figure(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN
		: sqlite3_column_double(st, i);
}

int col_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1
		: sqlite3_column_int(st, i);
}

void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

/* Step a statement that returns no row. Returns 0 or -1. */
int step_done(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_error(db, what);
}

/* Step a one-row, one-integer query into *v. Returns 1 (row), 0 (no row
 * or a NULL value) or -1. */
int step_int64(struct db *db, sqlite3_stmt *st, const char *what,
		      long long *v)
{
	int rc = sqlite3_step(st);
	int found = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
	if (found)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(db, what);
	return found;
}

int db_exec(struct db *db, const char *sql, const char *what)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
		: db_error(db, what);
}

/* An integer PRAGMA's value. Returns 0 or -1. */
int db_pragma_int(struct db *db, const char *sql, long long *v)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(db, db->path);
	*v = 0;
	int r = step_int64(db, st, db->path, v);
	sqlite3_finalize(st);
	return r < 0 ? -1 : 0;
}

/* A temp table temp.NAME (c, s) holding the (candidate, shape)s of
 * pairs[0..n), for one pass over result. Returns 0 or -1. */
int db_temp_pairs(struct db *db, const char *name, const struct db_pair *pairs, long n)
{
	sqlite3_stmt *ins = NULL;
	char *sql = xasprintf("CREATE TEMP TABLE %s (c INTEGER, s INTEGER, PRIMARY KEY (c, s)) "
			      "WITHOUT ROWID", name);
	int ret = db_exec(db, sql, name);
	free(sql);
	if (ret)
		return -1;
	sql = xasprintf("INSERT OR IGNORE INTO temp.%s VALUES (?1, ?2)", name);
	if (sqlite3_prepare_v2(db->h, sql, -1, &ins, NULL))
		ret = db_error(db, name);
	for (long i = 0; i < n && !ret; i++) {
		sqlite3_bind_int64(ins, 1, pairs[i].candidate_id);
		sqlite3_bind_int64(ins, 2, pairs[i].shape_id);
		ret = step_done(db, ins, name);
	}
	sqlite3_finalize(ins);
	free(sql);
	return ret;
}
