/*
 * cmd_compile.c: `gemmtab compile`, NVRTC compilation of every
 * instantiation a search space names, with no GPU: what `make test` uses
 * to prove the templates compile for the target, and a way to warm the
 * cubin cache before a GPU run.
 */
#include "commands.h"
#include "options.h"
#include "sass.h"
#include "sweep.h"
#include "tasks.h"
#include "util.h"

#include <stdio.h>

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
	const struct opt opts[] = {
		OPT_STRING("space", &space, OPT_REQUIRED),
		OPT_STRING("cache", &jit.cache_dir, 0),
		OPT_INT("jobs", &jit.nproc, 1, OPT_MAX_JOBS),
		OPT_FLAG("quiet", &quiet),
		OPT_END(),
	};

	jit_options_default(&jit);
	int st = parse_options("compile", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (space_load(space, &sp))
		return 2;
	const double started = now_seconds();
	if (tasks_build(&sp, NULL, &tl) || tasks_compile(&tl, &jit, quiet, NULL)) {
		space_free(&sp);
		return 1;
	}
	/* this machine's rate, for the dry run's estimate: fresh compiles
	 * only, and enough of them to mean something */
	int fresh = 0;
	for (int i = 0; i < tl.nitems; i++)
		fresh += tl.tried[i] && tl.items[i].ok && !tl.items[i].cached;
	if (fresh >= 10)
		sweep_compile_rate_save(jit.cache_dir, fresh, now_seconds() - started);
	int failed = 0;
	for (int i = 0; i < tl.nitems; i++) {
		const struct jit_item *it = &tl.items[i];
		char code[17], why[512];
		if (it->ok && sass_kernel_hash(it->cubin, it->lowered, code, why, sizeof(why))) {
			printf("FAILED %s: %s\n", it->name, why);
			failed++;
		} else if (it->ok) {
			printf("ok %s regs=%d local=%d smem=%d code=%s\n", it->name, it->regs,
			       it->local_bytes, it->smem_bytes, code);
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
