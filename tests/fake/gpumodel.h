/*
 * gpumodel.h: a modelled Hopper GPU for the CPU tests and benchmarks: each
 * candidate of each template gets a deterministic time curve over M from
 * its parameters (a launch floor, a bytes-over-bandwidth floor at an
 * efficiency of its own, compute with tile quantization, split-K and
 * waves over the SMs), the cuBLAS baseline its own, and a paired timing
 * draws seeded noise around them. The fake worker (FAKE_WORKER_MODEL)
 * answers with it and fake_truth reads the truth from it. The figures
 * are modelled, never measured: see docs/guide.md, "The modelled GPU".
 */
#ifndef GT_GPUMODEL_H
#define GT_GPUMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "tmpl.h"

struct gpu_profile {
	char name[64];          /* what its env reply calls it */
	int sm_count;
	long l2_bytes;
	double bw;              /* practical streaming read, bytes/s */
	double launch_us;       /* one kernel's floor, replay overhead subtracted */
	double step_us;         /* each further kernel or memset of a plan */
	double tc_flops;        /* BF16 tensor-core peak, dense */
	double simt_flops;      /* FP32 FMA peak of the CUDA cores */
};

/* "h200" or "h100" (SXM). Returns 0, or -1 for another name. */
int gpumodel_profile(const char *name, struct gpu_profile *out);

/* The true median time in microseconds of candidate c on shape s at m
 * tokens (a template the model does not know runs as cuBLAS). */
double gpumodel_kernel_us(const struct gpu_profile *g, const struct shape *s,
			  const struct candidate *c, int m);
/* The baseline's (cublasGemmEx) and cuBLASLt's top heuristic's. */
double gpumodel_cublas_us(const struct gpu_profile *g, const struct shape *s, int m);
double gpumodel_cublaslt_us(const struct gpu_profile *g, const struct shape *s, int m);

/* One paired timing as the worker reports it: medians of each side, the
 * median of per-pair base / cand and its 10th and 90th percentiles. */
struct gpumodel_timing {
	double base_us, cand_us, ratio, ratio_lo, ratio_hi;
};
/* pairs pairs around the true times, noise seeded by seed (a function of
 * the candidate, M and the request's seed): a 2% spread per replay, a
 * per-eval offset of the candidate's of 1.5%, and one replay in 50 an
 * outlier 20-80% slow. */
void gpumodel_time_pairs(double base_us, double cand_us, int pairs, uint64_t seed,
			 struct gpumodel_timing *out);

/* cuBLASLt's algorithms as the model names them: a heuristic's top
 * proposals per (shape, m, orientation), each with the variants an
 * lt_algos request asks for (tile, stages, cluster, custom; split-K
 * counts). Attribute values are lt_attr_names' order after the
 * orientation: algo, tile, stages, splitk, reduction, swizzle, custom,
 * inner, cluster. */
#define GPUMODEL_LT_ATTRS 9
#define GPUMODEL_LT_VARY_TILE 1
#define GPUMODEL_LT_VARY_STAGES 2
#define GPUMODEL_LT_VARY_CLUSTER 4
#define GPUMODEL_LT_VARY_CUSTOM 8
/* Proposal i (0 .. 7) of (s, m, orient) into a[GPUMODEL_LT_ATTRS]. */
void gpumodel_lt_proposal(const struct shape *s, int m, int orient, int i, long *a);
/* Calls fn for seed and each of its variants: at every split-K count of
 * splitk[0..nsplitk) it lacks, then at every value of each attribute in
 * vary (a GPUMODEL_LT_VARY_* mask) it lacks. Returns how many it named. */
int gpumodel_lt_variants(const long *seed, const int *splitk, int nsplitk, int vary,
			 void (*fn)(void *ctx, const long *a), void *ctx);/* The best time of any combination of a's values and those a climb
 * reaches from it: every split-K count of splitk[0..nsplitk) and a's own,
 * and every value of each attribute in vary (at once, not one at a time:
 * a climb of seeded steps varies its winners again). */
double gpumodel_lt_closure_us(const struct gpu_profile *g, const struct shape *s, int m,
			      int orient, const long *a, const int *splitk, int nsplitk, int vary);

#endif
