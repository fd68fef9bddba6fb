/*
 * costmodel.h: what one worker request costs on the GPU, in seconds, from
 * the kernels' own times: the price the sweep's estimate and the fake
 * worker's modelled GPU (tests/fake/gpumodel.c) both charge.
 *
 * An eval draws fresh inputs, validates the candidate on them against an
 * FP64 reference, then times pairs of graph replays (baseline,
 * candidate), each pair with its L2 flush and the overhead replay:
 *
 *   s = COST_EVAL_S + COST_INPUT_S_PER_GB * W's bytes / 1e9 + ref(N, K, M)
 *       + pairs * (COST_PAIR_S + COST_REPLAY * (t_base + t_cand))
 *
 * COST_EVAL_S, COST_INPUT_S_PER_GB, COST_PAIR_S and COST_REPLAY are a
 * least-squares fit of the gaps between consecutive ok results of the
 * sweep in examples/llama-3-8b/h100.db.gz (an H100; 24,697 evals of 3, 10
 * and 100 pairs, gaps under 1 s, rms 10.0 ms), with ref() at the prices
 * below; docs/guide.md ("The fake worker and the modelled GPU") has the
 * query and the fit. W's bytes: the fresh weights drawn
 * (docs/workload.md), their FP64 copy and the validation replays' reads
 * scale with them: 15.7 ms per GB, 16.5 ms an eval of Llama-3-8B's
 * lm_head. db/h200.db's older runs (39,682 evals, no W term) fit 0.762 ms,
 * 0.126 ms and 1.93.
 *
 * The worker computes its reference as the naive kernel below
 * COST_REF_DGEMM_MIN_M tokens and as a DGEMM from there on
 * (tuner/worker/reference.c):
 *
 *   M < COST_REF_DGEMM_MIN_M:
 *     ref = COST_REF_NAIVE_S_PER_GMAC * N*K*M / 1e9
 *   else:
 *     ref = COST_REF_S_PER_GB * (COST_REF_W_BYTES * (N*K + M*K) + 8 * M*N) / 1e9
 *           + COST_REF_S_PER_GMAC * N*K*M / 1e9
 *
 * The DGEMM's price is derived from data sheets: freed in the fit above
 * it reads 3.6 times that, which the fit cannot tell from the W term
 * (docs/guide.md), so the data sheet's stays until a GPU run times the
 * two references apart.
 */
#ifndef GT_COSTMODEL_H
#define GT_COSTMODEL_H

/* per eval: setup, the launches of the fills and the validation */
#define COST_EVAL_S 1.233e-3
/* per eval, per GB of W (bf16: 2 bytes an element): the fresh inputs
 * and the validation replays' reads */
#define COST_INPUT_S_PER_GB 15.70e-3
/* per pair: the flush read and the replays' launch and sync */
#define COST_PAIR_S 0.148e-3
/* kernel time per pair, over the two kernels' medians: each pair replays
 * each kernel (its warm-up and its timed replay) */
#define COST_REPLAY 1.33
/* the naive FP64 reference (one warp per output, CUDA-core FP64), per
 * 1e9 multiply-adds of N x K x M: fitted as above */
#define COST_REF_NAIVE_S_PER_GMAC 0.744e-3

/* The DGEMM reference's FP64 tensor-core rate: the H100 SXM data sheet's
 * 67 TFLOP/s (FP64 Tensor Core; the H200's is the same) at 0.9 of peak,
 * an assumption until the refit */
#define COST_REF_FP64_FLOPS 60e12
/* seconds per 1e9 multiply-adds of N x K x M on those tensor cores */
#define COST_REF_S_PER_GMAC (2e9 / COST_REF_FP64_FLOPS)
/* bytes moved per element of W (and of X): the conversion reads the bf16
 * value (2) and writes its FP64 copy (8), the DGEMM reads the copy (8);
 * an FP32 W's 2 more bytes are left out (the router, a small share) */
#define COST_REF_W_BYTES 18.0
/* seconds per 1e9 bytes of that traffic and of R's FP64 write, at the
 * H200 profile's practical bandwidth (0.93 of 4.8 TB/s, as
 * tuner/sweep/price.c and tests/fake/gpumodel.c read it) */
#define COST_REF_S_PER_GB (1e9 / (0.93 * 4.8e12))
/* From this M on the DGEMM's price is below the naive kernel's for W's
 * traffic alone: 18 B / 4.464 TB/s = 4.03 ms per 1e9 elements of W
 * against (0.744 - 0.033) ms per 1e9 multiply-adds, M > 5.67. The
 * worker's REFERENCE_DGEMM_MIN_M (tuner/worker/reference.h) is the same
 * (tests/unit/test_gpumodel.c checks both). */
#define COST_REF_DGEMM_MIN_M 6

/* GPU seconds of the FP64 reference of one eval at shape n x k and m
 * tokens, by the method the worker uses at that m. */
double costmodel_ref_s(long n, long k, long m);
/* GPU seconds of one eval of `pairs` pairs at shape n x k and m tokens,
 * with the baseline's and the candidate's kernel times in microseconds. */
double costmodel_eval_s(int pairs, double base_us, double cand_us, long n, long k, long m);
/* GPU seconds of `pairs` paired replays alone (a baseline request: cuBLAS
 * against cuBLASLt; the overhead and floor probes), the kernels' times
 * in microseconds summed in sum_us. */
double costmodel_pairs_s(int pairs, double sum_us);

#endif
