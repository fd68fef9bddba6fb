/*
 * test_worker_gpu.c: the worker's GPU layer on an H200: the harness's
 * random inputs and naive FP64 reference against a CPU reference, the
 * worker's DGEMM reference against the naive one on odd shapes, the cuBLAS
 * baseline passing validation for every family at several m, planted
 * wrong outputs failing it, candidate kernels loaded from a cubin (right,
 * wrong, over static limits, counters left set), a fault being seen as
 * sticky, mma_frag's kfix kernel trapping at a K it was not compiled
 * for, the timing figures landing in sane ranges, and plan_waves counting
 * waves of blocks and of clusters as the device's limits say it must.
 *
 * Usage: test_worker_gpu TEST_KERNELS.cubin   (tests/gpu/test_kernels.cu
 * built with nvcc -cubin -gencode=arch=compute_90a,code=sm_90a)
 */
#include "check.h"
#include "gpu.h"
#include "launch.h"
#include "bench.h"
#include "validate.h"
#include "timing.h"
#include "baseline.h"
#include "harness.h"
#include "reference.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct gpu g;
static const char *cubin;

static struct shape make_shape(const char *family, int n, int k, enum dtype w, enum dtype x,
			       enum dtype y, double tol)
{
	struct shape s;
	memset(&s, 0, sizeof(s));
	snprintf(s.family, sizeof(s.family), "%s", family);
	s.n = n;
	s.k = k;
	s.w = w;
	s.x = x;
	s.y = y;
	s.tol = tol;
	return s;
}

/* The six families of docs/workload.md. */
static struct shape family(int i)
{
	static const struct {
		const char *name;
		int n, k;
	} f[] = {
		{ "qkv", 2304, 8192 }, { "oproj", 8192, 1024 }, { "pooler", 4096, 8192 },
		{ "unpooler", 8192, 4096 }, { "unpooler_slice", 1024, 4096 }, { "router", 256, 8192 },
	};
	if (!strcmp(f[i].name, "router"))
		return make_shape(f[i].name, f[i].n, f[i].k, DT_FP32, DT_BF16, DT_FP32, 1e-4);
	return make_shape(f[i].name, f[i].n, f[i].k, DT_BF16, DT_BF16, DT_BF16, 1e-2);
}
#define NFAMILIES 6

static double host_value(const void *p, enum dtype t, size_t i)
{
	if (t == DT_FP32)
		return ((const float *)p)[i];
	uint32_t bits = (uint32_t)((const uint16_t *)p)[i] << 16;
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

static void *to_host(const void *dev, size_t bytes)
{
	void *h = xmalloc(bytes);
	if (CUDA_CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost)))
		memset(h, 0, bytes);
	return h;
}

TEST(reference_matches_cpu)
{
	const int m = 5, n = 37, k = 300;
	const enum dtype wt[] = { DT_BF16, DT_FP32 };
	for (int t = 0; t < 2; t++) {
		void *dw = NULL, *dx = NULL;
		double *dr = NULL;
		CHECK(!CUDA_CHECK(cudaMalloc(&dw, (size_t)n * k * dtype_size(wt[t]))));
		CHECK(!CUDA_CHECK(cudaMalloc(&dx, (size_t)m * k * 2)));
		CHECK(!CUDA_CHECK(cudaMalloc((void **)&dr, (size_t)m * n * sizeof(double))));
		CHECK(!CUDA_CHECK(harness_fill_normal(dw, wt[t], (size_t)n * k, 0.02f, 11, g.stream)));
		CHECK(!CUDA_CHECK(harness_fill_activations(dx, DT_BF16, m, k, 12, g.stream)));
		CHECK(!CUDA_CHECK(harness_reference(dw, wt[t], dx, DT_BF16, dr, m, n, k, g.stream)));
		CHECK(!CUDA_CHECK(cudaStreamSynchronize(g.stream)));
		void *hw = to_host(dw, (size_t)n * k * dtype_size(wt[t]));
		void *hx = to_host(dx, (size_t)m * k * 2);
		double *hr = to_host(dr, (size_t)m * n * sizeof(double));
		int bad = 0;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				double s = 0, a = 0;
				for (int c = 0; c < k; c++) {
					double p = host_value(hx, DT_BF16, (size_t)i * k + c) *
						   host_value(hw, wt[t], (size_t)j * k + c);
					s += p;
					a += fabs(p);
				}
				/* exact products; only the summation order differs */
				if (!(fabs(hr[i * n + j] - s) <= 1e-13 * a) || a == 0)
					bad++;
			}
		CHECK_INT(bad, 0);
		free(hw);
		free(hx);
		free(hr);
		CHECK(!CUDA_CHECK(cudaFree(dw)) && !CUDA_CHECK(cudaFree(dx)) &&
		      !CUDA_CHECK(cudaFree(dr)));
	}
}

/* One case of dgemm_reference_matches_naive: R by reference_dgemm with a
 * slab of `slab` rows of W (0: reference_slab_elems's) against
 * harness_reference's. */
static void compare_references(int m, int n, int k, enum dtype wt, enum dtype xt, int slab)
{
	size_t w64_elems = slab ? (size_t)slab * k : reference_slab_elems(n, k);
	size_t wb = (size_t)n * k * dtype_size(wt), xb = (size_t)m * k * dtype_size(xt);
	size_t rb = (size_t)m * n * sizeof(double);
	void *dw = NULL, *dx = NULL;
	double *naive = NULL, *dgemm = NULL, *w64 = NULL, *x64 = NULL;
	CHECK(!CUDA_CHECK(cudaMalloc(&dw, wb)) && !CUDA_CHECK(cudaMalloc(&dx, xb)) &&
	      !CUDA_CHECK(cudaMalloc((void **)&naive, rb)) &&
	      !CUDA_CHECK(cudaMalloc((void **)&dgemm, rb)) &&
	      !CUDA_CHECK(cudaMalloc((void **)&w64, w64_elems * sizeof(double))) &&
	      !CUDA_CHECK(cudaMalloc((void **)&x64, (size_t)m * k * sizeof(double))));
	CHECK(!CUDA_CHECK(harness_fill_normal(dw, wt, (size_t)n * k, 0.02f, 21 + n, g.stream)));
	CHECK(!CUDA_CHECK(harness_fill_activations(dx, xt, m, k, 22 + m, g.stream)));
	/* NaN where the DGEMM has not written: every slab must cover its columns */
	CHECK(!CUDA_CHECK(cudaMemsetAsync(dgemm, 0xFF, rb, g.stream)));
	CHECK(!CUDA_CHECK(harness_reference(dw, wt, dx, xt, naive, m, n, k, g.stream)));
	CHECK_INT(reference_dgemm(&g, dw, wt, dx, xt, m, n, k, w64, w64_elems, x64, dgemm), 0);
	CHECK(!CUDA_CHECK(cudaStreamSynchronize(g.stream)));
	void *hw = to_host(dw, wb), *hx = to_host(dx, xb);
	double *hn = to_host(naive, rb), *hd = to_host(dgemm, rb);
	int bad = 0, probes = 0, probe_bad = 0;
	for (int i = 0; i < m; i++) {
		int nonzero = 0;
		for (int c = 0; c < k; c++)
			nonzero += host_value(hx, xt, (size_t)i * k + c) != 0;
		probes += nonzero == 1;
		for (int j = 0; j < n; j++) {
			double a = 0, d = hd[(size_t)i * n + j], r = hn[(size_t)i * n + j];
			for (int c = 0; c < k; c++)
				a += fabs(host_value(hx, xt, (size_t)i * k + c) *
					  host_value(hw, wt, (size_t)j * k + c));
			/* both sum the same exact products in FP64, each within
			 * k * 2^-53 * a of their exact sum; a probe row's one
			 * product is its sum, exactly */
			if (!(fabs(d - r) <= ldexp((double)k, -52) * a))
				bad++;
			if (nonzero == 1 && d != r)
				probe_bad++;
		}
	}
	fprintf(stderr, "  m=%d n=%d k=%d w=%s x=%s slab=%zu rows: %d probe rows\n", m, n, k,
		dtype_name(wt), dtype_name(xt), w64_elems / (size_t)k, probes);
	CHECK_INT(bad, 0);
	CHECK_INT(probe_bad, 0);
	free(hw);
	free(hx);
	free(hn);
	free(hd);
	CHECK(!CUDA_CHECK(cudaFree(dw)) && !CUDA_CHECK(cudaFree(dx)) &&
	      !CUDA_CHECK(cudaFree(naive)) && !CUDA_CHECK(cudaFree(dgemm)) &&
	      !CUDA_CHECK(cudaFree(w64)) && !CUDA_CHECK(cudaFree(x64)));
}

TEST(dgemm_reference_matches_naive)
{
	/* whole rows within REFERENCE_SLAB_BYTES, one row when a row is larger */
	CHECK(reference_slab_elems(128256, 4096) == (REFERENCE_SLAB_BYTES / 8 / 4096) * 4096);
	CHECK(reference_slab_elems(37, 300) == 37 * 300);
	CHECK(reference_slab_elems(3, 40000000) == 40000000);
	/* odd shapes, each dtype pair, slabs that leave a partial last one */
	compare_references(1, 37, 300, DT_BF16, DT_BF16, 0);
	compare_references(7, 129, 1001, DT_BF16, DT_BF16, 50);
	compare_references(33, 257, 4099, DT_FP32, DT_BF16, 64);
	compare_references(5, 61, 333, DT_BF16, DT_FP32, 1);
	compare_references(17, 3, 8191, DT_FP32, DT_FP32, 2);
	compare_references(129, 255, 127, DT_BF16, DT_BF16, 0);
}

TEST(activations_hold_probe_rows)
{
	const int m = 4096, k = 64;
	void *dx = NULL;
	CHECK(!CUDA_CHECK(cudaMalloc(&dx, (size_t)m * k * 2)));
	CHECK(!CUDA_CHECK(harness_fill_activations(dx, DT_BF16, m, k, 99, g.stream)));
	CHECK(!CUDA_CHECK(cudaStreamSynchronize(g.stream)));
	void *hx = to_host(dx, (size_t)m * k * 2);
	int probes = 0, malformed = 0;
	for (int i = 0; i < m; i++) {
		int nonzero = 0;
		double v = 0;
		for (int c = 0; c < k; c++) {
			double x = host_value(hx, DT_BF16, (size_t)i * k + c);
			if (x != 0) {
				nonzero++;
				v = x;
			}
		}
		if (nonzero == k)
			continue;
		probes++;
		if (i == 0)
			malformed++;    /* row 0 must stay dense */
		int e;
		double frac = frexp(fabs(v), &e);
		if (nonzero != 1 || frac != 0.5 || e < -1 || e > 3)   /* 2^-2 .. 2^2 */
			malformed++;
	}
	/* one row in eight: 512 expected, 5 sigma is about 105 */
	CHECK(probes > 400 && probes < 620);
	CHECK_INT(malformed, 0);
	free(hx);
	CHECK(!CUDA_CHECK(cudaFree(dx)));
}

TEST(weights_are_seeded_normal_never_zero)
{
	const size_t count = (size_t)1 << 20;
	void *d1 = NULL, *d2 = NULL;
	CHECK(!CUDA_CHECK(cudaMalloc(&d1, count * 2)) && !CUDA_CHECK(cudaMalloc(&d2, count * 2)));
	CHECK(!CUDA_CHECK(harness_fill_normal(d1, DT_BF16, count, 0.02f, 5, g.stream)));
	CHECK(!CUDA_CHECK(harness_fill_normal(d2, DT_BF16, count, 0.02f, 5, g.stream)));
	CHECK(!CUDA_CHECK(cudaStreamSynchronize(g.stream)));
	void *h1 = to_host(d1, count * 2), *h2 = to_host(d2, count * 2);
	CHECK(!memcmp(h1, h2, count * 2));
	double sum = 0, sum2 = 0;
	size_t zeros = 0;
	for (size_t i = 0; i < count; i++) {
		double v = host_value(h1, DT_BF16, i);
		sum += v;
		sum2 += v * v;
		zeros += v == 0;
	}
	double mean = sum / count, sd = sqrt(sum2 / count - mean * mean);
	CHECK(fabs(mean) < 1e-4);
	CHECK_NEAR(sd, 0.02, 0.02 * 0.02);
	CHECK_INT(zeros, 0);
	CHECK(!CUDA_CHECK(harness_fill_normal(d2, DT_BF16, count, 0.02f, 6, g.stream)));
	CHECK(!CUDA_CHECK(cudaStreamSynchronize(g.stream)));
	free(h2);
	h2 = to_host(d2, count * 2);
	CHECK(memcmp(h1, h2, count * 2) != 0);
	free(h1);
	free(h2);
	CHECK(!CUDA_CHECK(cudaFree(d1)) && !CUDA_CHECK(cudaFree(d2)));
}

TEST(baseline_validates_every_family)
{
	const int ms[] = { 1, 8, 32 };
	for (int f = 0; f < NFAMILIES; f++)
		for (int i = 0; i < 3; i++) {
			struct shape s = family(f);
			struct bench *b;
			struct verdict v;
			int rc = bench_get(&g, &s, ms[i], &b);
			CHECK_INT(rc, 0);
			if (rc)
				continue;
			CHECK_INT(validate_baseline(&g, b, 1000 + f * 10 + i, &v), 0);
			fprintf(stderr, "  %-15s m=%-3d copies=%-2d err_global=%.3g err_row=%.3g %s\n",
				s.family, ms[i], b->ncopies, v.err_global, v.err_row, v.reason);
			CHECK(v.pass);
			/* row 0 is dense, so bf16 rounding leaves a nonzero error */
			CHECK(v.err_global > 0 && v.err_global <= s.tol);
			CHECK(v.err_row <= 2 * s.tol);
			CHECK(b->ncopies >= 4);
			size_t copy = b->w_bytes + b->x_bytes + b->x32_bytes + b->y_bytes;
			CHECK((long long)b->ncopies * (long long)copy >= 2 * g.l2_bytes ||
			      b->ncopies == BENCH_MAX_COPIES);
		}
}

/* A "candidate" graph that writes y from count doubles at src. */
static cudaGraphExec_t from_double_graph(struct bench *b, const double *src, size_t count)
{
	cudaGraphExec_t exec = NULL;
	if (gpu_capture_begin(&g))
		return NULL;
	int failed = CUDA_CHECK(harness_from_double(src, b->vy, b->shape.y, count, g.stream)) != 0;
	gpu_capture_end(&g, failed, &exec);
	return exec;
}

/* Validate the graph writing count values from host values h. */
static void judge_planted(struct bench *b, const double *h, size_t count, struct verdict *v)
{
	double *d = NULL;
	cudaGraphExec_t exec = NULL;
	memset(v, 0, sizeof(*v));
	CHECK(!CUDA_CHECK(cudaMalloc((void **)&d, count * sizeof(double))));
	CHECK(!CUDA_CHECK(cudaMemcpy(d, h, count * sizeof(double), cudaMemcpyHostToDevice)));
	exec = from_double_graph(b, d, count);
	CHECK(exec != NULL);
	if (exec)
		CHECK_INT(validate_graph(&g, b, exec, NULL, 0, v), 0);
	gpu_graph_destroy(&exec);
	CHECK(!CUDA_CHECK(cudaFree(d)));
}

TEST(planted_faults_fail_validation)
{
	struct shape s = make_shape("planted", 512, 256, DT_BF16, DT_BF16, DT_BF16, 1e-2);
	const int m = 64;
	const size_t mn = (size_t)m * 512;
	struct bench *b;
	struct verdict v;
	CHECK_INT(bench_get(&g, &s, m, &b), 0);
	CHECK_INT(validate_inputs(&g, b, 77), 0);
	double *ref = to_host(b->vr, mn * sizeof(double));
	double *h = xmalloc((mn + 16) * sizeof(double));

	memcpy(h, ref, mn * sizeof(double));
	judge_planted(b, h, mn, &v);            /* right up to bf16 rounding */
	CHECK(v.pass);
	CHECK(v.err_global > 1e-4 && v.err_global < 3e-3);

	for (int j = 0; j < 512; j++)           /* one row 5% off */
		h[17 * 512 + j] = ref[17 * 512 + j] * 1.05;
	judge_planted(b, h, mn, &v);
	CHECK(!v.pass);
	CHECK(strstr(v.reason, "row 17") != NULL);
	CHECK(v.err_global <= 1e-2);
	CHECK(v.err_row > 0.045 && v.err_row < 0.055);

	memcpy(h, ref, mn * sizeof(double));    /* one NaN */
	h[5 * 512 + 7] = NAN;
	judge_planted(b, h, mn, &v);
	CHECK(!v.pass);
	CHECK(strstr(v.reason, "nan") != NULL);
	CHECK(isnan(v.err_global));

	h[5 * 512 + 7] = ref[5 * 512 + 7];      /* half the output left unwritten */
	judge_planted(b, h, mn / 2, &v);
	CHECK(!v.pass);
	CHECK(strstr(v.reason, "nan") != NULL);

	h[mn] = 1.0;                            /* one element past the end */
	judge_planted(b, h, mn + 1, &v);
	CHECK(!v.pass);
	CHECK(strstr(v.reason, "past the end") != NULL);

	for (size_t i = 0; i < mn; i++)         /* 2% off everywhere */
		h[i] = ref[i] * 1.02;
	judge_planted(b, h, mn, &v);
	CHECK(!v.pass);
	CHECK(strstr(v.reason, "global error") != NULL);
	free(ref);
	free(h);
}

/* A one-kernel plan over W X Y M N K, grid covering outputs + extra. */
static struct launch_plan simple_plan(int outputs, unsigned threads, unsigned slices)
{
	struct launch_plan p;
	memset(&p, 0, sizeof(p));
	p.nsteps = 1;
	struct launch_step *s = &p.steps[0];
	s->kind = STEP_KERNEL;
	s->grid[0] = (outputs + threads - 1) / threads;
	s->grid[1] = slices;
	s->grid[2] = 1;
	s->block[0] = threads;
	s->block[1] = s->block[2] = 1;
	const enum arg_kind kinds[] = { ARG_W, ARG_X, ARG_Y, ARG_M, ARG_N, ARG_K };
	s->nargs = 6;
	for (int i = 0; i < 6; i++)
		s->args[i].kind = kinds[i];
	return p;
}

/* Load one kernel, prepare and validate its plan (and its counters, as
 * the worker does): -2 on a setup error, else the verdict's pass. */
static int check_candidate(struct bench *b, const char *name, const struct launch_plan *p,
			   struct verdict *v)
{
	struct kernel_info k;
	char reason[256];
	int smem;
	cudaGraphExec_t exec = NULL;
	void *ws;
	unsigned *sync;
	if (gpu_load_kernel(&g, cubin, name, &k) ||
	    plan_prepare(&g, &k, 1, p, &smem, reason, sizeof(reason)) ||
	    gpu_ws_reserve(&g, p->ws_bytes, &ws) || gpu_sync_reserve(&g, p->sync_bytes, &sync))
		return -2;
	struct plan_args a = {
		.op = { .w = b->vw, .x = b->vx, .y = b->vy, .ws = ws, .sync = sync, .m = b->m,
			.n = b->shape.n, .k = b->shape.k },
		.y_bytes = b->y_bytes, .ws_bytes = p->ws_bytes,
	};
	if (plan_capture(&g, &k, p, &a, &exec) ||
	    validate_graph(&g, b, exec, ws, p->ws_bytes, v) ||
	    validate_sync(&g, b, sync, p->sync_bytes, v))
		return -2;
	gpu_graph_destroy(&exec);
	return v->pass;
}

TEST(candidate_kernels_from_a_cubin)
{
	struct shape s = make_shape("cand", 300, 200, DT_BF16, DT_BF16, DT_BF16, 1e-2);
	struct bench *b;
	struct verdict v;
	const int m = 7, mn = m * 300;
	CHECK_INT(bench_get(&g, &s, m, &b), 0);
	CHECK_INT(validate_inputs(&g, b, 5), 0);

	struct launch_plan p = simple_plan(mn, 128, 1);
	CHECK_INT(check_candidate(b, "naive_bf16", &p, &v), 1);
	CHECK(v.err_global < 5e-3);
	CHECK_INT(check_candidate(b, "skip_last_row", &p, &v), 0);
	CHECK(strstr(v.reason, "nan") != NULL);
	p = simple_plan(mn + 1, 128, 1);
	CHECK_INT(check_candidate(b, "overrun", &p, &v), 0);
	CHECK(strstr(v.reason, "past the end") != NULL);

	/* time the right one against cuBLAS over the rotated copies */
	struct kernel_info k;
	char reason[256];
	int smem;
	void *ws;
	cudaGraphExec_t timed[BENCH_MAX_COPIES] = { 0 };
	struct pair_stats ps;
	p = simple_plan(mn, 128, 1);
	CHECK(!gpu_load_kernel(&g, cubin, "naive_bf16", &k));
	CHECK_INT(plan_prepare(&g, &k, 1, &p, &smem, reason, sizeof(reason)), 0);
	CHECK(!gpu_ws_reserve(&g, 0, &ws));
	CHECK_INT(bench_baseline_graphs(&g, b), 0);
	for (int i = 0; i < b->ncopies; i++) {
		struct plan_args a = {
			.op = { .w = b->w[i], .x = b->x[i], .y = b->y[i], .ws = ws, .m = m,
				.n = 300, .k = 200 },
			.y_bytes = b->y_bytes,
		};
		CHECK_INT(plan_capture(&g, &k, &p, &a, &timed[i]), 0);
	}
	CHECK_INT(timing_pairs(&g, b->base_graph, timed, b->ncopies, 10, &ps), 0);
	fprintf(stderr, "  naive_bf16 m=7: base %.2f us, cand %.2f us, ratio %.3f [%.3f, %.3f]\n",
		ps.base_us, ps.cand_us, ps.ratio, ps.ratio_lo, ps.ratio_hi);
	CHECK(ps.pairs == 10 && ps.cand_us > 0 && ps.base_us > 0 && isfinite(ps.ratio));
	CHECK(ps.ratio_lo <= ps.ratio && ps.ratio <= ps.ratio_hi);
	for (int i = 0; i < b->ncopies; i++)
		gpu_graph_destroy(&timed[i]);
}

TEST(memset_steps_and_replays)
{
	/* split-K with atomics into FP32 y: right only when y is zeroed by the plan */
	struct shape s = make_shape("atomic", 256, 1024, DT_FP32, DT_BF16, DT_FP32, 1e-4);
	struct bench *b;
	struct verdict v;
	const int m = 8;
	CHECK_INT(bench_get(&g, &s, m, &b), 0);
	CHECK_INT(validate_inputs(&g, b, 6), 0);
	struct launch_plan p = simple_plan(m * 256, 128, 4);
	CHECK_INT(check_candidate(b, "splitk_atomic_f32", &p, &v), 0);   /* no zeroing */
	p.steps[1] = p.steps[0];
	memset(&p.steps[0], 0, sizeof(p.steps[0]));
	p.steps[0].kind = STEP_MEMSET_Y;
	p.steps[0].bytes = (size_t)m * 256 * sizeof(float);
	p.nsteps = 2;
	CHECK_INT(check_candidate(b, "splitk_atomic_f32", &p, &v), 1);
	CHECK(v.err_global < 1e-5);
	/* a plan zeroing more than y is rejected before it runs */
	p.steps[0].bytes = b->y_bytes + 4;
	gpu_error_clear();
	CHECK_INT(check_candidate(b, "splitk_atomic_f32", &p, &v), -2);
	CHECK(gpu_error() && strstr(gpu_error(), "zeroes") != NULL);
	gpu_error_clear();
}

/* A plan's counters (ARG_SYNC) must be back to 0 after every call: a
 * right product whose counter a call leaves at 1 fails, the same kernel
 * without the counter passes. */
TEST(counters_left_set_fail)
{
	struct shape s = make_shape("cand", 300, 200, DT_BF16, DT_BF16, DT_BF16, 1e-2);
	struct bench *b;
	struct verdict v;
	const int m = 5;
	CHECK_INT(bench_get(&g, &s, m, &b), 0);
	CHECK_INT(validate_inputs(&g, b, 8), 0);
	struct launch_plan p = simple_plan(m * 300, 128, 1);
	p.steps[0].args[p.steps[0].nargs++].kind = ARG_SYNC;
	p.sync_bytes = sizeof(unsigned);
	CHECK_INT(check_candidate(b, "naive_bf16_sync", &p, &v), 0);
	CHECK(strstr(v.reason, "sync counters not back to 0") != NULL);
	p.sync_bytes = 0;       /* the verdict on its output alone */
	CHECK_INT(check_candidate(b, "naive_bf16_sync", &p, &v), 1);
}

TEST(static_limits_prune)
{
	struct kernel_info k;
	char reason[256];
	int smem;
	struct launch_plan p = simple_plan(1024, 2048, 1);
	CHECK(!gpu_load_kernel(&g, cubin, "naive_bf16", &k));
	CHECK_INT(k.nparams, 6);
	CHECK_INT(plan_prepare(&g, &k, 1, &p, &smem, reason, sizeof(reason)), 1);
	CHECK(strstr(reason, "threads") != NULL);
	p = simple_plan(1024, 128, 1);
	p.steps[0].smem = 300 << 10;
	CHECK_INT(plan_prepare(&g, &k, 1, &p, &smem, reason, sizeof(reason)), 1);
	CHECK(strstr(reason, "shared memory") != NULL);
	p.steps[0].smem = 100 << 10;            /* over 48 KiB: opted in */
	CHECK_INT(plan_prepare(&g, &k, 1, &p, &smem, reason, sizeof(reason)), 0);
	CHECK_INT(smem, 100 << 10);
	p.steps[0].nargs = 5;                   /* the kernel takes 6 */
	gpu_error_clear();
	CHECK_INT(plan_prepare(&g, &k, 1, &p, &smem, reason, sizeof(reason)), -1);
	CHECK(gpu_error() && strstr(gpu_error(), "arguments") != NULL);
	gpu_error_clear();
	CHECK(!gpu_load_kernel(&g, cubin, "uses_local", &k));
	CHECK(k.local_bytes > 0);
	p = simple_plan(64, 64, 1);
	p.steps[0].nargs = 2;
	p.steps[0].args[0].kind = ARG_Y;
	p.steps[0].args[1].kind = ARG_INT;
	CHECK_INT(plan_prepare(&g, &k, 1, &p, &smem, reason, sizeof(reason)), 1);
	CHECK(strstr(reason, "local memory") != NULL);
	/* a missing cubin or kernel name is an error, not a crash */
	CHECK(gpu_load_kernel(&g, "/nonexistent.cubin", "x", &k) == -1);
	CHECK(gpu_load_kernel(&g, cubin, "no_such_kernel", &k) == -1);
	CHECK(!gpu_error_sticky(&g));
	gpu_error_clear();
}

TEST(cublaslt_top_algorithm_validates)
{
	const int fams[] = { 0, 5 };    /* qkv (bf16) and router (fp32) */
	for (int i = 0; i < 2; i++) {
		struct shape s = family(fams[i]);
		struct bench *b;
		struct lt_plan lt;
		struct verdict v;
		cudaGraphExec_t exec = NULL;
		CHECK_INT(bench_get(&g, &s, 8, &b), 0);
		CHECK_INT(lt_plan_create(&g, &s, 8, &lt), 0);
		fprintf(stderr, "  %s m=8 lt_algo: %s\n", s.family, lt.desc);
		CHECK(strstr(lt.desc, "algo=") != NULL);
		CHECK_INT(validate_inputs(&g, b, 8), 0);
		CHECK_INT(lt_capture(&g, &lt, b->vw, b->vx32 ? b->vx32 : b->vx, b->vy, &exec), 0);
		CHECK_INT(validate_graph(&g, b, exec, NULL, 0, &v), 0);
		CHECK(v.pass);
		gpu_graph_destroy(&exec);
		lt_plan_destroy(&lt);
	}
}

TEST(timing_lands_in_sane_ranges)
{
	double us;
	struct pair_stats ps;
	struct floor_result f;
	struct bench *b;
	struct shape s = family(1);     /* oproj */
	CHECK_INT(timing_overhead(&g, TIMING_OVERHEAD_REPS, &us), 0);
	fprintf(stderr, "  replay overhead %.3f us\n", us);
	CHECK(us > 0.3 && us < 20);
	CHECK_INT(bench_get(&g, &s, 1, &b), 0);
	CHECK_INT(bench_baseline_graphs(&g, b), 0);
	/* cuBLAS against itself: the paired ratio must sit at 1 */
	CHECK_INT(timing_pairs(&g, b->base_graph, b->base_graph, b->ncopies, 40, &ps), 0);
	fprintf(stderr, "  oproj m=1 cublas vs itself: %.2f / %.2f us, ratio %.3f [%.3f, %.3f]\n",
		ps.base_us, ps.cand_us, ps.ratio, ps.ratio_lo, ps.ratio_hi);
	CHECK(ps.ratio > 0.9 && ps.ratio < 1.1);
	CHECK(ps.base_us > 1 && ps.base_us < 100);
	CHECK_INT(timing_floor(&g, (size_t)64 << 20, 20, &f), 0);
	fprintf(stderr, "  floor 64 MiB: %.2f us, %.0f GB/s, %s\n", f.us, f.gbps, f.config);
	CHECK(f.gbps > 2500 && f.gbps < 5500);
	CHECK_INT(timing_floor(&g, ((size_t)8 << 20) + 3, 20, &f), 0);
	fprintf(stderr, "  floor 8 MiB + 3: %.2f us, %.0f GB/s, %s\n", f.us, f.gbps, f.config);
	CHECK(f.us > 0.5 && f.us < 50);
}

/* In a child process (a fault ends its context): a non-sticky error is
 * seen as such and cleared, an illegal address as sticky. Exit status 0
 * when both hold. */
static int fault_child(void)
{
	struct gpu c;
	struct kernel_info k;
	char reason[256];
	int smem;
	void *p = NULL, *buf = NULL;
	cudaGraphExec_t exec = NULL;
	if (gpu_open(&c, 0))
		return 10;
	if (!CUDA_CHECK(cudaMalloc(&p, (size_t)1 << 50)))  /* a petabyte: must fail */
		return 11;
	if (gpu_error_sticky(&c))
		return 12;
	gpu_error_clear();
	if (CUDA_CHECK(harness_empty(c.stream)) || CUDA_CHECK(cudaMalloc(&buf, 4096)))
		return 13;      /* the stale error did not leak into the next check */
	struct launch_plan pl = simple_plan(32, 32, 1);
	pl.steps[0].nargs = 2;
	pl.steps[0].args[0].kind = ARG_Y;
	pl.steps[0].args[1].kind = ARG_INT;
	pl.steps[0].args[1].value = 1;
	struct plan_args a = { .op = { .y = buf, .ws = buf, .m = 1, .n = 1, .k = 1 },
			       .y_bytes = 4096 };
	if (gpu_load_kernel(&c, cubin, "fault", &k) ||
	    plan_prepare(&c, &k, 1, &pl, &smem, reason, sizeof(reason)) ||
	    plan_capture(&c, &k, &pl, &a, &exec))
		return 14;
	if (!CUDA_CHECK(cudaGraphLaunch(exec, c.stream)) &&
	    !CUDA_CHECK(cudaStreamSynchronize(c.stream)))
		return 15;      /* the illegal address went unnoticed */
	if (!gpu_error_sticky(&c))
		return 16;
	fprintf(stderr, "  fault recorded as: %s\n", gpu_error());
	return strstr(gpu_error(), "cudaErrorIllegalAddress") ? 0 : 17;
}

/* child() in a process of its own (a fault or a trap spoils the CUDA
 * context for good): it must exit with status 0. */
static void in_child(int (*child)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
}

TEST(fault_is_sticky)
{
	in_child(fault_child);
}

/* test_kernels.cu's mma_frag_kernel<4, 1, 8, 1, NA, 2>: KC = 2 fixed
 * for K = 32 * 4 * 2 = 256. */
#define KFIX_KERNEL "_Z15mma_frag_kernelILi4ELi1ELi8ELi1ELi0ELi2EEvPK13__nv_bfloat16S2_PS0_iii"
#define KFIX_K 256

/* In a child process of its own (a trap spoils the context): the kernel
 * runs clean at its own K, then launched at 2 K it must stop with an
 * error, seen as sticky. Exit status 0 when both hold. */
static int kfix_child(void)
{
	struct gpu c;
	struct kernel_info k;
	char reason[256];
	int smem;
	const int m = 8, n = 8;
	void *w = NULL, *x = NULL, *y = NULL;
	cudaGraphExec_t ok = NULL, bad = NULL;
	if (gpu_open(&c, 0))
		return 10;
	if (CUDA_CHECK(cudaMalloc(&w, (size_t)n * 2 * KFIX_K * 2)) ||
	    CUDA_CHECK(cudaMalloc(&x, (size_t)m * 2 * KFIX_K * 2)) ||
	    CUDA_CHECK(cudaMalloc(&y, (size_t)m * n * 2)) ||
	    CUDA_CHECK(cudaMemset(w, 0, (size_t)n * 2 * KFIX_K * 2)) ||
	    CUDA_CHECK(cudaMemset(x, 0, (size_t)m * 2 * KFIX_K * 2)))
		return 11;
	struct launch_plan pl = simple_plan(1, 128, 1);    /* grid (1, 1), 4 warps */
	struct plan_args a = { .op = { .w = w, .x = x, .y = y, .m = m, .n = n, .k = KFIX_K },
			       .y_bytes = (size_t)m * n * 2 };
	if (gpu_load_kernel(&c, cubin, KFIX_KERNEL, &k) ||
	    plan_prepare(&c, &k, 1, &pl, &smem, reason, sizeof(reason)) ||
	    plan_capture(&c, &k, &pl, &a, &ok))
		return 12;
	a.op.k = 2 * KFIX_K;
	if (plan_capture(&c, &k, &pl, &a, &bad))
		return 13;
	if (CUDA_CHECK(cudaGraphLaunch(ok, c.stream)) || CUDA_CHECK(cudaStreamSynchronize(c.stream)))
		return 14;      /* its own K failed: the guard fires where it must not */
	if (!CUDA_CHECK(cudaGraphLaunch(bad, c.stream)) &&
	    !CUDA_CHECK(cudaStreamSynchronize(c.stream)))
		return 15;      /* another K ran to the end: no guard */
	if (!gpu_error_sticky(&c))
		return 16;
	fprintf(stderr, "  the kernel at K = %d stopped with: %s\n", 2 * KFIX_K, gpu_error());
	/* __trap(): what run 239 read */
	return strstr(gpu_error(), "cudaErrorLaunchFailure") ? 0 : 17;
}

TEST(kfix_traps_on_another_k)
{
	in_child(kfix_child);
}

/* plan_waves against counts that follow from the device's own limits:
 * with more than half an SM's shared memory per block, one block fits per
 * SM, so sm_count blocks take one wave and one block more takes two; a
 * cluster of two such blocks needs two SMs, so more than sm_count / 2
 * clusters cannot fit at once. A memset step is not counted. */
TEST(waves_follow_the_device_limits)
{
	struct kernel_info k[2];
	char reason[256];
	int smem;
	const unsigned big = (unsigned)(g.smem_optin / 2 + 1024);
	const unsigned sms = (unsigned)g.sm_count;
	CHECK(big + 1024 <= g.smem_optin);
	CHECK(!gpu_load_kernel(&g, cubin, "naive_bf16", &k[0]));
	CHECK(!gpu_load_kernel(&g, cubin, "naive_bf16_pairs", &k[1]));
	CHECK_INT(k[0].cluster, 1);
	CHECK_INT(k[1].cluster, 2);

	struct launch_plan p = simple_plan(1, 128, 1);
	p.steps[0].smem = big;
	CHECK_INT(plan_prepare(&g, &k[0], 1, &p, &smem, reason, sizeof(reason)), 0);
	p.steps[0].grid[0] = sms;
	CHECK_INT(plan_waves(&g, &k[0], &p), 1);
	p.steps[0].grid[0] = sms + 1;
	CHECK_INT(plan_waves(&g, &k[0], &p), 2);
	p.steps[0].grid[0] = 2 * sms + 1;
	CHECK_INT(plan_waves(&g, &k[0], &p), 3);
	/* small blocks: many per SM, so sm_count + 1 of them is one wave */
	p.steps[0].smem = 0;
	p.steps[0].grid[0] = sms + 1;
	CHECK_INT(plan_waves(&g, &k[0], &p), 1);

	/* the most over the steps; a memset step counts for nothing */
	p.steps[1] = p.steps[0];
	p.steps[1].smem = big;
	p.steps[1].grid[0] = 2 * sms + 1;
	p.nsteps = 2;
	CHECK_INT(plan_waves(&g, &k[0], &p), 3);
	memset(&p.steps[0], 0, sizeof(p.steps[0]));
	p.steps[0].kind = STEP_MEMSET_Y;
	p.steps[0].bytes = 16;
	p.steps[1].smem = 0;
	p.steps[1].grid[0] = 1;
	CHECK_INT(plan_waves(&g, &k[0], &p), 1);
	p.nsteps = 1;
	CHECK_INT(plan_waves(&g, &k[0], &p), 0);

	/* clusters of two big blocks: one cluster is one wave; sm_count / 2
	 * + 1 clusters cannot all be resident */
	p = simple_plan(1, 128, 1);
	p.steps[0].smem = big;
	CHECK_INT(plan_prepare(&g, &k[1], 1, &p, &smem, reason, sizeof(reason)), 0);
	p.steps[0].grid[0] = 2;
	CHECK_INT(plan_waves(&g, &k[1], &p), 1);
	p.steps[0].grid[0] = 2 * (sms / 2 + 1);
	const int w = plan_waves(&g, &k[1], &p);
	fprintf(stderr, "  %u clusters of 2 at %u bytes: %d waves\n", sms / 2 + 1, big, w);
	CHECK(w >= 2);
}

static const struct test_case gpu_cases[] = {
	T(reference_matches_cpu), T(dgemm_reference_matches_naive), T(activations_hold_probe_rows),
	T(weights_are_seeded_normal_never_zero), T(baseline_validates_every_family),
	T(planted_faults_fail_validation), T(candidate_kernels_from_a_cubin),
	T(memset_steps_and_replays), T(counters_left_set_fail), T(static_limits_prune),
	T(cublaslt_top_algorithm_validates),
	T(timing_lands_in_sane_ranges), T(waves_follow_the_device_limits),
};

static int run(const struct test_case *c, int *passed, int *failed)
{
	check_failed_ = 0;
	c->fn();
	printf("%s - %s\n", check_failed_ ? "not ok" : "ok", c->name);
	fflush(stdout);
	if (check_failed_)
		(*failed)++;
	else
		(*passed)++;
	return check_failed_;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	const struct test_case fault = T(fault_is_sticky), kfix = T(kfix_traps_on_another_k);
	if (argc != 2) {
		fprintf(stderr, "usage: %s TEST_KERNELS.cubin\n", argv[0]);
		return 2;
	}
	cubin = argv[1];
	/* first, before this process touches CUDA: the child gets a clean start */
	run(&fault, &passed, &failed);
	run(&kfix, &passed, &failed);
	if (gpu_open(&g, 0))
		die("cannot open cuda device 0");
	for (size_t i = 0; i < ARRAY_SIZE(gpu_cases); i++)
		run(&gpu_cases[i], &passed, &failed);
	bench_free(g.bench);
	g.bench = NULL;
	gpu_modules_free(&g);
	gpu_close(&g);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
