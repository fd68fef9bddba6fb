/*
 * cmd_prune.c: `gemmtab prune`: drop what a database no longer needs, the
 * results of superseded code and of environments the user names, then
 * compact it for committing. A (candidate, shape) is superseded when this
 * build has its template and compiles it at that shape to another code
 * key (current.h), or cannot run it at all (its params no longer parse,
 * its kernels no longer compile); rows of templates this build does not
 * have are kept. The rows emit reads (current retests, and every point's
 * baseline) are never touched. Holds the database's lock (lock.h), so it
 * never runs beside a sweep.
 */
#include "commands.h"
#include "current.h"
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

static const char usage_text[] =
	"usage: gemmtab prune --db DB [--env ID[,ID...]] [--dry-run] [--cache DIR]\n"
	"  --db DB       the database to prune in place\n"
	"  --env IDS     also drop every row of these environments (gemmtab query --db DB envs)\n"
	"  --dry-run     say what would go, change nothing\n"
	"  --cache DIR   the cubin cache, for candidates whose code the database does not\n"
	"                know under this build's template text [.cache/gemmtab]\n"
	"  Drops the results of (candidate, shape)s whose code this build's templates no\n"
	"  longer compile to, then the candidates left without results, then VACUUMs and\n"
	"  leaves the file in WAL mode, its -wal file folded in (the file alone is whole).\n";

/* "1,3" into envs (at most max); the count, or -1 when it is not that. */
static int parse_envs(const char *text, long long *envs, int max)
{
	int n = 0;
	const char *p = text;
	while (*p) {
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (errno || end == p || v < 1 || n == max || (*end && *end != ','))
			return -1;
		envs[n++] = v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -1;
	}
	return n ? n : -1;
}

static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

int cmd_prune(int argc, char **argv)
{
	const char *path = NULL, *env_text = NULL;
	struct jit_options jit;
	int dry_run = 0, nenv = 0, ret = 1;
	long long envs[64];
	const struct opt opts[] = {
		OPT_STRING("db", &path, OPT_REQUIRED),
		OPT_STRING("env", &env_text, 0),
		OPT_FLAG("dry-run", &dry_run),
		OPT_STRING("cache", &jit.cache_dir, 0),
		OPT_END(),
	};
	jit_options_default(&jit);
	int st = parse_options("prune", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (env_text && (nenv = parse_envs(env_text, envs, 64)) < 0)
		return usage_error("prune", usage_text, "--env: '%s' is not a list of environment "
				   "ids (1 or 1,3)", env_text);
	if (access(path, F_OK)) {
		error("cannot open database %s: %s", path, strerror(errno));
		return 1;
	}

	struct db_lock lock;
	struct db *db = NULL;
	struct db_pair *pairs = NULL, *drop = NULL;
	enum pair_state *state = NULL;
	int locked = db_lock_take(path, "prune", &lock);
	if (locked)
		return 1;
	if (db_open_existing(path, &db))
		goto out;
	for (int i = 0; i < nenv; i++) {
		struct env_info e;
		if (db_env_get(db, envs[i], &e)) {
			error("--env: %s has no environment %lld", path, envs[i]);
			goto out;
		}
	}
	long n = db_pairs(db, &pairs);
	if (n < 0)
		goto out;
	state = xmalloc(sizeof(*state) * (size_t)(n ? n : 1));
	if (current_pairs(db, &jit, "prune", pairs, n, state))
		goto out;
	drop = xmalloc(sizeof(*drop) * (size_t)(n ? n : 1));
	long ndrop = 0, absent = 0, kept_rows = 0;
	for (long i = 0; i < n; i++) {
		if (state[i] == PAIR_SUPERSEDED) {
			drop[ndrop++] = pairs[i];
			continue;
		}
		absent += state[i] == PAIR_ABSENT;
		kept_rows += pairs[i].rows;
	}
	/* what this build's text compiles to, as the sweep records it, so
	 * that report and emit look it up instead of compiling again (before
	 * the drop, whose last step deletes the variants of candidates left
	 * without results) */
	long added = 0;
	if (!dry_run) {
		const char **hashes = xcalloc((size_t)(n ? n : 1), sizeof(*hashes));
		for (long i = 0; i < n; i++) {
			const struct tmpl *t = tmpl_find(pairs[i].tmpl);
			if (state[i] == PAIR_CURRENT && t)
				hashes[i] = tmpl_source_hash(t);
		}
		int bad = db_record_variants(db, pairs, hashes, n, &added);
		free(hashes);
		if (bad)
			goto out;
	}
	struct prune_counts c;
	long long before = file_size(path);
	if (db_prune(db, drop, ndrop, envs, nenv, dry_run, &c))
		goto out;
	printf("%s %ld results of %ld superseded (candidate, shape)s, %ld candidates, "
	       "%ld variants", dry_run ? "would drop" : "dropped", c.results, ndrop,
	       c.candidates, c.variants);
	if (nenv)
		printf(", and %ld environments with %ld baselines and %ld probes", c.envs,
		       c.baselines, c.probes);
	printf("; %ld results of current code kept", kept_rows);
	if (absent)
		printf(" (%ld (candidate, shape)s of templates this build lacks kept as they are)",
		       absent);
	printf("\n");
	if (!dry_run) {
		if (added)
			printf("recorded %ld variants: what this build's template text compiles to "
			       "(later reads need not compile it)\n", added);
		if (db_compact(db))
			goto out;
		printf("%s: %lld -> %lld bytes, WAL mode\n", path, before,
		       file_size(path));
	}
	ret = 0;
out:
	db_close(db);
	db_lock_drop(&lock);
	free(pairs);
	free(drop);
	free(state);
	return ret;
}
