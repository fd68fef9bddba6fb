/*
 * cmd_merge.c: `gemmtab merge --db OUT IN.db...`: fold the databases of
 * several sweeps (shards over hosts, GPUs swept apart) into one. Each
 * input is read through a copy (VACUUM INTO, migrated when its schema is
 * older), so no input is ever written. Every input is first checked as
 * emit checks what it reads (PRAGMA integrity_check and the rows' own
 * checks); one that fails is refused by name and nothing is merged. OUT
 * is created if absent and taken under its lock (lock.h). Rerunning the
 * same merge changes nothing.
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
#include <sys/stat.h>
#include <unistd.h>

#define MERGE_MAX_INPUTS 60

static const char usage_text[] =
	"usage: gemmtab merge --db OUT IN.db...\n"
	"  folds every IN.db (read only) into OUT (created if absent): environments by\n"
	"  fingerprint, candidates by key; of two results at one key the one recorded\n"
	"  later is kept (then by run and figures), so the order of inputs does not\n"
	"  matter; identical probes once\n";

/* Check input i as emit checks a database it reads (PRAGMA
 * integrity_check, then every row emit and report would trust) and copy
 * it to DIR/inI.db, brought to this schema; the input stays as it is.
 * *version gets its schema. Returns 0, or -1 with a message naming the
 * input. */
static int check_one(const char *in, const char *dir, int i, int *version)
{
	struct db *src, *cdb;
	/* refuses, saying why, a file that is no gemmtab database, is of a
	 * newer schema, or waits on a hot journal */
	if (db_open_read_any(in, &src))
		return error("merge: %s refused: nothing merged", in);
	*version = db_schema_version(src);
	char *copy = xasprintf("%s/in%d.db", dir, i);
	int rc = db_integrity(src) || db_copy_to(src, copy);
	db_close(src);
	if (!rc && (rc = db_open_existing(copy, &cdb)) == 0) {
		rc = db_check_content(cdb);
		db_close(cdb);
	}
	free(copy);
	return rc ? error("merge: %s refused: nothing merged", in) : 0;
}

/* Fold the checked copy of input i into db. */
static int merge_one(struct db *db, const char *in, const char *dir, int i, int version)
{
	char *copy = xasprintf("%s/in%d.db", dir, i);
	struct merge_counts c;
	int rc = db_merge(db, copy, &c);
	if (!rc)
		printf("%s: %lld results: %lld added, %lld already there, %lld in conflict (%lld "
		       "replaced by the later, %lld kept); %lld baselines; %lld of %lld probes "
		       "added%s\n", in, c.results, c.added, c.same, c.replaced + c.kept,
		       c.replaced, c.kept, c.baselines, c.probes_added, c.probes,
		       version < db_schema_latest() ? " (read as migrated from an older schema)" : "");
	free(copy);
	return rc;
}

/* Remove the copies of n inputs, their side files and the folder. */
static void remove_copies(const char *dir, int n)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < ARRAY_SIZE(sides); j++) {
			char *f = xasprintf("%s/in%d.db%s", dir, i, sides[j]);
			unlink(f);
			free(f);
		}
	rmdir(dir);
}

/* 1 when a and b name one file (a link of the other included). */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return !strcmp(a, b) || (!stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
				 sa.st_ino == sb.st_ino);
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
		if (same_file(in[i], out))
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
	struct db_lock lock = { -1 };
	struct db *db = NULL;
	int rc = 1, n = 0, version[MERGE_MAX_INPUTS];
	/* every input is checked before anything is written */
	for (; n < MERGE_MAX_INPUTS && in[n]; n++)
		if (check_one(in[n], dir, n, &version[n]))
			goto out;
	if (db_lock_take(out, "merge", &lock) || db_open(out, &db) || db_integrity(db))
		goto out;
	rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = merge_one(db, in[i], dir, i, version[i]) ? 1 : 0;
out:
	db_close(db);
	db_lock_drop(&lock);
	remove_copies(dir, n < MERGE_MAX_INPUTS ? n + 1 : n);
	free(dir);
	return rc;
}
