/*
 * context.c: the library's entry points that need no weight: the context
 * (one device, described the way a table records its tuning environment,
 * and the compiled-in table it uses chosen once: choose.c), the
 * description of the last choice, and the device switching the other
 * files share.
 */
#include "rt.h"

#include <cublasLt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_device_enter(int device, int *saved)
{
	int status = rt_cuda_status(cudaGetDevice(saved));
	if (status == GT_OK && *saved != device)
		status = rt_cuda_status(cudaSetDevice(device));
	return status;
}

int rt_device_leave(int saved)
{
	int current = saved;
	int status = rt_cuda_status(cudaGetDevice(&current));
	if (status == GT_OK && current != saved)
		status = rt_cuda_status(cudaSetDevice(saved));
	return status;
}

/* "13.0" from CUDA's 13000-style version numbers (as the tuner's worker
 * records them). */
static void cuda_version_text(int v, char *out, size_t len)
{
	snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}

/* The environment of device as the table records its tuning one. */
static int device_env(int device, struct rt_env *env, size_t *smem_optin)
{
	struct cudaDeviceProp prop;
	int drv = 0, rt = 0;
	int status = rt_cuda_status(cudaGetDeviceProperties(&prop, device));
	if (status == GT_OK)
		status = rt_cuda_status(cudaDriverGetVersion(&drv));
	if (status == GT_OK)
		status = rt_cuda_status(cudaRuntimeGetVersion(&rt));
	if (status != GT_OK)
		return status;
	memset(env, 0, sizeof(*env));
	snprintf(env->gpu_name, sizeof(env->gpu_name), "%s", prop.name);
	env->sm_count = prop.multiProcessorCount;
	env->cc = 10 * prop.major + prop.minor;
	cuda_version_text(drv, env->driver, sizeof(env->driver));
	cuda_version_text(rt, env->cuda, sizeof(env->cuda));
	version_text(cublasLtGetVersion(), env->cublaslt, sizeof(env->cublaslt));
	if (smem_optin)
		*smem_optin = prop.sharedMemPerBlockOptin;
	return GT_OK;
}

/* The description of the choice the last gt_context_create made (one
 * buffer per device ordinal, written once under the lock, before the
 * pointer to it is published), or of the tables compiled in before any
 * context: read from any thread without a CUDA call. */
#define RT_DESC_DEVICES 64
static pthread_mutex_t description_lock = PTHREAD_MUTEX_INITIALIZER;
static char chosen[RT_DESC_DEVICES][RT_DESC_MAX];
static _Atomic(const char *) last_choice;
static pthread_once_t compiled_once = PTHREAD_ONCE_INIT;
static char compiled[RT_DESC_MAX];

/* Record the choice made for ctx's device as the description; a table
 * chosen whose kernels did not load (ctx->tc NULL) is said to be unused. */
static void describe_choice(const gt_context *ctx, int chose)
{
	if (ctx->device >= RT_DESC_DEVICES)
		return;
	char *d = chosen[ctx->device];
	pthread_mutex_lock(&description_lock);
	if (!d[0]) {
		rt_table_pick(rt_compiled_tables, &ctx->env, d, RT_DESC_MAX);
		size_t used = strlen(d);
		if (chose && !ctx->tc && used < RT_DESC_MAX)
			snprintf(d + used, RT_DESC_MAX - used, "; but %s: every M runs the cuBLAS "
				 "baseline", ctx->no_table);
	}
	pthread_mutex_unlock(&description_lock);
	atomic_store(&last_choice, (const char *)d);
}

int gt_context_create(int device, gt_context **out)
{
	int count = 0;
	if (!out || device < 0)
		return GT_ERR_INVALID;
	int status = rt_cuda_status(cudaGetDeviceCount(&count));
	if (status != GT_OK)
		return status;
	if (device >= count)
		return GT_ERR_INVALID;
	gt_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return GT_ERR_NO_MEMORY;
	ctx->device = device;
	status = device_env(device, &ctx->env, &ctx->smem_optin);
	if (status != GT_OK) {
		free(ctx);
		return status;
	}
	int slot = rt_table_pick(rt_compiled_tables, &ctx->env, NULL, 0);
	if (slot < 0) {
		snprintf(ctx->no_table, sizeof(ctx->no_table), "no table for %s with %d SMs "
			 "compiled in (gt_table_description says why each was not chosen)",
			 ctx->env.gpu_name, ctx->env.sm_count);
	} else {
		/* the table's kernels are sm_90a cubins: loaded only for the
		 * table this device uses; a failure falls back to the
		 * baseline, not an error */
		int ks = rt_kernels_load(slot, &ctx->kernels);
		if (ks != GT_OK) {
			snprintf(ctx->no_table, sizeof(ctx->no_table), "the kernels of table %s "
				 "could not be loaded (%s)", rt_compiled_tables[slot]->path,
				 gt_status_string(ks));
		} else {
			ctx->tc = rt_compiled_tables[slot];
			ctx->nkernels = *ctx->tc->nkernels;
		}
	}
	describe_choice(ctx, slot >= 0);
	*out = ctx;
	return GT_OK;
}

int gt_context_destroy(gt_context *ctx)
{
	free(ctx);
	return GT_OK;
}

/* The tables compiled in, before any context chose one. */
static void describe_compiled(void)
{
	char words[RT_WHY_MAX + RT_NAME_MAX];
	int n = snprintf(compiled, sizeof(compiled), "no table chosen yet (no context created)");
	size_t used = n > 0 ? (size_t)n : 0;
	for (int i = 0; rt_compiled_tables[i] && used < sizeof(compiled); i++) {
		const struct gt_table *t = rt_compiled_tables[i]->table;
		rt_table_words(t, words, sizeof(words));
		n = snprintf(compiled + used, sizeof(compiled) - used, "; table %s compiled in: "
			     "tuned on %s; %s", rt_compiled_tables[i]->path, words,
			     t->generated_by ? t->generated_by : "(unknown origin)");
		used += n > 0 ? (size_t)n : 0;
	}
}

const char *gt_table_description(void)
{
	const char *d = atomic_load(&last_choice);
	if (d)
		return d;
	if (pthread_once(&compiled_once, describe_compiled))
		return "(table description unavailable)";
	return compiled;
}
