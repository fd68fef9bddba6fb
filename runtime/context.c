/*
 * context.c: the library's entry points that need no weight: the context
 * (one device, described the way the table records its tuning environment,
 * and compared against it once), the compiled-in table's description, and
 * the device switching the other files share.
 */
#include "rt.h"

#include <cublasLt.h>
#include <pthread.h>
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

int gt_context_create(int device, gt_context **out)
{
	struct cudaDeviceProp prop;
	int count = 0;
	if (!out || device < 0)
		return GT_ERR_INVALID;
	int status = rt_cuda_status(cudaGetDeviceCount(&count));
	if (status != GT_OK)
		return status;
	if (device >= count)
		return GT_ERR_INVALID;
	status = rt_cuda_status(cudaGetDeviceProperties(&prop, device));
	if (status != GT_OK)
		return status;

	gt_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return GT_ERR_NO_MEMORY;
	ctx->device = device;
	snprintf(ctx->env.gpu_name, sizeof(ctx->env.gpu_name), "%s", prop.name);
	ctx->env.sm_count = prop.multiProcessorCount;
	version_text(cublasLtGetVersion(), ctx->env.cublaslt, sizeof(ctx->env.cublaslt));
	ctx->smem_optin = prop.sharedMemPerBlockOptin;
	ctx->table_mismatch = rt_env_mismatch(rt_table(), &ctx->env, ctx->mismatch,
					      sizeof(ctx->mismatch));
	/* The table's kernels are sm_90a cubins: load them only where the
	 * table applies; a failure falls back to the baseline, not an error. */
	if (!ctx->table_mismatch) {
		int ks = rt_kernels_load();
		if (ks != GT_OK) {
			ctx->table_mismatch = 1;
			snprintf(ctx->mismatch, sizeof(ctx->mismatch),
				 "the table's kernels could not be loaded (%s)", gt_status_string(ks));
		}
	}
	*out = ctx;
	return GT_OK;
}

int gt_context_destroy(gt_context *ctx)
{
	free(ctx);
	return GT_OK;
}

/* The description is formatted once, on first use, from any thread. */
static pthread_once_t description_once = PTHREAD_ONCE_INIT;
static char description[1024];

static void describe_table(void)
{
	const struct gt_table *t = rt_table();
	snprintf(description, sizeof(description),
		 "%s; tuned on %s with %d SMs, CUDA %s, cuBLASLt %s, templates %s; %d entries",
		 t->generated_by ? t->generated_by : "(unknown origin)",
		 t->gpu_name ? t->gpu_name : "(unknown)", t->sm_count,
		 t->cuda ? t->cuda : "(unknown)", t->cublaslt ? t->cublaslt : "(unknown)",
		 t->source_hash ? t->source_hash : "(unknown)", t->nentries);
}

const char *gt_table_description(void)
{
	if (pthread_once(&description_once, describe_table))
		return "(table description unavailable)";
	return description;
}
