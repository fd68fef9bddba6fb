/*
 * fuzz_db.c: libFuzzer target over the database readers: each input is a
 * database file, read as `gemmtab report` and `gemmtab emit` read it
 * (open read-only, integrity_check, environment, best and retest rows,
 * the current-code filter, the table written to a temp folder). NVRTC is
 * kept out (nojit.c: nothing compiles). Seed: tests/fuzz/seeds/db/.
 */
#include "commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], db[96], out[96], cache[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/gemmtab-fuzz-db.%d", (int)getpid());
	snprintf(db, sizeof(db), "%s/t.db", dir);
	snprintf(out, sizeof(out), "%s/t.h", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	if (mkdir(dir, 0700) && access(dir, W_OK))
		abort();
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
	unlink(out);
	char kernels[128];
	snprintf(kernels, sizeof(kernels), "%s/t_kernels.cu", dir);
	unlink(kernels);
	unlink(db);
	return 0;
}
