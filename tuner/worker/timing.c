/*
 * timing.c: the timing method of docs/workload.md. Graph replays are timed by
 * CUDA events around the replay only, each replay after an L2 flush by a
 * read and on the next of several rotated copies of its inputs; a whole
 * batch is enqueued and synchronized once. On top of that: the replay
 * overhead (a graph of one empty kernel), paired and alternated baseline /
 * candidate timing with the overhead measured inside the same batch, and
 * the practical streaming-read floor.
 */
#include "gpu.h"
#include "timing.h"
#include "harness.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Copies: their total at least this many L2 sizes, and at least
 * TIMING_MIN_COPIES (docs/workload.md). */
#define TIMING_COPIES_L2_MULTIPLE 2
#define TIMING_MIN_COPIES 4

int timing_copies(long long l2_bytes, size_t copy_bytes)
{
	long long want = TIMING_MIN_COPIES;
	if (copy_bytes) {
		long long c = (long long)copy_bytes;
		want = (TIMING_COPIES_L2_MULTIPLE * l2_bytes + c - 1) / c;
	}
	if (want < TIMING_MIN_COPIES)
		want = TIMING_MIN_COPIES;
	/* more copies than this only for tiny problems, where the flush alone
	 * already guarantees a cold L2 */
	if (want > BENCH_MAX_COPIES)
		want = BENCH_MAX_COPIES;
	return (int)want;
}

/* Time count replays of seq[i], each after a flush, into t_us (raw). */
static int time_sequence(struct gpu *g, cudaGraphExec_t *seq, int count, double *t_us)
{
	cudaEvent_t *ev;
	if (gpu_events(g, 2 * count, &ev))
		return -1;
	for (int i = 0; i < count; i++)
		if (gpu_flush(g) ||
		    CUDA_CHECK(cudaEventRecord(ev[2 * i], g->stream)) ||
		    CUDA_CHECK(cudaGraphLaunch(seq[i], g->stream)) ||
		    CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], g->stream)))
			return -1;
	if (CUDA_CHECK(cudaStreamSynchronize(g->stream)))
		return -1;
	for (int i = 0; i < count; i++) {
		float ms;
		if (CUDA_CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1])))
			return -1;
		t_us[i] = ms * 1e3;
	}
	return 0;
}

/* One untimed replay of each graph: uploads, first-touch costs. */
static int warm(struct gpu *g, cudaGraphExec_t *graphs, int n)
{
	for (int i = 0; i < n; i++)
		if (CUDA_CHECK(cudaGraphLaunch(graphs[i], g->stream)))
			return -1;
	return CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

/* reps replays rotating over n graphs; the median raw time. */
static int time_rotated(struct gpu *g, cudaGraphExec_t *graphs, int n, int reps, double *median)
{
	cudaGraphExec_t *seq = xmalloc(sizeof(*seq) * (size_t)reps);
	double *t = xmalloc(sizeof(*t) * (size_t)reps);
	for (int i = 0; i < reps; i++)
		seq[i] = graphs[i % n];
	int rc = (warm(g, graphs, n) || time_sequence(g, seq, reps, t)) ? -1 : 0;
	if (!rc)
		*median = stats_median(t, reps);
	free(seq);
	free(t);
	return rc;
}

/* The graph of one empty kernel the replay overhead is timed on, captured
 * once per worker (g->empty_graph; gpu_close frees it). */
static int empty_graph(struct gpu *g, cudaGraphExec_t *exec)
{
	if (!g->empty_graph) {
		/* an eager launch first, so module loading stays out of the capture */
		if (CUDA_CHECK(harness_empty(g->stream)) || gpu_capture_begin(g))
			return -1;
		int failed = CUDA_CHECK(harness_empty(g->stream)) != 0;
		if (gpu_capture_end(g, failed, &g->empty_graph))
			return -1;
	}
	*exec = g->empty_graph;
	return 0;
}

int timing_overhead(struct gpu *g, int reps, double *us)
{
	cudaGraphExec_t exec;
	if (reps < 1)
		return gpu_fail("overhead needs at least one replay");
	if (empty_graph(g, &exec))
		return -1;
	int rc = time_rotated(g, &exec, 1, reps, us);
	if (!rc)
		g->overhead_us = *us;
	return rc;
}

static int ensure_overhead(struct gpu *g)
{
	double us;
	if (g->overhead_us >= 0)
		return 0;
	return timing_overhead(g, TIMING_OVERHEAD_REPS, &us);
}

int timing_pairs(struct gpu *g, cudaGraphExec_t *base, cudaGraphExec_t *cand, int ncopies,
		 int pairs, struct pair_stats *out)
{
	if (pairs < 1 || ncopies < 1)
		return gpu_fail("timing needs at least one pair and one copy");
	cudaGraphExec_t empty;
	if (empty_graph(g, &empty) || warm(g, &empty, 1) || warm(g, base, ncopies) ||
	    warm(g, cand, ncopies))
		return -1;

	/* Each pair is followed by one replay of the empty graph: the overhead
	 * subtracted is the median of those, taken in the same batch and so
	 * at the same clocks (one figure per worker process reads the bench
	 * ~0.6 us slower than the sweep on both sides). */
	cudaGraphExec_t *seq = xmalloc(sizeof(*seq) * 3 * (size_t)pairs);
	double *t = xmalloc(sizeof(*t) * 3 * (size_t)pairs);
	double *tb = xmalloc(sizeof(*tb) * (size_t)pairs);
	double *tc = xmalloc(sizeof(*tc) * (size_t)pairs);
	double *te = xmalloc(sizeof(*te) * (size_t)pairs);
	int copy = 0;
	for (int i = 0; i < pairs; i++) {
		/* alternate the order so neither side always runs second */
		cudaGraphExec_t *first = i % 2 ? cand : base, *second = i % 2 ? base : cand;
		seq[3 * i] = first[copy];
		copy = (copy + 1) % ncopies;
		seq[3 * i + 1] = second[copy];
		copy = (copy + 1) % ncopies;
		seq[3 * i + 2] = empty;
	}
	int rc = time_sequence(g, seq, 3 * pairs, t);
	if (!rc) {
		for (int i = 0; i < pairs; i++) {
			tb[i] = t[3 * i + (i % 2)];
			tc[i] = t[3 * i + 1 - (i % 2)];
			te[i] = t[3 * i + 2];
		}
		/* this batch's own figure; g->overhead_us (the probe's and the
		 * floor's, of TIMING_OVERHEAD_REPS replays) is left alone */
		rc = stats_pairs(tb, tc, pairs, stats_median(te, pairs), out);
	}
	free(seq);
	free(t);
	free(tb);
	free(tc);
	free(te);
	return rc;
}

/* The floor's read configurations: blocks per SM and loads in flight per
 * thread (docs/workload.md: 2-8 blocks per SM); the fastest one counts. */
static const int floor_blocks_per_sm[] = { 2, 4, 8 };
static const int floor_unroll[] = { 4, 8 };

int timing_capture_read(struct gpu *g, void *const *bufs, int ncopies, size_t bytes, int blocks,
			int unroll, cudaGraphExec_t *out)
{
	/* eager first: module loading stays out of the capture */
	if (CUDA_CHECK(harness_stream_read(bufs[0], bytes, g->sink, blocks, unroll, g->stream)))
		return -1;
	for (int i = 0; i < ncopies; i++) {
		if (gpu_capture_begin(g))
			return -1;
		int failed = CUDA_CHECK(harness_stream_read(bufs[i], bytes, g->sink, blocks,
							    unroll, g->stream)) != 0;
		if (gpu_capture_end(g, failed, &out[i]))
			return -1;
	}
	return 0;
}

/* Median raw time of one read configuration over the copies. */
static int time_read_config(struct gpu *g, void **bufs, int ncopies, size_t bytes, int blocks,
			    int unroll, int reps, double *median)
{
	cudaGraphExec_t graphs[BENCH_MAX_COPIES] = { 0 };
	int rc = -1;
	if (!timing_capture_read(g, bufs, ncopies, bytes, blocks, unroll, graphs))
		rc = time_rotated(g, graphs, ncopies, reps, median);
	for (int i = 0; i < ncopies; i++)
		gpu_graph_destroy(&graphs[i]);
	return rc;
}

int timing_floor(struct gpu *g, size_t bytes, int reps, struct floor_result *out)
{
	void *bufs[BENCH_MAX_COPIES] = { 0 };
	int ncopies = timing_copies(g->l2_bytes, bytes);
	int rc = -1;
	double best = INFINITY;
	if (!bytes || reps < 1)
		return gpu_fail("floor needs bytes > 0 and at least one replay");
	if (ensure_overhead(g))
		return -1;
	for (int i = 0; i < ncopies; i++)
		if (CUDA_CHECK(cudaMalloc(&bufs[i], bytes)) ||
		    CUDA_CHECK(harness_fill_random_bytes(bufs[i], bytes, hash_bytes(HASH_INIT, &i,
											sizeof(i)),
							 g->stream)))
			goto cleanup;
	for (size_t b = 0; b < ARRAY_SIZE(floor_blocks_per_sm); b++)
		for (size_t u = 0; u < ARRAY_SIZE(floor_unroll); u++) {
			double t;
			int blocks = floor_blocks_per_sm[b] * g->sm_count;
			if (time_read_config(g, bufs, ncopies, bytes, blocks, floor_unroll[u], reps,
					     &t))
				goto cleanup;
			if (t < best) {
				best = t;
				floor_config_format(out->config, sizeof(out->config),
						    floor_blocks_per_sm[b], HARNESS_READ_THREADS,
						    floor_unroll[u], ncopies);
			}
		}
	out->us = stats_net_us(best, g->overhead_us);
	out->gbps = (double)bytes / out->us * 1e-3;     /* bytes/us = MB/s: 1e-3 -> GB/s */
	rc = 0;
cleanup:
	for (int i = 0; i < ncopies; i++)
		if (bufs[i])
			(void)CUDA_CHECK(cudaFree(bufs[i]));
	return rc;
}
