/*
 * cmd_compile.c: `gemmtab compile`, NVRTC compilation of every
 * instantiation a search space names, with no GPU: what `make test` uses
 * to prove the templates compile for the target, and a way to warm the
 * cubin cache before a GPU run.
 */
#include "commands.h"
#include "tasks.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: gemmtab compile --space FILE [--cache DIR] [--jobs N] [--quiet]\n"
	"  exit status 0 when every instantiation compiled, 1 when any failed\n";

int cmd_compile(int argc, char **argv)
{
	struct jit_options jit;
	struct space sp;
	struct tasklist tl;
	const char *space = NULL;
	int quiet = 0;

	jit_options_default(&jit);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else if (!strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (i + 1 >= argc) {
			fprintf(stderr, "gemmtab compile: %s needs a value\n%s", argv[i], usage_text);
			return 2;
		} else if (!strcmp(argv[i], "--space")) {
			space = argv[++i];
		} else if (!strcmp(argv[i], "--cache")) {
			jit.cache_dir = argv[++i];
		} else if (!strcmp(argv[i], "--jobs")) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 1 || n > 1024) {
				fprintf(stderr, "gemmtab compile: --jobs: '%s' is not a count in [1, 1024]\n",
					argv[i]);
				return 2;
			}
			jit.nproc = (int)n;
		} else {
			fprintf(stderr, "gemmtab compile: unknown option '%s'\n%s", argv[i], usage_text);
			return 2;
		}
	}
	if (!space) {
		fprintf(stderr, "gemmtab compile: --space is required\n%s", usage_text);
		return 2;
	}
	if (space_load(space, &sp))
		return 2;
	if (tasks_build(&sp, NULL, &tl) || tasks_compile(&tl, &jit, quiet)) {
		space_free(&sp);
		return 1;
	}
	int failed = 0;
	for (int i = 0; i < tl.nitems; i++) {
		const struct jit_item *it = &tl.items[i];
		if (it->ok) {
			printf("ok %s regs=%d local=%d smem=%d\n", it->name, it->regs,
			       it->local_bytes, it->smem_bytes);
		} else {
			printf("FAILED %s: %s\n", it->name, it->error);
			failed++;
		}
	}
	printf("%d instantiations, %d compiled, %d failed\n", tl.nitems, tl.nitems - failed, failed);
	tasks_free(&tl);
	space_free(&sp);
	return failed ? 1 : 0;
}
