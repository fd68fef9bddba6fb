/*
 * test_report.c: the report's arithmetic on hand-made numbers (nominal
 * floors, who runs, floor fractions, the slice rule, load sums, missing
 * and ambiguous families, the geometric mean) and its text, md and csv
 * output for the fixture database, compared exactly with golden text.
 */
#include "check.h"
#include "commands.h"
#include "fixture_db.h"
#include "regret.h"
#include "report.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

/* docs/workload.md's shapes, for the nominal floors. */
static const struct {
	const char *family;
	int n, k;
	enum dtype w, x, y;
} workload[] = {
	{ "qkv", 2304, 8192, DT_BF16, DT_BF16, DT_BF16 },
	{ "oproj", 8192, 1024, DT_BF16, DT_BF16, DT_BF16 },
	{ "pooler", 4096, 8192, DT_BF16, DT_BF16, DT_BF16 },
	{ "unpooler", 8192, 4096, DT_BF16, DT_BF16, DT_BF16 },
	{ "unpooler_slice", 1024, 4096, DT_BF16, DT_BF16, DT_BF16 },
	{ "router", 256, 8192, DT_FP32, DT_BF16, DT_FP32 },
};

/* A retested row of a workload family; ratio NaN makes a baseline-only row. */
static struct best_row row(const char *family, int m, double base, double cand,
			   double ratio)
{
	struct best_row r;
	memset(&r, 0, sizeof(r));
	for (size_t i = 0; i < ARRAY_SIZE(workload); i++) {
		if (strcmp(workload[i].family, family))
			continue;
		r.n = workload[i].n;
		r.k = workload[i].k;
		r.w = workload[i].w;
		r.x = workload[i].x;
		r.y = workload[i].y;
	}
	snprintf(r.family, sizeof(r.family), "%s", family);
	r.m = m;
	r.has_candidate = !isnan(ratio);
	strcpy(r.phase, r.has_candidate ? "retest" : "");
	r.retested = r.has_candidate;
	r.pairs = r.has_candidate ? 200 : -1;
	r.base_us = base;
	r.cand_us = cand;
	r.ratio = ratio;
	r.ratio_lo = ratio - 0.1;
	r.ratio_hi = ratio + 0.1;
	strcpy(r.tmpl, "gemv");
	strcpy(r.params, "warps=8");
	return r;
}

static double nominal(const char *family, int m)
{
	struct best_row r = row(family, m, 0, 0, NAN);
	return nominal_floor_us(m, r.n, r.k, r.w, r.x, r.y);
}

TEST(nominal_floors_match_workload)
{
	static const char *const load1[] = { "qkv", "oproj", "pooler", "unpooler_slice", "router" };
	static const char *const load256[] = { "qkv", "oproj", "pooler", "unpooler", "router" };
	double sum1 = 0, sum256 = 0;
	for (int i = 0; i < 5; i++) {
		sum1 += nominal(load1[i], 1);
		sum256 += nominal(load256[i], 256);
	}
	/* qkv at M=1 is bandwidth bound: (37748736 + 16384 + 4608) B / 4.8 TB/s */
	CHECK_NEAR(nominal("qkv", 1), 37769728 / 4.8e6, 1e-9);
	/* pooler at M=256 is compute bound: 2 * 256 * 4096 * 8192 / 989 TFLOP/s */
	CHECK_NEAR(nominal("pooler", 256), 2.0 * 256 * 4096 * 8192 / 989e6, 1e-9);
	/* router: fp32 weights and output, bf16 input */
	CHECK_NEAR(nominal("router", 1), (8388608 + 16384 + 1024) / 4.8e6, 1e-9);
	/* docs/workload.md: M = 1 load 28.9 us, M = 256 load 51.7 us; by hand:
	 * 7.868693 + 3.499093 + 13.986133 + 1.749760 + 1.751253 and
	 * 9.771159 (flops) + 4.478293 + 17.370950 (flops, twice) + 2.676053 */
	CHECK_NEAR(sum1, 28.854933, 1e-5);
	CHECK_NEAR(sum256, 51.667405, 1e-5);
}

/* The reference workload's slice rule: unpooler_slice runs for M <= 8,
 * unpooler above, the others at every load. */
static int runs(const struct workload *w, const char *family, int m)
{
	for (int i = 0; i < w->nparts; i++)
		if (!strcmp(w->parts[i].family, family))
			return workload_part_in(&w->parts[i], m);
	return -1;
}

TEST(slice_rule)
{
	struct workload w;
	workload_reference(&w);
	CHECK_INT(w.nloads, 6);
	CHECK_INT(w.loads[5], 256);
	CHECK_INT(workload_max_m(&w), 256);
	CHECK_INT(runs(&w, "unpooler_slice", 1), 1);
	CHECK_INT(runs(&w, "unpooler_slice", 8), 1);
	CHECK_INT(runs(&w, "unpooler_slice", 9), 0);
	CHECK_INT(runs(&w, "unpooler", 8), 0);
	CHECK_INT(runs(&w, "unpooler", 9), 1);
	CHECK_INT(runs(&w, "qkv", 1), 1);
	CHECK_INT(runs(&w, "qkv", 65536), 1);
	workload_free(&w);
}

TEST(who_runs_and_floor_fractions)
{
	struct floor_row floors[] = { { .family = "oproj", .bytes = 16777216, .us = 5.1 },
				      { .family = "qkv", .bytes = 37748736, .us = 9.2 } };
	struct shape_figures f;
	struct best_row r = row("qkv", 1, 13.4, 10.0, 1.34);
	shape_figures_compute(&r, floors, 2, &f);
	CHECK_INT(f.wins, 1);
	CHECK_NEAR(f.run_us, 10.0, 0);
	CHECK_NEAR(f.speedup, 1.34, 0);
	CHECK_NEAR(f.lo, 1.24, 1e-12);
	CHECK_NEAR(f.floor_us, 9.2, 0);
	CHECK_NEAR(f.frac_floor, 0.92, 1e-12);
	CHECK_NEAR(f.frac_nominal, 37769728 / 4.8e6 / 10.0, 1e-12);

	/* a loser, a tie and a baseline-only row: cuBLAS runs */
	r = row("oproj", 1, 5.8, 6.1, 0.95);
	shape_figures_compute(&r, floors, 2, &f);
	CHECK_INT(f.wins, 0);
	CHECK_NEAR(f.run_us, 5.8, 0);
	CHECK_NEAR(f.speedup, 1, 0);
	CHECK(isnan(f.lo) && isnan(f.hi));
	CHECK_NEAR(f.frac_floor, 5.1 / 5.8, 1e-12);
	r = row("oproj", 1, 5.8, 5.8, 1.0);
	shape_figures_compute(&r, floors, 2, &f);
	CHECK_INT(f.wins, 0);
	r = row("router", 1, 6.2, NAN, NAN);
	shape_figures_compute(&r, floors, 2, &f);
	CHECK_INT(f.wins, 0);
	CHECK_NEAR(f.run_us, 6.2, 0);
	CHECK(isnan(f.floor_us) && isnan(f.frac_floor));   /* router was not probed */
}

/* Two complete loads whose speedups are 50/40 = 1.25 and 60/37.5 = 1.6, so
 * the score is sqrt(1.25 * 1.6) = sqrt(2); rows that the slice rule leaves
 * out carry absurd figures that would show in any sum. */
static const struct {
	const char *family;
	int m;
	double base, cand, ratio;
} two_loads[] = {
	{ "oproj", 1, 5, 5.5, 0.9 },            /* cuBLAS runs: 5 */
	{ "oproj", 16, 5, 4, 1.25 },
	{ "pooler", 1, 20, 16, 1.25 },
	{ "pooler", 16, 20, 12.5, 1.6 },
	{ "qkv", 1, 15, 10, 1.5 },
	{ "qkv", 8, 15, 10, 1.5 },              /* M=8 has only qkv */
	{ "qkv", 16, 15, 10, 1.5 },
	{ "router", 1, 5, 5.5, 0.91 },          /* cuBLAS runs: 5 */
	{ "router", 16, 5, 4, 1.25 },
	{ "unpooler", 1, 100, 1, 100 },         /* not in the M=1 load */
	{ "unpooler", 16, 15, 7, 2.1 },
	{ "unpooler_slice", 1, 5, 4, 1.25 },
	{ "unpooler_slice", 16, 100, 1, 100 },  /* not in the M=16 load */
};

TEST(loads_and_geometric_mean)
{
	enum { N = ARRAY_SIZE(two_loads) };
	struct best_row rows[N];
	struct report r;
	for (int i = 0; i < N; i++)
		rows[i] = row(two_loads[i].family, two_loads[i].m, two_loads[i].base,
			      two_loads[i].cand, two_loads[i].ratio);
	struct workload w;
	workload_reference(&w);
	report_build(rows, N, NULL, 0, &w, &r);
	CHECK_INT(r.nshapes, N);
	CHECK_INT(r.nloads, 3);
	const struct load_figures *l1 = &r.loads[0], *l8 = &r.loads[1], *l16 = &r.loads[2];
	CHECK_INT(l1->m, 1);
	CHECK_INT(l1->nused, 5);
	CHECK_INT(l1->nexpected, 5);
	CHECK_NEAR(l1->base_us, 50, 1e-12);
	CHECK_NEAR(l1->run_us, 40, 1e-12);
	CHECK_NEAR(l1->speedup, 1.25, 1e-12);
	CHECK_INT(l1->complete, 1);
	CHECK_STR(l1->missing, "");
	CHECK(isnan(l1->floor_us));             /* no floor probes given */
	CHECK_NEAR(l1->nominal_us, 28.854933, 1e-5);

	CHECK_INT(l8->m, 8);
	CHECK_INT(l8->nused, 1);
	CHECK_INT(l8->complete, 0);
	CHECK_STR(l8->missing, "oproj, pooler, unpooler_slice, router");
	CHECK_NEAR(l8->speedup, 1.5, 1e-12);

	CHECK_INT(l16->m, 16);
	CHECK_NEAR(l16->base_us, 60, 1e-12);
	CHECK_NEAR(l16->run_us, 37.5, 1e-12);
	CHECK_NEAR(l16->speedup, 1.6, 1e-12);
	CHECK_INT(l16->complete, 1);

	CHECK_INT(r.covered, 2);
	CHECK_NEAR(r.score, sqrt(2.0), 1e-12);
	/* all-M over 1..256: only 1 and 16 measured for every shape, so the
	 * mean is over those two loads (1.25 and 1.6), not over 256 Ms with
	 * 254 of them counted as cuBLAS; its coverage is 2 of 256 */
	CHECK_INT(r.all_m.max_m, 256);
	CHECK_INT(r.all_m.measured, 2);
	CHECK_INT(r.all_m.in_range, 256);
	CHECK_NEAR(r.all_m.value, sqrt(1.25 * 1.6), 1e-12);
	report_free(&r);
	workload_free(&w);
}

/* all-M over a workload that runs nothing at some Ms (a at 1..2, b from
 * 5): those Ms are left out, not a reason for no figure */
TEST(all_m_skips_ms_nothing_runs)
{
	struct workload w;
	char why[160];
	int offset;
	memset(&w, 0, sizeof(w));
	w.nloads = 2;
	w.loads[0] = 1;
	w.loads[1] = 8;
	CHECK_INT(workload_add(&w, "a", 1, "m <= 2", why, sizeof(why), &offset), 0);
	CHECK_INT(workload_add(&w, "b", 2, "m > 4", why, sizeof(why), &offset), 0);
	struct timed_point p[] = {
		{ "a", 1, 1024, 1024, DT_BF16, DT_BF16, DT_BF16, 2.0, 1.0, 1 },
		{ "b", 8, 1024, 1024, DT_BF16, DT_BF16, DT_BF16, 3.0, 3.0, 1 },
	};
	struct all_m a;
	all_m_figure(&w, p, 2, &a);
	CHECK_INT(a.max_m, 8);
	CHECK_INT(a.measured, 2);       /* M 1 (a) and 8 (b) */
	/* 6 Ms run something, 2 of them measured: M 1 at 2x, M 8 at 1x; the
	 * 4 unmeasured are left out, not counted at 1x */
	CHECK_INT(a.in_range, 6);
	CHECK_NEAR(a.value, sqrt(2.0), 1e-12);
	workload_free(&w);
}

TEST(ambiguous_and_screen_families)
{
	struct best_row rows[6];
	struct shape_figures f[6];
	struct load_figures l;
	rows[0] = row("oproj", 1, 5, 4, 1.25);
	rows[1] = row("pooler", 1, 20, 16, 1.25);
	rows[2] = row("qkv", 1, 15, 10, 1.5);
	rows[3] = row("qkv", 1, 1, 1, 1.1);     /* a second qkv shape */
	rows[3].n = 256;
	rows[4] = row("router", 1, 5, 4, 1.25);
	rows[5] = row("unpooler_slice", 1, 5, 4, 1.25);
	rows[5].retested = 0;
	strcpy(rows[5].phase, "screen");
	for (int i = 0; i < 6; i++)
		shape_figures_compute(&rows[i], NULL, 0, &f[i]);
	struct workload w;
	workload_reference(&w);
	CHECK_INT(load_figures_compute(f, 6, 1, &w, &l), 1);
	CHECK_STR(l.ambiguous, "qkv");
	CHECK_STR(l.screen, "unpooler_slice");
	CHECK_STR(l.missing, "");
	CHECK_INT(l.nused, 4);
	CHECK_INT(l.complete, 0);
	CHECK_INT(load_figures_compute(f, 6, 32, &w, &l), 0);  /* no row at 32 */
	workload_free(&w);

	int covered;
	CHECK(isnan(report_score(&l, 1, &covered)));
	CHECK_INT(covered, 0);
}

static char fixture_dir[] = "/tmp/gt_test_report.XXXXXX";
static char fixture_path[sizeof(fixture_dir) + 16];

static void remove_fixture(void)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		char *p = xasprintf("%s%s", fixture_path, suffix[i]);
		unlink(p);
		free(p);
	}
	rmdir(fixture_dir);
}

/* The path of the fixture database, built on first use, removed at exit. */
static const char *fixture(void)
{
	if (fixture_path[0])
		return fixture_path;
	if (!mkdtemp(fixture_dir))
		die("mkdtemp %s", fixture_dir);
	snprintf(fixture_path, sizeof(fixture_path), "%s/fixture.db", fixture_dir);
	atexit(remove_fixture);
	if (fixture_db_build(fixture_path))
		die("cannot build %s", fixture_path);
	return fixture_path;
}

/* The report of the fixture database in format f, labelled fixture.db
 * (caller frees); NULL if it failed. */
static char *fixture_report_sections(long long env, enum table_format f, unsigned sections)
{
	char *buf = NULL;
	size_t len;
	struct db *db;
	if (db_open_existing(fixture(), &db))
		return NULL;
	FILE *out = open_memstream(&buf, &len);
	struct workload w;
	workload_reference(&w);
	int r = report_write(db, env, "fixture.db", &w, f, sections, NULL, out);
	workload_free(&w);
	fclose(out);
	db_close(db);
	if (r) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *fixture_report(long long env, enum table_format f)
{
	return fixture_report_sections(env, f, f == TABLE_CSV ? REPORT_FAMILIES : REPORT_ALL);
}

/* Run a subcommand (argv NULL-terminated) with its stdout captured into
 * *out (caller frees). Returns its exit status. */
static int run_captured(int (*cmd)(int, char **), const char *const *args, char **out)
{
	char *argv[16];
	int argc = 0;
	while (args[argc] && argc < 15) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	if (!tmp || saved < 0)
		die("cannot capture stdout");
	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	int rc = cmd(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	off_t len = lseek(fileno(tmp), 0, SEEK_END);
	if (len < 0)
		die("cannot read captured stdout");
	*out = xcalloc((size_t)len + 1, 1);
	if (pread(fileno(tmp), *out, (size_t)len, 0) != len)
		die("cannot read captured stdout");
	fclose(tmp);
	return rc;
}

/* Golden output: the fixture's report. Every figure was checked by hand
 * against fixture_db.c (e.g. M=1 load: 51.90 / 43.90 = 1.182; qkv M=1
 * floor_frac 9.2 / 10.00; nominal_frac (37748736 + 16384 + 4608) B /
 * 4.8 TB/s / 10.00 us = 0.79). */
static const char golden_text[] =
	"gemmtab report: fixture.db, env 2: NVIDIA H200 (132 SMs, 1980 MHz), driver 580.82.07, CUDA 13.0, NVRTC 13.0, cuBLAS 13.0.0, cuBLASLt 13.0.0, sources 0123456789abcdef\n"
	"\n"
	"Per family and M\n"
	"\n"
	"What the dispatch runs. Times in us; speedup is\n"
	"the median paired ratio over cuBLAS (spread: its 10th..90th percentile);\n"
	"floor_frac and nominal_frac are each floor's time over run_us.\n"
	"\n"
	"family           M  phase   pairs  base_us  run_us  speedup  spread        floor_frac  nominal_frac  winner\n"
	"--------------  --  ------  -----  -------  ------  -------  ------------  ----------  ------------  -------------------\n"
	"oproj            1  retest    200     5.80    5.80    1.000  -                   0.88          0.60  cublas\n"
	"oproj           16  retest    200     5.50    5.25    1.050  1.020..1.070        0.97          0.68  gemv warps=8,rows=1\n"
	"pooler           1  screen     10    20.20   18.40    1.100  1.050..1.150        0.86          0.76  gemv warps=8,rows=1\n"
	"pooler          16  retest    200    20.20   20.20    1.000  -                   0.79          0.70  cublas\n"
	"qkv              1  retest    200    13.40   10.00    1.340  1.300..1.380        0.92          0.79  gemv warps=8,rows=1\n"
	"qkv             16  retest    200    13.60   12.40    1.100  1.080..1.120        0.74          0.64  gemv warps=8,rows=1\n"
	"router           1  -           -     6.20    6.20    1.000  -                   0.45          0.28  cublas\n"
	"unpooler         1  retest    200    17.00   16.50    1.030  1.010..1.050        0.96          0.85  gemv warps=8,rows=1\n"
	"unpooler        16  retest    200    17.40   16.60    1.048  1.030..1.070        0.96          0.85  gemv warps=8,rows=1\n"
	"unpooler_slice   1  retest    200     6.30    3.50    1.800  1.750..1.850        0.80          0.50  gemv warps=4,rows=1\n"
	"unpooler_slice  16  retest    200     3.00    2.90    1.030  1.010..1.050        0.97          0.61  gemv warps=4,rows=1\n"
	"\n"
	"Per load\n"
	"\n"
	"speedup = sum of base_us / sum of run_us over the load's shapes,\n"
	"each times its count; only complete loads count in the score.\n"
	"Workload (the reference workload of docs/workload.md):\n"
	"qkv, oproj, pooler, unpooler (m > 8), unpooler_slice (m <= 8), router.\n"
	"\n"
	" M  families  expected  base_us  run_us  speedup  floor_frac  nominal_frac  note\n"
	"--  --------  --------  -------  ------  -------  ----------  ------------  -------------------\n"
	" 1         5         5    51.90   43.90    1.182        0.82          0.66  screen only: pooler\n"
	"16         4         5    56.70   54.45    1.041        0.85          0.73  missing: router\n"
	"\n"
	"score: 1.182, the geometric mean of the speedups of 1 of 6 loads (M = 1)\n"
	"all-M: 1.182, the geometric mean over M = 1..256 of the load speedup at each M (every shape measured at 1 of the 256 Ms; the Ms not measured are left out, not counted as cuBLAS)\n";

static const char golden_md[] =
	"# gemmtab report\n"
	"\n"
	"fixture.db, env 2: NVIDIA H200 (132 SMs, 1980 MHz), driver 580.82.07, CUDA 13.0, NVRTC 13.0, cuBLAS 13.0.0, cuBLASLt 13.0.0, sources 0123456789abcdef\n"
	"\n"
	"## Per family and M\n"
	"\n"
	"What the dispatch runs. Times in us; speedup is\n"
	"the median paired ratio over cuBLAS (spread: its 10th..90th percentile);\n"
	"floor_frac and nominal_frac are each floor's time over run_us.\n"
	"\n"
	"| family | M | phase | pairs | base_us | run_us | speedup | spread | floor_frac | nominal_frac | winner |\n"
	"|---|---:|---|---:|---:|---:|---:|---|---:|---:|---|\n"
	"| oproj | 1 | retest | 200 | 5.80 | 5.80 | 1.000 | - | 0.88 | 0.60 | cublas |\n"
	"| oproj | 16 | retest | 200 | 5.50 | 5.25 | 1.050 | 1.020..1.070 | 0.97 | 0.68 | gemv warps=8,rows=1 |\n"
	"| pooler | 1 | screen | 10 | 20.20 | 18.40 | 1.100 | 1.050..1.150 | 0.86 | 0.76 | gemv warps=8,rows=1 |\n"
	"| pooler | 16 | retest | 200 | 20.20 | 20.20 | 1.000 | - | 0.79 | 0.70 | cublas |\n"
	"| qkv | 1 | retest | 200 | 13.40 | 10.00 | 1.340 | 1.300..1.380 | 0.92 | 0.79 | gemv warps=8,rows=1 |\n"
	"| qkv | 16 | retest | 200 | 13.60 | 12.40 | 1.100 | 1.080..1.120 | 0.74 | 0.64 | gemv warps=8,rows=1 |\n"
	"| router | 1 | - | - | 6.20 | 6.20 | 1.000 | - | 0.45 | 0.28 | cublas |\n"
	"| unpooler | 1 | retest | 200 | 17.00 | 16.50 | 1.030 | 1.010..1.050 | 0.96 | 0.85 | gemv warps=8,rows=1 |\n"
	"| unpooler | 16 | retest | 200 | 17.40 | 16.60 | 1.048 | 1.030..1.070 | 0.96 | 0.85 | gemv warps=8,rows=1 |\n"
	"| unpooler_slice | 1 | retest | 200 | 6.30 | 3.50 | 1.800 | 1.750..1.850 | 0.80 | 0.50 | gemv warps=4,rows=1 |\n"
	"| unpooler_slice | 16 | retest | 200 | 3.00 | 2.90 | 1.030 | 1.010..1.050 | 0.97 | 0.61 | gemv warps=4,rows=1 |\n"
	"\n"
	"## Per load\n"
	"\n"
	"speedup = sum of base_us / sum of run_us over the load's shapes,\n"
	"each times its count; only complete loads count in the score.\n"
	"Workload (the reference workload of docs/workload.md):\n"
	"qkv, oproj, pooler, unpooler (m > 8), unpooler_slice (m <= 8), router.\n"
	"\n"
	"| M | families | expected | base_us | run_us | speedup | floor_frac | nominal_frac | note |\n"
	"|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
	"| 1 | 5 | 5 | 51.90 | 43.90 | 1.182 | 0.82 | 0.66 | screen only: pooler |\n"
	"| 16 | 4 | 5 | 56.70 | 54.45 | 1.041 | 0.85 | 0.73 | missing: router |\n"
	"\n"
	"score: 1.182, the geometric mean of the speedups of 1 of 6 loads (M = 1)\n"
	"all-M: 1.182, the geometric mean over M = 1..256 of the load speedup at each M (every shape measured at 1 of the 256 Ms; the Ms not measured are left out, not counted as cuBLAS)\n";

/* csv is one tidy table: the families section by default, one value per
 * cell (the spread's ends, the winner's template and parameters apart). */
static const char golden_csv[] =
	"family,n,k,M,phase,pairs,base_us,run_us,speedup,spread_lo,spread_hi,floor_us,floor_frac,nominal_us,nominal_frac,template,params,waves\n"
	"oproj,8192,1024,1,retest,200,5.80,5.80,1.000,,,5.10,0.88,3.50,0.60,cublas,,\n"
	"oproj,8192,1024,16,retest,200,5.50,5.25,1.050,1.020,1.070,5.10,0.97,3.56,0.68,gemv,\"warps=8,rows=1\",\n"
	"pooler,4096,8192,1,screen,10,20.20,18.40,1.100,1.050,1.150,15.90,0.86,13.99,0.76,gemv,\"warps=8,rows=1\",\n"
	"pooler,4096,8192,16,retest,200,20.20,20.20,1.000,,,15.90,0.79,14.06,0.70,cublas,,\n"
	"qkv,2304,8192,1,retest,200,13.40,10.00,1.340,1.300,1.380,9.20,0.92,7.87,0.79,gemv,\"warps=8,rows=1\",\n"
	"qkv,2304,8192,16,retest,200,13.60,12.40,1.100,1.080,1.120,9.20,0.74,7.93,0.64,gemv,\"warps=8,rows=1\",\n"
	"router,256,8192,1,,,6.20,6.20,1.000,,,2.80,0.45,1.75,0.28,cublas,,\n"
	"unpooler,8192,4096,1,retest,200,17.00,16.50,1.030,1.010,1.050,15.90,0.96,13.99,0.85,gemv,\"warps=8,rows=1\",\n"
	"unpooler,8192,4096,16,retest,200,17.40,16.60,1.048,1.030,1.070,15.90,0.96,14.06,0.85,gemv,\"warps=8,rows=1\",\n"
	"unpooler_slice,1024,4096,1,retest,200,6.30,3.50,1.800,1.750,1.850,2.80,0.80,1.75,0.50,gemv,\"warps=4,rows=1\",\n"
	"unpooler_slice,1024,4096,16,retest,200,3.00,2.90,1.030,1.010,1.050,2.80,0.97,1.78,0.61,gemv,\"warps=4,rows=1\",\n";

static const char golden_loads_csv[] =
	"M,families,expected,base_us,run_us,speedup,floor_frac,nominal_frac,note\n"
	"1,5,5,51.90,43.90,1.182,0.82,0.66,screen only: pooler\n"
	"16,4,5,56.70,54.45,1.041,0.85,0.73,missing: router\n";

static const char golden_score_csv[] =
	"score,loads,of,all_m,all_m_measured,all_m_of,all_m_max\n"
	"1.182,1,6,1.182,1,256,256\n";

/* The older environment: one qkv row, so the load is incomplete and there
 * is no score. */
static const char golden_old_csv[] =
	"family,n,k,M,phase,pairs,base_us,run_us,speedup,spread_lo,spread_hi,floor_us,floor_frac,nominal_us,nominal_frac,template,params,waves\n"
	"qkv,2304,8192,1,retest,200,13.50,11.25,1.200,1.150,1.250,,,7.87,0.70,gemv,\"warps=8,rows=1\",\n";

static const char golden_old_score_csv[] =
	"score,loads,of,all_m,all_m_measured,all_m_of,all_m_max\n"
	",0,6,,0,256,256\n";

TEST(fixture_sections)
{
	char *out = fixture_report_sections(FIXTURE_ENV, TABLE_CSV, REPORT_LOADS);
	CHECK_STR(out, golden_loads_csv);
	free(out);
	out = fixture_report_sections(FIXTURE_ENV, TABLE_CSV, REPORT_SCORE);
	CHECK_STR(out, golden_score_csv);
	free(out);
	out = fixture_report_sections(FIXTURE_ENV_OLD, TABLE_CSV, REPORT_SCORE);
	CHECK_STR(out, golden_old_score_csv);
	free(out);
	/* text with the score alone: the title and the score's two lines */
	out = fixture_report_sections(FIXTURE_ENV, TABLE_TEXT, REPORT_SCORE);
	const char *score = strstr(golden_text, "score: ");
	CHECK(score != NULL);
	CHECK(!strncmp(out, "gemmtab report: fixture.db", 26));
	CHECK(strstr(out, "Per family") == NULL && strstr(out, "Per load") == NULL);
	CHECK(strlen(out) > strlen(score) && !strcmp(out + strlen(out) - strlen(score), score));
	free(out);
	unsigned sec;
	CHECK_INT(report_sections_parse("families,score", &sec), 0);
	CHECK_INT(sec, REPORT_FAMILIES | REPORT_SCORE);
	CHECK_INT(report_sections_parse("loads,bogus", &sec), -1);
	CHECK_INT(report_sections_parse("", &sec), -1);
	CHECK_INT(report_sections_parse(",", &sec), -1);
}

/* json: one document; every figure of the csv tables is there, numbers as
 * numbers, absent figures null (python3 -m json.tool parses it in
 * tests/cli/t_formats.sh). */
TEST(fixture_json)
{
	char *out = fixture_report(FIXTURE_ENV, TABLE_JSON);
	CHECK(out[0] == '{' && !strcmp(out + strlen(out) - 2, "}\n"));
	CHECK(strstr(out, "\"gemmtab\": \"report\"") != NULL);
	CHECK(strstr(out, "\"database\": \"fixture.db\"") != NULL);
	CHECK(strstr(out, "\"gpu\": \"NVIDIA H200\"") != NULL);
	CHECK(strstr(out, "\"sm_count\": 132") != NULL);
	CHECK(strstr(out, "\"family\": \"unpooler_slice\"") != NULL);
	CHECK(strstr(out, "\"speedup\": 1.800") != NULL);
	CHECK(strstr(out, "\"spread_lo\": null") != NULL);
	CHECK(strstr(out, "\"params\": \"warps=4,rows=1\"") != NULL);
	CHECK(strstr(out, "\"note\": \"missing: router\"") != NULL);
	CHECK(strstr(out, "\"loads_in_score\": 1") != NULL);
	CHECK(strstr(out, "\"max_m\": 256") != NULL);
	CHECK(strstr(out, "\"score\": 1.18") != NULL);
	free(out);
	/* no score: null, not a number */
	out = fixture_report(FIXTURE_ENV_OLD, TABLE_JSON);
	CHECK(strstr(out, "\"score\": null") != NULL);
	free(out);
}

TEST(fixture_text)
{
	char *out = fixture_report(FIXTURE_ENV, TABLE_TEXT);
	CHECK_STR(out, golden_text);
	free(out);
}

TEST(fixture_md)
{
	char *out = fixture_report(FIXTURE_ENV, TABLE_MD);
	CHECK_STR(out, golden_md);
	free(out);
}

TEST(fixture_csv)
{
	char *out = fixture_report(FIXTURE_ENV, TABLE_CSV);
	CHECK_STR(out, golden_csv);
	free(out);
}

TEST(fixture_old_env)
{
	char *out = fixture_report(FIXTURE_ENV_OLD, TABLE_CSV);
	CHECK_STR(out, golden_old_csv);
	free(out);
}

TEST(report_command)
{
	char *out, *expect;
	const char *path = fixture();
	const char *title = "gemmtab report: fixture.db";

	CHECK_INT(run_captured(cmd_report, (const char *[]){ "report", "--db", path,
			       "--format", "csv", NULL }, &out), 0);
	CHECK_STR(out, golden_csv);
	free(out);
	/* text, newest env by default; the title names the database given */
	CHECK_INT(run_captured(cmd_report, (const char *[]){ "report", "--db", path,
			       NULL }, &out), 0);
	expect = xasprintf("gemmtab report: %s%s", path, golden_text + strlen(title));
	CHECK_STR(out, expect);
	free(expect);
	free(out);
	CHECK_INT(run_captured(cmd_report, (const char *[]){ "report", "--env", "1",
			       "--format", "csv", "--db", path, NULL }, &out), 0);
	CHECK_STR(out, golden_old_csv);
	free(out);

	fprintf(stderr, "  (usage errors expected)\n");
	static const char *const bad[][8] = {
		{ "report", NULL },
		{ "report", "--db", NULL },
		{ "report", "--db", "x.db", "--format", "xml", NULL },
		{ "report", "--db", "x.db", "--env", "two", NULL },
		{ "report", "--db", "x.db", "--bogus", NULL },
		{ "report", "--db", "x.db", "extra", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK_INT(run_captured(cmd_report, bad[i], &out), 2);
		CHECK_STR(out, "");
		free(out);
	}
	/* an environment the database lacks is a bad argument; a missing
	 * database is a failure, and is not created */
	CHECK_INT(run_captured(cmd_report, (const char *[]){ "report", "--db", path,
			       "--env", "9", NULL }, &out), 2);
	free(out);
	expect = xasprintf("%s/missing.db", fixture_dir);
	CHECK_INT(run_captured(cmd_report, (const char *[]){ "report", "--db", expect,
			       NULL }, &out), 1);
	CHECK_INT(access(expect, F_OK), -1);
	free(expect);
	free(out);
	CHECK_INT(run_captured(cmd_report, (const char *[]){ "report", "--help", NULL },
			       &out), 0);
	CHECK(!strncmp(out, "usage: gemmtab report --db DB", 29));
	free(out);
}

TEST(query_command)
{
	char *out;
	const char *path = fixture();
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "--db", path,
			       "--format", "csv", "failures", NULL }, &out), 0);
	CHECK_STR(out, "env_id,status,reason,count\n"
		  "2,compile_error,too many resources requested for launch,1\n"
		  "2,fail,global error 3e-3 > 1e-4,1\n"
		  "2,fail,row 3: relative error 0.5 > 0.02,1\n"
		  "2,pruned,smem 300000 > 232448,1\n"
		  "2,timeout,deadline 20 s passed,1\n");
	free(out);
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "--db", path,
			       "SELECT family, m, template, params FROM best "
			       "WHERE env_id = 2 AND ratio > 1.2", NULL }, &out), 0);
	CHECK_STR(out, "family          m  template  params\n"
		  "--------------  -  --------  --------------\n"
		  "qkv             1  gemv      warps=8,rows=1\n"
		  "unpooler_slice  1  gemv      warps=4,rows=1\n");
	free(out);
	fprintf(stderr, "  (errors expected)\n");
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "--db", path,
			       "DELETE FROM result", NULL }, &out), 1);
	free(out);
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "--db", path,
			       "best", "failures", NULL }, &out), 2);
	free(out);
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "best", NULL },
			       &out), 2);
	free(out);
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "--db", path,
			       "--format", "xml", "best", NULL }, &out), 2);
	free(out);
	/* the delete above was refused: every result is still there */
	CHECK_INT(run_captured(cmd_query, (const char *[]){ "query", "--db", path,
			       "--format", "csv", "SELECT count(*) AS n FROM result", NULL },
			       &out), 0);
	CHECK_STR(out, "n\n19\n");
	free(out);
}

static struct best_row regret_row(int m)
{
	struct best_row b;
	memset(&b, 0, sizeof(b));
	snprintf(b.family, sizeof(b.family), "a");
	b.n = 256;
	b.k = 512;
	b.m = m;
	b.base_us = 10;
	return b;
}

static struct retest_row regret_retest(int m, const char *params, double ratio)
{
	struct retest_row r;
	memset(&r, 0, sizeof(r));
	snprintf(r.family, sizeof(r.family), "a");
	r.n = 256;
	r.k = 512;
	r.m = m;
	snprintf(r.tmpl, sizeof(r.tmpl), "gemv");
	snprintf(r.params, sizeof(r.params), "%s", params);
	r.ratio = ratio;
	r.pairs = 200;
	return r;
}

/* report --regret per entry: the Ms it serves and those measured among
 * them, the worst measured ratio and where, the held-out M; and the
 * summary's counts of served-but-unmeasured Ms, certified ones apart. */
TEST(regret_lists_each_entry)
{
	const struct best_row rows[] = { regret_row(1), regret_row(2), regret_row(65),
					 regret_row(72), regret_row(80) };
	const struct retest_row rt[] = {
		regret_retest(1, "x=1", 1.5), regret_retest(2, "x=1", 1.2),
		regret_retest(65, "x=2", 1.3), regret_retest(72, "x=2", 1.1),
		regret_retest(80, "x=2", 1.25),
	};
	const struct emit_key key = { 256, 512, DT_BF16, DT_BF16, DT_BF16 };
	struct emit_incumbent inc[] = {
		{ "a", 1, 2, { "gemv", "x=1" }, key, 0 },       /* measured Ms only */
		{ "a", 65, 80, { "gemv", "x=2" }, key, 72 },    /* a certified span */
		{ "a", 3, 8, { "gemv", "x=1" }, key, 0 },       /* a bridge: none measured */
	};
	struct regret r;
	regret_build(rows, 5, rt, 5, inc, 3, &r);
	CHECK_INT(r.ne, 3);
	CHECK_INT(r.e[0].served, 2);
	CHECK_INT(r.e[0].measured, 2);
	CHECK_NEAR(r.e[0].worst, 1.2, 1e-12);
	CHECK_INT(r.e[0].worst_m, 2);
	CHECK(isnan(r.e[0].holdout_ratio));
	CHECK_INT(r.e[1].served, 16);
	CHECK_INT(r.e[1].measured, 3);
	CHECK_NEAR(r.e[1].worst, 1.1, 1e-12);
	CHECK_INT(r.e[1].worst_m, 72);
	CHECK_NEAR(r.e[1].holdout_ratio, 1.1, 1e-12);
	CHECK_INT(r.e[2].served, 6);
	CHECK_INT(r.e[2].measured, 0);
	CHECK(isnan(r.e[2].worst));
	CHECK_INT(r.family_ms, 24);
	CHECK_INT(r.family_measured, 5);
	CHECK_INT(r.unmeasured, 13 + 6);
	CHECK_INT(r.certified, 13);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	regret_print(&r, "t", TABLE_TEXT, f);
	fclose(f);
	CHECK(strstr(buf, "\nserved: 3 entries serve 24 family-Ms with a tuned kernel, 5 of them "
		      "measured; 19 served Ms were not measured (13 of them inside spans certified "
		      "by a held-out M)\n") != NULL);
	CHECK(strstr(buf, "\na         65..80  gemv          16         3  1.100        72        72           1.100\n") != NULL);
	free(buf);
	regret_free(&r);
}

TESTS(T(nominal_floors_match_workload), T(slice_rule),
      T(who_runs_and_floor_fractions), T(loads_and_geometric_mean),
      T(all_m_skips_ms_nothing_runs), T(ambiguous_and_screen_families), T(fixture_text), T(fixture_md), T(fixture_sections), T(fixture_json),
      T(fixture_csv), T(fixture_old_env), T(report_command), T(query_command), T(regret_lists_each_entry))
