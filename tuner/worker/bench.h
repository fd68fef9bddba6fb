/*
 * bench.h: struct bench: device buffers for one (shape, m), cached across
 * the evals of that (shape, m) (bench.c).
 */
#ifndef GT_BENCH_H
#define GT_BENCH_H

#include "gpu.h"

/* Weights are drawn from N(0, BENCH_WEIGHT_STD^2) (docs/workload.md). */
#define BENCH_WEIGHT_STD 0.02f
/* Re-layouts whose prepared timing copies a bench keeps (bench_prep_slot). */
#define BENCH_PREP_KEEP 4
/* Bytes after the validation output that must stay untouched. */
#define BENCH_GUARD_BYTES ((size_t)64 << 10)
#define BENCH_GUARD_BYTE 0xA5

/*
 * Device buffers of one (shape, m): the rotated timing copies (W, X, the
 * baseline's FP32 X when it needs one, Y), the baseline's graphs over
 * them, and the validation buffers (fresh inputs, their FP64 copies and
 * reference, Y followed by a guard, the per-row error sums).
 */
struct bench {
	struct shape shape;
	int m;
	size_t w_bytes, x_bytes, x32_bytes, y_bytes;   /* x32_bytes 0: none */
	int ncopies;
	void *w[BENCH_MAX_COPIES], *x[BENCH_MAX_COPIES];
	void *x32[BENCH_MAX_COPIES], *y[BENCH_MAX_COPIES];
	cudaGraphExec_t base_graph[BENCH_MAX_COPIES];  /* built on first use */
	int baseline_ok;                /* the baseline passed validation */
	void *vw, *vx, *vx32, *vy;
	double *vr, *err2, *ref2;
	/* the FP64 copies the DGEMM reference reads (reference.h): a slab of
	 * vw64_elems doubles of W's rows, and all of X; NULL (and 0) below
	 * REFERENCE_DGEMM_MIN_M, where the naive kernel computes it */
	double *vw64, *vx64;
	size_t vw64_elems;
	unsigned *nonfinite, *mismatch;
	double *h_err2, *h_ref2;        /* host copies of the sums */
	unsigned *h_nonfinite;
	/* The timing copies prepared for a re-layout (tmpl.h), kept for the
	 * later candidates of this (shape, m) that read the same one, since
	 * the copies never change: at most BENCH_PREP_KEEP re-layouts, the
	 * least recently used replaced; r.kind RELAYOUT_NONE marks a free
	 * slot. Freed with the bench. */
	struct bench_prep {
		struct relayout r;
		void *p[BENCH_MAX_COPIES];
		unsigned long used;     /* the last use, on prep_clock */
	} prep[BENCH_PREP_KEEP];
	unsigned long prep_clock;
};

/* The bench of (s, m): g->bench when it matches (tol aside: a new tol
 * replaces the old one and calls for the baseline to be validated again),
 * else the old one is freed (with the candidate workspace) and a new one
 * built. */
int bench_get(struct gpu *g, const struct shape *s, int m, struct bench **out);
void bench_free(struct bench *b);
/* The slot of b->prep for re-layout r (not RELAYOUT_NONE): the one that
 * holds r (*hit = 1), else a free one, else the least recently used
 * (*hit = 0: the caller frees it with bench_prep_clear and prepares r
 * there). Pure: no CUDA call. */
struct bench_prep *bench_prep_slot(struct bench *b, const struct relayout *r, int *hit);
/* Free a slot's copies and mark it free. */
void bench_prep_clear(struct bench *b, struct bench_prep *slot);

/* Build b->base_graph[] over the timing copies if not yet built. */
int bench_baseline_graphs(struct gpu *g, struct bench *b);

#endif
