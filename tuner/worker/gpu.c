/*
 * gpu.c: the worker's CUDA context and the device state around it:
 * checked calls and the record of the first error (sticky or not), the
 * stream, cuBLAS handles, L2 flush buffer, event pool, candidate
 * workspace, and stream capture into CUDA graphs.
 */
#include "gpu.h"
#include "drv.h"
#include "harness.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first error since gpu_error_clear, and whether any was sticky. */
static struct {
	int set;
	int sticky;
	int refused;            /* the recorded one is a gpu_refuse */
	char msg[512];
} last_error;

static void record(int sticky, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void record(int sticky, const char *fmt, ...)
{
	char msg[sizeof(last_error.msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s", msg);
	/* a sticky error explains everything after it: it wins the record */
	if (!last_error.set || (sticky && !last_error.sticky)) {
		memcpy(last_error.msg, msg, sizeof(msg));
		last_error.set = 1;
		last_error.refused = 0;
	}
	last_error.sticky |= sticky;
}

/* Errors after which the context is unusable: every later call fails. */
static int rt_sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress: case cudaErrorLaunchTimeout:
	case cudaErrorAssert: case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace: case cudaErrorInvalidPc:
	case cudaErrorLaunchFailure: case cudaErrorContextIsDestroyed:
	case cudaErrorECCUncorrectable: case cudaErrorNvlinkUncorrectable:
	case cudaErrorUnknown:
		return 1;
	default:
		return 0;
	}
}

static int drv_sticky(CUresult e)
{
	switch (e) {
	case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ASSERT: case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION: case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE: case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_CONTEXT_IS_DESTROYED:
	case CUDA_ERROR_ECC_UNCORRECTABLE: case CUDA_ERROR_NVLINK_UNCORRECTABLE:
	case CUDA_ERROR_UNKNOWN:
		return 1;
	default:
		return 0;
	}
}

int gpu_check_rt(cudaError_t e, const char *call, const char *file, int line)
{
	if (e == cudaSuccess)
		return 0;
	record(rt_sticky(e), "%s:%d: %s: %s: %s", file, line, call,
	       cudaGetErrorName(e), cudaGetErrorString(e));
	cudaGetLastError();     /* reset a non-sticky error so later checks see their own */
	return -1;
}

int gpu_check_drv(CUresult e, const char *call, const char *file, int line)
{
	if (e == CUDA_SUCCESS)
		return 0;
	const char *name = NULL, *str = NULL;
	if (!drv.GetErrorName || drv.GetErrorName(e, &name) != CUDA_SUCCESS)
		name = "CUDA_ERROR_?";
	if (!drv.GetErrorString || drv.GetErrorString(e, &str) != CUDA_SUCCESS)
		str = "unknown driver error";
	record(drv_sticky(e), "%s:%d: %s: %s: %s (%d)", file, line, call, name, str, (int)e);
	return -1;
}

int gpu_check_blas(cublasStatus_t e, const char *call, const char *file, int line)
{
	if (e == CUBLAS_STATUS_SUCCESS)
		return 0;
	/* an execution failure may hide a sticky CUDA error: gpu_error_sticky probes */
	record(0, "%s:%d: %s: %s: %s", file, line, call, cublasGetStatusName(e),
	       cublasGetStatusString(e));
	cudaGetLastError();
	return -1;
}

int gpu_fail(const char *fmt, ...)
{
	char msg[sizeof(last_error.msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	record(0, "%s", msg);
	return -1;
}

int gpu_refuse(const char *fmt, ...)
{
	if (last_error.set)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error.msg, sizeof(last_error.msg), fmt, ap);
	va_end(ap);
	last_error.set = 1;
	last_error.refused = 1;
	return -1;
}

int gpu_error_refused(void)
{
	return last_error.set && last_error.refused;     /* a sticky error clears it */
}

const char *gpu_error(void)
{
	return last_error.set ? last_error.msg : NULL;
}

void gpu_error_clear(void)
{
	last_error.set = 0;
	last_error.sticky = 0;
	last_error.refused = 0;
	last_error.msg[0] = '\0';
}

int gpu_error_sticky(struct gpu *g)
{
	if (last_error.sticky)
		return 1;
	/* a capture left open would make the probe below fail by itself */
	enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
	if (g->stream && cudaStreamIsCapturing(g->stream, &st) == cudaSuccess &&
	    st != cudaStreamCaptureStatusNone) {
		cudaGraph_t graph = NULL;
		cudaStreamEndCapture(g->stream, &graph);
		if (graph)
			cudaGraphDestroy(graph);
	}
	cudaGetLastError();
	if (cudaDeviceSynchronize() == cudaSuccess)
		return 0;
	cudaGetLastError();
	/* a second failure means the error did not clear: the context is gone */
	cudaError_t e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		return 0;
	record(1, "context unusable: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
	return 1;
}

/* Blocks per SM of the flush read (not timed; just enough to be quick). */
#define FLUSH_BLOCKS_PER_SM 4
#define MIB ((size_t)1 << 20)

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

int gpu_available(char *why, size_t len)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		snprintf(why, len, "%s", cudaGetErrorString(e));
		return 0;
	}
	if (count == 0) {
		snprintf(why, len, "the CUDA runtime sees none");
		return 0;
	}
	return 1;
}

int gpu_count(void)
{
	int count = 0;
	return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

int gpu_open(struct gpu *g, int device)
{
	memset(g, 0, sizeof(*g));
	g->device = device;
	g->overhead_us = -1;
	int count = 0;
	CUcontext ctx = NULL;
	struct cudaDeviceProp prop;

	if (CUDA_CHECK(cudaGetDeviceCount(&count)))
		return -1;
	if (device < 0 || device >= count)
		return error("no device %d (%d visible)", device, count);
	if (CUDA_CHECK(cudaSetDevice(device)) || CUDA_CHECK(cudaFree(NULL)) || drv_load() ||
	    CU_CHECK(drv.Init(0)) || CU_CHECK(drv.CtxGetCurrent(&ctx)))
		return -1;
	if (!ctx)
		return error("no current CUDA context after cudaSetDevice(%d)", device);
	if (CUDA_CHECK(cudaGetDeviceProperties(&prop, device)))
		return -1;
	if (prop.major != 9)
		return error("device %d is sm_%d%d; the harness is built for sm_90a",
			     device, prop.major, prop.minor);
	g->sm_count = prop.multiProcessorCount;
	g->l2_bytes = prop.l2CacheSize;
	g->smem_optin = prop.sharedMemPerBlockOptin;
	g->flush_bytes = round_up((size_t)g->l2_bytes * GPU_FLUSH_L2_MULTIPLE, MIB);

	if (CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) ||
	    CUBLAS_CHECK(cublasCreate(&g->blas)) ||
	    CUBLAS_CHECK(cublasSetStream(g->blas, g->stream)) ||
	    /* default math: no TF32 for the FP32 router baseline, as PyTorch */
	    CUBLAS_CHECK(cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH)) ||
	    CUDA_CHECK(cudaMalloc(&g->blas_ws, GPU_BLAS_WS_BYTES)) ||
	    CUBLAS_CHECK(cublasSetWorkspace(g->blas, g->blas_ws, GPU_BLAS_WS_BYTES)) ||
	    CUBLAS_CHECK(cublasLtCreate(&g->lt)) ||
	    CUDA_CHECK(cudaMalloc(&g->flush_buf, g->flush_bytes)) ||
	    CUDA_CHECK(cudaMalloc((void **)&g->sink, sizeof(*g->sink))) ||
	    CUDA_CHECK(harness_fill_random_bytes(g->flush_buf, g->flush_bytes, HASH_INIT,
						 g->stream)) ||
	    CUDA_CHECK(cudaStreamSynchronize(g->stream))) {
		gpu_close(g);
		return -1;
	}
	return 0;
}

void gpu_dev_free(void *p)
{
	if (p)
		(void)CUDA_CHECK(cudaFree(p));
}

void gpu_ws_release(struct gpu *g)
{
	gpu_dev_free(g->ws);
	g->ws = NULL;
	g->ws_bytes = 0;
}

void gpu_close(struct gpu *g)
{
	gpu_graph_destroy(&g->empty_graph);
	for (int i = 0; i < g->nevents; i++)
		(void)CUDA_CHECK(cudaEventDestroy(g->events[i]));
	free(g->events);
	gpu_dev_free(g->ws);
	gpu_dev_free(g->sync);
	gpu_dev_free(g->flush_buf);
	gpu_dev_free(g->sink);
	if (g->lt)
		(void)CUBLAS_CHECK(cublasLtDestroy(g->lt));
	if (g->blas)
		(void)CUBLAS_CHECK(cublasDestroy(g->blas));
	gpu_dev_free(g->blas_ws);
	if (g->stream)
		(void)CUDA_CHECK(cudaStreamDestroy(g->stream));
	memset(g, 0, sizeof(*g));
}

int gpu_events(struct gpu *g, int n, cudaEvent_t **out)
{
	if (n > g->nevents) {
		g->events = xrealloc(g->events, sizeof(*g->events) * (size_t)n);
		for (; g->nevents < n; g->nevents++)
			if (CUDA_CHECK(cudaEventCreate(&g->events[g->nevents])))
				return -1;
	}
	*out = g->events;
	return 0;
}

int gpu_flush(struct gpu *g)
{
	return CUDA_CHECK(harness_flush(g->flush_buf, g->flush_bytes, g->sink,
					g->sm_count * FLUSH_BLOCKS_PER_SM, g->stream));
}

/* Smallest workspace handed out, so a plan's ARG_WS is never NULL. */
#define WS_MIN_BYTES 256

/* *buf of *have bytes, grown (freed, allocated afresh in whole MiB) to
 * at least bytes (and WS_MIN_BYTES). Returns 0 or -1. */
static int grow_buffer(void **buf, size_t *have, size_t bytes)
{
	if (bytes < WS_MIN_BYTES)
		bytes = WS_MIN_BYTES;
	if (bytes <= *have)
		return 0;
	gpu_dev_free(*buf);
	*buf = NULL;
	*have = 0;
	size_t want = round_up(bytes, MIB);
	if (CUDA_CHECK(cudaMalloc(buf, want)))
		return -1;
	*have = want;
	return 0;
}

int gpu_ws_reserve(struct gpu *g, size_t bytes, void **out)
{
	if (grow_buffer(&g->ws, &g->ws_bytes, bytes))
		return -1;
	*out = g->ws;
	return 0;
}

int gpu_sync_reserve(struct gpu *g, size_t bytes, unsigned **out)
{
	*out = NULL;
	if (!bytes)             /* a plan without counters: nothing to zero */
		return 0;
	if (grow_buffer(&g->sync, &g->sync_bytes, bytes))
		return -1;
	*out = g->sync;
	return CUDA_CHECK(cudaMemsetAsync(g->sync, 0, bytes, g->stream));
}

int gpu_capture_begin(struct gpu *g)
{
	/* global mode: an unsafe call (an allocation) anywhere fails the capture */
	return CUDA_CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeGlobal));
}

/* GEMMTAB_GRAPH_DOT=PREFIX: every captured graph is also written as
 * PREFIX.<pid>.<n>.dot (cudaGraphDebugDotPrint, verbose), to compare what
 * the tuner and the library capture for one plan. A diagnosis aid. */
static void dump_graph(cudaGraph_t graph)
{
	static int n;
	const char *prefix = getenv("GEMMTAB_GRAPH_DOT");
	if (!prefix || !*prefix)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s.%ld.%d.dot", prefix, (long)getpid(), n++);
	/* a diagnosis aid: its failure must not become a candidate's error */
	cudaError_t e = cudaGraphDebugDotPrint(graph, path, cudaGraphDebugDotFlagsVerbose);
	if (e != cudaSuccess) {
		warning("GEMMTAB_GRAPH_DOT: cannot write %s: %s", path, cudaGetErrorString(e));
		(void)cudaGetLastError();
	}
}

int gpu_capture_end(struct gpu *g, int failed, cudaGraphExec_t *out)
{
	cudaGraph_t graph = NULL;
	*out = NULL;
	if (failed) {
		/* already reported; the capture is likely invalidated, which is expected */
		cudaStreamEndCapture(g->stream, &graph);
		cudaGetLastError();
	} else if (CUDA_CHECK(cudaStreamEndCapture(g->stream, &graph))) {
		failed = 1;
	}
	if (!failed)
		dump_graph(graph);
	if (!failed && CUDA_CHECK(cudaGraphInstantiate(out, graph, 0))) {
		*out = NULL;
		failed = 1;
	}
	if (!failed && CUDA_CHECK(cudaGraphUpload(*out, g->stream))) {
		gpu_graph_destroy(out);
		failed = 1;
	}
	if (graph)
		(void)CUDA_CHECK(cudaGraphDestroy(graph));
	return failed ? -1 : 0;
}

void gpu_graph_destroy(cudaGraphExec_t *exec)
{
	if (*exec)
		(void)CUDA_CHECK(cudaGraphExecDestroy(*exec));
	*exec = NULL;
}
