/*
 * stats.h: the small statistics the worker reports and bench combines, in
 * pure C (no CUDA), below every stage: medians and percentiles of
 * timings, the summary of paired baseline / candidate timings, and the
 * relative L2 errors of a validated output from its per-row sums.
 */
#ifndef GT_STATS_H
#define GT_STATS_H

/*
 * The p-th percentile (0 <= p <= 100) of v[0..n-1] by linear interpolation
 * between order statistics (numpy's default), so p = 50 is the median (the
 * mean of the two middle values for even n). v is not modified. NAN when
 * n < 1.
 */
double stats_percentile(const double *v, int n, double p);
double stats_median(const double *v, int n);

/*
 * A time net of the replay overhead, never below STATS_MIN_NET_US (a
 * ratio of two non-positive times would mean nothing; events resolve
 * about 0.5 us, so anything under that is noise).
 */
#define STATS_MIN_NET_US 0.01
double stats_net_us(double raw_us, double overhead_us);

/* Summary of paired timings: medians of the net times and the median and
 * 10th / 90th percentiles of the per-pair ratios base / cand. */
struct pair_stats {
	int pairs;
	double base_us, cand_us;
	double ratio, ratio_lo, ratio_hi;
};

/* Summarize n pairs of raw times (us, overhead not yet subtracted).
 * Returns 0, or -1 when n < 1. */
int stats_pairs(const double *base_us, const double *cand_us, int n, double overhead_us,
		struct pair_stats *out);

/* Relative L2 errors of an output from per-row sums err2[i] = sum (y - r)^2
 * and ref2[i] = sum r^2: global = sqrt(sum err2 / sum ref2); worst = the
 * largest per-row sqrt(err2 / ref2), at worst_row. A row with ref2 == 0
 * has error 0 if err2 == 0 and infinity otherwise. */
struct rel_err {
	double global;
	double worst;
	int worst_row;
};
void stats_rel_err(const double *err2, const double *ref2, int m, struct rel_err *out);

/* The practical floor's read configurations: blocks per SM (1 to
 * FLOOR_MAX_BLOCKS_PER_SM) and loads in flight (4 or 8). The probe
 * records the fastest as text, "blocks_per_sm=8,threads=256,unroll=4,
 * copies=15" (floor_config_format), bench --paired reads it back
 * (floor_config_parse) and the worker's bench request checks what it is
 * sent (floor_config_valid): one rule for the three. */
#define FLOOR_MAX_BLOCKS_PER_SM 64
int floor_config_valid(int blocks_per_sm, int unroll);          /* 1 or 0 */
void floor_config_format(char *out, unsigned len, int blocks_per_sm, int threads, int unroll,
			 int copies);
/* The blocks per SM and loads in flight of a recorded configuration, each
 * valid. Returns 0 or -1. */
int floor_config_parse(const char *config, int *blocks_per_sm, int *unroll);

#endif
