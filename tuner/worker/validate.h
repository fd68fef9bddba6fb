/*
 * validate.h: validation of a candidate against the FP64 reference
 * (docs/workload.md's bounds) (validate.c).
 */
#ifndef GT_VALIDATE_H
#define GT_VALIDATE_H

#include "bench.h"

/* Replays of a graph before its output is checked (docs/workload.md: >= 3). */
#define VALIDATE_REPLAYS 10

struct verdict {
	int pass;
	double err_global, err_row;     /* NAN when the output was not finite */
	char reason[160];               /* why it failed; empty when it passed */
};

/* Fresh inputs from seed in b's validation buffers (W, X, the baseline's
 * FP32 X) and their FP64 reference: reference_dgemm from
 * REFERENCE_DGEMM_MIN_M tokens on, harness_reference below. Returns 0 or
 * -1. */
int validate_inputs(struct gpu *g, struct bench *b, uint64_t seed);

/*
 * Poison b->vy (NaN), its guard and ws (ws_bytes of it; ws may be NULL),
 * replay exec VALIDATE_REPLAYS times, poison b->vy and ws again, replay
 * once more and judge that output. exec must have been captured on b's
 * validation buffers. Returns
 * 0 with *v filled, or -1 on a CUDA error (the candidate's or ours).
 */
int validate_graph(struct gpu *g, struct bench *b, cudaGraphExec_t exec, void *ws,
		   size_t ws_bytes, struct verdict *v);

/* The baseline (cublasGemmEx) on fresh inputs from seed. */
int validate_baseline(struct gpu *g, struct bench *b, uint64_t seed, struct verdict *v);

/* After validate_graph of a plan with counters (ARG_SYNC, bytes of them
 * at sync): they must all be 0 again (tmpl.h), else v fails saying how
 * many of their bytes are not (counted on the device into b's mismatch
 * word). Nothing to do when bytes is 0. Returns 0, or -1 on a CUDA error. */
int validate_sync(struct gpu *g, struct bench *b, const unsigned *sync, size_t bytes,
		  struct verdict *v);

#endif
