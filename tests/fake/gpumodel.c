/*
 * gpumodel.c: the modelled GPU's time curves (gpumodel.h).
 *
 * Every time is launch + max(mem, compute) + a third of the other + the
 * plan's further steps, where mem is the bytes a kernel reads (W once per
 * pass, the later passes partly from L2 when W fits in half of it) over
 * the practical bandwidth times the candidate's own efficiency, and
 * compute the FLOPs of M padded to the candidate's token tile over the
 * peak of the units it uses, slowed where its blocks fill the last wave
 * of the SMs only in part. A candidate's efficiencies are drawn once from
 * a hash of its template, parameters and shape, in a band per template;
 * so the same candidate keeps its curve, and two candidates of one
 * template differ as kernels of one template do.
 *
 * Calibration (db/h200.db, retests at M = 1, H200): the best candidates
 * read qkv's 37.7 MB in 9.9 us and pooler's 67 MB in 16.0 us, about 0.93
 * of the 4.8 TB/s peak; cuBLAS takes 12.6 and 19.7 us there (0.74 of
 * it), and at M = 512 runs qkv in 27.2 us (0.7-0.8 of the BF16 peak).
 */
#include "gpumodel.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpumodel_profile(const char *name, struct gpu_profile *out)
{
	memset(out, 0, sizeof(*out));
	out->sm_count = 132;
	out->launch_us = 1.0;
	out->step_us = 1.0;
	out->tc_flops = 989e12;         /* dense BF16, both SXM parts */
	out->simt_flops = 132 * 128 * 2 * 1.98e9;
	if (!strcmp(name, "h200")) {
		snprintf(out->name, sizeof(out->name), "NVIDIA H200 (modelled)");
		out->l2_bytes = 60L << 20;
		out->bw = 4.8e12 * 0.93;
	} else if (!strcmp(name, "h100")) {
		snprintf(out->name, sizeof(out->name), "NVIDIA H100 80GB HBM3 (modelled)");
		out->l2_bytes = 50L << 20;
		out->bw = 3.35e12 * 0.93;
	} else {
		return -1;
	}
	return 0;
}

/* A uniform draw in [0, 1) from h (splitmix64's finalizer over FNV). */
static double unit(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (double)(h >> 11) / 9007199254740992.0;
}

static uint64_t hash_long(uint64_t h, long v)
{
	return hash_bytes(h, &v, sizeof(v));
}

/* A draw in [lo, hi] fixed by the shape and a text. */
static double band(const struct shape *s, uint64_t h, double lo, double hi)
{
	h = hash_long(hash_long(h, s->n), s->k);
	return lo + (hi - lo) * unit(h);
}

static uint64_t cand_hash(const struct candidate *c, const char *salt)
{
	uint64_t h = hash_str(hash_str(HASH_INIT, c->tmpl->stem), salt);
	for (int i = 0; i < c->tmpl->nparams; i++)
		h = hash_long(h, c->params[i]);
	return h;
}

static long param(const struct candidate *c, const char *name, long def)
{
	int i = tmpl_param_index(c->tmpl, name);
	return i < 0 ? def : c->params[i];
}

static const char *symbol(const struct candidate *c, const char *name)
{
	int i = tmpl_param_index(c->tmpl, name);
	if (i < 0 || !c->tmpl->params[i].symbols)
		return "";
	return c->tmpl->params[i].symbols[c->params[i]];
}

static long ceil_div(long a, long b)
{
	return (a + b - 1) / b;
}

/* A tiled GEMM: mt tokens by wt weight rows per block, split along K. */
struct tiles {
	long mt, wt, split;
	double mem_eff;         /* of the practical bandwidth */
	double tc_frac;         /* of the tensor-core peak */
	double l2_reread;       /* a further token tile's pass over W, as a
				 * share of a DRAM pass, when W fits in L2 */
	int steps;              /* kernels and memsets in the plan */
	double extra_us;        /* combine costs beyond the steps */
};

static double tiled_us(const struct gpu_profile *g, const struct shape *s, int m,
		       const struct tiles *t)
{
	const double wbytes = (double)s->n * s->k * dtype_size(s->w);
	const long mtiles = ceil_div(m, t->mt);
	const double reread = wbytes <= g->l2_bytes / 2 ? t->l2_reread : 0.7;
	const double blocks = (double)ceil_div(s->n, t->wt) * mtiles * t->split;
	/* waves: the busiest SM's blocks against the average SM's */
	const double fill = blocks / (g->sm_count * ceil(blocks / g->sm_count));
	const double pull = fmin(1.0, blocks / (0.5 * g->sm_count));
	const double bytes = wbytes * (1 + (mtiles - 1) * reread) +
			     (double)m * s->k * dtype_size(s->x) + (double)m * s->n * dtype_size(s->y) +
			     (t->split > 1 ? 8.0 * t->split * m * s->n : 0);
	const double mem = bytes / (g->bw * t->mem_eff * pull) * 1e6;
	const double comp = 2.0 * mtiles * t->mt * s->n * s->k /
			    (g->tc_flops * t->tc_frac * fill) * 1e6;
	return g->launch_us + fmax(mem, comp) + fmin(mem, comp) / 3 +
	       (t->steps - 1) * g->step_us + t->extra_us;
}

static double gemv_us(const struct gpu_profile *g, const struct shape *s,
		      const struct candidate *c, int m)
{
	const long tokens = param(c, "tokens", 1), split = param(c, "split", 1);
	const long rows = param(c, "rows", 1), warps = param(c, "warps", 4);
	const double wbytes = (double)s->n * s->k * dtype_size(s->w);
	const long passes = ceil_div(m, tokens);
	double eff = band(s, cand_hash(c, "gemv"), 0.80, 0.99);
	if (param(c, "unroll", 1) == 1)
		eff *= 0.9;
	eff *= band(s, hash_str(HASH_INIT, symbol(c, "cache")), 0.96, 1.02);
	const double pull = fmin(1.0, (double)s->n / rows * split * warps / (8.0 * g->sm_count));
	const double reread = wbytes <= g->l2_bytes / 2 ? 0.35 : 1.0;
	const double mem = wbytes * (1 + (passes - 1) * reread) / (g->bw * fmin(eff, 1) * pull) * 1e6;
	/* FMAs and the BF16 conversions on the CUDA cores */
	const double comp = 2.0 * passes * tokens * s->n * s->k / (g->simt_flops * 0.45) * 1e6;
	double t = g->launch_us + fmax(mem, comp) + fmin(mem, comp) * 0.3;
	if (split > 1)
		t += g->step_us + 8.0 * split * m * s->n / g->bw * 1e6;
	return t;
}

/* mma_skinny, and mma_hilo on its 2N hi/lo rows */
static double skinny_us(const struct gpu_profile *g, const struct shape *s,
			const struct candidate *c, int m)
{
	const int wgmma = !strcmp(symbol(c, "mma"), "wgmma");
	const char *combine = symbol(c, "combine");
	struct tiles t = {
		.mt = param(c, "bn", 8), .wt = param(c, "bm", 64), .split = param(c, "split", 1),
		.mem_eff = band(s, cand_hash(c, "mma"), 0.78, 0.97),
		.tc_frac = wgmma ? 0.7 : 0.45, .l2_reread = 0.25, .steps = 1,
	};
	t.mem_eff *= band(s, hash_long(HASH_INIT, param(c, "stages", 4)), 0.97, 1.02);
	if (!strcmp(symbol(c, "layout"), "tiles"))
		t.mem_eff *= 1.03;
	if (t.split > 1 && !strcmp(combine, "partials"))
		t.steps = 2;
	else if (!strcmp(combine, "atomic") || !strcmp(combine, "zblock"))
		t.extra_us = 4.0 * t.split * m * s->n / g->bw * 1e6 + (*combine == 'a' ? g->step_us : 0.3);
	else if (!strcmp(combine, "cluster"))
		t.extra_us = 0.4;
	if (param(c, "pdl", 0))
		t.extra_us -= 0.4 * g->step_us;
	struct shape bf = *s;
	if (s->w == DT_FP32) {          /* hi and lo: 2N rows of BF16 */
		bf.n = 2 * s->n;
		bf.w = DT_BF16;
	}
	return tiled_us(g, &bf, m, &t);
}

static double frag_us(const struct gpu_profile *g, const struct shape *s,
		      const struct candidate *c, int m)
{
	struct tiles t = {
		.mt = param(c, "tok", 8), .wt = 8 * param(c, "nt", 1), .split = 1,
		.mem_eff = band(s, cand_hash(c, "frag"), 0.84, 0.98), .tc_frac = 0.35,
		.l2_reread = 0.25, .steps = 1,
	};
	if (param(c, "kfix", 0))
		t.mem_eff *= 1.03;
	return tiled_us(g, s, m, &t);
}

/* The cuBLAS baseline's read efficiency: 0.74 of the practical bandwidth
 * at M = 1 (db/h200.db above), rising with M as its tiles fill. */
static double cublas_eff(int m)
{
	return 0.74 + 0.10 * fmin(1.0, log2((double)m) / 9);
}

double gpumodel_cublas_us(const struct gpu_profile *g, const struct shape *s, int m)
{
	if (s->w == DT_FP32) {
		/* FP32 weights: SIMT at 40 TFLOP/s, with a slow path of 14 us
		 * from M = 2 (the router: 5.7 us at 1, 20.9 at 8, 69 at 512) */
		const double bytes = (double)s->n * s->k * 4;
		return 1.8 + bytes / (g->bw * 0.55) * 1e6 + 2.0 * m * s->n * s->k / 40e12 * 1e6 +
		       (m >= 2 ? 14 : 0);
	}
	/* its heuristic fills the SMs at any M (split-K, stream-K): no wave
	 * loss, M padded to 16 up to 16 and to 64 above; 0.78 of the BF16
	 * peak (qkv at 512: 27.2 us) */
	const double wbytes = (double)s->n * s->k * dtype_size(s->w);
	const double mem = (wbytes + (double)m * (s->k + s->n) * 2) / (g->bw * cublas_eff(m)) * 1e6;
	const long mpad = m <= 16 ? 16 : ceil_div(m, 64) * 64;
	const double comp = 2.0 * mpad * s->n * s->k / (g->tc_flops * 0.78) * 1e6;
	return 1.8 + fmax(mem, comp) + fmin(mem, comp) / 3;
}

double gpumodel_cublaslt_us(const struct gpu_profile *g, const struct shape *s, int m)
{
	return gpumodel_cublas_us(g, s, m) * 1.02;
}

/* The model's cuBLASLt tiles: tile id 10 + i is tokens x rows below. */
static const int lt_tiles[][2] = {
	{ 8, 64 }, { 8, 128 }, { 8, 256 }, { 16, 64 }, { 16, 128 }, { 16, 256 },
	{ 32, 64 }, { 32, 128 }, { 32, 256 }, { 64, 64 }, { 64, 128 }, { 64, 256 },
	{ 128, 64 }, { 128, 128 }, { 128, 256 }, { 256, 64 }, { 256, 128 }, { 256, 256 },
};
#define LT_NTILES ((int)(sizeof(lt_tiles) / sizeof(lt_tiles[0])))
#define LT_TILE0 10
#define LT_STAGES0 16
#define LT_NSTAGES 6
#define LT_NCLUSTER 8
#define LT_NCUSTOM 4

static double lt_factor(const struct shape *s, long orient, const char *what, long v)
{
	return band(s, hash_long(hash_str(hash_long(HASH_INIT, orient), what), v), 0.98, 1.06);
}

/* cuBLASLt's kernels as cuBLAS's (no wave loss), M padded to the tile's
 * tokens, a read efficiency and a compute share of their own per tile and
 * orientation, a reduction step with split-K; the orientation a few per
 * cent either way. Stages, custom option and cluster shape multiply it
 * by factors of their own (lt_factor), so the best of any combination of
 * them is the product of the best of each. */
static double lt_core_us(const struct gpu_profile *g, const struct shape *s, int m, long orient,
			 long tile, long splitk)
{
	const long ti = tile - LT_TILE0;
	if (ti < 0 || ti >= LT_NTILES || splitk < 1)
		return gpumodel_cublas_us(g, s, m) * 1.5;
	const uint64_t h = hash_long(hash_long(HASH_INIT, orient), tile);
	const double wbytes = (double)s->n * s->k * dtype_size(s->w);
	const double eff = fmin(0.97, cublas_eff(m) * band(s, hash_str(h, "mem"), 0.95, 1.14));
	const double pull = fmin(1.0, (double)ceil_div(s->n, lt_tiles[ti][1]) * splitk /
					   (0.5 * g->sm_count));
	const double mem = (wbytes + (double)m * (s->k + s->n) * 2) / (g->bw * eff * pull) * 1e6;
	const long mpad = ceil_div(m, lt_tiles[ti][0]) * lt_tiles[ti][0];
	const double comp = 2.0 * mpad * s->n * s->k /
			    (g->tc_flops * 0.78 * band(s, hash_str(h, "tc"), 0.93, 1.05)) * 1e6;
	double t = 1.8 + fmax(mem, comp) + fmin(mem, comp) / 3;
	if (splitk > 1)
		t += g->step_us + 8.0 * splitk * m * s->n / g->bw * 1e6;
	return t * lt_factor(s, orient, "orient", 0);
}

static double lt_us(const struct gpu_profile *g, const struct shape *s, int m, long orient,
		    const long *a)
{
	return lt_core_us(g, s, m, orient, a[1], a[3]) * lt_factor(s, orient, "stages", a[2]) *
	       lt_factor(s, orient, "custom", a[6]) * lt_factor(s, orient, "cluster", a[8]);
}

/* The smallest factor of attribute what over its values when varied,
 * else at v. */
static double lt_factor_min(const struct shape *s, long orient, const char *what, int varied,
			    long first, long count, long v)
{
	if (!varied)
		return lt_factor(s, orient, what, v);
	double f = HUGE_VAL;
	for (long x = first; x < first + count; x++)
		f = fmin(f, lt_factor(s, orient, what, x));
	return f;
}

double gpumodel_lt_closure_us(const struct gpu_profile *g, const struct shape *s, int m,
			      int orient, const long *a, const int *splitk, int nsplitk, int vary)
{
	const int vt = vary & GPUMODEL_LT_VARY_TILE;
	double core = HUGE_VAL;
	for (long tile = vt ? LT_TILE0 : a[1]; tile < (vt ? LT_TILE0 + LT_NTILES : a[1] + 1); tile++) {
		core = fmin(core, lt_core_us(g, s, m, orient, tile, a[3]));
		for (int i = 0; i < nsplitk; i++)
			core = fmin(core, lt_core_us(g, s, m, orient, tile, splitk[i]));
	}
	return core *
	       lt_factor_min(s, orient, "stages", vary & GPUMODEL_LT_VARY_STAGES, LT_STAGES0,
			     LT_NSTAGES, a[2]) *
	       lt_factor_min(s, orient, "custom", vary & GPUMODEL_LT_VARY_CUSTOM, 0, LT_NCUSTOM,
			     a[6]) *
	       lt_factor_min(s, orient, "cluster", vary & GPUMODEL_LT_VARY_CLUSTER, 0, LT_NCLUSTER,
			     a[8]);
}

double gpumodel_kernel_us(const struct gpu_profile *g, const struct shape *s,
			  const struct candidate *c, int m)
{
	const char *stem = c->tmpl->stem;
	if (!strcmp(stem, "gemv") || !strcmp(stem, "planted"))
		return gemv_us(g, s, c, m);
	if (!strcmp(stem, "mma_skinny") || !strcmp(stem, "mma_hilo"))
		return skinny_us(g, s, c, m);
	if (!strcmp(stem, "mma_frag"))
		return frag_us(g, s, c, m);
	if (!strcmp(stem, "blas_lt"))
		return lt_us(g, s, m, c->params[0], &c->params[1]);
	if (!strcmp(stem, "blas_hilo")) {
		struct shape bf = *s;   /* two BF16 GEMMs, hi and lo */
		bf.w = bf.x = bf.y = DT_BF16;
		return 2 * gpumodel_cublas_us(g, &bf, m);
	}
	return gpumodel_cublas_us(g, s, m);
}

/* A standard normal draw from h (Box-Muller). */
static double normal(uint64_t h)
{
	const double u1 = unit(h) * (1 - 1e-12) + 1e-12, u2 = unit(h ^ 0x9e3779b97f4a7c15ULL);
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One replay: 2% spread, one in 50 an outlier 20-80% slow. */
static double replay(double us, uint64_t h)
{
	double t = us * (1 + 0.02 * normal(h));
	if (unit(hash_str(h, "outlier")) < 0.02)
		t *= 1.2 + 0.6 * unit(hash_str(h, "how much"));
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile(double *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[(int)floor(q * (n - 1) + 0.5)];
}

void gpumodel_time_pairs(double base_us, double cand_us, int pairs, uint64_t seed,
			 struct gpumodel_timing *out)
{
	if (pairs < 1)
		pairs = 1;
	double *b = xcalloc((size_t)pairs * 3, sizeof(double)), *c = b + pairs, *r = c + pairs;
	const double offset = 1 + 0.015 * normal(hash_str(seed, "eval"));
	for (int i = 0; i < pairs; i++) {
		uint64_t h = hash_long(seed, i);
		b[i] = replay(base_us, hash_str(h, "base"));
		c[i] = replay(cand_us * offset, hash_str(h, "cand"));
		r[i] = b[i] / c[i];
	}
	out->ratio_lo = quantile(r, pairs, 0.1);
	out->ratio_hi = quantile(r, pairs, 0.9);
	out->ratio = quantile(r, pairs, 0.5);
	out->base_us = quantile(b, pairs, 0.5);
	out->cand_us = quantile(c, pairs, 0.5);
	free(b);
}

void gpumodel_lt_proposal(const struct shape *s, int m, int orient, int i, long *a)
{
	uint64_t h = hash_long(hash_long(hash_long(HASH_INIT, orient), m), i);
	/* the heuristic favours token tiles near m: one of the three that
	 * hold it best, then any */
	long tile = LT_TILE0 + (long)(unit(hash_str(h, "tile")) * LT_NTILES);
	if (i < 4) {
		int fit = 0;
		while (fit < LT_NTILES - 3 && lt_tiles[fit][0] < m)
			fit += 3;
		tile = LT_TILE0 + fit + (long)(unit(hash_str(h, "rows")) * 3);
	}
	const long splitk = 1 + (long)(band(s, hash_str(h, "splitk"), 0, 1) * 4);
	const long v[GPUMODEL_LT_ATTRS] = {
		66, tile, LT_STAGES0 + (long)(unit(hash_str(h, "stages")) * LT_NSTAGES), splitk,
		splitk > 1 ? 2 : 0, 0, (long)(unit(hash_str(h, "custom")) * LT_NCUSTOM), 0,
		(long)(unit(hash_str(h, "cluster")) * LT_NCLUSTER),
	};
	memcpy(a, v, sizeof(v));
}

int gpumodel_lt_variants(const long *seed, const int *splitk, int nsplitk, int vary,
			 void (*fn)(void *ctx, const long *a), void *ctx)
{
	static const struct { int bit, attr; long first, count; } axes[] = {
		{ GPUMODEL_LT_VARY_TILE, 1, LT_TILE0, LT_NTILES },
		{ GPUMODEL_LT_VARY_STAGES, 2, LT_STAGES0, LT_NSTAGES },
		{ GPUMODEL_LT_VARY_CUSTOM, 6, 0, LT_NCUSTOM },
		{ GPUMODEL_LT_VARY_CLUSTER, 8, 0, LT_NCLUSTER },
	};
	long a[GPUMODEL_LT_ATTRS];
	int n = 1;
	fn(ctx, seed);
	for (int i = 0; i < nsplitk; i++) {
		if (splitk[i] == seed[3])
			continue;
		memcpy(a, seed, sizeof(a));
		a[3] = splitk[i];
		a[4] = splitk[i] > 1 ? 2 : 0;
		fn(ctx, a);
		n++;
	}
	for (size_t x = 0; x < sizeof(axes) / sizeof(axes[0]); x++) {
		if (!(vary & axes[x].bit))
			continue;
		for (long v = axes[x].first; v < axes[x].first + axes[x].count; v++) {
			if (v == seed[axes[x].attr])
				continue;
			memcpy(a, seed, sizeof(a));
			a[axes[x].attr] = v;
			fn(ctx, a);
			n++;
		}
	}
	return n;
}
