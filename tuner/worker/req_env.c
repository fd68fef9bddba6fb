/*
 * req_env.c: the worker's probes of its GPU: "env" (the environment every
 * result row carries), "overhead" (an empty graph's replay) and "floor"
 * (the time to read a number of bytes) (worker.h).
 */
#include "gpu.h"
#include "launch.h"
#include "bench.h"
#include "validate.h"
#include "timing.h"
#include "baseline.h"
#include "lt.h"
#include "harness.h"
#include "worker.h"
#include "jit.h"
#include "proto.h"
#include "space.h"
#include "tmpl.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- env, overhead, floor --- */

/* "13.0" from CUDA's 13000-style version numbers. */
static void cuda_version_text(int v, char *out, size_t len)
{
	snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}

void worker_handle_env(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct cudaDeviceProp prop;
	int sm_khz, mem_khz, drv, rt;
	char driver[16], cuda[16], cublas[32], cublaslt[32], uuid[64];
	gpu_error_clear();
	if (CUDA_CHECK(cudaGetDeviceProperties(&prop, g->device)) ||
	    CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, g->device)) ||
	    CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, g->device)) ||
	    CUDA_CHECK(cudaDriverGetVersion(&drv)) || CUDA_CHECK(cudaRuntimeGetVersion(&rt)) ||
	    blas_versions(g, cublas, cublaslt, sizeof(cublas))) {
		worker_reply_cuda_error(g, id);
		return;
	}
	const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
	/* nvidia-smi's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
	snprintf(uuid, sizeof(uuid),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	cuda_version_text(drv, driver, sizeof(driver));
	cuda_version_text(rt, cuda, sizeof(cuda));

	struct kv_out o;
	worker_begin(&o, "env", id);
	kv_add(&o, "gpu_name", prop.name);
	kv_add(&o, "gpu_uuid", uuid);
	kv_addf(&o, "sm_count", "%d", prop.multiProcessorCount);
	kv_addf(&o, "sm_clock_mhz", "%d", sm_khz / 1000);
	kv_addf(&o, "mem_clock_mhz", "%d", mem_khz / 1000);
	kv_addf(&o, "l2_bytes", "%d", prop.l2CacheSize);
	kv_addf(&o, "smem_optin", "%zu", prop.sharedMemPerBlockOptin);
	kv_addf(&o, "smem_sm", "%zu", prop.sharedMemPerMultiprocessor);
	kv_addf(&o, "smem_reserved", "%zu", prop.reservedSharedMemPerBlock);
	kv_add(&o, "driver", driver);
	kv_add(&o, "cuda", cuda);
	kv_add(&o, "nvrtc", jit_nvrtc_version());
	kv_add(&o, "cublas", cublas);
	kv_add(&o, "cublaslt", cublaslt);
	worker_send(&o);
}

void worker_handle_overhead(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id");
	struct why w;
	int reps = TIMING_OVERHEAD_REPS;
	double us;
	if (kv_get(r, "pairs") && worker_get_int(r, "pairs", 1, MAX_PAIRS, &reps, &w)) {
		worker_reply_error(id, w.text);
		return;
	}
	gpu_error_clear();
	if (timing_overhead(g, reps, &us)) {
		worker_reply_cuda_error(g, id);
		return;
	}
	struct kv_out o;
	worker_begin(&o, "overhead", id);
	kv_addf(&o, "us", "%.4f", us);
	worker_send(&o);
}

void worker_handle_floor(struct gpu *g, const struct kv *r)
{
	const char *id = kv_get(r, "id"), *family = kv_get(r, "family");
	struct why w;
	struct floor_result f;
	uint64_t bytes;
	int reps = TIMING_OVERHEAD_REPS;
	if (worker_get_u64(r, "bytes", &bytes, &w) ||
	    (kv_get(r, "pairs") && worker_get_int(r, "pairs", 1, MAX_PAIRS, &reps, &w))) {
		worker_reply_error(id, w.text);
		return;
	}
	if (!bytes || bytes > MAX_WEIGHT_BYTES) {
		worker_reply_error(id, "bytes out of range");
		return;
	}
	gpu_error_clear();
	if (timing_floor(g, (size_t)bytes, reps, &f)) {
		worker_reply_cuda_error(g, id);
		return;
	}
	struct kv_out o;
	worker_begin(&o, "floor", id);
	kv_add(&o, "family", family ? family : "");
	kv_addf(&o, "bytes", "%" PRIu64, bytes);
	kv_addf(&o, "us", "%.4f", f.us);
	kv_addf(&o, "gbps", "%.1f", f.gbps);
	kv_add(&o, "config", f.config);
	worker_send(&o);
}
