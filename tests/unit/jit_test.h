/*
 * jit_test.h: what the unit tests that drive the real NVRTC compile
 * service share (test_jit.c, test_mma.c): compile options over a fresh
 * cubin cache directory, its removal (it has subdirectories), and the
 * instantiations to compile, by name or from a template's candidate.
 * Header-only, like check.h.
 */
#ifndef GT_TEST_JIT_H
#define GT_TEST_JIT_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "tmpl.h"
#include "util.h"

static char cache_dir[64];

/* The tuner's options (jit_options_default: the build's arch, CUDA_HOME's
 * headers) with nproc compile processes over a new, empty cache directory
 * /tmp/gemmtab-test-TAG-XXXXXX (in cache_dir). */
static inline struct jit_options jit_test_options(const char *tag, int nproc)
{
	struct jit_options o;
	jit_options_default(&o);
	snprintf(cache_dir, sizeof(cache_dir), "/tmp/gemmtab-test-%s-XXXXXX", tag);
	if (!mkdtemp(cache_dir))
		die("cannot create a temporary directory");
	o.cache_dir = cache_dir;
	o.nproc = nproc;
	o.batch = 4;
	o.deadline_s = 300;
	return o;
}

static inline int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static inline void remove_cache(void)
{
	nftw(cache_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* items[n] := the name expression name of source; returns n + 1. */
static inline int add_item(struct jit_item *items, int n, const char *source, const char *name)
{
	size_t len = strlen(name);
	if (len >= sizeof(items[n].name))
		die("instantiation name too long: %s", name);
	memset(&items[n], 0, sizeof(items[n]));
	items[n].source_name = source;
	memcpy(items[n].name, name, len + 1);
	return n + 1;
}

/* Every kernel candidate p of template stem launches for shape s, from
 * items[n] on; returns the new count. */
static inline int add_candidate(struct jit_item *items, int n, const char *stem,
			 const struct shape *s, const long *p)
{
	const struct tmpl *t = tmpl_find(stem);
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	int k = t->kernels(s, p, names, TMPL_MAX_KERNELS);
	for (int i = 0; i < k; i++)
		n = add_item(items, n, t->source, names[i]);
	return n;
}

#endif
