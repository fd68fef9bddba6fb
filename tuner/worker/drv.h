/*
 * drv.h: the CUDA driver API entry points the worker uses, resolved at run
 * time through cudart (cudaGetDriverEntryPointByVersion) instead of linking
 * libcuda: the gemmtab binary then starts on a machine without a GPU
 * driver (CI, `gemmtab sweep --dry-run`, `gemmtab compile`), and only the
 * worker needs the driver. Call through drv.<name> after drv_load().
 */
#ifndef GT_DRV_H
#define GT_DRV_H

#include <cuda.h>

struct gt_drv {
	__typeof__(&cuGetErrorName) GetErrorName;
	__typeof__(&cuGetErrorString) GetErrorString;
	__typeof__(&cuInit) Init;
	__typeof__(&cuCtxGetCurrent) CtxGetCurrent;
	__typeof__(&cuModuleLoadData) ModuleLoadData;
	__typeof__(&cuModuleUnload) ModuleUnload;
	__typeof__(&cuModuleGetFunction) ModuleGetFunction;
	__typeof__(&cuFuncGetAttribute) FuncGetAttribute;
	__typeof__(&cuFuncSetAttribute) FuncSetAttribute;
	__typeof__(&cuFuncGetParamInfo) FuncGetParamInfo;
	__typeof__(&cuLaunchKernel) LaunchKernel;
	__typeof__(&cuLaunchKernelEx) LaunchKernelEx;
	__typeof__(&cuOccupancyMaxActiveBlocksPerMultiprocessor) OccupancyMaxActiveBlocks;
	__typeof__(&cuOccupancyMaxActiveClusters) OccupancyMaxActiveClusters;
};

extern struct gt_drv drv;

/* Resolve every entry point (idempotent). Returns 0, or -1 with a message
 * naming the first symbol the driver does not provide. */
int drv_load(void);

#endif
