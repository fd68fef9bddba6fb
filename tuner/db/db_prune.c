/*
 * db_prune.c: dropping what prune drops (results of superseded code,
 * environments named, candidates left without results) and recording the
 * variants it learned, each in one transaction.
 */
#include "db_internal.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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
	if (db_exec(db, "BEGIN IMMEDIATE", db->path))
		return -1;
	/* one pass over result: the pairs in a temp table first */
	if (db_temp_pairs(db, "prune_pair", drop, ndrop))
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
	return db_exec(db, dry_run ? "ROLLBACK" : "COMMIT", db->path) ||
	       db_exec(db, "DROP TABLE IF EXISTS temp.prune_pair", db->path) ? -1 : 0;
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db->h, "DROP TABLE IF EXISTS temp.prune_pair", NULL, NULL, NULL);
	return -1;
}

int db_record_variants(struct db *db, const struct db_pair *pairs, const char *const *hashes,
		       long n, long *added)
{
	*added = 0;
	if (db_exec(db, "BEGIN IMMEDIATE", db->path))
		return -1;
	for (long i = 0; i < n; i++) {
		if (!hashes[i])
			continue;
		if (db_record_variant(db, pairs[i].tmpl, pairs[i].params, pairs[i].shape_id,
				      hashes[i], pairs[i].candidate_id))
			goto fail;
		*added += sqlite3_changes(db->h);
	}
	return db_exec(db, "COMMIT", db->path);
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
