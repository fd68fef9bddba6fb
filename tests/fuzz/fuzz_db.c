/*
 * fuzz_db.c: libFuzzer target over the database readers: each input is a
 * database file, read as `gemmtab report`, `gemmtab emit` and `gemmtab
 * query best` read it (open read-only, integrity_check, environment, best
 * and retest rows, the current-code filter, the table written to a
 * private folder in $TMPDIR, removed at exit). NVRTC is kept out
 * (nojit.c: nothing compiles). Seed: a fake sweep's database that the
 * build makes (tests/fuzz/seed_db.sh).
 */
#include "commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[4096], db[4200], out[4200], cache[4200];

/* The files an input may leave: the database and its side files, the
 * table and its kernels file. */
static void remove_files(void)
{
	static const char *const names[] = { "t.db", "t.db-journal", "t.db-wal", "t.db-shm",
					      "t.h", "t_kernels.cu" };
	char p[4200];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
}

/* At exit: the folder, empty by then (the cache is never written: no
 * NVRTC here). */
static void remove_dir(void)
{
	remove_files();
	rmdir(cache);
	rmdir(dir);
}

/* A private folder in $TMPDIR (else /tmp), removed at exit. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/gemmtab-fuzz-db.%d", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	snprintf(db, sizeof(db), "%s/t.db", dir);
	snprintf(out, sizeof(out), "%s/t.h", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	if (mkdir(dir, 0700) && access(dir, W_OK))
		abort();
	atexit(remove_dir);
	/* the reports go nowhere; libFuzzer and the sanitizers use stderr */
	int null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(null, 1) < 0)
		abort();
	close(null);
	return 0;
}

static void run(int (*cmd)(int, char **), int argc, const char *const *argv)
{
	char *copy[16];
	for (int i = 0; i < argc; i++)
		copy[i] = strdup(argv[i]);
	copy[argc] = NULL;
	cmd(argc, copy);
	for (int i = 0; i < argc; i++)
		free(copy[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(db, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	const char *report[] = { "report", "--db", db };
	run(cmd_report, 3, report);
	const char *emit[] = { "emit", "--db", db, "--out", out, "--cache", cache };
	run(cmd_emit, 7, emit);
	const char *query[] = { "query", "--db", db, "best" };
	run(cmd_query, 4, query);
	remove_files();
	return 0;
}
