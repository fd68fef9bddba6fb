/*
 * kernels.c: load a compiled-in table's kernels. The cubins are the
 * tuner's own NVRTC output (tools/gt_cubin embeds them), loaded once per
 * process and table with cudaLibraryLoadData, which is
 * context-independent: the handles work on every device and inside graph
 * capture. The libraries stay loaded for the life of the process; a table
 * no device uses is never loaded.
 */
#include "rt.h"

#include <pthread.h>

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
/* per slot: 0 not tried, 1 tried (status in load_status) */
static int loaded[RT_MAX_TABLES];
static int load_status[RT_MAX_TABLES];
static const void *handles_of[RT_MAX_TABLES][RT_MAX_KERNELS];

/* Load table c's cubins and look its kernels up into handles; a gt_status. */
static int load(const struct rt_compiled *c, const void **handles)
{
	cudaLibrary_t libs[RT_MAX_KERNELS];
	int nlibs = 0, nkernels = *c->nkernels;

	if (nkernels < 0 || nkernels > RT_MAX_KERNELS)
		return GT_ERR_UNSUPPORTED;
	for (; nlibs < RT_MAX_KERNELS && c->cubins[nlibs].data; nlibs++) {
		cudaError_t e = cudaLibraryLoadData(&libs[nlibs], c->cubins[nlibs].data,
						    NULL, NULL, 0, NULL, NULL, 0);
		if (e != cudaSuccess)
			return rt_cuda_status(e);
	}
	for (int i = 0; i < nkernels; i++) {
		const struct rt_kernel_name *kn = &c->names[i];
		cudaKernel_t k;
		if (kn->cubin < 0 || kn->cubin >= nlibs)
			return GT_ERR_UNSUPPORTED;
		cudaError_t e = cudaLibraryGetKernel(&k, libs[kn->cubin], kn->lowered);
		if (e != cudaSuccess)
			return rt_cuda_status(e);
		handles[i] = (const void *)k;
	}
	return GT_OK;
}

int rt_kernels_load(int slot, const void *const **handles)
{
	if (slot < 0 || slot >= RT_MAX_TABLES)
		return GT_ERR_UNSUPPORTED;
	pthread_mutex_lock(&load_lock);
	if (!loaded[slot]) {
		load_status[slot] = load(rt_compiled_tables[slot], handles_of[slot]);
		loaded[slot] = 1;
	}
	int status = load_status[slot];
	pthread_mutex_unlock(&load_lock);
	*handles = handles_of[slot];
	return status;
}
