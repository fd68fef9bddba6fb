/*
 * db_open.c: opening a results database. A writer (sweep, probe, merge,
 * prune, migrate) opens it read-write, which rolls back a hot journal a
 * killed writer left, migrates it and leaves it in WAL mode; a reader
 * (report, query, emit, bench) opens it read-only and never changes it:
 * the busy timeout is set before the first statement, so a writer's lock
 * is waited out and never read through, and a hot journal is refused,
 * naming the command that rolls it back.
 */
#include "db_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	int version = db_check_version(db);
	if (version < 0)
		return -1;
	if (version == 0)
		return error("DB: %s is empty, not a gemmtab database", path);
	if (version < db_schema_latest() && !old_ok)
		return error("DB: %s has schema %d, older than this gemmtab's %d: run `gemmtab "
			     "migrate --db %s` to upgrade it", path, version,
			     db_schema_latest(), path);
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
		    db_exec(db, "PRAGMA foreign_keys = ON", path) ||
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
	if (db_exec(db, "PRAGMA foreign_keys = ON", path) ||
	    db_exec(db, "PRAGMA synchronous = NORMAL", path) ||
	    db_migrate_schema(db) ||
	    db_exec(db, "PRAGMA journal_mode = WAL", path))
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
	return db_pragma_int(db, "PRAGMA user_version", &v) ? -1 : (int)v;
}

int db_compact(struct db *db)
{
	return db_exec(db, "VACUUM", db->path) ||
	       db_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", db->path) ? -1 : 0;
}

int db_copy_to(struct db *db, const char *path)
{
	char *sql = sqlite3_mprintf("VACUUM INTO %Q", path);
	int rc = db_exec(db, sql, db->path);
	sqlite3_free(sql);
	return rc;
}
