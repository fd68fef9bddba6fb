/*
 * db_migrate.c: the schema's versions. A new file gets db/gemmtab.sql at
 * once; an older one is brought up by the migration steps, all in one
 * transaction, foreign keys checked before the commit. The SQL of each
 * step is a file compiled in (embedded.h) or written here; a step that
 * has shipped is never edited.
 */
#include "db_internal.h"
#include "embedded.h"
#include "tmpl.h"
#include "util.h"

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

/* The schema version, after checking that the file is ours (or empty)
 * and not newer than this binary. Returns the version or -1. */
int db_check_version(struct db *db)
{
	long long version, app, objects;
	if (db_pragma_int(db, "PRAGMA user_version", &version) ||
	    db_pragma_int(db, "PRAGMA application_id", &app) ||
	    db_pragma_int(db, "SELECT count(*) FROM sqlite_master", &objects))
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
int db_migrate_schema(struct db *db)
{
	int latest = (int)ARRAY_SIZE(migrations);
	int version = db_check_version(db);
	char *stamp = NULL;
	if (version < 0)
		return -1;
	if (version == latest)
		return 0;
	/* foreign keys off across the steps, checked before the commit: a
	 * step may rebuild a table others reference (SQLite's recipe for a
	 * schema change; the pragma is a no-op inside a transaction) */
	if (db_exec(db, "PRAGMA foreign_keys = OFF", db->path) ||
	    db_exec(db, "BEGIN IMMEDIATE", db->path))
		goto fail;
	version = db_check_version(db);
	if (version < 0)
		goto fail;
	if (version == 0) {
		const char *sql = embedded_text(FULL_SCHEMA);
		if (!sql) {
			error("DB: %s is not built into this gemmtab", FULL_SCHEMA);
			goto fail;
		}
		if (db_exec(db, sql, db->path))
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
		if (db_exec(db, sql, db->path) || (step->fn && step->fn(db)))
			goto fail;
	}
	long long broken = 0;
	if (db_pragma_int(db, "SELECT count(*) FROM pragma_foreign_key_check", &broken))
		goto fail;
	if (broken) {
		error("DB: %s: the migration would leave %lld rows that reference none", db->path,
		      broken);
		goto fail;
	}
	stamp = xasprintf("PRAGMA application_id = %d; PRAGMA user_version = %d",
			  GT_APP_ID, latest);
	if (db_exec(db, stamp, db->path) || db_exec(db, "COMMIT", db->path))
		goto fail;
	free(stamp);
	return db_exec(db, "PRAGMA foreign_keys = ON", db->path);
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
	if (db_exec(db, "CREATE INDEX temp_result_by_candidate ON result (candidate_id, shape_id)",
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
	if (db_exec(db, "DROP INDEX temp_result_by_candidate", "re-key") ||
	    db_exec(db, "DELETE FROM candidate WHERE id NOT IN (SELECT candidate_id FROM result) "
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

int db_schema_latest(void)
{
	return (int)ARRAY_SIZE(migrations);
}

int db_file_version(const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st = NULL;
	int v = -1;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_extended_result_codes(h, 1);
		sqlite3_busy_timeout(h, BUSY_TIMEOUT_MS);
		if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		else if (sqlite3_extended_errcode(h) == SQLITE_READONLY_ROLLBACK)
			v = -2;
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}
