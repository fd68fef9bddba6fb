/*
 * validate.c: correctness of a captured graph per docs/workload.md: fresh
 * random inputs drawn on the GPU from a seed, the FP64 reference over the
 * same inputs (a DGEMM on their FP64 copies from REFERENCE_DGEMM_MIN_M
 * tokens on, reference.c; the naive kernel below), the output poisoned
 * with NaN (and a guard after it set to a known byte) before the first of
 * several replays, then the global and per-row relative L2 errors of the
 * last replay's output.
 */
#include "gpu.h"
#include "bench.h"
#include "validate.h"
#include "baseline.h"
#include "harness.h"
#include "reference.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* All-ones bytes are a NaN in both bf16 (0xFFFF) and fp32 (0xFFFFFFFF). */
#define POISON_BYTE 0xFF
/* Per-row bound is this multiple of the global bound (docs/workload.md). */
#define ROW_TOL_FACTOR 2.0

int validate_inputs(struct gpu *g, struct bench *b, uint64_t seed)
{
	const struct shape *s = &b->shape;
	uint64_t sw = hash_bytes(seed, "W", 1), sx = hash_bytes(seed, "X", 1);
	if (CUDA_CHECK(harness_fill_normal(b->vw, s->w, (size_t)s->n * s->k, BENCH_WEIGHT_STD,
					   sw, g->stream)) ||
	    CUDA_CHECK(harness_fill_activations(b->vx, s->x, b->m, s->k, sx, g->stream)))
		return -1;
	if (b->vx32 && CUDA_CHECK(harness_bf16_to_fp32(b->vx, b->vx32, (size_t)b->m * s->k,
						       g->stream)))
		return -1;
	if (b->vw64)
		return reference_dgemm(g, b->vw, s->w, b->vx, s->x, b->m, s->n, s->k, b->vw64,
				       b->vw64_elems, b->vx64, b->vr);
	return CUDA_CHECK(harness_reference(b->vw, s->w, b->vx, s->x, b->vr, b->m, s->n, s->k,
					    g->stream));
}

/* The verdict on the last output from the per-row sums and the guard. */
static void judge(const struct bench *b, unsigned guard_changed, struct verdict *v)
{
	int m = b->m;
	double tol = b->shape.tol;
	long long nonfinite = 0;
	int first_bad = -1;
	for (int i = 0; i < m; i++)
		if (b->h_nonfinite[i]) {
			nonfinite += b->h_nonfinite[i];
			if (first_bad < 0)
				first_bad = i;
		}

	struct rel_err e;
	stats_rel_err(b->h_err2, b->h_ref2, m, &e);
	v->err_global = e.global;
	v->err_row = e.worst;
	v->pass = 0;
	if (nonfinite) {
		v->err_global = v->err_row = NAN;
		snprintf(v->reason, sizeof(v->reason),
			 "nan or inf in output: %lld values, first in row %d", nonfinite, first_bad);
	} else if (guard_changed) {
		snprintf(v->reason, sizeof(v->reason),
			 "wrote past the end of y: %u guard bytes changed", guard_changed);
	} else if (!(e.global <= tol)) {
		snprintf(v->reason, sizeof(v->reason), "global error %.3g > %.3g", e.global, tol);
	} else if (!(e.worst <= ROW_TOL_FACTOR * tol)) {
		snprintf(v->reason, sizeof(v->reason), "row %d error %.3g > %.3g", e.worst_row,
			 e.worst, ROW_TOL_FACTOR * tol);
	} else {
		v->pass = 1;
		v->reason[0] = '\0';
	}
}

/* NaN into b->vy and ws (ws_bytes of it; ws may be NULL). */
static int poison(struct gpu *g, struct bench *b, void *ws, size_t ws_bytes)
{
	return CUDA_CHECK(cudaMemsetAsync(b->vy, POISON_BYTE, b->y_bytes, g->stream)) ||
	       (ws && ws_bytes && CUDA_CHECK(cudaMemsetAsync(ws, POISON_BYTE, ws_bytes, g->stream)));
}

int validate_graph(struct gpu *g, struct bench *b, cudaGraphExec_t exec, void *ws,
		   size_t ws_bytes, struct verdict *v)
{
	const struct shape *s = &b->shape;
	unsigned char *guard = (unsigned char *)b->vy + b->y_bytes;
	unsigned guard_changed = 0;
	size_t m = (size_t)b->m;
	memset(v, 0, sizeof(*v));

	/* poison once: a later replay must not depend on what an earlier one left */
	if (poison(g, b, ws, ws_bytes) ||
	    CUDA_CHECK(cudaMemsetAsync(guard, BENCH_GUARD_BYTE, BENCH_GUARD_BYTES, g->stream)))
		return -1;
	for (int r = 0; r < VALIDATE_REPLAYS; r++)
		if (CUDA_CHECK(cudaGraphLaunch(exec, g->stream)))
			return -1;
	/* Then poison the output and workspace again and judge one more
	 * replay: a step that reads what an earlier step of the same call
	 * writes before that step is done (a reduce launched too early) would
	 * otherwise find the previous replay's identical values and pass. */
	if (poison(g, b, ws, ws_bytes) || CUDA_CHECK(cudaGraphLaunch(exec, g->stream)))
		return -1;
	if (CUDA_CHECK(cudaStreamSynchronize(g->stream)))
		return -1;      /* the candidate's own failure shows here, not in our kernels */

	if (CUDA_CHECK(harness_row_errors(b->vy, s->y, b->vr, b->m, s->n, b->err2, b->ref2,
					  b->nonfinite, g->stream)) ||
	    CUDA_CHECK(harness_count_mismatch(guard, BENCH_GUARD_BYTES, BENCH_GUARD_BYTE,
					      b->mismatch, g->stream)) ||
	    CUDA_CHECK(cudaMemcpyAsync(b->h_err2, b->err2, m * sizeof(double),
				       cudaMemcpyDeviceToHost, g->stream)) ||
	    CUDA_CHECK(cudaMemcpyAsync(b->h_ref2, b->ref2, m * sizeof(double),
				       cudaMemcpyDeviceToHost, g->stream)) ||
	    CUDA_CHECK(cudaMemcpyAsync(b->h_nonfinite, b->nonfinite, m * sizeof(unsigned),
				       cudaMemcpyDeviceToHost, g->stream)) ||
	    CUDA_CHECK(cudaMemcpyAsync(&guard_changed, b->mismatch, sizeof(guard_changed),
				       cudaMemcpyDeviceToHost, g->stream)) ||
	    CUDA_CHECK(cudaStreamSynchronize(g->stream)))
		return -1;
	judge(b, guard_changed, v);
	return 0;
}

int validate_sync(struct gpu *g, struct bench *b, const unsigned *sync, size_t bytes,
		  struct verdict *v)
{
	unsigned left = 0;      /* bytes of the counters that are not 0 */
	if (!bytes)
		return 0;
	if (CUDA_CHECK(harness_count_mismatch(sync, bytes, 0, b->mismatch, g->stream)) ||
	    CUDA_CHECK(cudaMemcpyAsync(&left, b->mismatch, sizeof(left), cudaMemcpyDeviceToHost,
				       g->stream)) ||
	    CUDA_CHECK(cudaStreamSynchronize(g->stream)))
		return -1;
	if (left && v->pass) {
		v->pass = 0;
		snprintf(v->reason, sizeof(v->reason),
			 "sync counters not back to 0 after a call (%u of %zu bytes set)", left,
			 bytes);
	}
	return 0;
}

int validate_baseline(struct gpu *g, struct bench *b, uint64_t seed, struct verdict *v)
{
	cudaGraphExec_t exec = NULL;
	if (validate_inputs(g, b, seed) ||
	    baseline_capture(g, &b->shape, b->m, b->vw, b->vx32 ? b->vx32 : b->vx, b->vy,
			     &exec))
		return -1;
	int rc = validate_graph(g, b, exec, NULL, 0, v);
	gpu_graph_destroy(&exec);
	return rc;
}
