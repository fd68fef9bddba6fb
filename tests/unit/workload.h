/*
 * workload.h: test fixtures shared by the unit tests: the projection
 * shapes of docs/workload.md the template tests use, a reader for
 * the constants a template file #defines (so a test can check that an
 * adapter and its .cuh agree), and a check of a launch step's arguments. Header-only, like check.h.
 */
#ifndef GT_TEST_WORKLOAD_H
#define GT_TEST_WORKLOAD_H

#include <stdlib.h>
#include <string.h>

#include "tmpl.h"
#include "types.h"
#include "util.h"

static const struct shape qkv = {
	.family = "qkv", .n = 2304, .k = 8192, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16,
	.tol = 1e-2,
};
static const struct shape oproj = {
	.family = "oproj", .n = 8192, .k = 1024, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16,
	.tol = 1e-2,
};
static const struct shape router = {
	.family = "router", .n = 256, .k = 8192, .w = DT_FP32, .x = DT_BF16, .y = DT_FP32,
	.tol = 1e-4,
};

/* The integer after "#define name " in the file at path, or -1. */
static inline long define_in(const char *path, const char *name)
{
	char *text = read_file(path, NULL);
	if (!text)
		return -1;
	char *key = xasprintf("#define %s ", name);
	char *p = strstr(text, key);
	long v = p ? strtol(p + strlen(key), NULL, 10) : -1;
	free(key);
	free(text);
	return v;
}

/* 1 when the launch step's arguments are exactly kinds[0..n), in order. */
static inline int arg_kinds_are(const struct launch_step *st, const enum arg_kind *kinds, int n)
{
	if (st->nargs != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (st->args[i].kind != kinds[i])
			return 0;
	return 1;
}

#endif
