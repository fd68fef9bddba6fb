/*
 * timing.h: paired timing of a candidate against its baseline, and the
 * floors (timing.c).
 */
#ifndef GT_TIMING_H
#define GT_TIMING_H

#include "gpu.h"

/* Replays the worker's overhead figure is the median of. */
#define TIMING_OVERHEAD_REPS 50

/* Copies rotated so their total is at least 2x L2 (and at least 4, at
 * most BENCH_MAX_COPIES) for buffers of copy_bytes each. */
int timing_copies(long long l2_bytes, size_t copy_bytes);

/* Median replay time of a graph holding one empty kernel over reps
 * flushed replays; also stored as g->overhead_us. */
int timing_overhead(struct gpu *g, int reps, double *us);

/*
 * Paired timing: one untimed replay of every graph, then `pairs` pairs;
 * pair i even replays base then cand, odd cand then base; every replay
 * after an L2 flush, on the next copy in rotation, between two events;
 * each pair followed by a replay of an empty graph, whose median is the
 * overhead subtracted from this batch (g->overhead_us is not used).
 */
int timing_pairs(struct gpu *g, cudaGraphExec_t *base, cudaGraphExec_t *cand, int ncopies,
		 int pairs, struct pair_stats *out);

struct floor_result {
	double us, gbps;                /* net of the replay overhead */
	char config[64];                /* the fastest read configuration */
};
/* The practical streaming-read floor of bytes bytes, reps replays per
 * configuration (see harness_stream_read). */
int timing_floor(struct gpu *g, size_t bytes, int reps, struct floor_result *out);
/* One graph per copy into out[0..ncopies) of the streaming read of
 * bufs[i]'s bytes bytes (blocks blocks, unroll loads in flight), after one
 * eager read so that module loading stays out of the capture: the probe's
 * floor, and bench --paired's read in the probe's configuration. Returns
 * 0 or -1; the caller destroys what out holds either way. */
int timing_capture_read(struct gpu *g, void *const *bufs, int ncopies, size_t bytes, int blocks,
			int unroll, cudaGraphExec_t *out);

#endif
