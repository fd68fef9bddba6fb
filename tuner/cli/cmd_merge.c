/*
 * cmd_merge.c: `gemmtab merge --db OUT IN.db...`: fold the databases of
 * several sweeps (shards over hosts, GPUs swept apart) into one. Each
 * input is read through a copy (VACUUM INTO, migrated when its schema is
 * older), so no input is ever written; OUT is created if absent and
 * taken under its lock (lock.h). Rerunning the same merge changes nothing.
 */
#include "commands.h"
#include "db.h"
#include "lock.h"
#include "options.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MERGE_MAX_INPUTS 60

static const char usage_text[] =
	"usage: gemmtab merge --db OUT IN.db...\n"
	"  folds every IN.db (read only) into OUT (created if absent): environments by\n"
	"  fingerprint, candidates by key; of two results at one key the one recorded\n"
	"  later is kept (then by run and figures), so the order of inputs does not\n"
	"  matter; identical probes once\n";

/* Fold one input into db through a migrated copy in dir. */
static int merge_one(struct db *db, const char *in, const char *dir, int i)
{
	struct db *src;
	/* refuses, saying why, a file that is no gemmtab database or is of
	 * a newer schema */
	if (db_open_read_any(in, &src))
		return -1;
	const int version = db_schema_version(src);
	char *copy = xasprintf("%s/in%d.db", dir, i);
	int rc = db_copy_to(src, copy);
	db_close(src);
	struct db *cdb = NULL;
	/* the copy is brought to this schema; the input stays as it is */
	if (!rc && (rc = db_open_existing(copy, &cdb)) == 0)
		db_close(cdb);
	struct merge_counts c;
	if (!rc && (rc = db_merge(db, copy, &c)) == 0)
		printf("%s: %lld results: %lld added, %lld already there, %lld in conflict (%lld "
		       "replaced by the later, %lld kept); %lld baselines; %lld of %lld probes "
		       "added%s\n", in, c.results, c.added, c.same, c.replaced + c.kept,
		       c.replaced, c.kept, c.baselines, c.probes_added, c.probes,
		       version < db_schema_latest() ? " (read as migrated from an older schema)" : "");
	unlink(copy);
	free(copy);
	return rc;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL, *in[MERGE_MAX_INPUTS] = { 0 };
	struct opt opts[MERGE_MAX_INPUTS + 2] = {
		OPT_STRING("db", &out, OPT_REQUIRED),
	};
	for (int i = 0; i < MERGE_MAX_INPUTS; i++)
		opts[1 + i] = (struct opt)OPT_ARG("IN.db", &in[i], i == 0 ? OPT_REQUIRED : 0);
	opts[MERGE_MAX_INPUTS + 1] = (struct opt)OPT_END();
	int st = parse_options("merge", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	for (int i = 0; i < MERGE_MAX_INPUTS && in[i]; i++) {
		if (access(in[i], R_OK))
			return error("cannot read %s: %s", in[i], strerror(errno)), 1;
		if (!strcmp(in[i], out))
			return usage_error("merge", usage_text, "%s is both the output and an input",
					   out);
	}
	const char *tmpdir = getenv("TMPDIR");
	char *dir = xasprintf("%s/gemmtab-merge.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		error("mkdtemp %s: %s", dir, strerror(errno));
		free(dir);
		return 1;
	}
	struct db_lock lock;
	struct db *db = NULL;
	int rc = 1;
	if (db_lock_take(out, "merge", &lock))
		goto out;
	if (db_open(out, &db))
		goto unlock;
	rc = 0;
	for (int i = 0; i < MERGE_MAX_INPUTS && in[i] && !rc; i++)
		rc = merge_one(db, in[i], dir, i) ? 1 : 0;
	db_close(db);
unlock:
	db_lock_drop(&lock);
out:
	rmdir(dir);
	free(dir);
	return rc;
}
