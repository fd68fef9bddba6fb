/*
 * costmodel.h: what one worker request costs on the GPU, in seconds, from
 * the kernels' own times: the price the sweep's estimate and the fake
 * worker's modelled GPU (tests/fake/gpumodel.c) both charge.
 *
 * An eval validates the candidate on fresh inputs against an FP64
 * reference, then times pairs of graph replays (baseline, candidate),
 * each pair with its L2 flush and the overhead replay:
 *
 *   s = COST_EVAL_S + COST_REF_S_PER_GMAC * N*K*M / 1e9
 *       + pairs * (COST_PAIR_S + COST_REPLAY * (t_base + t_cand))
 *
 * The constants are a least-squares fit of the gaps between consecutive
 * ok results of one sweep run in db/h200.db (39,682 evals of 10 and 200
 * pairs, gaps under 1 s; rms 4.8 ms); rerun it with the query in
 * docs/guide.md ("The fake worker and the modelled GPU").
 */
#ifndef GT_COSTMODEL_H
#define GT_COSTMODEL_H

/* per eval: setup, fresh inputs, the validation replays */
#define COST_EVAL_S 0.762e-3
/* per pair: the flush read and the replays' launch and sync */
#define COST_PAIR_S 0.126e-3
/* kernel time per pair, over the two kernels' medians: each pair replays
 * each kernel about twice (its warm-up and its timed replay) */
#define COST_REPLAY 1.93
/* the naive FP64 reference, per 1e9 multiply-adds of N x K x M */
#define COST_REF_S_PER_GMAC 0.744e-3

/* GPU seconds of one eval of `pairs` pairs at shape n x k and m tokens,
 * with the baseline's and the candidate's kernel times in microseconds. */
double costmodel_eval_s(int pairs, double base_us, double cand_us, long n, long k, long m);
/* GPU seconds of `pairs` paired replays alone (a baseline request: cuBLAS
 * against cuBLASLt; the overhead and floor probes), the kernels' times
 * in microseconds summed in sum_us. */
double costmodel_pairs_s(int pairs, double sum_us);

#endif
