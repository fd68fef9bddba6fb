/*
 * db_integrity.c: whether a database may be trusted: PRAGMA
 * integrity_check (of a writable copy where the connection is read-only,
 * since SQLite leaves CHECK constraints out of a read-only schema), the
 * pages no b-tree holds, and the content checks of every row a reader
 * would trust.
 */
#include "db_internal.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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
