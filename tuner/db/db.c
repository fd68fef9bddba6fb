/*
 * db.c: the results database on SQLite (the only file that includes
 * sqlite3.h): opening and migrating the schema, recording measurements as
 * they are taken, and the reads the sweep, report, emit and query commands
 * need.
 */
#include "db.h"
#include "embedded.h"
#include "json.h"
#include "texttable.h"
#include "tmpl.h"
#include "util.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Migration step i brings a database from user_version i to i + 1: the SQL
 * of an embedded file (tools/embed) or SQL written here. Append steps;
 * never edit one that has shipped. */
static int rekey_step(struct db *db);

static const struct migration {
	const char *file;
	const char *sql;
	int (*fn)(struct db *db);       /* run after the SQL, in its transaction */
} migrations[] = {
	{ "db/schema.sql", NULL, NULL },      /* 0 -> 1: the initial schema */
	/* 1 -> 2: the most waves of blocks, or of clusters, that any kernel
	 * step of the plan took on the device (gpu.h plan_waves);
	 * NULL where not known (results recorded before, or not launched) */
	{ NULL, "ALTER TABLE result ADD COLUMN waves INTEGER;", NULL },
	/* 2 -> 3: the sweep run that recorded the row (its start, UTC with
	 * milliseconds); NULL before: retests are compared within one run
	 * (cmd_sweep.c settle()) */
	{ NULL, "ALTER TABLE result ADD COLUMN run TEXT;", NULL },
	/* 3 -> 4: candidates keyed by the code they run (codekey.h) instead
	 * of their template's text. (template, params, code) is unique,
	 * which db_candidate_id keeps; the index is on pkey, a 64-bit hash
	 * of template and params (a sixth of the size of one on the text).
	 * variant says that a template text
	 * (source_hash) compiles a candidate's (template, params) at a shape
	 * to that candidate's code, so that a sweep or emit under the same
	 * text needs no compile to know it (kept for templates with kernels
	 * of ours: the others' keys need no compile). rekey_step re-keys the
	 * rows of the template texts db/rekey-4.map lists. */
	{ NULL, "PRAGMA legacy_alter_table = ON;"
		"CREATE TABLE candidate_v4 ("
		" id INTEGER PRIMARY KEY,"
		" template TEXT NOT NULL,"
		" params TEXT NOT NULL,"
		" code TEXT NOT NULL,"
		" pkey INTEGER NOT NULL);"
		"INSERT INTO candidate_v4 (id, template, params, code, pkey) SELECT id, template, "
		" params, source_hash, gemmtab_pkey(template, params) FROM candidate;"
		"DROP TABLE candidate;"
		"ALTER TABLE candidate_v4 RENAME TO candidate;"
		"PRAGMA legacy_alter_table = OFF;"
		"CREATE INDEX candidate_by_pkey ON candidate (pkey);"
		"CREATE TABLE variant ("
		" id INTEGER PRIMARY KEY,"
		" candidate_id INTEGER NOT NULL REFERENCES candidate(id),"
		" shape_id INTEGER NOT NULL REFERENCES shape(id),"
		" source_hash TEXT NOT NULL,"
		" UNIQUE (candidate_id, shape_id, source_hash));", rekey_step },
	/* 4 -> 5: the GPU (its index on the host) that took the measurement:
	 * a sweep over several devices (sweep --devices) records each row's;
	 * NULL where not known (rows recorded before) */
	{ NULL, "ALTER TABLE result ADD COLUMN device INTEGER;"
		"ALTER TABLE baseline ADD COLUMN device INTEGER;", NULL },
	/* 5 -> 6: parameters by name (candidate.params_json, and the view
	 * candidate_param of one row per parameter) and the canned queries
	 * as views (baselines, envs, waves, unretested): db/6.sql */
	{ "db/6.sql", NULL, NULL },
};

/* A fresh database gets the whole current schema at once: db/gemmtab.sql
 * is what the steps above build from nothing (tests/cli/t_schema.sh holds
 * the two against each other). */
#define FULL_SCHEMA "db/gemmtab.sql"

/* PRAGMA application_id of a gemmtab database: 'GMTB'. */
#define GT_APP_ID 0x474d5442
/* How long a writer waits for another process's lock (the supervisor and
 * a concurrent `gemmtab report` share the file) before giving up. */
#define BUSY_TIMEOUT_MS 10000

enum stmt_id {
	ST_ENV_INSERT, ST_ENV_SELECT, ST_ENV_GET, ST_ENV_LATEST,
	ST_SHAPE_INSERT, ST_SHAPE_SELECT,
	ST_CAND_INSERT, ST_CAND_SELECT, ST_CAND_GET, ST_VARIANT_GET, ST_VARIANT_PUT,
	ST_RESULT_RECORD, ST_RESULT_HAS, ST_BASELINE_HAS, ST_PHASE_BEST, ST_RUN_COUNT,
	ST_LT_SEEDS,
	ST_PROBE_RECORD, ST_BASELINE_RECORD,
	ST_BEST_ROWS, ST_RETEST_ROWS, ST_FLOORS,
	NSTMT
};

#define ENV_COLS "gpu_name, gpu_uuid, sm_count, sm_clock_mhz, mem_clock_mhz, " \
	"l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, source_hash"

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

struct db {
	sqlite3 *h;
	char *path;
	sqlite3_stmt *stmt[NSTMT];     /* prepared on first use */
};

/* Report the connection's last error as "DB: what: message"; returns -1. */
static int db_error(struct db *db, const char *what)
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
static sqlite3_stmt *stmt(struct db *db, enum stmt_id id)
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
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_figure(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v) || v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static void bind_count(sqlite3_stmt *st, int i, long long v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* Column readers: NULL reads as NaN, -1 or "". */
static double col_figure(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN
		: sqlite3_column_double(st, i);
}

static int col_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1
		: sqlite3_column_int(st, i);
}

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

/* Step a statement that returns no row. Returns 0 or -1. */
static int step_done(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_error(db, what);
}

/* Step a one-row, one-integer query into *v. Returns 1 (row), 0 (no row
 * or a NULL value) or -1. */
static int step_int64(struct db *db, sqlite3_stmt *st, const char *what,
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

static int exec(struct db *db, const char *sql, const char *what)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
		: db_error(db, what);
}

/* An integer PRAGMA's value. Returns 0 or -1. */
static int pragma_int(struct db *db, const char *sql, long long *v)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(db, db->path);
	*v = 0;
	int r = step_int64(db, st, db->path, v);
	sqlite3_finalize(st);
	return r < 0 ? -1 : 0;
}

/* The schema version, after checking that the file is ours (or empty)
 * and not newer than this binary. Returns the version or -1. */
static int check_version(struct db *db)
{
	long long version, app, objects;
	if (pragma_int(db, "PRAGMA user_version", &version) ||
	    pragma_int(db, "PRAGMA application_id", &app) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &objects))
		return -1;
	if (version == 0 ? objects > 0 : app != GT_APP_ID)
		return error("DB: %s: not a gemmtab database", db->path);
	if (version < 0)
		return error("DB: %s: schema version %lld is none gemmtab ever wrote (the "
			     "header is damaged): restore it from a copy", db->path, version);
	if (version > (long long)ARRAY_SIZE(migrations))
		return error("DB: %s: schema version %lld is newer than this gemmtab "
			     "knows (%zu); use a newer gemmtab", db->path, version,
			     ARRAY_SIZE(migrations));
	return (int)version;
}

/* Bring the schema to the newest version in one transaction; the write
 * lock is taken only when a step is due, and the version read again under
 * it (another process may have migrated meanwhile). Returns 0 or -1. */
static int migrate(struct db *db)
{
	int latest = (int)ARRAY_SIZE(migrations);
	int version = check_version(db);
	char *stamp = NULL;
	if (version < 0)
		return -1;
	if (version == latest)
		return 0;
	/* foreign keys off across the steps, checked before the commit: a
	 * step may rebuild a table others reference (SQLite's recipe for a
	 * schema change; the pragma is a no-op inside a transaction) */
	if (exec(db, "PRAGMA foreign_keys = OFF", db->path) ||
	    exec(db, "BEGIN IMMEDIATE", db->path))
		goto fail;
	version = check_version(db);
	if (version < 0)
		goto fail;
	if (version == 0) {
		const char *sql = embedded_text(FULL_SCHEMA);
		if (!sql) {
			error("DB: %s is not built into this gemmtab", FULL_SCHEMA);
			goto fail;
		}
		if (exec(db, sql, db->path))
			goto fail;
		version = latest;
	}
	for (; version < latest; version++) {
		const struct migration *step = &migrations[version];
		const char *sql = step->file ? embedded_text(step->file) : step->sql;
		if (!sql) {
			error("DB: %s is not built into this gemmtab", step->file);
			goto fail;
		}
		if (exec(db, sql, db->path) || (step->fn && step->fn(db)))
			goto fail;
	}
	long long broken = 0;
	if (pragma_int(db, "SELECT count(*) FROM pragma_foreign_key_check", &broken))
		goto fail;
	if (broken) {
		error("DB: %s: the migration would leave %lld rows that reference none", db->path,
		      broken);
		goto fail;
	}
	stamp = xasprintf("PRAGMA application_id = %d; PRAGMA user_version = %d",
			  GT_APP_ID, latest);
	if (exec(db, stamp, db->path) || exec(db, "COMMIT", db->path))
		goto fail;
	free(stamp);
	return exec(db, "PRAGMA foreign_keys = ON", db->path);
fail:
	free(stamp);
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	return -1;
}

unsigned long long db_rekey4_key(const char *tmpl, const char *old, int n, int k,
				 const char *w, const char *x, const char *y, const char *params)
{
	char dims[64];
	snprintf(dims, sizeof(dims), "%d %d", n, k);
	const char *parts[] = { tmpl, old, dims, w, x, y, params };
	uint64_t h = HASH_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		h = hash_str(hash_str(h, parts[i]), "\t");
	return h;
}

struct rekey_pair {
	uint64_t from, to;
};

static int rekey_cmp(const void *a, const void *b)
{
	const struct rekey_pair *x = a, *y = b;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The pairs of db/rekey-4.map ("OLDKEY NEWCODE" in hex, a line each) in
 * a sorted heap array; the count, or -1. */
static long rekey_pairs(struct rekey_pair **out)
{
	const char *text = embedded_text("db/rekey-4.map");
	long n = 0, cap = 0;
	struct rekey_pair *v = NULL;
	if (!text)
		return error("DB: db/rekey-4.map is not built into this gemmtab");
	for (const char *p = text; *p;) {
		unsigned long long a, b;
		int used = 0;
		if (*p == '#') {
			p = strchr(p, '\n');
			p = p ? p + 1 : "";
			continue;
		}
		if (sscanf(p, "%16llx %16llx%n", &a, &b, &used) != 2 || (p[used] && p[used] != '\n')) {
			free(v);
			return error("DB: db/rekey-4.map: bad line '%.40s'", p);
		}
		if (n == cap)
			v = xrealloc(v, (size_t)(cap = cap ? 2 * cap : 4096) * sizeof(*v));
		v[n++] = (struct rekey_pair){ a, b };
		p += used + (p[used] == '\n');
	}
	qsort(v, (size_t)n, sizeof(*v), rekey_cmp);
	*out = v;
	return n;
}

/* Migration 3 -> 4, after its SQL: each (candidate, shape) with results
 * whose template text db/rekey-4.map knows moves to the candidate of its
 * code key, with a variant row for that text; candidates left without a
 * result go. Rows of other template texts keep their text's hash as
 * their key: no build's code matches it, so emit and report pass them
 * by as superseded and prune may drop them. */
static int rekey_step(struct db *db)
{
	struct rekey_pair *pairs = NULL;
	long npairs = rekey_pairs(&pairs);
	sqlite3_stmt *sel = NULL, *upd = NULL, *var = NULL;
	long moved = 0, rows = 0;
	int ret = -1;
	if (npairs < 0)
		return -1;
	if (sqlite3_prepare_v2(db->h, "SELECT DISTINCT c.id, c.template, c.params, c.code, "
			       "s.id, s.n, s.k, s.w, s.x, s.y FROM result r JOIN candidate c "
			       "ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id "
			       "ORDER BY c.id, s.id", -1, &sel, NULL) ||
	    sqlite3_prepare_v2(db->h, "UPDATE result SET candidate_id = ?1 WHERE "
			       "candidate_id = ?2 AND shape_id = ?3", -1, &upd, NULL) ||
	    sqlite3_prepare_v2(db->h, "INSERT OR IGNORE INTO variant (candidate_id, shape_id, "
			       "source_hash) VALUES (?5, ?3, ?4)", -1, &var, NULL)) {
		db_error(db, "re-key");
		goto out;
	}
	int rc;
	if (exec(db, "CREATE INDEX temp_result_by_candidate ON result (candidate_id, shape_id)",
		 "re-key"))
		goto out;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(sel, 1);
		const char *params = (const char *)sqlite3_column_text(sel, 2);
		const char *old = (const char *)sqlite3_column_text(sel, 3);
		struct rekey_pair key = {
			db_rekey4_key(t, old, sqlite3_column_int(sel, 5), sqlite3_column_int(sel, 6),
				      (const char *)sqlite3_column_text(sel, 7),
				      (const char *)sqlite3_column_text(sel, 8),
				      (const char *)sqlite3_column_text(sel, 9), params), 0
		};
		const struct rekey_pair *hit = bsearch(&key, pairs, (size_t)npairs, sizeof(key),
						       rekey_cmp);
		if (!hit)
			continue;
		char code[17];
		hash_hex(hit->to, code);
		long long cand = sqlite3_column_int64(sel, 0), shape = sqlite3_column_int64(sel, 4);
		long long to = 0;
		if (db_candidate_id(db, t, params, code, &to))
			goto out;
		sqlite3_bind_int64(upd, 1, to);
		sqlite3_bind_int64(upd, 2, cand);
		sqlite3_bind_int64(upd, 3, shape);
		if (step_done(db, upd, "re-key"))
			goto out;
		rows += sqlite3_changes(db->h);
		moved++;
		const struct tmpl *tt = tmpl_find(t);
		if (!tt || !tt->source)
			continue;       /* no kernel of ours: its key needs no compile */
		sqlite3_bind_int64(var, 3, shape);
		sqlite3_bind_text(var, 4, old, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(var, 5, to);
		if (step_done(db, var, "re-key"))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		db_error(db, "re-key");
		goto out;
	}
	sqlite3_finalize(sel);
	sel = NULL;
	if (exec(db, "DROP INDEX temp_result_by_candidate", "re-key") ||
	    exec(db, "DELETE FROM candidate WHERE id NOT IN (SELECT candidate_id FROM result) "
		 "AND id NOT IN (SELECT candidate_id FROM variant)", "re-key"))
		goto out;
	if (moved)
		fprintf(stderr, "gemmtab: %s: schema 4 keys candidates by their code: %ld results "
			"of %ld (candidate, shape) pairs re-keyed\n", db->path, rows, moved);
	ret = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	sqlite3_finalize(var);
	free(pairs);
	return ret;
}

/* gemmtab_pkey(template, params): candidate.pkey, FNV-1a of both as a
 * signed 64-bit integer. */
static void sql_pkey(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const unsigned char *t = sqlite3_value_text(argv[0]);
	const unsigned char *p = sqlite3_value_text(argv[1]);
	uint64_t h = hash_str(HASH_INIT, t ? (const char *)t : "");
	h = hash_str(hash_str(h, "\t"), p ? (const char *)p : "");
	sqlite3_result_int64(ctx, (sqlite3_int64)h);
}

/* How a command opens a database. */
enum open_mode {
	OPEN_CREATE,    /* a sweep, probe or merge: create, migrate, WAL */
	OPEN_WRITE,     /* prune, migrate: an existing file, migrate, WAL */
	OPEN_READ,      /* report, query, emit, bench: read only, never migrated */
	OPEN_READ_OLD,  /* merge: the same, an older schema too (read to be copied) */
};

/* 1 when a non-empty file PATH-suffix sits beside path: committed
 * results in a -wal file, or a -journal an immutable reader would ignore. */
static int has_side_file(const char *path, const char *suffix)
{
	char *side = xasprintf("%s-%s", path, suffix);
	FILE *f = fopen(side, "rb");
	int nonempty = f && fgetc(f) != EOF;
	if (f)
		fclose(f);
	free(side);
	return nonempty;
}

/* The first read of a read-only connection, which takes the shared lock
 * (waiting out a writer's for the busy timeout) and meets any hot journal.
 * Where the file cannot be read as it is (a WAL database whose -shm
 * cannot be made: a read-only folder or mount), it is reopened immutable,
 * but only when nothing beside it holds data the file alone lacks: an
 * immutable reader ignores locks and journals. Returns 0, 1 (reopened
 * immutable: a new connection), or -1 (message printed). */
static int open_readable(struct db *db, const char *path, int flags)
{
	int rc = sqlite3_exec(db->h, "PRAGMA user_version", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	int code = sqlite3_extended_errcode(db->h);
	if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
		return db_error(db, path);
	if (code == SQLITE_READONLY_ROLLBACK || has_side_file(path, "journal"))
		return error("DB: %s: its hot journal %s-journal holds a write that never "
			     "committed (its writer was killed); nothing read: run `gemmtab "
			     "migrate --db %s`, which rolls it back, or copy both files to a "
			     "folder you can write and read the copy", path, path, path);
	if (has_side_file(path, "wal"))
		return error("DB: %s cannot be read here (%s): committed results wait in its "
			     "-wal file, which only a reader that may write beside it folds in; "
			     "copy %s and %s-wal to a folder you can write and read the copy",
			     path, sqlite3_errmsg(db->h), path, path);
	sqlite3_close(db->h);
	char *uri = sqlite3_mprintf("file:%q?immutable=1", path);
	rc = sqlite3_open_v2(uri, &db->h, flags | SQLITE_OPEN_URI, NULL);
	sqlite3_free(uri);
	if (rc != SQLITE_OK)
		return db->h ? db_error(db, path) : error("DB: %s: out of memory", path);
	return 1;
}

/* Checks of a reader's database: ours, not empty, and (unless old_ok) of
 * this schema. Returns 0 or -1 (message printed). */
static int check_readable(struct db *db, const char *path, int old_ok)
{
	int version = check_version(db);
	if (version < 0)
		return -1;
	if (version == 0)
		return error("DB: %s is empty, not a gemmtab database", path);
	if (version < (int)ARRAY_SIZE(migrations) && !old_ok)
		return error("DB: %s has schema %d, older than this gemmtab's %zu: run `gemmtab "
			     "migrate --db %s` to upgrade it", path, version,
			     ARRAY_SIZE(migrations), path);
	return 0;
}

/* The settings of every connection, before its first statement: extended
 * codes, the busy timeout (a reader waits out a writer's lock, then reads
 * what was committed), gemmtab_pkey(). Returns 0 or -1. */
static int connection_setup(struct db *db, const char *path)
{
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS);
	if (sqlite3_create_function(db->h, "gemmtab_pkey", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, sql_pkey, NULL, NULL) != SQLITE_OK)
		return db_error(db, path);
	return 0;
}

static int open_db(const char *path, enum open_mode mode, struct db **out)
{
	struct db *db = xcalloc(1, sizeof(*db));
	db->path = xstrdup(path);
	*out = NULL;
	int flags = mode == OPEN_CREATE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
		: mode == OPEN_WRITE ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	const int old_ok = mode == OPEN_READ_OLD;
	if (old_ok)
		mode = OPEN_READ;
	int rc = sqlite3_open_v2(path, &db->h, flags, NULL);
	if (rc != SQLITE_OK) {
		if (!db->h)
			error("DB: %s: out of memory", path);
		else
			db_error(db, path);
		goto fail;
	}
	if (connection_setup(db, path))
		goto fail;
	if (mode == OPEN_READ) {
		/* an immutable reopen is a new connection: set it up again */
		int reopened = open_readable(db, path, flags);
		if (reopened < 0 || (reopened && connection_setup(db, path)) ||
		    exec(db, "PRAGMA foreign_keys = ON", path) ||
		    check_readable(db, path, old_ok))
			goto fail;
		*out = db;
		return 0;
	}
	/* WAL for every database gemmtab writes (docs/guide.md says why):
	 * readers and the recording writer do not block each other, a reader
	 * never sees a write that was not committed, and a killed writer
	 * leaves no hot journal; with WAL, synchronous=NORMAL still survives a
	 * process kill. The first read of a read-write connection rolls back
	 * a hot journal a killed writer of a rollback-journal file left; the
	 * mode changes only once the file proved to be ours. */
	if (exec(db, "PRAGMA foreign_keys = ON", path) ||
	    exec(db, "PRAGMA synchronous = NORMAL", path) ||
	    migrate(db) ||
	    exec(db, "PRAGMA journal_mode = WAL", path))
		goto fail;
	*out = db;
	return 0;
fail:
	db_close(db);
	return -1;
}

int db_open(const char *path, struct db **out)
{
	return open_db(path, OPEN_CREATE, out);
}

int db_open_existing(const char *path, struct db **out)
{
	return open_db(path, OPEN_WRITE, out);
}

int db_open_read(const char *path, struct db **out)
{
	return open_db(path, OPEN_READ, out);
}

int db_open_read_any(const char *path, struct db **out)
{
	return open_db(path, OPEN_READ_OLD, out);
}

void db_close(struct db *db)
{
	if (!db)
		return;
	for (int i = 0; i < NSTMT; i++)
		sqlite3_finalize(db->stmt[i]);
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

int db_schema_version(struct db *db)
{
	long long v;
	return pragma_int(db, "PRAGMA user_version", &v) ? -1 : (int)v;
}

void result_row_clear(struct result_row *r)
{
	memset(r, 0, sizeof(*r));
	r->err_global = r->err_row = NAN;
	r->base_us = r->cand_us = NAN;
	r->ratio = r->ratio_lo = r->ratio_hi = NAN;
	r->pairs = r->regs = r->local_bytes = r->smem = r->waves = r->device = -1;
}

/* Insert-or-get: run the bound insert (a no-op when the row exists), then
 * the bound select for its id. */
static int insert_or_get(struct db *db, sqlite3_stmt *ins, sqlite3_stmt *sel,
			 const char *what, long long *id)
{
	if (step_done(db, ins, what))
		return -1;
	int found = step_int64(db, sel, what, id);
	if (found < 0)
		return -1;
	if (!found)
		return error("DB: %s: row not found after insert", what);
	return 0;
}

static void bind_env(sqlite3_stmt *st, const struct env_info *e)
{
	bind_text(st, 1, e->gpu_name);
	bind_text(st, 2, e->gpu_uuid);
	sqlite3_bind_int(st, 3, e->sm_count);
	sqlite3_bind_int(st, 4, e->sm_clock_mhz);
	sqlite3_bind_int(st, 5, e->mem_clock_mhz);
	sqlite3_bind_int64(st, 6, e->l2_bytes);
	bind_text(st, 7, e->driver);
	bind_text(st, 8, e->cuda);
	bind_text(st, 9, e->nvrtc);
	bind_text(st, 10, e->cublas);
	bind_text(st, 11, e->cublaslt);
	bind_text(st, 12, e->source_hash);
}

/* Another unit of the same GPU model, clocks, driver and libraries is the
 * same environment: a sweep resumed on the next lent H200 (a different
 * gpu_uuid every device call) skips what the last one measured, and its
 * rows join that env (the newest such, as report and emit read by
 * default). Only a new combination adds a row. */
int db_env_id(struct db *db, const struct env_info *e, long long *id)
{
	sqlite3_stmt *ins = stmt(db, ST_ENV_INSERT), *sel = stmt(db, ST_ENV_SELECT);
	if (!ins || !sel)
		return -1;
	bind_env(sel, e);               /* bindings outlive the reset */
	int found = step_int64(db, sel, "env", id);
	if (found)
		return found < 0 ? -1 : 0;
	bind_env(ins, e);
	return insert_or_get(db, ins, sel, "env", id);
}

static void bind_shape(sqlite3_stmt *st, const struct shape *s)
{
	bind_text(st, 1, s->family);
	sqlite3_bind_int(st, 2, s->n);
	sqlite3_bind_int(st, 3, s->k);
	bind_text(st, 4, dtype_name(s->w));
	bind_text(st, 5, dtype_name(s->x));
	bind_text(st, 6, dtype_name(s->y));
	sqlite3_bind_double(st, 7, s->tol);
}

int db_shape_id(struct db *db, const struct shape *s, long long *id)
{
	sqlite3_stmt *ins = stmt(db, ST_SHAPE_INSERT), *sel = stmt(db, ST_SHAPE_SELECT);
	if (!ins || !sel)
		return -1;
	bind_shape(ins, s);
	bind_shape(sel, s);
	return insert_or_get(db, ins, sel, "shape", id);
}

int db_shape_find(struct db *db, const struct shape *s, long long *id)
{
	sqlite3_stmt *sel = stmt(db, ST_SHAPE_SELECT);
	if (!sel)
		return -1;
	bind_shape(sel, s);
	return step_int64(db, sel, "shape", id);
}

int db_variant(struct db *db, const char *tmpl, const char *params, long long shape,
	       const char *source_hash, long long *id, char code[17])
{
	sqlite3_stmt *st = stmt(db, ST_VARIANT_GET);
	if (!st)
		return -1;
	bind_text(st, 1, tmpl);
	bind_text(st, 2, params);
	sqlite3_bind_int64(st, 3, shape);
	bind_text(st, 4, source_hash);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		if (code)
			col_text(st, 1, code, 17);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(db, "variant");
	return rc == SQLITE_ROW;
}

int db_record_variant(struct db *db, const char *tmpl, const char *params, long long shape,
		      const char *source_hash, long long cand)
{
	sqlite3_stmt *st = stmt(db, ST_VARIANT_PUT);
	if (!st)
		return -1;
	bind_text(st, 1, tmpl);
	bind_text(st, 2, params);
	sqlite3_bind_int64(st, 3, shape);
	bind_text(st, 4, source_hash);
	sqlite3_bind_int64(st, 5, cand);
	return step_done(db, st, "record variant");
}

int db_candidate_id(struct db *db, const char *tmpl, const char *params,
		    const char *code, long long *id)
{
	sqlite3_stmt *ins = stmt(db, ST_CAND_INSERT), *sel = stmt(db, ST_CAND_SELECT);
	if (!ins || !sel)
		return -1;
	sqlite3_stmt *both[] = { ins, sel };
	for (int i = 0; i < 2; i++) {
		bind_text(both[i], 1, tmpl);
		bind_text(both[i], 2, params);
		bind_text(both[i], 3, code);
	}
	return insert_or_get(db, ins, sel, "candidate", id);
}

int db_record_result(struct db *db, long long env, long long shape,
		     long long cand, const struct result_row *r)
{
	sqlite3_stmt *st = stmt(db, ST_RESULT_RECORD);
	if (!st)
		return -1;
	/* a candidate that did not pass has no timing, whatever r holds */
	int timed = r->status && !strcmp(r->status, "ok");
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int64(st, 3, cand);
	sqlite3_bind_int(st, 4, r->m);
	bind_text(st, 5, r->phase);
	bind_text(st, 6, r->status);
	bind_text(st, 7, r->reason);
	bind_figure(st, 8, r->err_global);
	bind_figure(st, 9, r->err_row);
	bind_figure(st, 10, timed ? r->base_us : NAN);
	bind_figure(st, 11, timed ? r->cand_us : NAN);
	bind_figure(st, 12, timed ? r->ratio : NAN);
	bind_figure(st, 13, timed ? r->ratio_lo : NAN);
	bind_figure(st, 14, timed ? r->ratio_hi : NAN);
	bind_count(st, 15, timed ? r->pairs : -1);
	bind_count(st, 16, r->regs);
	bind_count(st, 17, r->local_bytes);
	bind_count(st, 18, r->smem);
	bind_count(st, 19, r->waves);
	bind_text(st, 20, r->run);
	bind_count(st, 21, r->device);
	return step_done(db, st, "record result");
}

int db_has_result(struct db *db, long long env, long long shape,
		  long long cand, int m, const char *phase, const char *since)
{
	sqlite3_stmt *st = stmt(db, ST_RESULT_HAS);
	long long one;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int64(st, 3, cand);
	sqlite3_bind_int(st, 4, m);
	bind_text(st, 5, phase);
	bind_text(st, 6, since ? since : "");
	return step_int64(db, st, "has result", &one);
}

int db_has_baseline(struct db *db, long long env, long long shape, int m)
{
	sqlite3_stmt *st = stmt(db, ST_BASELINE_HAS);
	long long one;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	return step_int64(db, st, "has baseline", &one);
}

int db_best(struct db *db, long long env, long long shape, int m, const char *phase, int skip,
	    long long *cand_ids, char (*runs)[DB_RUN_MAX], int max)
{
	sqlite3_stmt *st = stmt(db, ST_PHASE_BEST);
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
	sqlite3_stmt *st = stmt(db, ST_RUN_COUNT);
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
	sqlite3_stmt *st = stmt(db, ST_LT_SEEDS);
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
	sqlite3_stmt *st = stmt(db, ST_CAND_GET);
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

int db_record_probe(struct db *db, long long env, const char *what,
		    const char *family, double bytes, double us, const char *config)
{
	sqlite3_stmt *st = stmt(db, ST_PROBE_RECORD);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	bind_text(st, 2, what);
	bind_text(st, 3, family);
	bind_figure(st, 4, bytes);
	bind_figure(st, 5, us);
	bind_text(st, 6, config);
	return step_done(db, st, "record probe");
}

int db_record_baseline(struct db *db, long long env, long long shape, int m,
		       double cublas_us, double cublaslt_us, double ratio,
		       const char *lt_algo, int device)
{
	sqlite3_stmt *st = stmt(db, ST_BASELINE_RECORD);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	bind_figure(st, 4, cublas_us);
	bind_figure(st, 5, cublaslt_us);
	bind_figure(st, 6, ratio);
	bind_text(st, 7, lt_algo);
	bind_count(st, 8, device);
	return step_done(db, st, "record baseline");
}

long long db_latest_env(struct db *db)
{
	sqlite3_stmt *st = stmt(db, ST_ENV_LATEST);
	long long id;
	if (!st)
		return -1;
	return step_int64(db, st, "latest env", &id) == 1 ? id : -1;
}

int db_env_get(struct db *db, long long id, struct env_info *e)
{
	sqlite3_stmt *st = stmt(db, ST_ENV_GET);
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
	sqlite3_stmt *st = stmt(db, id);
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

/* A temp table temp.NAME (c, s) holding the (candidate, shape)s of
 * pairs[0..n), for one pass over result. Returns 0 or -1. */
static int temp_pairs(struct db *db, const char *name, const struct db_pair *pairs, long n)
{
	sqlite3_stmt *ins = NULL;
	char *sql = xasprintf("CREATE TEMP TABLE %s (c INTEGER, s INTEGER, PRIMARY KEY (c, s)) "
			      "WITHOUT ROWID", name);
	int ret = exec(db, sql, name);
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
	if (temp_pairs(db, "cur_pair", cur, n))
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

int db_check_content(struct db *db)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT id FROM env ORDER BY id", -1, &st, NULL))
		return db_error(db, db->path);
	int rc, bad = 0;
	while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long env = sqlite3_column_int64(st, 0);
		struct best_row *best = NULL;
		struct retest_row *rt = NULL;
		struct floor_row *fl = NULL;
		bad = db_best_rows(db, env, &best) < 0 || db_retest_rows(db, env, &rt) < 0 ||
		      db_floors(db, env, &fl) < 0;
		free(best);
		free(rt);
		free(fl);
	}
	if (!bad && rc != SQLITE_DONE)
		bad = db_error(db, db->path);
	sqlite3_finalize(st);
	return bad ? -1 : 0;
}

/* Print one prepared statement's rows as a table. Returns 0 or -1. */
static int print_statement(struct db *db, sqlite3_stmt *st, enum table_format f,
			   FILE *out)
{
	int ncols = sqlite3_column_count(st), rc;
	struct table t;
	table_init(&t, ncols);
	for (int c = 0; c < ncols; c++)
		table_add(&t, sqlite3_column_name(st, c));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int c = 0; c < ncols; c++)
			table_add(&t, (const char *)sqlite3_column_text(st, c));
	if (rc == SQLITE_DONE)
		table_print(&t, f, "NULL", out);
	table_free(&t);
	return rc == SQLITE_DONE ? 0 : db_error(db, "query");
}

/* One statement's rows as a JSON array of objects, typed as SQLite stores
 * each value (integer and real: numbers; text: strings; NULL: null). */
static int json_statement(struct db *db, sqlite3_stmt *st, struct json *j)
{
	int ncols = sqlite3_column_count(st), rc;
	json_begin_object(j);
	json_key(j, "sql");
	json_string(j, sqlite3_sql(st));
	json_key(j, "rows");
	json_begin_array(j);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_begin_object(j);
		for (int c = 0; c < ncols; c++) {
			json_key(j, sqlite3_column_name(st, c));
			switch (sqlite3_column_type(st, c)) {
			case SQLITE_INTEGER:
				json_int(j, sqlite3_column_int64(st, c));
				break;
			case SQLITE_FLOAT:
				json_number(j, sqlite3_column_double(st, c));
				break;
			case SQLITE_NULL:
				json_null(j);
				break;
			default:
				json_string(j, (const char *)sqlite3_column_text(st, c));
			}
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	return rc == SQLITE_DONE ? 0 : db_error(db, "query");
}

int db_query_fprint(struct db *db, const char *sql, const char *format, FILE *out)
{
	enum table_format f;
	const char *tail = sql;
	int printed = 0, ret = 0;
	struct json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *doc = NULL;
	if (table_format_parse(format, &f))
		return error("unknown format '%s' (text, csv, md or json)", format);
	if (f == TABLE_JSON) {
		/* one document, written only when every statement ran */
		if (!(doc = open_memstream(&buf, &len)))
			die("out of memory");
		json_init(&j, doc);
		json_begin_object(&j);
		json_key(&j, "gemmtab");
		json_string(&j, "query");
		json_key(&j, "version");
		json_string(&j, GT_VERSION);
		json_command(&j);
		json_key(&j, "database");
		json_string(&j, db->path);
		json_key(&j, "results");
		json_begin_array(&j);
	}
	while (!ret && *tail) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db->h, tail, -1, &st, &tail) != SQLITE_OK) {
			ret = db_error(db, "query");
			break;
		}
		if (!st)        /* only blanks or a comment were left */
			break;
		if (!sqlite3_stmt_readonly(st))
			ret = error("DB: query: \"%s\" would write to the database; "
				    "use sqlite3 for that", sqlite3_sql(st));
		else if (sqlite3_column_count(st) && doc) {
			ret = json_statement(db, st, &j);
		} else if (sqlite3_column_count(st)) {
			if (printed++)
				fputc('\n', out);
			ret = print_statement(db, st, f, out);
		} else {
			ret = sqlite3_step(st) == SQLITE_DONE ? 0 : db_error(db, "query");
		}
		sqlite3_finalize(st);
	}
	if (doc) {
		json_end_array(&j);
		json_end_object(&j);
		fclose(doc);
		if (!ret)
			fwrite(buf, 1, len, out);
		free(buf);
	}
	return ret;
}

int db_query_print(struct db *db, const char *sql, const char *format)
{
	return db_query_fprint(db, sql, format, stdout);
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

/* Run sql with its one parameter bound to v (or none when v < 0); add the
 * rows it changed to *count. Returns 0 or -1. */
static int exec_count(struct db *db, const char *sql, long long v, long *count)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return db_error(db, "prune");
	if (v >= 0)
		sqlite3_bind_int64(st, 1, v);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(db, "prune");
	*count += sqlite3_changes(db->h);
	return 0;
}

int db_prune(struct db *db, const struct db_pair *drop, long ndrop, const long long *envs,
	     int nenv, int dry_run, struct prune_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (exec(db, "BEGIN IMMEDIATE", db->path))
		return -1;
	/* one pass over result: the pairs in a temp table first */
	if (temp_pairs(db, "prune_pair", drop, ndrop))
		goto fail;
	if (exec_count(db, "DELETE FROM result WHERE EXISTS (SELECT 1 FROM prune_pair p WHERE "
		       "p.c = result.candidate_id AND p.s = result.shape_id)", -1, &c->results))
		goto fail;
	for (int i = 0; i < nenv; i++)
		if (exec_count(db, "DELETE FROM result WHERE env_id = ?1", envs[i], &c->results) ||
		    exec_count(db, "DELETE FROM baseline WHERE env_id = ?1", envs[i], &c->baselines) ||
		    exec_count(db, "DELETE FROM probe WHERE env_id = ?1", envs[i], &c->probes) ||
		    exec_count(db, "DELETE FROM env WHERE id = ?1", envs[i], &c->envs))
			goto fail;
	/* a variant of a candidate without results says only what a text
	 * compiled to: kept while its candidate has results elsewhere */
	if (exec_count(db, "DELETE FROM variant WHERE candidate_id NOT IN (SELECT candidate_id "
		       "FROM result)", -1, &c->variants) ||
	    exec_count(db, "DELETE FROM candidate WHERE id NOT IN (SELECT candidate_id FROM "
		       "result) AND id NOT IN (SELECT candidate_id FROM variant)", -1,
		       &c->candidates))
		goto fail;
	return exec(db, dry_run ? "ROLLBACK" : "COMMIT", db->path) ||
	       exec(db, "DROP TABLE IF EXISTS temp.prune_pair", db->path) ? -1 : 0;
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db->h, "DROP TABLE IF EXISTS temp.prune_pair", NULL, NULL, NULL);
	return -1;
}

int db_record_variants(struct db *db, const struct db_pair *pairs, const char *const *hashes,
		       long n, long *added)
{
	*added = 0;
	if (exec(db, "BEGIN IMMEDIATE", db->path))
		return -1;
	for (long i = 0; i < n; i++) {
		if (!hashes[i])
			continue;
		if (db_record_variant(db, pairs[i].tmpl, pairs[i].params, pairs[i].shape_id,
				      hashes[i], pairs[i].candidate_id))
			goto fail;
		*added += sqlite3_changes(db->h);
	}
	return exec(db, "COMMIT", db->path);
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int db_compact(struct db *db)
{
	return exec(db, "VACUUM", db->path) ||
	       exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", db->path) ? -1 : 0;
}

int db_schema_latest(void)
{
	return (int)ARRAY_SIZE(migrations);
}

int db_file_version(const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}

/* integrity_check's own count of unused pages is skipped (a "partial"
 * check) when the first object it lists has no b-tree, as a view has:
 * SQLite 3.40's rule. Count them here: every page is in a b-tree (dbstat
 * lists those), on the freelist, or the lock-byte page of a file over
 * 1 GiB. Where dbstat is not compiled in, integrity_check's word stands.
 * Returns 0 or -1 with the finding. */
static int unused_pages(struct db *db)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT (SELECT page_count FROM pragma_page_count()) - "
			       "(SELECT freelist_count FROM pragma_freelist_count()) - "
			       "(SELECT count(*) FROM dbstat WHERE aggregate = 0) - "
			       "((SELECT page_count * page_size FROM pragma_page_count(), "
			       "pragma_page_size()) > 1073741824)", -1, &st, NULL))
		return 0;
	long long unused = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		unused = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (unused > 0)
		return error("DB: %s fails PRAGMA integrity_check (%lld pages are in no table, "
			     "index or freelist: a damaged schema); nothing trusted: restore it "
			     "from a copy, or rebuild it with a sweep", db->path, unused);
	return 0;
}

/* A private temporary copy of db's file (SQLite's "" database: in memory,
 * spilled to a temporary file when large), into *copy. SQLite leaves the
 * CHECK constraints out of the schema of a read-only connection, so its
 * integrity_check skips them there; a writable copy has them. Returns 0
 * or -1 (message printed). */
static int writable_copy(struct db *db, sqlite3 **copy)
{
	sqlite3_backup *b = NULL;
	int rc = sqlite3_open_v2("", copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK && (b = sqlite3_backup_init(*copy, "main", db->h, "main"))) {
		rc = sqlite3_backup_step(b, -1);
		rc = sqlite3_backup_finish(b) == SQLITE_OK && rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc == SQLITE_OK && b)
		return 0;
	error("DB: %s fails PRAGMA integrity_check (a copy to check it could not be made: %s); "
	      "nothing trusted: restore it from a copy, or rebuild it with a sweep", db->path,
	      *copy ? sqlite3_errmsg(*copy) : "out of memory");
	sqlite3_close(*copy);
	*copy = NULL;
	return -1;
}

int db_integrity(struct db *db)
{
	sqlite3 *h = db->h, *copy = NULL;
	if (sqlite3_db_readonly(db->h, "main") == 1) {
		if (writable_copy(db, &copy))
			return -1;
		h = copy;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "PRAGMA integrity_check(1)", -1, &st, NULL)) {
		error("DB: %s: integrity_check: %s", db->path, sqlite3_errmsg(h));
		sqlite3_close(copy);
		return -1;
	}
	int rc = sqlite3_step(st);
	const char *r = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	int ok = r && !strcmp(r, "ok");
	if (!ok) {
		char finding[512];
		snprintf(finding, sizeof(finding), "%s", r ? r : sqlite3_errmsg(h));
		for (char *c = finding; *c; c++)
			if (*c == '\n')
				*c = ' ';
		error("DB: %s fails PRAGMA integrity_check (%s); nothing trusted: restore it from "
		      "a copy, or rebuild it with a sweep", db->path, finding);
	}
	sqlite3_finalize(st);
	sqlite3_close(copy);
	return ok ? unused_pages(db) : -1;
}

/* The columns that tell two environments apart (all but the GPU's uuid:
 * identical GPUs share one, as db_env_id matches them). */
#define ENV_FP(a, b) \
	a ".gpu_name = " b ".gpu_name AND " a ".sm_count = " b ".sm_count AND " \
	a ".sm_clock_mhz = " b ".sm_clock_mhz AND " a ".mem_clock_mhz = " b ".mem_clock_mhz AND " \
	a ".l2_bytes = " b ".l2_bytes AND " a ".driver = " b ".driver AND " a ".cuda = " b ".cuda AND " \
	a ".nvrtc = " b ".nvrtc AND " a ".cublas = " b ".cublas AND " a ".cublaslt = " b \
	".cublaslt AND " a ".source_hash = " b ".source_hash"
#define RES_COLS "status, reason, err_global, err_row, base_us, cand_us, ratio, ratio_lo, " \
	"ratio_hi, pairs, regs, local_bytes, smem, recorded_at, waves, run, device"
/* The order two rows of one key are kept by (the greater stays): when it
 * was recorded, then by which run, then every figure, so that the rule
 * is total and merge A B keeps what merge B A keeps. */
#define RES_KEY(t) \
	"(" t ".recorded_at || '|' || coalesce(" t ".run, '') || '|' || quote(" t ".status) || " \
	"quote(" t ".reason) || quote(" t ".ratio) || quote(" t ".cand_us) || quote(" t ".base_us) || " \
	"quote(" t ".pairs) || quote(" t ".err_global) || quote(" t ".err_row) || quote(" t \
	".ratio_lo) || quote(" t ".ratio_hi) || quote(" t ".regs) || quote(" t ".local_bytes) || " \
	"quote(" t ".smem) || quote(" t ".waves) || quote(" t ".device))"
#define BASE_COLS "cublas_us, cublaslt_us, ratio, lt_algo, recorded_at, device"
#define BASE_KEY(t) \
	"(" t ".recorded_at || '|' || quote(" t ".cublas_us) || quote(" t ".cublaslt_us) || " \
	"quote(" t ".ratio) || quote(" t ".lt_algo) || quote(" t ".device))"

static long long count_of(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(db, "merge");
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int db_merge(struct db *db, const char *src, struct merge_counts *c)
{
	memset(c, 0, sizeof(*c));
	char *attach = sqlite3_mprintf("ATTACH %Q AS src", src);
	int rc = exec(db, attach, src);
	sqlite3_free(attach);
	if (rc)
		return -1;
	static const char *const steps[] = {
		"BEGIN",
		/* environments by fingerprint */
		"INSERT INTO main.env (" ENV_COLS ", first_seen) SELECT gpu_name, min(gpu_uuid), "
		"sm_count, sm_clock_mhz, mem_clock_mhz, l2_bytes, driver, cuda, nvrtc, cublas, "
		"cublaslt, source_hash, min(first_seen) FROM src.env e WHERE NOT EXISTS (SELECT 1 "
		"FROM main.env d WHERE " ENV_FP("d", "e") ") GROUP BY gpu_name, sm_count, "
		"sm_clock_mhz, mem_clock_mhz, l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, "
		"source_hash",
		"CREATE TEMP TABLE menv AS SELECT e.id AS s, (SELECT max(d.id) FROM main.env d "
		"WHERE " ENV_FP("d", "e") ") AS d FROM src.env e",
		"INSERT OR IGNORE INTO main.shape (family, n, k, w, x, y, tol) SELECT family, n, "
		"k, w, x, y, tol FROM src.shape",
		"CREATE TEMP TABLE mshape AS SELECT s.id AS s, d.id AS d FROM src.shape s JOIN "
		"main.shape d USING (family, n, k, w, x, y, tol)",
		/* candidates by their key */
		"INSERT INTO main.candidate (template, params, code, pkey) SELECT template, params, "
		"code, pkey FROM src.candidate c WHERE NOT EXISTS (SELECT 1 FROM main.candidate d "
		"WHERE d.pkey = c.pkey AND d.template = c.template AND d.params = c.params AND "
		"d.code = c.code)",
		"CREATE TEMP TABLE mcand AS SELECT c.id AS s, (SELECT min(d.id) FROM main.candidate d "
		"WHERE d.pkey = c.pkey AND d.template = c.template AND d.params = c.params AND "
		"d.code = c.code) AS d FROM src.candidate c",
		"CREATE INDEX temp.mcand_s ON mcand (s)",
		"INSERT OR IGNORE INTO main.variant (candidate_id, shape_id, source_hash) SELECT "
		"mc.d, ms.d, v.source_hash FROM src.variant v JOIN mcand mc ON mc.s = v.candidate_id "
		"JOIN mshape ms ON ms.s = v.shape_id",
		"CREATE TEMP TABLE mres AS SELECT me.d AS env_id, ms.d AS shape_id, mc.d AS "
		"candidate_id, r.m, r.phase, " RES_COLS " FROM src.result r JOIN menv me ON me.s = "
		"r.env_id JOIN mshape ms ON ms.s = r.shape_id JOIN mcand mc ON mc.s = r.candidate_id",
		"CREATE TEMP TABLE mbase AS SELECT me.d AS env_id, ms.d AS shape_id, b.m, " BASE_COLS
		" FROM src.baseline b JOIN menv me ON me.s = b.env_id JOIN mshape ms ON ms.s = "
		"b.shape_id",
	};
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		if (exec(db, steps[i], src))
			goto fail;
	c->results = count_of(db, "SELECT count(*) FROM mres");
	c->added = count_of(db, "SELECT count(*) FROM mres t WHERE NOT EXISTS (SELECT 1 FROM "
			   "main.result r WHERE r.env_id = t.env_id AND r.shape_id = t.shape_id AND "
			   "r.candidate_id = t.candidate_id AND r.m = t.m AND r.phase = t.phase)");
	c->same = count_of(db, "SELECT count(*) FROM mres t JOIN main.result r ON r.env_id = "
			  "t.env_id AND r.shape_id = t.shape_id AND r.candidate_id = t.candidate_id "
			  "AND r.m = t.m AND r.phase = t.phase WHERE " RES_KEY("r") " = " RES_KEY("t"));
	c->replaced = count_of(db, "SELECT count(*) FROM mres t JOIN main.result r ON r.env_id = "
			      "t.env_id AND r.shape_id = t.shape_id AND r.candidate_id = "
			      "t.candidate_id AND r.m = t.m AND r.phase = t.phase WHERE "
			      RES_KEY("t") " > " RES_KEY("r"));
	c->baselines = count_of(db, "SELECT count(*) FROM mbase");
	c->probes = count_of(db, "SELECT count(*) FROM src.probe");
	if (c->results < 0 || c->added < 0 || c->same < 0 || c->replaced < 0 || c->baselines < 0 ||
	    c->probes < 0)
		goto fail;
	c->kept = c->results - c->added - c->same - c->replaced;
	static const char *const writes[] = {
		"INSERT INTO main.result (env_id, shape_id, candidate_id, m, phase, " RES_COLS ") "
		"SELECT env_id, shape_id, candidate_id, m, phase, " RES_COLS " FROM mres WHERE true "
		"ON CONFLICT (env_id, shape_id, candidate_id, m, phase) DO UPDATE SET "
		"status = excluded.status, reason = excluded.reason, err_global = excluded.err_global, "
		"err_row = excluded.err_row, base_us = excluded.base_us, cand_us = excluded.cand_us, "
		"ratio = excluded.ratio, ratio_lo = excluded.ratio_lo, ratio_hi = excluded.ratio_hi, "
		"pairs = excluded.pairs, regs = excluded.regs, local_bytes = excluded.local_bytes, "
		"smem = excluded.smem, recorded_at = excluded.recorded_at, waves = excluded.waves, "
		"run = excluded.run, device = excluded.device WHERE " RES_KEY("excluded") " > "
		RES_KEY("result"),
		"INSERT INTO main.baseline (env_id, shape_id, m, " BASE_COLS ") SELECT env_id, "
		"shape_id, m, " BASE_COLS " FROM mbase WHERE true ON CONFLICT (env_id, shape_id, m) "
		"DO UPDATE SET cublas_us = excluded.cublas_us, cublaslt_us = excluded.cublaslt_us, "
		"ratio = excluded.ratio, lt_algo = excluded.lt_algo, recorded_at = "
		"excluded.recorded_at, device = excluded.device WHERE " BASE_KEY("excluded") " > "
		BASE_KEY("baseline"),
		/* probes have no key: an identical row is the same probe */
		"INSERT INTO main.probe (env_id, what, family, bytes, us, config, recorded_at) "
		"SELECT me.d, p.what, p.family, p.bytes, p.us, p.config, p.recorded_at FROM "
		"src.probe p JOIN menv me ON me.s = p.env_id WHERE NOT EXISTS (SELECT 1 FROM "
		"main.probe q WHERE q.env_id = me.d AND q.what = p.what AND q.family IS p.family "
		"AND q.bytes IS p.bytes AND q.us = p.us AND q.config IS p.config AND "
		"q.recorded_at = p.recorded_at)",
		"DROP TABLE menv", "DROP TABLE mshape", "DROP TABLE mcand", "DROP TABLE mres",
		"DROP TABLE mbase",
		"COMMIT",
	};
	long long probes_before = count_of(db, "SELECT count(*) FROM main.probe");
	for (size_t i = 0; i < ARRAY_SIZE(writes); i++)
		if (exec(db, writes[i], src))
			goto fail;
	c->probes_added = count_of(db, "SELECT count(*) FROM main.probe") - probes_before;
	return exec(db, "DETACH src", src);
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db->h, "DETACH src", NULL, NULL, NULL);
	return -1;
}

int db_copy_to(struct db *db, const char *path)
{
	char *sql = sqlite3_mprintf("VACUUM INTO %Q", path);
	int rc = exec(db, sql, db->path);
	sqlite3_free(sql);
	return rc;
}
