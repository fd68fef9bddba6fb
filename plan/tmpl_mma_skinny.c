/*
 * tmpl_mma.c: the adapter of templates/mma_skinny.cuh, the tensor-core
 * GEMM for skinny M with split-K combined through FP32 partials, FP32
 * atomics or a thread-block cluster: its parameters, static legality,
 * NVRTC name expressions and launch plan. Must agree with the kernel's
 * launch contract written at the top of mma_skinny.cuh.
 */
#include "tmpl.h"
#include "tmpl_mma.h"
#include "tmpl_plan.h"

#include <limits.h>
#include <stdio.h>

enum { P_BM, P_BN, P_BK, P_WARPS, P_STAGES, P_SPLIT, P_CACHE, P_COMBINE, P_LAYOUT, P_MMA,
       P_PDL, P_WK, NPARAMS };

/* Same order as MMA_CACHE_*, MMA_COMBINE_* and MMA_LAYOUT_* in
 * mma_skinny.cuh: the index is the template argument. */
static const char *const cache_symbols[] = { "cg", "evict_first", NULL };
static const char *const combine_symbols[] = { "partials", "atomic", "cluster", NULL };
enum { COMBINE_PARTIALS, COMBINE_ATOMIC, COMBINE_CLUSTER };
static const char *const layout_symbols[] = { "rows", "tiles", NULL };
const char *const mma_instr_symbols[] = { "sync", "wgmma", NULL };
enum { LAYOUT_ROWS, LAYOUT_TILES };

static const struct tmpl_param params[NPARAMS] = {
	[P_BM]      = { "bm", 16, 256, NULL },
	[P_BN]      = { "bn", 8, 256, NULL },
	[P_BK]      = { "bk", 32, 128, NULL },
	[P_WARPS]   = { "warps", 2, 16, NULL },
	[P_STAGES]  = { "stages", 2, 6, NULL },
	[P_SPLIT]   = { "split", 1, 16, NULL },
	[P_CACHE]   = { "cache", 0, 1, cache_symbols },
	[P_COMBINE] = { "combine", 0, 2, combine_symbols },
	[P_LAYOUT]  = { "layout", 0, 1, layout_symbols },
	[P_MMA]     = { "mma", 0, 1, mma_instr_symbols },
	[P_PDL]     = { "pdl", 0, 1, NULL },
	[P_WK]      = { "wk", 0, 8, NULL },
};

/* MMA_REDUCE_THREADS, MMA_EPI_PAD and MMA_MAX_CLUSTER in mma_skinny.cuh. */
#define REDUCE_THREADS 256
#define EPI_PAD 4
#define MAX_CLUSTER 8
#define MAX_GRID_YZ 65535
#define MAX_REDUCE_BLOCKS 65535

static int is_pow2_in(long v, long lo, long hi)
{
	return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

static long min_l(long a, long b)
{
	return a < b ? a : b;
}

/* Rows first (16 each), then tokens (8 each), the rest split each
 * stage's K; t->wk > 0 sets that many warps on K first. */
void mma_warp_layout(const struct mma_tile *t, long *wm, long *wn, long *wk)
{
	const long first = t->wk ? t->wk : 1;
	*wm = min_l(t->warps / first, t->bm / 16);
	*wn = min_l(t->warps / (*wm * first), t->bn / 8);
	*wk = t->warps / (*wm * *wn);
}

long mma_tile_smem(const struct mma_tile *t)
{
	long wm, wn, wk;
	mma_warp_layout(t, &wm, &wn, &wk);
	long ring = t->stages * (t->bm + t->bn) * t->bk * 2;
	long epilogue = wk * t->bn * (t->bm + EPI_PAD) * 4;
	/* wgmma aligns the ring to its 1024-byte swizzle period (MMA_WGMMA_ALIGN) */
	return (ring > epilogue ? ring : epilogue) + (t->mma == MMA_INSTR_WGMMA ? 1024 : 0);
}

long mma_cluster_recv_bytes(long bn, long out_rows, long split)
{
	return (bn * out_rows / 4 + split - 1) / split * split * 16;
}

const char *mma_tile_shape_check(const struct mma_tile *t)
{
	if (!is_pow2_in(t->bm, 32, 128))
		return "bm must be 32, 64 or 128";
	if (t->mma == MMA_INSTR_WGMMA) {
		if (!is_pow2_in(t->bn, 8, 256))
			return "bn must be a power of two in [8, 256]";
		if (t->bk != 64)
			return "wgmma takes bk 64";
		if (t->bm != 64 && t->bm != 128)
			return "wgmma takes bm 64 or 128";
		/* 4 warps (one warpgroup) per 64 rows, once or twice over: two
		 * warpgroups on the same rows split the tokens */
		if (t->warps != t->bm / 16 && t->warps != t->bm / 8)
			return "wgmma takes 4 or 8 warps per 64 rows of bm";
		if (t->warps == t->bm / 8 && t->bn < 16)
			return "two warpgroups per 64 rows need bn >= 16";
		if (t->stages < 3)
			return "wgmma takes 3 or more stages";
		if (t->wk)
			return "wgmma takes wk 0";
		return NULL;
	}
	if (!is_pow2_in(t->bn, 8, 64))
		return "bn must be 8, 16, 32 or 64";
	if (!is_pow2_in(t->bk, 32, 128))
		return "bk must be 32, 64 or 128";
	if (!is_pow2_in(t->warps, 2, 8))
		return "warps must be 2, 4 or 8";
	if (t->wk) {
		if (!is_pow2_in(t->wk, 2, 8) || t->wk > t->warps)
			return "wk must be 0, or 2, 4 or 8 and at most warps";
		long wm, wn, wk;
		mma_warp_layout(t, &wm, &wn, &wk);
		if (wk != t->wk)
			return "wk leaves warps the tile's rows and tokens cannot hold";
		const struct mma_tile dflt = { t->bm, t->bn, t->bk, t->warps, t->stages, t->split,
					       t->mma, 0 };
		long dm, dn, dk;
		mma_warp_layout(&dflt, &dm, &dn, &dk);
		if (dk == wk)
			return "wk is this tile's default layout: wk 0 runs it";
	}
	return NULL;
}

const char *mma_tile_fit_check(const struct mma_tile *t, long rows, long k)
{
	if (rows % t->bm)
		return "n not a multiple of bm";
	if (k % t->bk)
		return "k not a multiple of bk";
	/* every split gets at least one k tile (uneven shares differ by one) */
	if (k / t->bk < t->split)
		return "fewer k tiles than splits";
	if (rows / t->bm > MAX_GRID_YZ)
		return "n/bm exceeds the grid";
	long wm, wn, wk;
	mma_warp_layout(t, &wm, &wn, &wk);
	if (wk > t->bk / 16)
		return "more k-splitting warps than k16 steps in bk";
	/* No register check: the largest tile a thread can own (bm 128 x bn 64
	 * on 2 warps) is 128 FP32 accumulators, the template's static_assert
	 * limit; ptxas reports 211 registers and no spills for it. */
	if (mma_tile_smem(t) > HW_MAX_DYN_SMEM)
		return "shared memory exceeds 227 KiB";
	return NULL;
}

static struct mma_tile tile_of(const long *p)
{
	return (struct mma_tile){ p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES],
				  p[P_SPLIT], p[P_MMA], p[P_WK] };
}

static const char *mma_check(const struct shape *s, const long *p)
{
	const char *bad = tmpl_params_in_range(params, NPARAMS, p);
	if (bad)
		return bad;
	if (s->w != DT_BF16 || s->x != DT_BF16 || s->y != DT_BF16)
		return "w, x and y must be bf16";
	const struct mma_tile t = tile_of(p);
	bad = mma_tile_shape_check(&t);
	if (bad)
		return bad;
	/* split 1 runs the same code whatever the combine: keep one */
	if (p[P_SPLIT] == 1 && p[P_COMBINE] != COMBINE_PARTIALS)
		return "split 1 takes combine partials";
	if (p[P_COMBINE] == COMBINE_CLUSTER && p[P_SPLIT] > MAX_CLUSTER)
		return "a cluster holds at most 8 blocks";
	if (p[P_COMBINE] == COMBINE_CLUSTER && p[P_SPLIT] > 1 &&
	    mma_tile_smem(&t) + mma_cluster_recv_bytes(p[P_BN], p[P_BM], p[P_SPLIT]) > HW_MAX_DYN_SMEM)
		return "shared memory exceeds 227 KiB";
	if (p[P_PDL] && (p[P_SPLIT] == 1 || p[P_COMBINE] == COMBINE_CLUSTER))
		return "pdl needs a second kernel (split with partials or atomic)";
	return mma_tile_fit_check(&t, s->n, s->k);
}

static int uses_reduce(const long *p)
{
	return p[P_SPLIT] > 1 && p[P_COMBINE] != COMBINE_CLUSTER;
}

static int mma_kernels(const struct shape *s, const long *p,
		       char names[][TMPL_NAME_MAX], int max)
{
	(void)s;
	int need = uses_reduce(p) ? 2 : 1;
	if (p[P_PDL] && p[P_COMBINE] == COMBINE_ATOMIC)
		need = 3;       /* the zero-fill kernel replaces the memset */
	if (max < need)
		return -1;
	if (p[P_COMBINE] == COMBINE_CLUSTER)
		snprintf(names[0], TMPL_NAME_MAX,
			 "mma_skinny_cluster_kernel<%ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld>",
			 p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES], p[P_SPLIT],
			 p[P_CACHE], p[P_LAYOUT], p[P_MMA], p[P_WK]);
	else
		snprintf(names[0], TMPL_NAME_MAX,
			 "mma_skinny_kernel<%ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld>",
			 p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES], p[P_SPLIT],
			 p[P_CACHE], p[P_COMBINE], p[P_LAYOUT], p[P_MMA], p[P_WK]);
	if (need >= 2)
		snprintf(names[1], TMPL_NAME_MAX, "mma_splitk_reduce");
	if (need == 3)
		snprintf(names[2], TMPL_NAME_MAX, "mma_zero_f32");
	return need;
}

/* Blocks of REDUCE_THREADS over n4 float4s, at most MAX_REDUCE_BLOCKS. */
static unsigned float4_blocks(long n4)
{
	return (unsigned)min_l((n4 + REDUCE_THREADS - 1) / REDUCE_THREADS, MAX_REDUCE_BLOCKS);
}

/* The reduce/convert kernel over m*n/4 float4s: splits = 1 converts. */
static void add_reduce(struct launch_plan *out, long splits, long m, long n, int pdl)
{
	struct launch_step *st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 1;
	st->pdl = pdl;
	plan_dims(st->grid, float4_blocks(m * n / 4), 1, 1);
	plan_dims(st->block, REDUCE_THREADS, 1, 1);
	plan_arg(st, ARG_WS, 0);
	plan_arg(st, ARG_Y, 0);
	plan_arg(st, ARG_INT, splits);
	plan_arg(st, ARG_M, 0);
	plan_arg(st, ARG_N, 0);
}

int mma_add_zero_step(struct launch_plan *out, enum arg_kind target, size_t bytes, int pdl,
		      int zero_kernel)
{
	struct launch_step *z = &out->steps[out->nsteps++];
	const size_t n4 = bytes / 16;
	if (!pdl) {
		z->kind = target == ARG_Y ? STEP_MEMSET_Y : STEP_MEMSET_WS;
		z->bytes = bytes;
		return 0;
	}
	if (n4 > INT_MAX)
		return -1;
	z->kind = STEP_KERNEL;
	z->kernel = zero_kernel;
	plan_dims(z->grid, float4_blocks((long)n4), 1, 1);
	plan_dims(z->block, REDUCE_THREADS, 1, 1);
	plan_arg(z, target, 0);
	plan_arg(z, ARG_INT, (long)n4);
	return 0;
}

static int mma_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || mma_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	const long split = p[P_SPLIT], combine = p[P_COMBINE];
	const size_t out_floats = (size_t)m * s->n;
	if (split > 1 && combine == COMBINE_PARTIALS)
		out->ws_bytes = (size_t)split * out_floats * sizeof(float);
	else if (split > 1 && combine == COMBINE_ATOMIC)
		out->ws_bytes = out_floats * sizeof(float);

	const int pdl = (int)p[P_PDL];
	if (split > 1 && combine == COMBINE_ATOMIC &&
	    mma_add_zero_step(out, ARG_WS, out->ws_bytes, pdl, 2))
		return -1;

	struct launch_step *st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	st->pdl = pdl && out->nsteps > 1;
	plan_dims(st->grid, (unsigned)((m + p[P_BN] - 1) / p[P_BN]), (unsigned)split,
		 (unsigned)(s->n / p[P_BM]));
	plan_dims(st->block, (unsigned)(p[P_WARPS] * 32), 1, 1);
	const struct mma_tile t = tile_of(p);
	st->smem = (unsigned)mma_tile_smem(&t);
	if (split > 1 && combine == COMBINE_CLUSTER)
		st->smem += (unsigned)mma_cluster_recv_bytes(p[P_BN], p[P_BM], split);
	plan_arg(st, p[P_LAYOUT] == LAYOUT_TILES ? ARG_PREP : ARG_W, 0);
	plan_arg(st, ARG_X, 0);
	plan_arg(st, ARG_Y, 0);
	plan_arg(st, ARG_WS, 0);
	plan_arg(st, ARG_M, 0);
	plan_arg(st, ARG_N, 0);
	plan_arg(st, ARG_K, 0);

	if (uses_reduce(p))
		add_reduce(out, combine == COMBINE_ATOMIC ? 1 : split, m, s->n, pdl);
	return 0;
}

/* The tiles layout reads W packed in bm x bk tiles (RELAYOUT_TILES). */
static struct relayout mma_relayout(const long *p)
{
	if (p[P_LAYOUT] == LAYOUT_TILES)
		return (struct relayout){ RELAYOUT_TILES, (int)p[P_BM], (int)p[P_BK] };
	return (struct relayout){ RELAYOUT_NONE, 0, 0 };
}

/* templates/pack.cuh: the packed tiles layout=tiles reads (its swizzle is
 * the template's ldmatrix addressing) */
static const char *const shared_files[] = { "plan/tmpl_mma.h", "plan/tmpl_plan.h",
					    "templates/pack.cuh", NULL };

const struct tmpl tmpl_mma = {
	.stem = "mma_skinny",
	.source = "templates/mma_skinny.cuh",
	.adapter = "plan/tmpl_mma_skinny.c",
	.shared = shared_files,
	.params = params,
	.nparams = NPARAMS,
	.relayout = mma_relayout,
	.check = mma_check,
	.kernels = mma_kernels,
	.plan = mma_plan,
};
