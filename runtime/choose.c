/*
 * choose.c: which compiled-in table a device uses, and whether an entry's
 * evidence still holds under the libraries at hand. Pure functions, no
 * CUDA calls: the CPU tests run every branch with made-up devices.
 *
 * The rule (docs/hopper.md): a table serves a device when the GPU name it
 * was tuned on (cudaDeviceProp.name, as the tuner's worker reports it) is
 * the device's, its SM count is the device's (a cut-down part of the same
 * name would run the same tiles in other waves), and its kernels' arch is
 * the device's compute capability (the cubins are sm_90a: they run on
 * compute capability 9.0 alone). The first such table in TABLES order is
 * used; with none, every M runs the cuBLAS baseline. Versions never
 * choose a table: an entry that runs its own sm_90a kernels keeps its
 * correctness and is only possibly slower after a driver or CUDA update
 * (`gemmtab verify` re-times it), while a cuBLASLt entry names an
 * algorithm of one cuBLASLt version and is turned off alone when the
 * version differs.
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *text_or(const char *s, const char *fallback)
{
	return s && *s ? s : fallback;
}

/* The compute capability an arch text names ("sm_90a": 90), or -1. */
static int arch_cc(const char *arch)
{
	int cc = 0, digits = 0;
	if (!arch || strncmp(arch, "sm_", 3))
		return -1;
	for (const char *p = arch + 3; *p >= '0' && *p <= '9'; p++, digits++)
		cc = cc * 10 + (*p - '0');
	return digits == 2 || digits == 3 ? cc : -1;
}

void rt_table_words(const struct gt_table *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s, %d SMs, CUDA %s, driver %s, cuBLASLt %s, kernels %s; %d entries",
		 text_or(t->gpu_name, "(unknown GPU)"), t->sm_count, text_or(t->cuda, "(unknown)"),
		 text_or(t->driver, "(unknown)"), text_or(t->cublaslt, "(unknown)"),
		 text_or(t->arch, "(unknown arch)"), t->nentries);
}

/* Why table t does not serve env, into buf; NULL when it does. */
static const char *table_refusal(const struct gt_table *t, const struct rt_env *env,
				 char *buf, size_t len)
{
	const char *name = text_or(t->gpu_name, "(unknown)");
	if (strcmp(name, env->gpu_name))
		snprintf(buf, len, "tuned on %s, not this %s", name, env->gpu_name);
	else if (t->sm_count != env->sm_count)
		snprintf(buf, len, "tuned on %s with %d SMs, this one has %d", name, t->sm_count,
			 env->sm_count);
	else if (arch_cc(t->arch) != env->cc)
		snprintf(buf, len, "its kernels are %s, this device is compute capability %d.%d",
			 text_or(t->arch, "(unknown arch)"), env->cc / 10, env->cc % 10);
	else
		return NULL;
	return buf;
}

/* Append printf-style text to desc at *used (len bytes in all). */
static void append(char *desc, size_t len, size_t *used, const char *text)
{
	if (!desc || *used >= len)
		return;
	int n = snprintf(desc + *used, len - *used, "%s", text);
	*used += n > 0 ? (size_t)n : 0;
}

int rt_table_pick(const struct rt_compiled *const *tables, const struct rt_env *env,
		  char *desc, size_t len)
{
	char why[2 * RT_NAME_MAX + 64], words[RT_WHY_MAX + RT_NAME_MAX], part[RT_DESC_MAX];
	size_t used = 0;
	int pick = -1;
	if (desc && len)
		desc[0] = '\0';
	for (int i = 0; tables[i]; i++)
		if (pick < 0 && !table_refusal(tables[i]->table, env, why, sizeof(why)))
			pick = i;
	if (pick >= 0) {
		const struct gt_table *t = tables[pick]->table;
		rt_table_words(t, words, sizeof(words));
		snprintf(part, sizeof(part), "table %s in use on %s (%d SMs): tuned on %s; %s",
			 text_or(tables[pick]->path, "(unnamed)"), env->gpu_name, env->sm_count,
			 words, text_or(t->generated_by, "(unknown origin)"));
	} else {
		snprintf(part, sizeof(part), "no table for %s (%d SMs, compute capability "
			 "%d.%d): every M runs the cuBLAS baseline", env->gpu_name,
			 env->sm_count, env->cc / 10, env->cc % 10);
	}
	append(desc, len, &used, part);
	for (int i = 0; tables[i]; i++) {
		if (i == pick)
			continue;
		const struct gt_table *t = tables[i]->table;
		if (!table_refusal(t, env, why, sizeof(why)))
			snprintf(why, sizeof(why), "%s, listed earlier, serves it first",
				 text_or(tables[pick]->path, "(unnamed)"));
		rt_table_words(t, words, sizeof(words));
		snprintf(part, sizeof(part), "; table %s not chosen: %s (tuned on %s; %s)",
			 text_or(tables[i]->path, "(unnamed)"), why, words,
			 text_or(t->generated_by, "(unknown origin)"));
		append(desc, len, &used, part);
	}
	return pick;
}

void rt_route_env_check(struct rt_route *r, const struct gt_table *t, const struct rt_env *env)
{
	const char *lt = text_or(t->cublaslt, "(unknown)");
	if (r->lt && strcmp(lt, env->cublaslt))
		rt_route_disable(r, "a cuBLASLt algorithm chosen under cuBLASLt %s, this process "
				 "runs cuBLASLt %s (gemmtab verify re-times the table here)", lt,
				 env->cublaslt);
}
