/*
 * fuzz_space.c: libFuzzer target over the search-space loader and the
 * task builder: each input is a space file; what loads is enumerated into
 * its tasks (every shape, M and grid point, the adapters' checks and
 * kernel names), as `gemmtab sweep --dry-run` does. No NVRTC. Seeds:
 * search_spaces/ and tests/spaces/ (make fuzz).
 */
#include "space.h"
#include "tasks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[4096];

/* The input's file, in $TMPDIR (else /tmp), removed after each input. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/gemmtab-fuzz-space.%d.yaml", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	struct space sp;
	if (space_load(path, &sp) == 0) {
		struct tasklist tl;
		if (tasks_build(&sp, NULL, &tl) == 0)
			tasks_free(&tl);
		space_free(&sp);
	}
	unlink(path);
	return 0;
}
