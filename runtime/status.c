/*
 * status.c: the library's version (gt_version, from VERSION through the
 * build) and status codes: their messages (gt_status_string)
 * and the mapping of CUDA and cuBLAS errors onto them that every other
 * file of the runtime uses.
 */
#include "rt.h"

const char *gt_version(void)
{
	return GT_VERSION;
}

const char *gt_status_string(int status)
{
	switch (status) {
	case GT_OK:
		return "success";
	case GT_ERR_INVALID:
		return "invalid argument (null pointer, m, n or k <= 0, or bad enum value)";
	case GT_ERR_UNSUPPORTED:
		return "unsupported dtype combination";
	case GT_ERR_MISALIGNED:
		return "device pointer not aligned to its element size";
	case GT_ERR_CUDA:
		return "a CUDA runtime call failed";
	case GT_ERR_CUBLAS:
		return "a cuBLAS call failed";
	case GT_ERR_NO_MEMORY:
		return "out of host or device memory";
	}
	return "unknown status";
}

int rt_cuda_status(cudaError_t e)
{
	if (e == cudaSuccess)
		return GT_OK;
	return e == cudaErrorMemoryAllocation ? GT_ERR_NO_MEMORY : GT_ERR_CUDA;
}

int rt_blas_status(cublasStatus_t e)
{
	if (e == CUBLAS_STATUS_SUCCESS)
		return GT_OK;
	return e == CUBLAS_STATUS_ALLOC_FAILED ? GT_ERR_NO_MEMORY : GT_ERR_CUBLAS;
}
