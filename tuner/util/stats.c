/*
 * stats.c: percentiles, paired-timing summaries, relative L2 errors and
 * the floor's read configuration (see stats.h). Pure C so the unit tests
 * check it without a GPU.
 */
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_percentile(const double *v, int n, double p)
{
	if (n < 1)
		return NAN;
	double *s = xmalloc(sizeof(*s) * (size_t)n);
	memcpy(s, v, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	double h = (n - 1) * p / 100.0;
	int lo = (int)floor(h);
	double r = lo + 1 < n ? s[lo] + (h - lo) * (s[lo + 1] - s[lo]) : s[lo];
	free(s);
	return r;
}

double stats_median(const double *v, int n)
{
	return stats_percentile(v, n, 50.0);
}

double stats_net_us(double raw_us, double overhead_us)
{
	double t = raw_us - overhead_us;
	return t < STATS_MIN_NET_US ? STATS_MIN_NET_US : t;
}

/* Percentiles of the per-pair ratio spread the report shows. */
#define RATIO_LO_PCT 10.0
#define RATIO_HI_PCT 90.0

int stats_pairs(const double *base_us, const double *cand_us, int n, double overhead_us,
		struct pair_stats *out)
{
	if (n < 1)
		return -1;
	double *b = xmalloc(sizeof(*b) * (size_t)n);
	double *c = xmalloc(sizeof(*c) * (size_t)n);
	double *r = xmalloc(sizeof(*r) * (size_t)n);
	for (int i = 0; i < n; i++) {
		b[i] = stats_net_us(base_us[i], overhead_us);
		c[i] = stats_net_us(cand_us[i], overhead_us);
		r[i] = b[i] / c[i];
	}
	out->pairs = n;
	out->base_us = stats_median(b, n);
	out->cand_us = stats_median(c, n);
	out->ratio = stats_median(r, n);
	out->ratio_lo = stats_percentile(r, n, RATIO_LO_PCT);
	out->ratio_hi = stats_percentile(r, n, RATIO_HI_PCT);
	free(b);
	free(c);
	free(r);
	return 0;
}

static double rel(double err2, double ref2)
{
	if (ref2 > 0)
		return sqrt(err2 / ref2);
	return err2 > 0 ? INFINITY : 0.0;
}

void stats_rel_err(const double *err2, const double *ref2, int m, struct rel_err *out)
{
	double e = 0, f = 0;
	out->worst = 0;
	out->worst_row = 0;
	for (int i = 0; i < m; i++) {
		double r = rel(err2[i], ref2[i]);
		e += err2[i];
		f += ref2[i];
		if (!isnan(out->worst) && (r > out->worst || isnan(r))) {
			out->worst = r;
			out->worst_row = i;
		}
	}
	out->global = rel(e, f);
}

int floor_config_valid(int blocks_per_sm, int unroll)
{
	return blocks_per_sm >= 1 && blocks_per_sm <= FLOOR_MAX_BLOCKS_PER_SM &&
	       (unroll == 4 || unroll == 8);
}

void floor_config_format(char *out, unsigned len, int blocks_per_sm, int threads, int unroll,
			 int copies)
{
	snprintf(out, len, "blocks_per_sm=%d,threads=%d,unroll=%d,copies=%d", blocks_per_sm,
		 threads, unroll, copies);
}

int floor_config_parse(const char *config, int *blocks_per_sm, int *unroll)
{
	const char *b = strstr(config, "blocks_per_sm="), *u = strstr(config, "unroll=");
	if (!b || !u || sscanf(b, "blocks_per_sm=%d", blocks_per_sm) != 1 ||
	    sscanf(u, "unroll=%d", unroll) != 1 || !floor_config_valid(*blocks_per_sm, *unroll))
		return -1;
	return 0;
}
