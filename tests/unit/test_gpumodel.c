/*
 * test_gpumodel.c: the fake worker's modelled GPU (tests/fake/gpumodel.c,
 * compiled in here) and the request costs it charges
 * (tuner/sweep/costmodel.h): profiles, the FP64 reference's price by the
 * worker's method (the naive kernel, then the DGEMM), the shape of the
 * time curves (W's passes, token tiles, the baseline's small-M
 * handicap), the paired timing's noise, cuBLASLt's variants.
 */
#include "check.h"
#include "costmodel.h"
#include "reference.h"

#include "../fake/gpumodel.c"

static const struct shape qkv = { "qkv", 2304, 8192, DT_BF16, DT_BF16, DT_BF16, 1e-2, { 1 }, 1,
				  { 0 }, 0, 0, 0 };

/* a candidate of stem from "k=v,..." text */
static struct candidate cand(const char *stem, const char *text)
{
	struct candidate c = { tmpl_find(stem), { 0 } };
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		*eq = '\0';
		int i = tmpl_param_index(c.tmpl, kv);
		const struct tmpl_param *p = &c.tmpl->params[i];
		if (!p->symbols) {
			c.params[i] = atol(eq + 1);
			continue;
		}
		for (int j = 0; p->symbols[j]; j++)
			if (!strcmp(p->symbols[j], eq + 1))
				c.params[i] = j;
	}
	return c;
}

TEST(profiles)
{
	struct gpu_profile h200, h100;
	CHECK_INT(gpumodel_profile("h200", &h200), 0);
	CHECK_INT(gpumodel_profile("h100", &h100), 0);
	CHECK_INT(gpumodel_profile("a100", &h100) == -1, 1);
	gpumodel_profile("h100", &h100);
	CHECK_INT(h200.sm_count, 132);
	CHECK_NEAR(h200.bw, 4.8e12 * 0.93, 1e6);
	CHECK_NEAR(h100.bw, 3.35e12 * 0.93, 1e6);
	CHECK_INT(h200.l2_bytes, 60L << 20);
	CHECK_INT(h100.l2_bytes, 50L << 20);
	/* a bandwidth-bound kernel runs the bandwidths' ratio slower there */
	struct candidate g = cand("gemv", "warps=4,rows=1,tokens=1,unroll=2,split=1,cache=nc_na");
	double t200 = gpumodel_kernel_us(&h200, &qkv, &g, 1) - h200.launch_us;
	double t100 = gpumodel_kernel_us(&h100, &qkv, &g, 1) - h100.launch_us;
	CHECK_NEAR(t100 / t200, 4.8 / 3.35, 0.03);
}

/* The DGEMM reference's price from its derivation (costmodel.h): W's
 * and X's elements read as bf16, written and read as FP64 (18 bytes),
 * R's written (8), at 0.93 of 4.8 TB/s; 2 N K M flops at 60 TFLOP/s. */
static double dgemm_ref_s(double n, double k, double m)
{
	return (18 * (n * k + m * k) + 8 * m * n) / (0.93 * 4.8e12) + 2 * n * k * m / 60e12;
}

TEST(eval_cost)
{
	/* M = 1, the naive reference: 1.233 ms + 15.70 ms x W's 0.0377 GB
	 * + 0.744 ms x 2304*8192*1/1e9 + 10 x (0.148 ms + 1.33 x 20 us) */
	CHECK_NEAR(costmodel_eval_s(10, 12, 8, 2304, 8192, 1),
		   1.233e-3 + 15.70e-3 * 0.037748736 + 0.744e-3 * 0.018874368 +
			   10 * (0.148e-3 + 1.33 * 20e-6), 1e-12);
	/* M = 512, the DGEMM: Llama-3-8B's lm_head (128256 x 4096) 11.2 ms,
	 * where the naive kernel's fitted price is 200 ms; its fresh 1.05 GB
	 * of W 16.5 ms */
	CHECK_NEAR(costmodel_eval_s(10, 12, 8, 128256, 4096, 512),
		   1.233e-3 + 15.70e-3 * 1.050673152 + dgemm_ref_s(128256, 4096, 512) +
			   10 * (0.148e-3 + 1.33 * 20e-6), 1e-12);
	CHECK_NEAR(costmodel_ref_s(128256, 4096, 512), 11.21e-3, 0.01e-3);
	CHECK_NEAR(COST_REF_NAIVE_S_PER_GMAC * 128256 * 4096 * 512 * 1e-9, 200.1e-3, 0.1e-3);
	CHECK_NEAR(costmodel_pairs_s(100, 7), 100 * (0.148e-3 + 1.33 * 7e-6), 1e-12);
	CHECK_NEAR(costmodel_pairs_s(0, 7), 0.148e-3 + 1.33 * 7e-6, 1e-12);
}

TEST(reference_switches_where_the_prices_cross)
{
	/* the cost model charges the method the worker uses */
	CHECK_INT(COST_REF_DGEMM_MIN_M, REFERENCE_DGEMM_MIN_M);
	/* and it switches at the first M where the DGEMM is the cheaper, on
	 * Llama-3-8B's down projection's W (4096 x 14336) and on the
	 * reference's oproj (8192 x 1024) */
	const double shapes[][2] = { { 4096, 14336 }, { 8192, 1024 } };
	for (int i = 0; i < 2; i++) {
		const double n = shapes[i][0], k = shapes[i][1];
		for (int m = 1; m <= 64; m++) {
			const double naive = 0.744e-3 * n * k * m * 1e-9;
			const double dgemm = dgemm_ref_s(n, k, m);
			CHECK((naive < dgemm) == (m < COST_REF_DGEMM_MIN_M));
			CHECK_NEAR(costmodel_ref_s((long)n, (long)k, m),
				   m < COST_REF_DGEMM_MIN_M ? naive : dgemm, 1e-12);
		}
	}
}

TEST(gemv_passes_over_w)
{
	struct gpu_profile g;
	gpumodel_profile("h200", &g);
	struct candidate t8 = cand("gemv", "warps=4,rows=1,tokens=8,unroll=2,split=1,cache=nc_na");
	double at1 = gpumodel_kernel_us(&g, &qkv, &t8, 1), at8 = gpumodel_kernel_us(&g, &qkv, &t8, 8);
	double at9 = gpumodel_kernel_us(&g, &qkv, &t8, 9);
	/* one pass up to its 8 tokens (the FMAs cost a little), a second
	 * from W's DRAM again at 9 (37.7 MB does not fit half the L2) */
	CHECK(at1 == at8);
	CHECK(at9 > 1.8 * at8);
	/* a gemv degrades with M: at 64 the CUDA cores' FMAs dominate */
	CHECK(gpumodel_kernel_us(&g, &qkv, &t8, 64) > 4 * at8);
}

TEST(mma_steps_at_its_token_tile)
{
	struct gpu_profile g;
	gpumodel_profile("h200", &g);
	struct candidate c = cand("mma_skinny", "bm=64,bn=16,bk=64,warps=4,stages=4,split=2,cache=cg,"
				  "combine=partials,layout=rows,mma=wgmma,pdl=0,wk=0");
	double at16 = gpumodel_kernel_us(&g, &qkv, &c, 16), at17 = gpumodel_kernel_us(&g, &qkv, &c, 17);
	double at15 = gpumodel_kernel_us(&g, &qkv, &c, 15);
	CHECK(at17 > at16 * 1.02);
	CHECK(at16 - at15 < 0.01 * at16);
	/* split 2 adds the combine's step and partial sums */
	struct candidate s1 = c;
	s1.params[tmpl_param_index(c.tmpl, "split")] = 1;
	CHECK(gpumodel_kernel_us(&g, &qkv, &s1, 1) != gpumodel_kernel_us(&g, &qkv, &c, 1));
}

TEST(baseline_loses_at_small_m_only)
{
	struct gpu_profile g;
	gpumodel_profile("h200", &g);
	struct candidate best = cand("gemv", "warps=4,rows=1,tokens=1,unroll=2,split=1,cache=nc_na");
	double r1 = gpumodel_cublas_us(&g, &qkv, 1) / gpumodel_kernel_us(&g, &qkv, &best, 1);
	CHECK(r1 > 1.1 && r1 < 1.8);
	/* at 512 the baseline is within a few per cent of its compute floor
	 * (0.78 of the BF16 peak), a third of the read on top */
	double floor512 = 2.0 * 512 * 2304 * 8192 / (g.tc_flops * 0.78) * 1e6;
	CHECK(gpumodel_cublas_us(&g, &qkv, 512) < 1.25 * floor512);
	CHECK(gpumodel_cublas_us(&g, &qkv, 512) > floor512);
	/* the router's FP32 baseline takes its slow path from M = 2 */
	struct shape router = qkv;
	router.n = 256;
	router.w = router.y = DT_FP32;
	CHECK(gpumodel_cublas_us(&g, &router, 2) > gpumodel_cublas_us(&g, &router, 1) + 13);
}

TEST(pairs_are_noisy_and_seeded)
{
	struct gpumodel_timing a, b, c;
	gpumodel_time_pairs(12.0, 10.0, 101, 42, &a);
	gpumodel_time_pairs(12.0, 10.0, 101, 42, &b);
	gpumodel_time_pairs(12.0, 10.0, 101, 43, &c);
	CHECK(a.ratio == b.ratio && a.cand_us == b.cand_us);
	CHECK(a.ratio != c.ratio);
	/* the median ratio within the per-eval offset (1.5%, 3 sigma) */
	CHECK_NEAR(a.ratio, 1.2, 1.2 * 0.05);
	CHECK(a.ratio_lo < a.ratio && a.ratio < a.ratio_hi);
	/* a 2% spread per replay: the 10th-90th percentiles of the ratio
	 * span a few per cent */
	CHECK(a.ratio_hi / a.ratio_lo > 1.02 && a.ratio_hi / a.ratio_lo < 1.15);
	CHECK_NEAR(a.base_us, 12.0, 0.3);
	/* over seeds, outliers: some eval's 90th percentile lies 10% out */
	int wide = 0;
	for (uint64_t s = 0; s < 200; s++) {
		gpumodel_time_pairs(12.0, 10.0, 10, s, &c);
		wide += c.ratio_lo < 1.2 / 1.15;
	}
	CHECK(wide > 0 && wide < 100);
}

static void count_one(void *ctx, const long *a)
{
	(void)a;
	++*(int *)ctx;
}

TEST(lt_variants)
{
	long a[GPUMODEL_LT_ATTRS];
	gpumodel_lt_proposal(&qkv, 8, 0, 0, a);
	CHECK_INT(a[0], 66);
	CHECK(a[3] >= 1 && a[3] <= 4);
	CHECK_INT(a[4], a[3] > 1 ? 2 : 0);
	/* every split-K count it lacks, then each attribute's other values:
	 * 18 tiles, 6 stages, 8 cluster shapes, 4 custom options */
	const int splitk[] = { 1, 2, 4, 8 };
	int n = 0;
	int named = gpumodel_lt_variants(a, splitk, 4, 15, count_one, &n);
	const int has = a[3] == 1 || a[3] == 2 || a[3] == 4;
	CHECK_INT(named, n);
	CHECK_INT(n, 1 + (4 - has) + 17 + 5 + 7 + 3);
	n = 0;
	CHECK_INT(gpumodel_lt_variants(a, NULL, 0, 0, count_one, &n), 1);
}

TESTS(T(profiles), T(eval_cost), T(reference_switches_where_the_prices_cross),
      T(gemv_passes_over_w), T(mma_steps_at_its_token_tile),
      T(baseline_loses_at_small_m_only), T(pairs_are_noisy_and_seeded), T(lt_variants))
