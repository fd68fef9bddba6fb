/*
 * drv.c: resolve the driver API entry points of drv.h through cudart, so
 * nothing links libcuda (see drv.h for why).
 */
#include "drv.h"
#include "util.h"

#include <cuda_runtime_api.h>

struct gt_drv drv;

static int resolve(const char *symbol, void **fn)
{
	enum cudaDriverEntryPointQueryResult q;
	cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, fn, CUDA_VERSION,
							 cudaEnableDefault, &q);
	if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fn)
		return error("CUDA driver entry point %s not found (%s)", symbol,
			     e != cudaSuccess ? cudaGetErrorString(e) : "not in this driver");
	return 0;
}

int drv_load(void)
{
	static int loaded;
	if (loaded)
		return 0;
	if (resolve("cuGetErrorName", (void **)&drv.GetErrorName) ||
	    resolve("cuGetErrorString", (void **)&drv.GetErrorString) ||
	    resolve("cuInit", (void **)&drv.Init) ||
	    resolve("cuCtxGetCurrent", (void **)&drv.CtxGetCurrent) ||
	    resolve("cuModuleLoadData", (void **)&drv.ModuleLoadData) ||
	    resolve("cuModuleUnload", (void **)&drv.ModuleUnload) ||
	    resolve("cuModuleGetFunction", (void **)&drv.ModuleGetFunction) ||
	    resolve("cuFuncGetAttribute", (void **)&drv.FuncGetAttribute) ||
	    resolve("cuFuncSetAttribute", (void **)&drv.FuncSetAttribute) ||
	    resolve("cuFuncGetParamInfo", (void **)&drv.FuncGetParamInfo) ||
	    resolve("cuLaunchKernel", (void **)&drv.LaunchKernel) ||
	    resolve("cuLaunchKernelEx", (void **)&drv.LaunchKernelEx) ||
	    resolve("cuOccupancyMaxActiveBlocksPerMultiprocessor",
		    (void **)&drv.OccupancyMaxActiveBlocks) ||
	    resolve("cuOccupancyMaxActiveClusters", (void **)&drv.OccupancyMaxActiveClusters))
		return -1;
	loaded = 1;
	return 0;
}
