/*
 * costmodel.c: the GPU seconds of a worker request (costmodel.h).
 */
#include "costmodel.h"

double costmodel_pairs_s(int pairs, double sum_us)
{
	return (pairs > 0 ? pairs : 1) * (COST_PAIR_S + COST_REPLAY * sum_us * 1e-6);
}

double costmodel_eval_s(int pairs, double base_us, double cand_us, long n, long k, long m)
{
	return COST_EVAL_S + COST_REF_S_PER_GMAC * ((double)n * (double)k * (double)m) * 1e-9 +
	       costmodel_pairs_s(pairs, base_us + cand_us);
}
