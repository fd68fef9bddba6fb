/*
 * db_internal.h: what the files of tuner/db/ share and nothing else
 * includes: the connection, its cached statements (db_stmt.c), the
 * helpers that bind and read their values, and the steps of opening
 * (db_migrate.c). Invariants of the module: only these files include
 * sqlite3.h; every connection has its busy timeout set before its first
 * statement (db_open.c); a reader trusts a row only after the checks of
 * db_read.c, and a file only after db_integrity().
 */
#ifndef GT_DB_INTERNAL_H
#define GT_DB_INTERNAL_H

#include <sqlite3.h>

#include "db.h"

/* PRAGMA application_id of a gemmtab database: 'GMTB'. */
#define GT_APP_ID 0x474d5442
/* How long a writer waits for another process's lock (the supervisor and
 * a concurrent `gemmtab report` share the file) before giving up. */
#define BUSY_TIMEOUT_MS 10000

enum stmt_id {
	ST_ENV_INSERT, ST_ENV_SELECT, ST_ENV_GET, ST_ENV_LATEST,
	ST_SHAPE_INSERT, ST_SHAPE_SELECT,
	ST_CAND_INSERT, ST_CAND_SELECT, ST_CAND_GET, ST_VARIANT_GET, ST_VARIANT_PUT,
	ST_RESULT_RECORD, ST_RESULT_HAS, ST_RESULT_FIGURE, ST_BASELINE_HAS, ST_PHASE_BEST, ST_RUN_COUNT,
	ST_LT_SEEDS,
	ST_PROBE_RECORD, ST_BASELINE_RECORD,
	ST_BEST_ROWS, ST_RETEST_ROWS, ST_FLOORS,
	NSTMT
};

#define ENV_COLS "gpu_name, gpu_uuid, sm_count, sm_clock_mhz, mem_clock_mhz, " \
	"l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, source_hash"

struct db {
	sqlite3 *h;
	char *path;
	sqlite3_stmt *stmt[NSTMT];     /* prepared on first use */
};

/* Report the connection's last error as "DB: what: message"; returns -1. */
int db_error(struct db *db, const char *what);
/* The cached statement id, prepared on first use and reset after the
 * previous one. NULL on error (message printed). */
sqlite3_stmt *db_stmt(struct db *db, enum stmt_id id);
/* Bind helpers: NULL strings and absent figures (NaN or negative: every
 * figure stored is a time, a ratio, an error or a count) bind NULL. */
void bind_text(sqlite3_stmt *st, int i, const char *s);
void bind_figure(sqlite3_stmt *st, int i, double v);
void bind_count(sqlite3_stmt *st, int i, long long v);
/* Column readers: NULL reads as NaN, -1 or "". */
double col_figure(sqlite3_stmt *st, int i);
int col_count(sqlite3_stmt *st, int i);
void col_text(sqlite3_stmt *st, int i, char *buf, size_t len);
/* Step a statement that returns no row. Returns 0 or -1. */
int step_done(struct db *db, sqlite3_stmt *st, const char *what);
/* Step a one-row, one-integer query into *v. Returns 1 (row), 0 (no row
 * or a NULL value) or -1. */
int step_int64(struct db *db, sqlite3_stmt *st, const char *what, long long *v);
/* Run sql (no rows); what names it in an error. Returns 0 or -1. */
int db_exec(struct db *db, const char *sql, const char *what);
/* An integer PRAGMA's (or one-value query's) value. Returns 0 or -1. */
int db_pragma_int(struct db *db, const char *sql, long long *v);
/* A temp table temp.NAME (c, s) of the (candidate, shape)s of pairs[0..n).
 * Returns 0 or -1. */
int db_temp_pairs(struct db *db, const char *name, const struct db_pair *pairs, long n);

/* The schema version, after checking that the file is ours (or empty)
 * and not newer than this binary. Returns the version or -1. */
int db_check_version(struct db *db);
/* Bring the schema to the newest version (db_migrate.c). Returns 0 or -1. */
int db_migrate_schema(struct db *db);

#endif
