/*
 * test_stats.c: the worker's statistics (tuner/util/stats.c): percentiles and
 * medians, the summary of paired timings, and the relative L2 errors the
 * validation verdict is built from.
 */
#include "check.h"
#include "stats.h"

TEST(median_odd_and_even)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	CHECK_NEAR(stats_median(odd, 3), 2.0, 0);
	CHECK_NEAR(stats_median(even, 4), 2.5, 0);
	CHECK_NEAR(stats_median(one, 1), 7.0, 0);
	CHECK(isnan(stats_median(one, 0)));
	/* the input keeps its order */
	CHECK_NEAR(odd[0], 3.0, 0);
	CHECK_NEAR(even[0], 4.0, 0);
}

TEST(percentiles_interpolate)
{
	double v[] = { 4, 2, 3, 1 };
	double r[11];
	for (int i = 0; i < 11; i++)
		r[i] = 11 - i;  /* 11 .. 1 */
	CHECK_NEAR(stats_percentile(v, 4, 0), 1.0, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 100), 4.0, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 10), 1.3, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 90), 3.7, 1e-12);
	CHECK_NEAR(stats_percentile(r, 11, 10), 2.0, 1e-12);
	CHECK_NEAR(stats_percentile(r, 11, 90), 10.0, 1e-12);
	CHECK_NEAR(stats_percentile(r, 11, 50), 6.0, 1e-12);
}

TEST(net_time_is_clamped)
{
	CHECK_NEAR(stats_net_us(10.0, 2.5), 7.5, 1e-12);
	CHECK_NEAR(stats_net_us(2.0, 2.5), STATS_MIN_NET_US, 0);
}

TEST(pairs_without_overhead)
{
	double b[] = { 10, 12, 11, 13 }, c[] = { 5, 6, 5.5, 6.5 };
	struct pair_stats s;
	CHECK_INT(stats_pairs(b, c, 4, 0.0, &s), 0);
	CHECK_INT(s.pairs, 4);
	CHECK_NEAR(s.base_us, 11.5, 1e-12);
	CHECK_NEAR(s.cand_us, 5.75, 1e-12);
	CHECK_NEAR(s.ratio, 2.0, 1e-12);
	CHECK_NEAR(s.ratio_lo, 2.0, 1e-12);
	CHECK_NEAR(s.ratio_hi, 2.0, 1e-12);
}

TEST(pairs_subtract_overhead_before_the_ratio)
{
	/* net: base 9 11 10 12, cand 4 5 4.5 5.5; ratios 2.25 2.2 2.2222 2.1818 */
	double b[] = { 10, 12, 11, 13 }, c[] = { 5, 6, 5.5, 6.5 };
	struct pair_stats s;
	CHECK_INT(stats_pairs(b, c, 4, 1.0, &s), 0);
	CHECK_NEAR(s.base_us, 10.5, 1e-12);
	CHECK_NEAR(s.cand_us, 4.75, 1e-12);
	double r[] = { 12.0 / 5.5, 11.0 / 5.0, 10.0 / 4.5, 9.0 / 4.0 };   /* sorted */
	CHECK_NEAR(s.ratio, (r[1] + r[2]) / 2, 1e-12);
	CHECK_NEAR(s.ratio_lo, r[0] + 0.3 * (r[1] - r[0]), 1e-12);
	CHECK_NEAR(s.ratio_hi, r[2] + 0.7 * (r[3] - r[2]), 1e-12);
	CHECK(s.ratio_lo <= s.ratio && s.ratio <= s.ratio_hi);
	CHECK_INT(stats_pairs(b, c, 0, 0.0, &s), -1);
}

TEST(pairs_spread_reflects_one_outlier)
{
	/* one slow candidate replay of ten moves the low percentile, not the median */
	double b[10], c[10];
	struct pair_stats s;
	for (int i = 0; i < 10; i++) {
		b[i] = 20;
		c[i] = 10;
	}
	c[3] = 40;
	CHECK_INT(stats_pairs(b, c, 10, 0.0, &s), 0);
	CHECK_NEAR(s.ratio, 2.0, 1e-12);
	CHECK_NEAR(s.ratio_hi, 2.0, 1e-12);
	CHECK(s.ratio_lo < 2.0 && s.ratio_lo > 0.5);
}

TEST(relative_errors)
{
	double err2[] = { 0.01, 0.04, 0 }, ref2[] = { 1, 1, 1 };
	struct rel_err e;
	stats_rel_err(err2, ref2, 3, &e);
	CHECK_NEAR(e.global, sqrt(0.05 / 3), 1e-12);
	CHECK_NEAR(e.worst, 0.2, 1e-12);
	CHECK_INT(e.worst_row, 1);
}

TEST(one_wrong_row_fails_the_row_bound_only)
{
	/* 64 rows, row 17 off by 5%: global 0.05/8 passes 1e-2, the row fails 2e-2 */
	double err2[64], ref2[64];
	struct rel_err e;
	for (int i = 0; i < 64; i++) {
		err2[i] = 0;
		ref2[i] = 1;
	}
	err2[17] = 0.05 * 0.05;
	stats_rel_err(err2, ref2, 64, &e);
	CHECK_NEAR(e.global, 0.05 / 8, 1e-12);
	CHECK(e.global <= 1e-2);
	CHECK_NEAR(e.worst, 0.05, 1e-12);
	CHECK(e.worst > 2e-2);
	CHECK_INT(e.worst_row, 17);
}

TEST(zero_reference_rows)
{
	double err2[] = { 0, 1e-6, 0 }, ref2[] = { 0, 0, 4 };
	struct rel_err e;
	stats_rel_err(err2, ref2, 3, &e);
	CHECK(isinf(e.worst));
	CHECK_INT(e.worst_row, 1);
	CHECK_NEAR(e.global, sqrt(1e-6 / 4), 1e-15);
	double ok2[] = { 0, 0 }, okr[] = { 0, 0 };
	stats_rel_err(ok2, okr, 2, &e);
	CHECK_NEAR(e.worst, 0.0, 0);
	CHECK_NEAR(e.global, 0.0, 0);
}

/* The floor's configuration: what the probe writes reads back; every
 * value bench --paired could send the worker is one it accepts, and the
 * edges are refused alike. */
TEST(floor_config_round_trip)
{
	char text[64];
	int b = 0, u = 0;
	floor_config_format(text, sizeof(text), 8, 256, 4, 15);
	CHECK_STR(text, "blocks_per_sm=8,threads=256,unroll=4,copies=15");
	CHECK_INT(floor_config_parse(text, &b, &u), 0);
	CHECK_INT(b, 8);
	CHECK_INT(u, 4);
	floor_config_format(text, sizeof(text), FLOOR_MAX_BLOCKS_PER_SM, 256, 8, 4);
	CHECK_INT(floor_config_parse(text, &b, &u), 0);
	CHECK_INT(b, 64);
	CHECK_INT(u, 8);
	CHECK_INT(floor_config_valid(1, 4), 1);
	CHECK_INT(floor_config_valid(0, 4), 0);
	CHECK_INT(floor_config_valid(65, 8), 0);
	CHECK_INT(floor_config_valid(8, 6), 0);
	static const char *const bad[] = {
		"blocks_per_sm=0,threads=256,unroll=4,copies=4",
		"blocks_per_sm=65,threads=256,unroll=4,copies=4",
		"blocks_per_sm=8,threads=256,unroll=2,copies=4",
		"blocks_per_sm=8,threads=256,copies=4",
		"threads=256,unroll=4,copies=4",
		"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(floor_config_parse(bad[i], &b, &u), -1);
}

TESTS(T(median_odd_and_even), T(floor_config_round_trip), T(percentiles_interpolate),
      T(net_time_is_clamped), T(pairs_without_overhead), T(pairs_subtract_overhead_before_the_ratio),
      T(pairs_spread_reflects_one_outlier), T(relative_errors),
      T(one_wrong_row_fails_the_row_bound_only), T(zero_reference_rows))
