/*
 * test_emit.c: `gemmtab emit`: the M-range choice on hand-made evidence
 * (only measured Ms served, a span certified by a held-out M and one
 * that is not, point winners over a bridge, an interrupted sweep, a
 * point that splits ranges, a win that does not bridge a loss, short
 * retests, ties), the grid,
 * grouping by dispatch key, parameter parsing, and an end-to-end emit from
 * a fixture database built here through db.h, compared byte for byte with
 * tests/golden/emit_fixture.h and emit_fixture_kernels.cu (run from the
 * repository root, as tests/run.sh does). GT_UPDATE_GOLDEN=1 rewrites the
 * golden files instead of comparing: review their diff before committing.
 */
#include "check.h"
#include "commands.h"
#include "db.h"
#include "emit.h"
#include "grid.h"
#include "jit.h"
#include "tmpl.h"
#include "util.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#define NO_ROW { NAN, -1, 0 }
#define WIN(r) { r, 200, 0 }
#define LOSS(r) { r, 200, 0 }

/* Run emit_choose on a candidates x ms evidence matrix; returns the count. */
static int choose(const int *ms, int nms, const struct emit_cell *cells, int ncand,
		  struct emit_range *out)
{
	return emit_choose(ms, nms, cells, ncand, out);
}

#define CHECK_RANGE(r, c, l, h) do { \
	CHECK_INT((r).cand, c); CHECK_INT((r).lo, l); CHECK_INT((r).hi, h); \
	} while (0)
/* candidate c serves M ml..mh, certified by held-out M ho (0: none) */
#define CHECK_SERVES(r, c, ml, mh, ho) do { \
	CHECK_INT((r).cand, c); CHECK_INT((r).m_lo, ml); CHECK_INT((r).m_hi, mh); \
	CHECK_INT((r).holdout, ho); \
	} while (0)

/* One winner at every measured M serves those Ms: adjacent ones join,
 * the unmeasured grid Ms between 2 and 8, 8 and 16, 16 and 33 do not. */
TEST(one_winner_serves_its_measured_ms)
{
	int ms[] = { 1, 2, 8, 16, 33 };
	struct emit_cell cells[] = { WIN(1.3), WIN(1.2), WIN(1.1), WIN(1.05), WIN(1.01) };
	struct emit_range r[10];
	CHECK_INT(choose(ms, 5, cells, 1, r), 4);
	CHECK_SERVES(r[0], 0, 1, 2, 0);
	CHECK_RANGE(r[0], 0, 0, 1);
	CHECK_SERVES(r[1], 0, 8, 8, 0);
	CHECK_SERVES(r[2], 0, 16, 16, 0);
	CHECK_SERVES(r[3], 0, 33, 33, 0);
}

/* Winners measured at 64 and 128 only: the table serves 64 and 128, not
 * the 63 Ms between (their grid Ms 65, 80, ... were never measured). */
TEST(measured_ends_alone_do_not_bridge)
{
	int ms[] = { 64, 128 };
	struct emit_cell cells[] = { WIN(1.2), WIN(1.006) };
	struct emit_range r[4];
	CHECK_INT(choose(ms, 2, cells, 1, r), 2);
	CHECK_SERVES(r[0], 0, 64, 64, 0);
	CHECK_SERVES(r[1], 0, 128, 128, 0);
	/* a held-out M between does not help either: the gap is four tiles */
	int with_mid[] = { 64, 100, 128 };
	struct emit_cell three[] = { WIN(1.2), WIN(1.1), WIN(1.006) };
	CHECK_INT(choose(with_mid, 3, three, 1, r), 3);
	CHECK_SERVES(r[1], 0, 100, 100, 0);
}

/* 65 and 80 are neighbours on the grid (one count of 16-row tiles); a
 * measured M off the grid between them (72) that the same candidate wins
 * certifies the span, and then the Ms between are served. */
TEST(certified_span_is_served)
{
	int ms[] = { 64, 65, 72, 80 };
	struct emit_cell cells[] = { WIN(1.1), WIN(1.2), WIN(1.15), WIN(1.3) };
	struct emit_range r[8];
	CHECK_INT(choose(ms, 4, cells, 1, r), 1);
	CHECK_SERVES(r[0], 0, 64, 80, 72);
	CHECK_RANGE(r[0], 0, 0, 3);
	/* without the held-out M: only the measured Ms */
	int bare[] = { 64, 65, 80 };
	struct emit_cell bare_cells[] = { WIN(1.1), WIN(1.2), WIN(1.3) };
	CHECK_INT(choose(bare, 3, bare_cells, 1, r), 2);
	CHECK_SERVES(r[0], 0, 64, 65, 0);
	CHECK_SERVES(r[1], 0, 80, 80, 0);
	/* one held-out certifies the span through the grid Ms A wins at:
	 * 65..80 and 81..96 */
	int two[] = { 65, 72, 80, 81, 96 };
	struct emit_cell two_cells[] = { WIN(1.2), WIN(1.15), WIN(1.3), WIN(1.2), WIN(1.1) };
	CHECK_INT(choose(two, 5, two_cells, 1, r), 1);
	CHECK_SERVES(r[0], 0, 65, 96, 72);
}

/* A loses at the held-out M: the span is not certified, and the next
 * candidate on the grid is not tried in its place (the held-out M took
 * no part in choosing); B, fastest at 72, serves 72 alone. */
TEST(failed_holdout_serves_only_measured)
{
	int ms[] = { 65, 72, 80 };
	struct emit_cell cells[] = {
		WIN(1.2), LOSS(0.9), WIN(1.2),          /* A: chosen on the grid */
		WIN(1.1), WIN(1.3), WIN(1.1),           /* B */
	};
	struct emit_range r[6];
	CHECK_INT(choose(ms, 3, cells, 2, r), 3);
	CHECK_SERVES(r[0], 0, 65, 65, 0);
	CHECK_SERVES(r[1], 1, 72, 72, 0);
	CHECK_SERVES(r[2], 0, 80, 80, 0);
}

/* A span of two segments, 65..80 and 81..96, whose held-out Ms are 72
 * and 88: A loses at 88, so the span is cut there. 65..80 keeps its own
 * held-out M (72) and is served; 81..96 is not, and 88 runs the baseline
 * (no one wins there). */
TEST(losing_holdout_cuts_the_span)
{
	int ms[] = { 65, 72, 80, 81, 88, 96 };
	struct emit_cell cells[] = { WIN(1.2), WIN(1.15), WIN(1.3), WIN(1.2), LOSS(0.9),
				     WIN(1.1) };
	struct emit_range r[12];
	CHECK_INT(choose(ms, 6, cells, 1, r), 2);
	CHECK_SERVES(r[0], 0, 65, 81, 72);
	CHECK_SERVES(r[1], 0, 96, 96, 0);
	/* the piece before the cut runs on into the losing segment as far as
	 * A's measured wins go (81..88, certified by 72 inside the piece),
	 * and stops at the loss at 90 */
	int on[] = { 65, 72, 80, 81, 88, 90, 96 };
	struct emit_cell on_cells[] = { WIN(1.2), WIN(1.15), WIN(1.3), WIN(1.2), WIN(1.1),
					LOSS(0.9), WIN(1.1) };
	CHECK_INT(choose(on, 7, on_cells, 1, r), 2);
	CHECK_SERVES(r[0], 0, 65, 88, 72);
	CHECK_SERVES(r[1], 0, 96, 96, 0);
	/* a piece whose only held-out M is its own end is not certified:
	 * 65..70 ends at 70 (A loses at 75), so 66..69 are not served */
	int end[] = { 65, 70, 75, 80 };
	struct emit_cell end_cells[] = { WIN(1.2), WIN(1.15), LOSS(0.9), WIN(1.3) };
	CHECK_INT(choose(end, 4, end_cells, 1, r), 3);
	CHECK_SERVES(r[0], 0, 65, 65, 0);
	CHECK_SERVES(r[1], 0, 70, 70, 0);
	CHECK_SERVES(r[2], 0, 80, 80, 0);
}

/* A bridging candidate at 1.006 against point winners at 1.12: the point
 * winners serve their Ms. Where A's span is certified, A serves only the
 * unmeasured Ms between them. */
TEST(point_winners_beat_a_bridge)
{
	int ms[] = { 8, 32 };
	struct emit_cell cells[] = {
		WIN(1.006), WIN(1.006),                 /* A spans */
		WIN(1.12), NO_ROW,                      /* B */
		NO_ROW, WIN(1.12),                      /* C */
	};
	struct emit_range r[4];
	CHECK_INT(choose(ms, 2, cells, 3, r), 2);
	CHECK_SERVES(r[0], 1, 8, 8, 0);
	CHECK_SERVES(r[1], 2, 32, 32, 0);
	int span[] = { 65, 72, 80 };
	struct emit_cell span_cells[] = {
		WIN(1.006), WIN(1.006), WIN(1.006),
		WIN(1.12), NO_ROW, NO_ROW,
		NO_ROW, NO_ROW, WIN(1.12),
	};
	struct emit_range s[6];
	CHECK_INT(choose(span, 3, span_cells, 3, s), 3);
	CHECK_SERVES(s[0], 1, 65, 65, 0);
	CHECK_SERVES(s[1], 0, 66, 79, 72);
	CHECK_RANGE(s[1], 0, 0, 2);          /* its evidence: 65, 72, 80 */
	CHECK_SERVES(s[2], 2, 80, 80, 0);
}

/* A sweep stopped before its range phase measured the anchors and their
 * neighbours: the table serves exactly those Ms (127 is off the grid but
 * inside no segment whose grid ends were measured). */
TEST(interrupted_sweep_serves_its_measured_ms)
{
	int ms[] = { 1, 2, 3, 7, 8, 9, 16, 17, 31, 32, 33, 127, 128 };
	enum { N = ARRAY_SIZE(ms) };
	struct emit_cell cells[N];
	struct emit_range r[2 * N];
	for (int i = 0; i < N; i++)
		cells[i] = (struct emit_cell)WIN(1.1);
	int n = choose(ms, N, cells, 1, r), served = 0;
	CHECK_INT(n, 5);
	for (int i = 0; i < n; i++) {
		served += r[i].m_hi - r[i].m_lo + 1;
		CHECK_INT(r[i].holdout, 0);
	}
	CHECK_INT(served, N);
	CHECK_SERVES(r[0], 0, 1, 3, 0);
	CHECK_SERVES(r[1], 0, 7, 9, 0);
	CHECK_SERVES(r[4], 0, 127, 128, 0);
}

/* A wins at 1 and 2, B at 2, 8 and 33, A faster at 2: A serves 1..2 (a
 * candidate that would cover more never takes an M from a faster one),
 * B 8 and 33; with B faster at 2, B takes it. */
TEST(fastest_at_each_measured_m)
{
	int ms[] = { 1, 2, 8, 33 };
	struct emit_cell a_faster[] = {
		WIN(1.5), WIN(1.6), NO_ROW, NO_ROW,
		NO_ROW, WIN(1.1), WIN(1.2), WIN(1.3),
	};
	struct emit_cell b_faster[] = {
		WIN(1.5), WIN(1.1), NO_ROW, NO_ROW,
		NO_ROW, WIN(1.6), WIN(1.2), WIN(1.3),
	};
	struct emit_range r[8];
	CHECK_INT(choose(ms, 4, a_faster, 2, r), 3);
	CHECK_SERVES(r[0], 0, 1, 2, 0);
	CHECK_SERVES(r[1], 1, 8, 8, 0);
	CHECK_SERVES(r[2], 1, 33, 33, 0);
	CHECK_INT(choose(ms, 4, b_faster, 2, r), 4);
	CHECK_SERVES(r[0], 0, 1, 1, 0);
	CHECK_SERVES(r[1], 1, 2, 2, 0);
}

/* Nobody wins at M = 3: A serves 1..2, 4 and 8 (5..7 unmeasured). */
TEST(point_without_winner_splits)
{
	int ms[] = { 1, 2, 3, 4, 8 };
	struct emit_cell cells[] = { WIN(1.2), WIN(1.2), LOSS(0.97), WIN(1.2), WIN(1.2) };
	struct emit_range r[10];
	CHECK_INT(choose(ms, 5, cells, 1, r), 3);
	CHECK_SERVES(r[0], 0, 1, 2, 0);
	CHECK_SERVES(r[1], 0, 4, 4, 0);
	CHECK_SERVES(r[2], 0, 8, 8, 0);
}

/* A wins at 1 and 8 but loses at the measured M = 2; B, winning only at
 * 2, serves just 2. */
TEST(no_bridge_over_a_loss)
{
	int ms[] = { 1, 2, 8 };
	struct emit_cell alone[] = { WIN(1.4), LOSS(0.9), WIN(1.4) };
	struct emit_cell with_b[] = {
		WIN(1.4), LOSS(0.9), WIN(1.4),
		NO_ROW, WIN(1.1), NO_ROW,
	};
	struct emit_range r[6];
	CHECK_INT(choose(ms, 3, alone, 1, r), 2);
	CHECK_RANGE(r[0], 0, 0, 0);
	CHECK_RANGE(r[1], 0, 2, 2);
	CHECK_INT(choose(ms, 3, with_b, 2, r), 3);
	CHECK_RANGE(r[0], 0, 0, 0);
	CHECK_RANGE(r[1], 1, 1, 1);
	CHECK_RANGE(r[2], 0, 2, 2);
}

/* A short retest, a ratio of exactly 1 and a missing row are no wins. */
TEST(what_counts_as_a_win)
{
	struct emit_cell c[] = { { 1.5, EMIT_MIN_PAIRS - 1, 0 }, { 1.0, 500, 0 },
				 { 1.0001, EMIT_MIN_PAIRS, 0 }, NO_ROW, { NAN, 500, 0 } };
	CHECK_INT(emit_cell_wins(&c[0]), 0);
	CHECK_INT(emit_cell_wins(&c[1]), 0);
	CHECK_INT(emit_cell_wins(&c[2]), 1);
	CHECK_INT(emit_cell_wins(&c[3]), 0);
	CHECK_INT(emit_cell_wins(&c[4]), 0);

	int ms[] = { 1, 2 };
	struct emit_range r[4];
	CHECK_INT(choose(ms, 2, c, 1, r), 0);            /* 1.5 x 99 pairs, 1.0 */
	CHECK_INT(choose(ms, 2, &c[1], 1, r), 1);        /* 1.0, then 1.0001 */
	CHECK_RANGE(r[0], 0, 1, 1);
	CHECK_INT(choose(ms, 0, c, 1, r), 0);
	CHECK_INT(choose(ms, 2, c, 0, r), 0);
}

/* Equal ratios: the smaller candidate index (key order) serves, also
 * when they differ only by rounding, on a point and on a segment. */
TEST(ties_go_to_the_first_key)
{
	int ms[] = { 1, 2, 8 };
	struct emit_cell same[] = {
		WIN(1.2), WIN(1.3), WIN(1.1),
		WIN(1.2), WIN(1.3), WIN(1.1),
	};
	/* B's ratios are A's within a part in 1e12 */
	struct emit_cell near[] = {
		NO_ROW, WIN(1.3), WIN(1.1),
		NO_ROW, WIN(1.3 * (1 + 1e-12)), WIN(1.1 * (1 - 1e-12)),
	};
	struct emit_range r[6];
	CHECK_INT(choose(ms, 3, same, 2, r), 2);
	CHECK_SERVES(r[0], 0, 1, 2, 0);
	CHECK_SERVES(r[1], 0, 8, 8, 0);
	CHECK_INT(choose(ms, 3, near, 2, r), 2);
	CHECK_SERVES(r[0], 0, 2, 2, 0);
	CHECK_SERVES(r[1], 0, 8, 8, 0);
	struct emit_cell swapped[] = {
		NO_ROW, WIN(1.3 * (1 + 1e-12)), WIN(1.1 * (1 - 1e-12)),
		NO_ROW, WIN(1.3), WIN(1.1),
	};
	CHECK_INT(choose(ms, 3, swapped, 2, r), 2);
	CHECK_SERVES(r[0], 0, 2, 2, 0);
	int span[] = { 65, 72, 80 };
	struct emit_cell seg[] = {
		WIN(1.1), NO_ROW, WIN(1.2),
		WIN(1.1 * (1 + 1e-12)), WIN(1.5), WIN(1.2),
	};
	/* the segment ties (its smaller end 1.1 both): A, the first, is
	 * chosen, and A has no retest at the held-out M, so 66..79 are not
	 * served; B is fastest at 72 */
	CHECK_INT(choose(span, 3, seg, 2, r), 3);
	CHECK_SERVES(r[0], 0, 65, 65, 0);
	CHECK_SERVES(r[1], 1, 72, 72, 0);
	CHECK_SERVES(r[2], 0, 80, 80, 0);
}

/* On a segment, the candidate whose weaker end is faster serves: the
 * worth of the Ms between counts each at the smaller of its ends. */
TEST(segment_by_its_weaker_end)
{
	int ms[] = { 65, 72, 80 };
	struct emit_cell cells[] = {
		WIN(1.5), WIN(1.3), WIN(1.05),          /* A: 1.05 at its weaker end */
		WIN(1.2), WIN(1.2), WIN(1.2),           /* B: 1.2 */
	};
	struct emit_range r[6];
	CHECK_INT(choose(ms, 3, cells, 2, r), 4);
	CHECK_SERVES(r[0], 0, 65, 65, 0);
	CHECK_SERVES(r[1], 1, 66, 71, 72);
	CHECK_SERVES(r[2], 0, 72, 72, 0);
	CHECK_SERVES(r[3], 1, 73, 80, 72);
}

/* The grid: every M up to 64, then 16t and 16t + 1, and the range's
 * ends; the held-out M between two grid neighbours is off it. */
TEST(grid_of_ms)
{
	CHECK_INT(grid_on(1, 1, 512), 1);
	CHECK_INT(grid_on(37, 1, 512), 1);
	CHECK_INT(grid_on(64, 1, 512), 1);
	CHECK_INT(grid_on(65, 1, 512), 1);
	CHECK_INT(grid_on(66, 1, 512), 0);
	CHECK_INT(grid_on(127, 1, 512), 0);
	CHECK_INT(grid_on(128, 1, 512), 1);
	CHECK_INT(grid_on(129, 1, 512), 1);
	CHECK_INT(grid_on(100, 100, 200), 1);   /* the range's ends */
	CHECK_INT(grid_on(200, 100, 200), 1);
	CHECK_INT(grid_on(201, 100, 200), 0);
	CHECK_INT(grid_on(8, 9, 200), 0);
	CHECK_INT(grid_next(63, 1, 512), 64);
	CHECK_INT(grid_next(65, 1, 512), 80);
	CHECK_INT(grid_next(80, 1, 512), 81);
	CHECK_INT(grid_next(500, 1, 505), 505);
	CHECK_INT(grid_next(512, 1, 512), 0);
	CHECK_INT(grid_next(3, 9, 20), 9);
	CHECK_INT(grid_holdout(65, 80), 72);
	CHECK_INT(grid_on(grid_holdout(65, 80), 1, 512), 0);
	CHECK_INT(grid_holdout(80, 81), 0);
	/* between grid neighbours there is never more than one tile */
	for (int m = 1; m < 4096; m = grid_next(m, 1, 4096))
		CHECK(grid_next(m, 1, 4096) - m <= EMIT_SPAN_GAP);
}

static struct best_row measured_row(const char *family, int n, int k, enum dtype w,
				    int m)
{
	struct best_row b;
	memset(&b, 0, sizeof(b));
	snprintf(b.family, sizeof(b.family), "%s", family);
	b.n = n;
	b.k = k;
	b.w = b.y = w;
	b.x = DT_BF16;
	b.m = m;
	return b;
}

static struct retest_row retest(const char *family, int n, int k, enum dtype w, int m,
				const char *params, double ratio, int pairs)
{
	struct retest_row r;
	memset(&r, 0, sizeof(r));
	snprintf(r.family, sizeof(r.family), "%s", family);
	r.n = n;
	r.k = k;
	r.w = r.y = w;
	r.x = DT_BF16;
	r.m = m;
	snprintf(r.tmpl, sizeof(r.tmpl), "gemv");
	snprintf(r.params, sizeof(r.params), "%s", params);
	r.ratio = ratio;
	r.pairs = pairs;
	return r;
}

/* Two families with one key are one group; the weakest row decides a
 * cell; a screen-only M is measured and so breaks ranges; groups come in
 * key order and a key without retests has a group with no candidates. */
TEST(grouping_by_key)
{
	struct best_row measured[] = {
		measured_row("pooler", 4096, 8192, DT_BF16, 1),
		measured_row("pooler", 4096, 8192, DT_BF16, 2),
		measured_row("pooler", 4096, 8192, DT_BF16, 4),    /* screen only */
		measured_row("pooler_b", 4096, 8192, DT_BF16, 8),
		measured_row("router", 256, 8192, DT_FP32, 1),
		measured_row("oproj", 8192, 1024, DT_BF16, 1),
	};
	struct retest_row rows[] = {
		retest("pooler", 4096, 8192, DT_BF16, 1, "b", 1.25, 200),
		retest("pooler_b", 4096, 8192, DT_BF16, 1, "b", 1.10, 150),
		retest("pooler", 4096, 8192, DT_BF16, 2, "b", 1.30, 200),
		retest("pooler_b", 4096, 8192, DT_BF16, 2, "a", 1.40, 300),
		retest("pooler", 4096, 8192, DT_BF16, 8, "b", 1.20, 200),
		retest("router", 256, 8192, DT_FP32, 1, "a", 2.0, 100),
	};
	struct emit_group *g;
	struct emit_entry *e;
	int n = emit_group_rows(measured, ARRAY_SIZE(measured), rows, ARRAY_SIZE(rows), &g);
	CHECK_INT(n, 3);
	if (n != 3)
		return;
	CHECK_INT(g[0].key.n, 256);
	CHECK_INT(g[0].key.w, DT_FP32);
	CHECK_STR(g[0].families, "router");
	CHECK_INT(g[1].key.n, 4096);
	CHECK_STR(g[1].families, "pooler, pooler_b");
	CHECK_INT(g[1].nms, 4);
	CHECK_INT(g[1].ms[0], 1);
	CHECK_INT(g[1].ms[2], 4);
	CHECK_INT(g[1].ms[3], 8);
	CHECK_INT(g[1].ncand, 2);
	CHECK_STR(g[1].cands[0].params, "a");
	CHECK_STR(g[1].cands[1].params, "b");
	/* b at M 1: pooler 1.25/200 and pooler_b 1.10/150 -> 1.10/150 */
	CHECK_NEAR(g[1].cells[1 * 4 + 0].ratio, 1.10, 0);
	CHECK_INT(g[1].cells[1 * 4 + 0].pairs, 150);
	CHECK(isnan(g[1].cells[0 * 4 + 0].ratio));
	CHECK_INT(g[1].cells[0 * 4 + 0].pairs, -1);
	CHECK_STR(g[2].families, "oproj");
	CHECK_INT(g[2].ncand, 0);
	CHECK_INT(g[2].nms, 1);

	/* router: a [1]. pooler: b [1] and a [2] (b [1, 2] covers as much,
	 * but a is faster at 2), b [8] alone (M 4, measured without a
	 * retest, cuts it off from 2). oproj: none */
	n = emit_select(g, 3, &e);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_STR(e[0].group->families, "router");
		CHECK_INT(e[0].m_lo, 1);
		CHECK_INT(e[0].m_hi, 1);
		CHECK_INT(e[0].pairs_min, 100);
		CHECK_STR(e[1].cand->params, "b");
		CHECK_INT(e[1].m_lo, 1);
		CHECK_INT(e[1].m_hi, 1);
		CHECK_NEAR(e[1].ratio_min, 1.10, 0);
		CHECK_INT(e[1].pairs_min, 150);
		CHECK_STR(e[2].cand->params, "a");
		CHECK_INT(e[2].m_lo, 2);
		CHECK_INT(e[2].m_hi, 2);
		CHECK_STR(e[3].cand->params, "b");
		CHECK_INT(e[3].m_lo, 8);
		CHECK_INT(e[3].m_hi, 8);
	}
	free(e);
	emit_groups_free(g, 3);
}

/* A near tie kept by the incumbent's bonus, a clear win taken over it */
TEST(incumbent_bonus)
{
	int ms[] = { 8 };
	struct emit_cell tie[] = { { 1.10, 200, 0.0198 }, WIN(1.11) };
	struct emit_cell beat[] = { { 1.10, 200, 0.0198 }, WIN(1.13) };
	struct emit_cell none[] = { WIN(1.10), WIN(1.11) };
	struct emit_cell lost[] = { { 0.99, 200, 0.0198 }, NO_ROW };
	struct emit_range r[1];
	CHECK_INT(choose(ms, 1, none, 2, r), 1);
	CHECK_RANGE(r[0], 1, 0, 0);          /* without a bonus: the faster */
	CHECK_INT(choose(ms, 1, tie, 2, r), 1);
	CHECK_RANGE(r[0], 0, 0, 0);          /* 1% apart: the incumbent stays */
	CHECK_INT(choose(ms, 1, beat, 2, r), 1);
	CHECK_RANGE(r[0], 1, 0, 0);          /* 2.7% apart: the challenger */
	CHECK_INT(choose(ms, 1, lost, 2, r), 0);  /* a bonus never makes a loss win */
}

TEST(incumbent_lines)
{
	struct emit_incumbent e;
	CHECK_INT(emit_incumbent_parse("\t/* router, M 2..7: mma_hilo bm=32,bn=8,split=16\n", &e), 1);
	CHECK_STR(e.families, "router");
	CHECK_INT(e.m_lo, 2);
	CHECK_INT(e.m_hi, 7);
	CHECK_STR(e.cand.tmpl, "mma_hilo");
	CHECK_STR(e.cand.params, "bm=32,bn=8,split=16");
	CHECK_INT(emit_incumbent_parse("\t/* pooler, pooler_b, M 1: gemv warps=16,cache=cg\n", &e), 1);
	CHECK_STR(e.families, "pooler, pooler_b");
	CHECK_INT(e.m_lo, 1);
	CHECK_INT(e.m_hi, 1);
	CHECK_STR(e.cand.params, "warps=16,cache=cg");
	/* the evidence line, the kernel list, other comments, broken entries */
	CHECK_INT(emit_incumbent_parse("\t *   M 2: 4.169 (200 pairs) */\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("\t/* 3 mma_skinny.cuh */ (const void *)&k3,\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("/* n, k, w, x, y, m_lo, m_hi, tmpl, params\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 9..3: gemv a=1\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 9: gemv\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 9: gemv a=1 */\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M +9: gemv a=1\n", &e), 0);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 2.. 9: gemv a=1\n", &e), 0);
	/* a certified range names its held-out M after the params */
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 65..80: gemv a=1 (held out: M 72)\n", &e), 1);
	CHECK_STR(e.cand.params, "a=1");
	CHECK_INT(e.holdout, 72);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 65..80: gemv a=1\n", &e), 1);
	CHECK_INT(e.holdout, 0);
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 65..80: gemv a=1 (held out: M x)\n", &e), 0);
	/* a CRLF line, then its initializer: the key, when the range agrees */
	CHECK_INT(emit_incumbent_parse("\t/* qkv, M 9..16: gemv warps=8\r\n", &e), 1);
	CHECK_STR(e.cand.params, "warps=8");
	CHECK_INT(emit_incumbent_key("\t{ 2304, 8192, 0, 0, 0, 9, 16, \"gemv\", { 8 },\n", &e), 1);
	CHECK_INT(e.key.n, 2304);
	CHECK_INT(e.key.k, 8192);
	CHECK_INT(e.key.w, DT_BF16);
	CHECK_INT(emit_incumbent_key("\t{ 256, 8192, 1, 0, 1, 9, 16, \"gemv\", { 8 },\n", &e), 1);
	CHECK_INT(e.key.w, DT_FP32);
	CHECK_INT(e.key.y, DT_FP32);
	CHECK_INT(emit_incumbent_key("\t{ 2304, 8192, 0, 0, 0, 9, 17, \"gemv\", { 8 },\n", &e), 0);
	CHECK_INT(emit_incumbent_key("\t{ 2304, 8192, 5, 0, 0, 9, 16, \"gemv\", { 8 },\n", &e), 0);
	CHECK_INT(emit_incumbent_key("\t  1, { 4 }, 1.989, 200 },\n", &e), 0);
}

/* Ms 1, 2, 3 (adjacent: every choice covers the same Ms, so the ratios
 * and the bonus decide; a bonus never buys coverage, which comes first) */
TEST(incumbent_prefer)
{
	struct best_row measured[] = {
		measured_row("pooler", 4096, 8192, DT_BF16, 1),
		measured_row("pooler", 4096, 8192, DT_BF16, 2),
		measured_row("pooler", 4096, 8192, DT_BF16, 3),
	};
	struct retest_row rows[] = {
		retest("pooler", 4096, 8192, DT_BF16, 1, "a", 1.20, 200),
		retest("pooler", 4096, 8192, DT_BF16, 2, "a", 1.20, 200),
		retest("pooler", 4096, 8192, DT_BF16, 3, "a", 1.20, 200),
		retest("pooler", 4096, 8192, DT_BF16, 1, "b", 1.21, 200),
		retest("pooler", 4096, 8192, DT_BF16, 2, "b", 1.21, 200),
		retest("pooler", 4096, 8192, DT_BF16, 3, "b", 1.30, 200),
	};
	const struct emit_key pk = { 4096, 8192, DT_BF16, DT_BF16, DT_BF16 };
	const struct emit_key other = { 4096, 4096, DT_BF16, DT_BF16, DT_BF16 };
	struct emit_incumbent inc[] = {
		{ "pooler", 1, 2, { "gemv", "a" }, pk, 0 },     /* a at 1 and 2, not at 3 */
		{ "pooler", 3, 3, { "gemv", "zz" }, pk, 0 },    /* no such candidate */
		{ "qkv", 1, 3, { "gemv", "a" }, pk, 0 },        /* another family */
		{ "pooler", 3, 3, { "gemv", "a" }, other, 0 },  /* another key */
	};
	struct emit_group *g;
	struct emit_entry *e;
	int n = emit_group_rows(measured, ARRAY_SIZE(measured), rows, ARRAY_SIZE(rows), &g);
	CHECK_INT(n, 1);
	if (n != 1)
		return;
	/* without incumbents b, 0.8% ahead at 1 and 2, takes all three */
	n = emit_select(g, 1, &e);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(e[0].cand->params, "b");
	free(e);
	CHECK_INT(emit_prefer(g, 1, inc, ARRAY_SIZE(inc), 0.02), 1);
	CHECK_NEAR(g[0].cells[0 * 3 + 0].bonus, log1p(0.02), 1e-12);
	CHECK_NEAR(g[0].cells[0 * 3 + 1].bonus, log1p(0.02), 1e-12);
	CHECK_NEAR(g[0].cells[0 * 3 + 2].bonus, 0, 0);   /* M 3: not a's */
	CHECK_NEAR(g[0].cells[1 * 3 + 0].bonus, 0, 0);
	/* now a keeps 1..2, b (8% ahead) takes 3; a's figures as measured */
	n = emit_select(g, 1, &e);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(e[0].cand->params, "a");
		CHECK_INT(e[0].m_lo, 1);
		CHECK_INT(e[0].m_hi, 2);
		CHECK_NEAR(e[0].ratio_min, 1.20, 0);
		CHECK_STR(e[1].cand->params, "b");
		CHECK_INT(e[1].m_lo, 3);
	}
	free(e);
	emit_groups_free(g, 1);
}

/* An entry's minimums run over its evidence: the measured Ms in it and
 * the held-out M that certifies the Ms between. */
TEST(range_minimums)
{
	struct best_row measured[] = { measured_row("qkv", 2304, 8192, DT_BF16, 65) };
	struct retest_row rows[] = {
		retest("qkv", 2304, 8192, DT_BF16, 65, "a", 1.30, 400),
		retest("qkv", 2304, 8192, DT_BF16, 72, "a", 1.05, 120),
		retest("qkv", 2304, 8192, DT_BF16, 80, "a", 1.20, 300),
	};
	struct emit_group *g;
	struct emit_entry *e;
	int n = emit_group_rows(measured, 1, rows, 3, &g);
	CHECK_INT(n, 1);
	CHECK_INT(emit_select(g, n, &e), 1);
	CHECK_INT(e[0].m_lo, 65);
	CHECK_INT(e[0].m_hi, 80);
	CHECK_INT(e[0].lo, 0);
	CHECK_INT(e[0].hi, 2);
	CHECK_INT(e[0].holdout, 72);
	CHECK_NEAR(e[0].ratio_min, 1.05, 0);
	CHECK_INT(e[0].pairs_min, 120);
	free(e);
	emit_groups_free(g, n);
}

TEST(params_parse)
{
	const struct tmpl *t = tmpl_find("gemv");
	long p[MAX_PARAMS];
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_INT(emit_params_parse(t, "warps=8,rows=2,tokens=4,unroll=2,split=4,cache=nc_na", p), 0);
	CHECK_INT(p[0], 8);
	CHECK_INT(p[1], 2);
	CHECK_INT(p[2], 4);
	CHECK_INT(p[3], 2);
	CHECK_INT(p[4], 4);
	CHECK_INT(p[5], 2);                  /* nc_na is symbol 2 */
	fputs("  (six errors expected below)\n", stderr);
	CHECK_INT(emit_params_parse(t, "warps=8,rows=2,tokens=4,unroll=2,split=4", p), -1);
	CHECK_INT(emit_params_parse(t, "warps=8,rows=2,tokens=4,unroll=2,split=4,cache=fast", p), -1);
	CHECK_INT(emit_params_parse(t, "warps=99,rows=2,tokens=4,unroll=2,split=4,cache=cg", p), -1);
	CHECK_INT(emit_params_parse(t, "rows=2,warps=8,tokens=4,unroll=2,split=4,cache=cg", p), -1);
	CHECK_INT(emit_params_parse(t, "warps=8,warps=8,rows=2,tokens=4,unroll=2,split=4,cache=cg", p), -1);
	CHECK_INT(emit_params_parse(t, "warps=8,rows=2,tokens=4,unroll=2,split=4,cache=cg,x=1", p), -1);
}

/* The end-to-end fixture: two environments (the older one has no retest
 * with enough pairs), five keys. */
enum { S_QKV, S_ROUTER, S_POOLER, S_POOLER_B, S_OPROJ, NSHAPES };

static const struct shape shapes[NSHAPES] = {
	[S_QKV] = { .family = "qkv", .n = 2304, .k = 8192, .tol = 1e-2 },
	[S_ROUTER] = { .family = "router", .n = 256, .k = 8192, .w = DT_FP32,
		       .x = DT_BF16, .y = DT_FP32, .tol = 1e-4 },
	[S_POOLER] = { .family = "pooler", .n = 4096, .k = 8192, .tol = 1e-2 },
	[S_POOLER_B] = { .family = "pooler_b", .n = 4096, .k = 8192, .tol = 2e-2 },
	[S_OPROJ] = { .family = "oproj", .n = 8192, .k = 1024, .tol = 1e-2 },
};

#define QA "warps=16,rows=4,tokens=1,unroll=1,split=1,cache=default"
#define QB "warps=4,rows=4,tokens=8,unroll=2,split=2,cache=nc_na"
#define QC "warps=8,rows=4,tokens=16,unroll=4,split=1,cache=cg"
#define RS "warps=16,rows=1,tokens=1,unroll=2,split=1,cache=nc_na"
#define RT "warps=2,rows=4,tokens=16,unroll=4,split=8,cache=cg"
#define RE "warps=2,rows=4,tokens=16,unroll=4,split=8,cache=evict_first"
#define PP "warps=16,rows=4,tokens=1,unroll=1,split=1,cache=cg"
#define OP "warps=4,rows=4,tokens=1,unroll=1,split=1,cache=nc_na"

static const struct fx {
	int env, shape, m;
	const char *params, *phase, *status;
	double base_us, ratio;
	int pairs;
} fx_rows[] = {
	/* env 1: a screen and a short retest only */
	{ 1, S_QKV, 1, QA, "screen", "ok", 13.4, 1.40, 10 },
	{ 1, S_QKV, 1, QA, "retest", "ok", 13.4, 1.35, 50 },
	/* qkv: A wins at 1 and 2, B at 2..9 and loses at 16: B takes 2 to
	 * bridge 3..6; C's screen and short retest at 16 do not count; M 12
	 * has only a baseline */
	{ 2, S_QKV, 1, QA, "retest", "ok", 13.4, 1.353, 200 },
	{ 2, S_QKV, 2, QA, "retest", "ok", 13.5, 1.250, 200 },
	{ 2, S_QKV, 2, QB, "retest", "ok", 13.5, 1.102, 200 },
	{ 2, S_QKV, 7, QB, "retest", "ok", 13.6, 1.151, 200 },
	{ 2, S_QKV, 8, QB, "retest", "ok", 13.6, 1.300, 200 },
	{ 2, S_QKV, 9, QB, "retest", "ok", 13.6, 1.049, 150 },
	{ 2, S_QKV, 16, QB, "retest", "ok", 13.6, 0.800, 200 },
	{ 2, S_QKV, 16, QC, "screen", "ok", 13.6, 1.200, 10 },
	{ 2, S_QKV, 16, QC, "retest", "ok", 13.6, 1.150, 50 },
	{ 2, S_QKV, 16, QA, "screen", "fail", NAN, NAN, -1 },
	/* router: S at 1; T at 16, 17 and 32, cut at the baseline-only M 24;
	 * E at 33; T and E share the FP32 reduce kernel */
	{ 2, S_ROUTER, 1, RS, "retest", "ok", 6.2, 2.080, 100 },
	{ 2, S_ROUTER, 16, RT, "retest", "ok", 21.7, 3.688, 100 },
	{ 2, S_ROUTER, 17, RT, "retest", "ok", 21.7, 1.657, 100 },
	{ 2, S_ROUTER, 32, RT, "retest", "ok", 15.6, 1.576, 100 },
	{ 2, S_ROUTER, 33, RT, "retest", "ok", 15.7, 0.950, 100 },
	{ 2, S_ROUTER, 33, RE, "retest", "ok", 15.7, 1.100, 100 },
	/* pooler and pooler_b are one key: the weaker row decides */
	{ 2, S_POOLER, 1, PP, "retest", "ok", 20.2, 1.252, 200 },
	{ 2, S_POOLER_B, 1, PP, "retest", "ok", 20.2, 1.100, 150 },
	{ 2, S_POOLER, 2, PP, "retest", "ok", 20.1, 1.050, 200 },
	{ 2, S_POOLER_B, 2, PP, "retest", "ok", 20.1, 0.980, 200 },
	/* oproj: retested, never faster */
	{ 2, S_OPROJ, 1, OP, "retest", "ok", 5.8, 0.950, 200 },
};

static int fx_record(struct db *db, const long long *shape, const struct fx *f)
{
	struct result_row r;
	long long cand;
	if (db_candidate_id(db, "gemv", f->params, "fedcba9876543210", &cand))
		return -1;
	result_row_clear(&r);
	r.m = f->m;
	r.phase = f->phase;
	r.status = f->status;
	if (!strcmp(f->status, "ok")) {
		r.base_us = f->base_us;
		r.cand_us = f->base_us / f->ratio;
		r.ratio = f->ratio;
		r.ratio_lo = f->ratio * 0.98;
		r.ratio_hi = f->ratio * 1.02;
		r.pairs = f->pairs;
	} else {
		r.reason = "row 3: relative error 0.5 > 0.02";
	}
	return db_record_result(db, f->env, shape[f->shape], cand, &r);
}

static int fx_build(const char *path)
{
	struct db *db;
	struct env_info e;
	long long env, shape[NSHAPES];
	int ret = -1;
	if (db_open(path, &db))
		return -1;
	memset(&e, 0, sizeof(e));
	strcpy(e.gpu_name, "NVIDIA H200");
	strcpy(e.gpu_uuid, "GPU-00000000-emit");
	e.sm_count = 132;
	e.sm_clock_mhz = 1980;
	e.mem_clock_mhz = 3201;
	e.l2_bytes = 62914560;
	strcpy(e.driver, "13.0");
	strcpy(e.cuda, "13.0");
	strcpy(e.nvrtc, "13.0");
	strcpy(e.cublas, "13.0.0");
	strcpy(e.cublaslt, "13.0.0");
	strcpy(e.source_hash, "fedcba9876543210");
	if (db_env_id(db, &e, &env) || env != 1)
		goto cleanup;
	strcpy(e.cublas, "13.1.0");
	strcpy(e.cublaslt, "13.1.0");
	if (db_env_id(db, &e, &env) || env != 2)
		goto cleanup;
	for (int i = 0; i < NSHAPES; i++)
		if (db_shape_id(db, &shapes[i], &shape[i]))
			goto cleanup;
	for (size_t i = 0; i < ARRAY_SIZE(fx_rows); i++)
		if (fx_record(db, shape, &fx_rows[i]))
			goto cleanup;
	/* baselines: qkv M 12, router M 24 and oproj M 2 are measured with
	 * no candidate timed */
	if (db_record_baseline(db, 2, shape[S_QKV], 12, 13.6, 13.5, 1.0, NULL, -1) ||
	    db_record_baseline(db, 2, shape[S_ROUTER], 24, 15.6, 15.5, 1.0, NULL, -1) ||
	    db_record_baseline(db, 2, shape[S_OPROJ], 2, 5.8, 5.9, 1.0, NULL, -1))
		goto cleanup;
	ret = 0;
cleanup:
	db_close(db);
	return ret;
}

#include "scratch.h"

/* Run `gemmtab emit ARGS...` in the scratch directory; returns its exit. */
static int emit_in_scratch(int argc, const char **argv)
{
	char cwd[PATH_MAX];
	int rc;
	if (!getcwd(cwd, sizeof(cwd)) || chdir(scratch_dir()))
		die("cannot enter %s", tmpdir);
	rc = cmd_emit(argc, (char **)argv);
	if (chdir(cwd))
		die("cannot return to %s", cwd);
	return rc;
}

/* Compare the scratch file name with golden (a path from the repository
 * root), or rewrite golden from it under GT_UPDATE_GOLDEN=1. */
static void check_golden(const char *name, const char *golden)
{
	char *path = scratch(name);
	size_t len, glen;
	char *got = read_file(path, &len), *want;
	CHECK(got != NULL);
	if (got && getenv("GT_UPDATE_GOLDEN")) {
		CHECK_INT(write_file_atomic(golden, got, len), 0);
		fprintf(stderr, "  updated %s\n", golden);
	}
	want = read_file(golden, &glen);
	CHECK(want != NULL);
	if (got && want && (len != glen || memcmp(got, want, len))) {
		size_t i = 0, line = 1;
		for (; i < len && i < glen && got[i] == want[i]; i++)
			line += got[i] == '\n';
		fprintf(stderr, "  %s differs from %s from line %zu\n", name, golden, line);
		CHECK(!"generated file matches its golden file");
	}
	free(got);
	free(want);
	free(path);
}

TEST(end_to_end_golden)
{
	const char *args[] = { "emit", "--db", "fixture.db", "--out", "emit_fixture.h" };
	const char *old_env[] = { "emit", "--db", "fixture.db", "--out", "old.h", "--env", "1" };
	char *db = NULL, *first = NULL, *again = NULL, *p;
	size_t l1, l2;

	db = scratch("fixture.db");
	CHECK_INT(fx_build(db), 0);

	CHECK_INT(emit_in_scratch(ARRAY_SIZE(args), args), 0);
	check_golden("emit_fixture.h", "tests/golden/emit_fixture.h");
	check_golden("emit_fixture_kernels.cu", "tests/golden/emit_fixture_kernels.cu");

	/* again: the same bytes */
	p = scratch("emit_fixture.h");
	first = read_file(p, &l1);
	CHECK_INT(emit_in_scratch(ARRAY_SIZE(args), args), 0);
	again = read_file(p, &l2);
	CHECK(first && again && l1 == l2 && !memcmp(first, again, l1));
	free(p);

	/* env 1 has no retest with 100 pairs: exit 1, nothing written */
	CHECK_INT(emit_in_scratch(ARRAY_SIZE(old_env), old_env), 1);
	p = scratch("old.h");
	CHECK(access(p, F_OK) != 0);
	free(p);
	free(first);
	free(again);
	free(db);
}

/* Environments without a legacy source hash key template code per
 * candidate: emit keeps only rows measured with the code this binary
 * carries, emit keeps the retests of the code this build runs (from the
 * variant map, else by compiling), and the table's source hash covers the
 * code its entries run. */
TEST(per_template_hashes)
{
	static const struct shape qkv = {
		.family = "qkv", .n = 2304, .k = 8192, .w = DT_BF16, .x = DT_BF16,
		.y = DT_BF16, .tol = 1e-2,
	};
	const char *cur = "warps=8,rows=4,tokens=1,unroll=1,split=1,cache=default";
	const char *old = "warps=16,rows=4,tokens=1,unroll=1,split=1,cache=default";
	const char *args[] = { "emit", "--db", "hashes.db", "--out", "hashes.h" };
	const struct tmpl *gemv = tmpl_find("gemv");
	struct env_info e;
	struct db *db;
	long long env, shape, c_cur, c_old;
	struct result_row r;

	CHECK(gemv != NULL);
	CHECK_INT(strlen(tmpl_source_hash(gemv)), 16);
	CHECK(strcmp(tmpl_source_hash(gemv), tmpl_source_hash(tmpl_find("planted"))));
	/* the hash is of the stem, the embedded kernel source, the embedded
	 * adapter and each file the adapter shares, named (tuner/jit/sources.c):
	 * an edit of any re-measures */
	uint64_t code = hash_str(HASH_INIT, gemv->stem);
	code = hash_str(code, tmpl_source_text(gemv->source));
	code = hash_str(code, tmpl_source_text(gemv->adapter));
	CHECK(gemv->shared && gemv->shared[0]);
	for (const char *const *f = gemv->shared; f && *f; f++) {
		CHECK(tmpl_source_text(*f) != NULL);
		code = hash_str(hash_str(code, *f), tmpl_source_text(*f));
	}
	char want[17];
	hash_hex(code, want);
	CHECK_STR(tmpl_source_hash(gemv), want);
	/* the weight re-layouts a template's kernels read are its code too */
	static const struct {
		const char *stem, *file;
	} reads[] = { { "mma_skinny", "templates/pack.cuh" }, { "mma_frag", "templates/pack.cuh" },
		      { "mma_hilo", "templates/hilo.cuh" }, { "blas_hilo", "templates/hilo.cuh" } };
	for (size_t i = 0; i < ARRAY_SIZE(reads); i++) {
		const struct tmpl *t = tmpl_find(reads[i].stem);
		int found = 0;
		CHECK(t != NULL);
		for (const char *const *f = t ? t->shared : NULL; f && *f; f++)
			found |= !strcmp(*f, reads[i].file);
		CHECK(found);
	}

	char *path = scratch("hashes.db");
	CHECK_INT(db_open(path, &db), 0);
	memset(&e, 0, sizeof(e));
	strcpy(e.gpu_name, "NVIDIA H200");
	e.sm_count = 132;
	strcpy(e.cuda, "13.0");
	strcpy(e.cublaslt, "13.1.0");
	CHECK_INT(db_env_id(db, &e, &env), 0);
	CHECK_INT(db_shape_id(db, &qkv, &shape), 0);
	/* the current code wins by 1.3x; code that has since changed, by 2x.
	 * The variant map says what this build's text runs for cur; old has
	 * no entry, so emit compiles it and finds another code key */
	CHECK_INT(db_candidate_id(db, "gemv", cur, "00000000c0dec0de", &c_cur), 0);
	CHECK_INT(db_record_variant(db, "gemv", cur, shape, tmpl_source_hash(gemv), c_cur), 0);
	CHECK_INT(db_candidate_id(db, "gemv", old, "0123456789abcdef", &c_old), 0);
	for (int i = 0; i < 2; i++) {
		result_row_clear(&r);
		r.m = 1;
		r.phase = "retest";
		r.status = "ok";
		r.base_us = 13.0;
		r.ratio = i ? 2.0 : 1.3;
		r.cand_us = r.base_us / r.ratio;
		r.ratio_lo = r.ratio_hi = r.ratio;
		r.pairs = 200;
		CHECK_INT(db_record_result(db, env, shape, i ? c_old : c_cur, &r), 0);
	}
	db_close(db);

	CHECK_INT(emit_in_scratch(ARRAY_SIZE(args), args), 0);
	char *hp = scratch("hashes.h");
	char *h = read_file(hp, NULL);
	CHECK(h != NULL);
	if (h) {
		char table_hash[17];
		uint64_t x = hash_str(hash_str(HASH_INIT, "gemv"), cur);
		hash_hex(hash_str(x, "00000000c0dec0de"), table_hash);
		CHECK(strstr(h, "\"gemv\", { 8, 4, 1, 1, 1, 0 /* default */ }") != NULL);   /* cur */
		CHECK(strstr(h, "\"gemv\", { 16,") == NULL);                         /* not old */
		CHECK(strstr(h, table_hash) != NULL);
	}
	free(h);
	free(hp);
	free(path);
}

TESTS(T(one_winner_serves_its_measured_ms), T(measured_ends_alone_do_not_bridge),
      T(certified_span_is_served), T(failed_holdout_serves_only_measured),
      T(losing_holdout_cuts_the_span),
      T(point_winners_beat_a_bridge), T(interrupted_sweep_serves_its_measured_ms),
      T(fastest_at_each_measured_m), T(point_without_winner_splits),
      T(no_bridge_over_a_loss), T(what_counts_as_a_win), T(ties_go_to_the_first_key),
      T(segment_by_its_weaker_end), T(grid_of_ms), T(grouping_by_key), T(range_minimums),
      T(params_parse), T(end_to_end_golden), T(per_template_hashes), T(incumbent_bonus),
      T(incumbent_lines), T(incumbent_prefer))
