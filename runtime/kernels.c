/*
 * kernels.c: load the dispatch table's kernels. The cubins are the
 * tuner's own NVRTC output (tools/gt_cubin embeds them), loaded once per
 * process with cudaLibraryLoadData, which is context-independent: the
 * handles work on every device and inside graph capture. The libraries
 * stay loaded for the life of the process.
 */
#include "rt.h"

#include <pthread.h>

const void *gt_table_kernels[RT_MAX_KERNELS];

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = GT_OK;

static void load(void)
{
	cudaLibrary_t libs[RT_MAX_KERNELS];
	int nlibs = 0;

	if (gt_table_nkernels > RT_MAX_KERNELS) {
		load_status = GT_ERR_UNSUPPORTED;
		return;
	}
	for (; gt_table_cubins[nlibs].data; nlibs++) {
		cudaError_t e = cudaLibraryLoadData(&libs[nlibs], gt_table_cubins[nlibs].data,
						    NULL, NULL, 0, NULL, NULL, 0);
		if (e != cudaSuccess) {
			load_status = rt_cuda_status(e);
			return;
		}
	}
	for (int i = 0; i < gt_table_nkernels; i++) {
		const struct rt_kernel_name *kn = &gt_table_kernel_names[i];
		cudaKernel_t k;
		if (kn->cubin < 0 || kn->cubin >= nlibs) {
			load_status = GT_ERR_UNSUPPORTED;
			return;
		}
		cudaError_t e = cudaLibraryGetKernel(&k, libs[kn->cubin], kn->lowered);
		if (e != cudaSuccess) {
			load_status = rt_cuda_status(e);
			return;
		}
		gt_table_kernels[i] = (const void *)k;
	}
}

int rt_kernels_load(void)
{
	pthread_once(&load_once, load);
	return load_status;
}
