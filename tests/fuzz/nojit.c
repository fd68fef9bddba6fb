/*
 * nojit.c: the fuzz targets' stand-in for tuner/jit/jit.c, so that no
 * fuzzed path reaches NVRTC: nothing compiles (every item fails with a
 * reason, as a template the toolkit rejects would), which sends emit and
 * report down their "code not known" paths. The rest of jit.h behaves as
 * in the tool.
 */
#include "jit.h"

#include <stdio.h>
#include <string.h>

const char *jit_item_code(struct jit_item *it, char *why, size_t len)
{
	(void)it;
	snprintf(why, len, "not compiled in a fuzz target");
	return NULL;
}

const char *jit_nvrtc_version(void)
{
	return "0.0";
}

char *jit_flags(const struct jit_options *opts, char *buf, size_t len)
{
	snprintf(buf, len, "--gpu-architecture=%s", opts->arch ? opts->arch : "");
	return buf;
}

int jit_compile_all(const struct jit_options *opts, struct jit_item *items, int n,
		    void (*progress)(void *ctx, int done, int total), void *ctx)
{
	(void)opts;
	for (int i = 0; i < n; i++) {
		items[i].ok = 0;
		items[i].cached = 0;
		items[i].regs = items[i].local_bytes = items[i].smem_bytes = -1;
		snprintf(items[i].error, sizeof(items[i].error), "not compiled in a fuzz target");
		items[i].code[0] = '\0';
	}
	if (progress)
		progress(ctx, n, n);
	return 0;
}

void jit_options_default(struct jit_options *o)
{
	memset(o, 0, sizeof(*o));
	o->cuda_include = "/nonexistent";
	o->arch = "sm_90a";
	o->cache_dir = "/nonexistent";
	o->batch = 16;
	o->deadline_s = 1;
}
