/*
 * costmodel.c: the GPU seconds of a worker request (costmodel.h).
 */
#include "costmodel.h"

double costmodel_pairs_s(int pairs, double sum_us)
{
	return (pairs > 0 ? pairs : 1) * (COST_PAIR_S + COST_REPLAY * sum_us * 1e-6);
}

double costmodel_ref_s(long n, long k, long m)
{
	const double nk = (double)n * (double)k, nkm = nk * (double)m;
	if (m < COST_REF_DGEMM_MIN_M)
		return COST_REF_NAIVE_S_PER_GMAC * nkm * 1e-9;
	const double bytes = COST_REF_W_BYTES * (nk + (double)m * (double)k) +
			     8.0 * (double)m * (double)n;
	return COST_REF_S_PER_GB * bytes * 1e-9 + COST_REF_S_PER_GMAC * nkm * 1e-9;
}

double costmodel_eval_s(int pairs, double base_us, double cand_us, long n, long k, long m)
{
	const double w_gb = 2.0 * (double)n * (double)k * 1e-9;
	return COST_EVAL_S + COST_INPUT_S_PER_GB * w_gb + costmodel_ref_s(n, k, m) +
	       costmodel_pairs_s(pairs, base_us + cand_us);
}
