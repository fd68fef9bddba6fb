/*
 * test_runtime_dispatch.c: the runtime's dispatch decisions over a fixture
 * table, without CUDA: a device picks the table tuned on its kind (or
 * none, saying why), a cuBLASLt version change turns off cuBLASLt entries
 * alone,
 * malformed entries fall back with their reason, each M finds its entry
 * (or none), the workspace covers the largest M of a split-K entry, a
 * zero-block entry names its counters, and
 * gt_weight_explain's line reads as documented. Links runtime/dispatch.c
 * and the tuner's adapters directly (they are local inside the library).
 */
#include "check.h"
#include "rt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The compiled kernels the fixture pretends to have. */
#define NKERNELS 4

static const struct gt_table_entry entries[] = {
	/* 0: qkv m=1, one kernel */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 1, .m_hi = 1, .tmpl = "gemv",
	  .params = { 16, 4, 1, 1, 1, 0 }, .nkernels = 1, .kernel = { 0 }, .ratio_min = 1.35254,
	  .pairs_min = 100 },
	/* 1: router m 9-16, split-K: two kernels and a workspace */
	{ .n = 256, .k = 8192, .w = 1, .x = 0, .y = 1, .m_lo = 9, .m_hi = 16, .tmpl = "gemv",
	  .params = { 2, 4, 16, 4, 8, 1 }, .nkernels = 2, .kernel = { 2, 3 }, .ratio_min = 3.688,
	  .pairs_min = 200 },
	/* 2: qkv m=2: a template this library does not have */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 2, .m_hi = 2, .tmpl = "wgmma",
	  .nkernels = 1, .kernel = { 0 } },
	/* 3: qkv m=3: a cache policy past the template's five */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 3, .m_hi = 3, .tmpl = "gemv",
	  .params = { 16, 1, 1, 1, 1, 5 }, .nkernels = 1, .kernel = { 0 } },
	/* 4: qkv m=4: a kernel index past the compiled ones */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 4, .m_hi = 4, .tmpl = "gemv",
	  .params = { 16, 4, 1, 1, 1, 0 }, .nkernels = 1, .kernel = { NKERNELS } },
	/* 5: qkv m=5: split=2 launches two kernels, the entry names one */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 5, .m_hi = 5, .tmpl = "gemv",
	  .params = { 4, 4, 1, 1, 2, 0 }, .nkernels = 1, .kernel = { 0 } },
	/* 6: qkv: an empty range */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 7, .m_hi = 6, .tmpl = "gemv",
	  .params = { 16, 4, 1, 1, 1, 0 }, .nkernels = 1, .kernel = { 0 } },
	/* 7: qkv m 8-INT_MAX: a huge range is checked at its ends, quickly */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 8, .m_hi = INT_MAX,
	  .tmpl = "gemv", .params = { 16, 4, 1, 1, 1, 0 }, .nkernels = 1, .kernel = { 0 } },
	/* 8: qkv m=1 again: overlaps entry 0, which wins */
	{ .n = 2304, .k = 8192, .w = 0, .x = 0, .y = 0, .m_lo = 1, .m_hi = 1, .tmpl = "gemv",
	  .params = { 8, 4, 1, 1, 1, 0 }, .nkernels = 1, .kernel = { 1 } },
};

static const struct gt_table table = {
	.generated_by = "fixture",
	.gpu_name = "NVIDIA H200",
	.sm_count = 132,
	.cuda = "13.0",
	.cublaslt = "13.1.0",
	.source_hash = "0123456789abcdef",
	.nentries = sizeof(entries) / sizeof(entries[0]),
	.entries = entries,
};

static struct shape qkv(void)
{
	struct shape s;
	rt_shape_init(&s, 2304, 8192, GT_BF16, GT_BF16, GT_BF16);
	return s;
}

static struct shape router(void)
{
	struct shape s;
	rt_shape_init(&s, 256, 8192, GT_FP32, GT_BF16, GT_FP32);
	return s;
}

TEST(shape_takes_the_dtypes)
{
	struct shape s = router();
	CHECK_INT(s.n, 256);
	CHECK_INT(s.k, 8192);
	CHECK_INT(s.w, DT_FP32);
	CHECK_INT(s.x, DT_BF16);
	CHECK_INT(s.y, DT_FP32);
}

/* A device as gt_context_create describes it. */
static struct rt_env device(const char *name, int sms, const char *lt)
{
	struct rt_env e = { .sm_count = sms, .cc = 90 };
	snprintf(e.gpu_name, sizeof(e.gpu_name), "%s", name);
	snprintf(e.driver, sizeof(e.driver), "13.0");
	snprintf(e.cuda, sizeof(e.cuda), "13.0");
	snprintf(e.cublaslt, sizeof(e.cublaslt), "%s", lt);
	return e;
}

TEST(table_pick_by_name_sm_count_and_arch)
{
	static const struct gt_table h100 = {
		.generated_by = "fixture h100", .gpu_name = "NVIDIA H100 80GB HBM3",
		.arch = "sm_90a", .sm_count = 132, .driver = "12.8", .cuda = "12.8",
		.cublaslt = "12.8.4", .nentries = 0,
	};
	static const struct gt_table h200 = {
		.generated_by = "fixture h200", .gpu_name = "NVIDIA H200", .arch = "sm_90a",
		.sm_count = 132, .driver = "13.0", .cuda = "13.0", .cublaslt = "13.1.0",
		.nentries = 9,
	};
	static const struct rt_compiled a = { "t/h100.h", &h100, 0, 0, 0 };
	static const struct rt_compiled b = { "t/h200.h", &h200, 0, 0, 0 };
	const struct rt_compiled *const both[] = { &a, &b, NULL };
	char desc[RT_DESC_MAX];

	struct rt_env env = device("NVIDIA H200", 132, "13.2.0");
	CHECK_INT(rt_table_pick(both, &env, desc, sizeof(desc)), 1);
	CHECK_STR(desc, "table t/h200.h in use on NVIDIA H200 (132 SMs): tuned on NVIDIA H200, "
		  "132 SMs, CUDA 13.0, driver 13.0, cuBLASLt 13.1.0, kernels sm_90a; 9 entries; "
		  "fixture h200; table t/h100.h not chosen: tuned on NVIDIA H100 80GB HBM3, not "
		  "this NVIDIA H200 (tuned on NVIDIA H100 80GB HBM3, 132 SMs, CUDA 12.8, driver "
		  "12.8, cuBLASLt 12.8.4, kernels sm_90a; 0 entries; fixture h100)");
	env = device("NVIDIA H100 80GB HBM3", 132, "13.1.0");
	CHECK_INT(rt_table_pick(both, &env, NULL, 0), 0);
	/* a part of the same name with fewer SMs */
	env = device("NVIDIA H200", 114, "13.1.0");
	CHECK_INT(rt_table_pick(both, &env, desc, sizeof(desc)), -1);
	CHECK(strstr(desc, "no table for NVIDIA H200 (114 SMs, compute capability 9.0): every "
		     "M runs the cuBLAS baseline; table t/h100.h not chosen: tuned on NVIDIA H100 "
		     "80GB HBM3, not this NVIDIA H200") == desc);
	CHECK(strstr(desc, "; table t/h200.h not chosen: tuned on NVIDIA H200 with 132 SMs, "
		     "this one has 114 (") != NULL);
	/* the same name and SMs on another arch (the cubins are sm_90a) */
	env = device("NVIDIA H200", 132, "13.1.0");
	env.cc = 100;
	CHECK_INT(rt_table_pick(both, &env, desc, sizeof(desc)), -1);
	CHECK(strstr(desc, "t/h200.h not chosen: its kernels are sm_90a, this device is "
		     "compute capability 10.0") != NULL);
	/* two tables for one card: the first listed serves, the other says so */
	const struct rt_compiled *const twice[] = { &b, &b, NULL };
	env = device("NVIDIA H200", 132, "13.1.0");
	CHECK_INT(rt_table_pick(twice, &env, desc, sizeof(desc)), 0);
	CHECK(strstr(desc, "; table t/h200.h not chosen: t/h200.h, listed earlier, serves it "
		     "first") != NULL);
	const struct rt_compiled *const none[] = { NULL };
	CHECK_INT(rt_table_pick(none, &env, desc, sizeof(desc)), -1);
	CHECK_STR(desc, "no table for NVIDIA H200 (132 SMs, compute capability 9.0): every M "
		  "runs the cuBLAS baseline");
}

TEST(routes_keep_only_the_weights_entries_in_table_order)
{
	struct shape s = qkv();
	struct rt_route *r = NULL;
	int n = rt_routes_collect(&table, &s, NKERNELS, &r);
	CHECK_INT(n, 8);                        /* every entry but the router's */
	for (int i = 0; i < n && r; i++)
		CHECK_INT(r[i].e->n, 2304);
	if (r) {
		CHECK_INT(r[0].index, 0);
		CHECK_INT(r[1].index, 2);
		CHECK_INT(r[7].index, 8);
	}
	free(r);

	struct shape none;
	rt_shape_init(&none, 4096, 8192, GT_BF16, GT_BF16, GT_BF16);
	r = (struct rt_route *)&none;
	CHECK_INT(rt_routes_collect(&table, &none, NKERNELS, &r), 0);
	CHECK(r == NULL);
}

TEST(malformed_entries_fall_back_with_their_reason)
{
	struct shape s = qkv();
	struct rt_route *r = NULL;
	int n = rt_routes_collect(&table, &s, NKERNELS, &r);
	CHECK_INT(n, 8);
	if (n != 8)
		return;
	CHECK_INT(r[0].usable, 1);
	CHECK_STR(r[0].why, "");
	CHECK_INT(r[0].ws_bytes, 0);
	CHECK_INT(r[1].usable, 0);
	CHECK_STR(r[1].why, "template 'wgmma' is not compiled into this library");
	CHECK_INT(r[2].usable, 0);
	CHECK_STR(r[2].why, "parameters illegal for this shape: parameter out of range");
	CHECK_INT(r[3].usable, 0);
	CHECK_STR(r[3].why, "kernel index 4 outside the 4 compiled kernels");
	CHECK_INT(r[4].usable, 0);
	CHECK_STR(r[4].why, "names 1 kernels, its template launches 2");
	CHECK_INT(r[5].usable, 0);
	CHECK_STR(r[5].why, "empty or invalid m range 7-6");
	CHECK_INT(r[6].usable, 1);              /* m 8-INT_MAX, checked at both ends */
	CHECK_INT(r[7].usable, 1);
	free(r);
}

TEST(split_k_workspace_covers_the_largest_m)
{
	struct shape s = router();
	struct rt_route *r = NULL;
	int n = rt_routes_collect(&table, &s, NKERNELS, &r);
	CHECK_INT(n, 1);
	if (n != 1)
		return;
	CHECK_INT(r[0].usable, 1);
	/* split 8 x m 16 x n 256 FP32 partials */
	CHECK_INT(r[0].ws_bytes, (size_t)8 * 16 * 256 * sizeof(float));

	struct launch_plan plan;
	CHECK_INT(rt_plan(&r[0], &s, 16, NKERNELS, r[0].ws_bytes, &plan), 0);
	CHECK_INT(plan.nsteps, 2);
	CHECK_INT(plan.steps[1].kernel, 1);     /* the entry's second kernel: 3 */
	CHECK_INT(rt_plan(&r[0], &s, 9, NKERNELS, r[0].ws_bytes, &plan), 0);
	/* a workspace too small for the plan refuses it */
	CHECK_INT(rt_plan(&r[0], &s, 16, NKERNELS, r[0].ws_bytes - 1, &plan), -1);
	/* fewer compiled kernels than the entry names refuses it */
	CHECK_INT(rt_plan(&r[0], &s, 16, 3, r[0].ws_bytes, &plan), -1);
	free(r);
}

/* A zero-block entry (mma_hilo combine zblock): one kernel, no
 * workspace, the counters it names (plan.sync_bytes, which the weight
 * allocates and zeroes once) and one more warp per block. */
static const struct gt_table_entry zblock_entries[] = {
	{ .n = 256, .k = 8192, .w = 1, .x = 0, .y = 1, .m_lo = 2, .m_hi = 32, .tmpl = "mma_hilo",
	  .params = { 32, 32, 128, 4, 4, 16, 0, 2 /* zblock */, 0, 0 }, .nkernels = 1,
	  .kernel = { 1 } },
};

TEST(zblock_entries_name_their_counters)
{
	struct gt_table t = table;
	t.entries = zblock_entries;
	t.nentries = 1;
	struct shape s = router();
	struct rt_route *r = NULL;
	int n = rt_routes_collect(&t, &s, NKERNELS, &r);
	CHECK_INT(n, 1);
	if (n != 1)
		return;
	CHECK_INT(r[0].usable, 1);
	CHECK_INT(r[0].ws_bytes, 0);
	CHECK_INT(r[0].sync_bytes, 4);  /* the zero block's one flag */
	struct launch_plan plan;
	CHECK_INT(rt_plan(&r[0], &s, 32, NKERNELS, 0, &plan), 0);
	CHECK_INT(plan.nsteps, 1);
	CHECK_INT(plan.sync_bytes, r[0].sync_bytes);
	CHECK_INT(plan.steps[0].block[0], 4 * 32 + 32);
	CHECK_INT(plan.steps[0].grid[2], 2 * 256 / 32 + 1);
	int has_sync = 0;
	for (int a = 0; a < plan.steps[0].nargs; a++)
		has_sync += plan.steps[0].args[a].kind == ARG_SYNC;
	CHECK_INT(has_sync, 1);
	free(r);
}

/* blas_lt entries (a cuBLASLt algorithm by its attributes): the plan is
 * one STEP_LT, which needs no route workspace (it runs in the weight's
 * cuBLAS one); an orientation out of range or a shape it does not serve
 * falls back with the reason. Whether cuBLASLt accepts the algorithm is
 * checked on the device (rt_lt_check). */
static const struct gt_table_entry lt_entries[] = {
	{ .n = 8192, .k = 1024, .m_lo = 127, .m_hi = 128, .tmpl = "blas_lt",
	  .params = { 1, 66, 18, 35, 1, 0, 0, 3, 0, 5 } },
	{ .n = 8192, .k = 1024, .m_lo = 255, .m_hi = 255, .tmpl = "blas_lt",
	  .params = { 3, 66, 18, 35, 1, 0, 0, 3, 0, 5 } },
	{ .n = 256, .k = 8192, .w = 1, .x = 0, .y = 1, .m_lo = 32, .m_hi = 32, .tmpl = "blas_lt",
	  .params = { 0, 66, 18, 35, 1, 0, 0, 3, 0, 5 } },
};

TEST(lt_entries_plan_one_cublaslt_step)
{
	const struct gt_table t = { .nentries = 3, .entries = lt_entries };
	struct shape oproj, rt = router();
	rt_shape_init(&oproj, 8192, 1024, GT_BF16, GT_BF16, GT_BF16);
	struct rt_route *r = NULL;
	int n = rt_routes_collect(&t, &oproj, NKERNELS, &r);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(r[0].usable, 1);
		/* none of its own: it runs in the weight's cuBLAS workspace */
		CHECK_INT(r[0].ws_bytes, 0);
		struct launch_plan plan;
		CHECK_INT(rt_plan(&r[0], &oproj, 127, NKERNELS, r[0].ws_bytes, &plan), 0);
		CHECK_INT(plan.nsteps, 1);
		CHECK_INT(plan.steps[0].kind, STEP_LT);
		for (int i = 0; i < STEP_LT_VALUES; i++)
			CHECK_INT(plan.steps[0].lt[i], lt_entries[0].params[i]);
		CHECK_INT(r[1].usable, 0);
		CHECK_STR(r[1].why, "parameters illegal for this shape: parameter out of range");
	}
	free(r);
	n = rt_routes_collect(&t, &rt, NKERNELS, &r);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_INT(r[0].usable, 0);
		CHECK_STR(r[0].why, "parameters illegal for this shape: w, x and y must be bf16");
	}
	free(r);
}

TEST(versions_turn_off_cublaslt_entries_alone)
{
	/* one table with a template entry and a cuBLASLt entry for oproj */
	static const struct gt_table_entry mixed[] = {
		{ .n = 8192, .k = 1024, .w = 0, .x = 0, .y = 0, .m_lo = 1, .m_hi = 4,
		  .tmpl = "gemv", .params = { 16, 4, 8, 1, 1, 0 }, .nkernels = 1,
		  .kernel = { 0 } },
	};
	struct gt_table t = { .gpu_name = "NVIDIA H200", .arch = "sm_90a", .sm_count = 132,
			      .driver = "13.0", .cuda = "13.0", .cublaslt = "13.1.0",
			      .nentries = 1, .entries = mixed };
	struct shape oproj;
	rt_shape_init(&oproj, 8192, 1024, GT_BF16, GT_BF16, GT_BF16);
	struct rt_route *r = NULL;
	/* a template entry stays on under another driver, CUDA and cuBLASLt */
	struct rt_env env = device("NVIDIA H200", 132, "13.2.0");
	snprintf(env.driver, sizeof(env.driver), "13.1");
	snprintf(env.cuda, sizeof(env.cuda), "13.1");
	CHECK_INT(rt_routes_collect(&t, &oproj, NKERNELS, &r), 1);
	CHECK_INT(r[0].lt, 0);
	rt_route_env_check(&r[0], &t, &env);
	CHECK_INT(r[0].usable, 1);
	CHECK_STR(r[0].why, "");
	free(r);
	/* a cuBLASLt entry: on under the same cuBLASLt, off under another */
	t.entries = lt_entries;
	t.nentries = 1;
	CHECK_INT(rt_routes_collect(&t, &oproj, NKERNELS, &r), 1);
	CHECK_INT(r[0].lt, 1);
	struct rt_env same = device("NVIDIA H200", 132, "13.1.0");
	rt_route_env_check(&r[0], &t, &same);
	CHECK_INT(r[0].usable, 1);
	rt_route_env_check(&r[0], &t, &env);
	CHECK_INT(r[0].usable, 0);
	CHECK_STR(r[0].why, "a cuBLASLt algorithm chosen under cuBLASLt 13.1.0, this process "
		  "runs cuBLASLt 13.2.0 (gemmtab verify re-times the table here)");
	free(r);
}

TEST(each_m_finds_its_entry)
{
	struct shape s = qkv();
	struct rt_route *r = NULL;
	int n = rt_routes_collect(&table, &s, NKERNELS, &r);
	CHECK_INT(n, 8);
	if (n != 8)
		return;
	CHECK(rt_route_find(r, n, 1) == &r[0]); /* not the overlapping entry 8 */
	CHECK(rt_route_find(r, n, 2) == &r[1]);
	CHECK(rt_route_find(r, n, 6) == NULL);
	CHECK(rt_route_find(r, n, 8) == &r[6]);
	CHECK(rt_route_find(r, n, INT_MAX) == &r[6]);
	CHECK(rt_route_find(r, 0, 1) == NULL);
	free(r);
}

TEST(disable_keeps_the_first_reason)
{
	struct rt_route r = { .usable = 1 };
	rt_route_disable(&r, "first %d", 1);
	rt_route_disable(&r, "second");
	CHECK_INT(r.usable, 0);
	CHECK_STR(r.why, "first 1");
}

TEST(explain_lines)
{
	struct shape s = qkv();
	struct rt_route *r = NULL;
	char buf[512];
	int n = rt_routes_collect(&table, &s, NKERNELS, &r);
	CHECK_INT(n, 8);
	if (n != 8)
		return;
	rt_explain(&s, &r[0], 1, 0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "m=1: entry 0 (gemv warps=16,rows=4,tokens=1,unroll=1,split=1,"
		  "cache=default, m 1-1, retest ratio >= 1.353 over >= 100 pairs); calls with "
		  "x or y not 16-byte aligned run the baseline");
	rt_explain(&s, &r[0], 1, 3, 0, buf, sizeof(buf));
	CHECK(strstr(buf, "run the baseline (3 calls so far)") != NULL);
	rt_explain(&s, &r[1], 2, 0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "m=2: baseline (cublasGemmEx bf16, compute 32F): entry 2 (wgmma) not "
		  "used: template 'wgmma' is not compiled into this library");
	rt_explain(&s, NULL, 6, 0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "m=6: baseline (cublasGemmEx bf16, compute 32F): no table entry for "
		  "n=2304 k=8192 bf16*bf16->bf16 covers m=6");

	struct shape rs = router();
	rt_explain(&rs, NULL, 600, 0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "m=600: baseline (x to fp32 in chunks of 512 rows, cublasGemmEx fp32, "
		  "compute 32F, no TF32): no table entry for n=256 k=8192 fp32*bf16->fp32 "
		  "covers m=600");

	/* a table tuned elsewhere: the weight's routes carry the mismatch */
	rt_route_disable(&r[0], "table tuned on X");
	rt_explain(&s, &r[0], 1, 0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "m=1: baseline (cublasGemmEx bf16, compute 32F): entry 0 (gemv "
		  "warps=16,rows=4,tokens=1,unroll=1,split=1,cache=default) not used: table "
		  "tuned on X");

	/* a cluster plan that takes more than one wave on this device: the
	 * note rides on the line of a usable route */
	char note[RT_WHY_MAX];
	rt_cluster_note(36, 7, 32, 32, note, sizeof(note));
	CHECK_STR(note, "at m=32 its 36 clusters of 7 blocks take 2 waves on this GPU "
		  "(32 fit at once)");
	rt_cluster_note(36, 8, 45, 32, note, sizeof(note));
	CHECK_STR(note, "");
	rt_cluster_note(36, 8, 36, 32, note, sizeof(note));      /* exactly one wave */
	CHECK_STR(note, "");
	rt_cluster_note(36, 8, 0, 32, note, sizeof(note));       /* unknown: no note */
	CHECK_STR(note, "");
	rt_cluster_note(100, 8, 30, 9, note, sizeof(note));
	CHECK_STR(note, "at m=9 its 100 clusters of 8 blocks take 4 waves on this GPU "
		  "(30 fit at once)");
	struct rt_route u = r[0];       /* r[0], usable again */
	u.usable = 1;
	rt_cluster_note(36, 7, 32, 32, u.note, sizeof(u.note));
	rt_explain(&s, &u, 1, 2, 0, buf, sizeof(buf));
	CHECK_STR(buf, "m=1: entry 0 (gemv warps=16,rows=4,tokens=1,unroll=1,split=1,"
		  "cache=default, m 1-1, retest ratio >= 1.353 over >= 100 pairs); calls with "
		  "x or y not 16-byte aligned run the baseline (2 calls so far); at m=32 its 36 "
		  "clusters of 7 blocks take 2 waves on this GPU (32 fit at once)");
	u.note[0] = '\0';
	rt_explain(&s, &u, 1, 0, 0, buf, sizeof(buf));
	CHECK(strstr(buf, "waves") == NULL);
	/* a call cuBLASLt refused is counted as that, not as misaligned */
	rt_explain(&s, &u, 1, 0, 3, buf, sizeof(buf));
	CHECK(strstr(buf, "calls so far") == NULL);
	CHECK(strstr(buf, "; cuBLASLt refused its step in 3 calls, which ran the baseline") != NULL);

	/* a short buffer is truncated, still terminated */
	char tiny[8];
	rt_explain(&s, NULL, 6, 0, 0, tiny, sizeof(tiny));
	CHECK_STR(tiny, "m=6: ba");
	free(r);
}

TESTS(T(shape_takes_the_dtypes), T(table_pick_by_name_sm_count_and_arch), T(versions_turn_off_cublaslt_entries_alone), T(lt_entries_plan_one_cublaslt_step),
      T(zblock_entries_name_their_counters),
      T(routes_keep_only_the_weights_entries_in_table_order),
      T(malformed_entries_fall_back_with_their_reason), T(split_k_workspace_covers_the_largest_m),
      T(each_m_finds_its_entry), T(disable_keeps_the_first_reason), T(explain_lines))
