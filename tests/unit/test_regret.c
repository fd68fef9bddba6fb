/*
 * test_regret.c: `gemmtab report --regret`'s arithmetic on hand-made rows:
 * which entry serves an M, its candidate's ratio there (the weakest row
 * when two families share the key), the best measured, short retests left
 * out, an M the entry's candidate was not measured at, and the sums.
 */
#include "check.h"
#include "regret.h"

#include <math.h>
#include <string.h>

static struct best_row best(const char *family, int m, double base_us)
{
	struct best_row b;
	memset(&b, 0, sizeof(b));
	snprintf(b.family, sizeof(b.family), "%s", family);
	b.n = 256;
	b.k = 512;
	b.m = m;
	b.base_us = base_us;
	return b;
}

static struct retest_row retest(int m, const char *tmpl, const char *params, double ratio,
				int pairs)
{
	struct retest_row r;
	memset(&r, 0, sizeof(r));
	snprintf(r.family, sizeof(r.family), "a");
	r.n = 256;
	r.k = 512;
	r.m = m;
	snprintf(r.tmpl, sizeof(r.tmpl), "%s", tmpl);
	snprintf(r.params, sizeof(r.params), "%s", params);
	r.ratio = ratio;
	r.pairs = pairs;
	return r;
}

TEST(served_best_and_sums)
{
	const struct best_row rows[] = { best("a", 1, 10), best("a", 2, 10), best("a", 3, 10),
					 best("a", 4, 20) };
	const struct retest_row rt[] = {
		retest(1, "gemv", "x=1", 2.0, 200),
		retest(1, "gemv", "x=2", 2.5, 50),      /* too few pairs: not the best */
		retest(2, "gemv", "x=1", 1.25, 200),
		retest(2, "gemv", "x=2", 2.0, 100),
		retest(3, "gemv", "x=2", 1.6, 100),     /* x=1 not measured at 3 */
		retest(4, "gemv", "x=2", 0.9, 100),     /* loses: the baseline is best */
	};
	struct emit_incumbent inc[1];
	memset(inc, 0, sizeof(inc));
	inc[0].key = (struct emit_key){ 256, 512, DT_BF16, DT_BF16, DT_BF16 };
	inc[0].m_lo = 1;
	inc[0].m_hi = 3;
	strcpy(inc[0].cand.tmpl, "gemv");
	strcpy(inc[0].cand.params, "x=1");
	struct regret r;
	regret_build(rows, 4, rt, 6, inc, 1, &r);
	CHECK_INT(r.n, 4);
	/* M 1: the entry's 2.0 is the best with enough pairs */
	CHECK(r.p[0].entry == &inc[0]);
	CHECK_NEAR(r.p[0].table_us, 5.0, 1e-9);
	CHECK_NEAR(r.p[0].best_us, 5.0, 1e-9);
	/* M 2: the entry runs 1.25, the best measured 2.0 */
	CHECK_NEAR(r.p[1].table_us, 8.0, 1e-9);
	CHECK_NEAR(r.p[1].best_us, 5.0, 1e-9);
	CHECK(r.p[1].best == &rt[3]);
	/* M 3: served, its candidate not measured there */
	CHECK(isnan(r.p[2].table_ratio));
	/* M 4: no entry, nothing beats the baseline */
	CHECK(r.p[3].entry == NULL);
	CHECK_NEAR(r.p[3].table_us, 20.0, 1e-9);
	CHECK_NEAR(r.p[3].best_us, 20.0, 1e-9);
	CHECK(r.p[3].best == NULL);
	/* one family and the total: M 1, 2, 4 summed, M 3 counted apart */
	CHECK_INT(r.nsums, 1);
	for (int i = 0; i <= 1; i++) {
		CHECK_INT(r.sums[i].points, 3);
		CHECK_INT(r.sums[i].unmeasured, 1);
		CHECK_NEAR(r.sums[i].table_us, 33.0, 1e-9);
		CHECK_NEAR(r.sums[i].best_us, 30.0, 1e-9);
		CHECK_NEAR(r.sums[i].base_us, 40.0, 1e-9);
	}
	regret_free(&r);
}

TEST(shared_key_takes_the_weakest_row)
{
	const struct best_row rows[] = { best("a", 8, 12) };
	const struct retest_row rt[] = {
		retest(8, "gemv", "x=1", 1.5, 200),
		retest(8, "gemv", "x=1", 1.2, 200),     /* the other family's row */
	};
	struct emit_incumbent inc[1];
	memset(inc, 0, sizeof(inc));
	inc[0].key = (struct emit_key){ 256, 512, DT_BF16, DT_BF16, DT_BF16 };
	inc[0].m_lo = inc[0].m_hi = 8;
	strcpy(inc[0].cand.tmpl, "gemv");
	strcpy(inc[0].cand.params, "x=1");
	struct regret r;
	regret_build(rows, 1, rt, 2, inc, 1, &r);
	CHECK_NEAR(r.p[0].table_ratio, 1.2, 1e-12);
	CHECK_NEAR(r.p[0].best_ratio, 1.5, 1e-12);
	regret_free(&r);
}

TESTS(T(served_best_and_sums), T(shared_key_takes_the_weakest_row))
