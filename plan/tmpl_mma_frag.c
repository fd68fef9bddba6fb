/*
 * tmpl_mma_frag.c: the adapter of templates/mma_frag.cuh, the tensor-core GEMM
 * for a handful of tokens whose blocks each own whole rows of W over all
 * of K (no split-K, nothing combined across blocks) and load W and X
 * straight into mma.sync's registers: its parameters, static legality,
 * NVRTC name expressions and launch plan. W is read packed in 8 x 32 tiles
 * (RELAYOUT_TILES). Must agree with the launch contract written at the
 * top of mma_frag.cuh.
 */
#include "tmpl.h"
#include "tmpl_plan.h"

#include <stdio.h>

enum { P_WARPS, P_NT, P_TOK, P_U, P_CACHE, P_KFIX, NPARAMS };

/* Same order as MMA_FRAG_CACHE_* in mma_frag.cuh. */
static const char *const cache_symbols[] = { "nc_na", "evict_first", NULL };

static const struct tmpl_param params[NPARAMS] = {
	[P_WARPS] = { "warps", 1, 32, NULL },
	[P_NT]    = { "nt", 1, 8, NULL },
	[P_TOK]   = { "tok", 8, 16, NULL },
	[P_U]     = { "u", 1, 16, NULL },
	[P_CACHE] = { "cache", 0, 1, cache_symbols },
	/* 1: the chunks of a warp, k / (32 warps), fixed when compiled (the
	 * kernel's KC): one instantiation per K */
	[P_KFIX]  = { "kfix", 0, 1, NULL },
};

/* The packed tile (templates/pack.cuh): 8 rows by 32 k, one warp's load. */
#define TILE_ROWS 8
#define TILE_COLS 32
/* Registers a thread needs beside its load and accumulator arrays: a
 * rough filter only (ptxas used 124-128 for the 16 x 2 x 8-token x 4 tile this
 * counts as 80; unit test nvrtc_compiles_without_spills); what spills
 * anyway is pruned once compiled (tuner/worker/launch.c refuses local memory: runs
 * 210-215 pruned 32 x 2 x 16 x 2 and 16 x 8 x 8 x 2 so). */
#define REG_OVERHEAD 24
/* The most chunks of a warp kfix unrolls into one kernel. */
#define MAX_KC 64
#define MAX_GRID_Y 65535

/* mma_frag_ld in mma_frag.cuh: a row of the warps' sums, rows floats
 * padded to 8 (mod 32). */
static long sums_row(long rows)
{
	return rows + (40 - rows % 32) % 32;
}

static const char *frag_check(const struct shape *s, const long *p)
{
	const char *bad = tmpl_params_in_range(params, NPARAMS, p);
	if (bad)
		return bad;
	if (s->w != DT_BF16 || s->x != DT_BF16 || s->y != DT_BF16)
		return "w, x and y must be bf16";
	if (s->n <= 0 || s->k <= 0)
		return "n and k must be positive";
	if (p[P_TOK] != 8 && p[P_TOK] != 16)
		return "tok must be 8 or 16";
	const long rows = TILE_ROWS * p[P_NT];
	if (s->n % rows)
		return "n not a multiple of 8*nt";
	if (s->k % (32 * p[P_WARPS] * p[P_U]))
		return "k not a multiple of 32*warps*u";
	if (p[P_KFIX] && s->k / (32 * p[P_WARPS]) > MAX_KC)
		return "kfix: more than 64 chunks of 32 k a warp";
	if (s->n / rows > MAX_GRID_Y)
		return "n/(8*nt) exceeds the grid";
	const long limit = hw_regs_per_thread(p[P_WARPS] * 32);
	/* a uint4 per weight group and per token group of each chunk in
	 * flight, and 4 accumulators per weight group */
	const long loads = 4 * p[P_U] * (p[P_NT] + p[P_TOK] / 8);
	if (loads + 4 * p[P_NT] + REG_OVERHEAD > limit)
		return "loads and accumulators do not fit in registers";
	if (p[P_WARPS] * p[P_TOK] * sums_row(rows) * 4 > HW_MAX_STATIC_SMEM)
		return "the warps' sums exceed 48 KiB of shared memory";
	return NULL;
}

static int frag_kernels(const struct shape *s, const long *p,
			char names[][TMPL_NAME_MAX], int max)
{
	if (max < 1)
		return -1;
	/* kfix: this shape's chunks of a warp as the kernel's KC */
	const long kc = p[P_KFIX] ? s->k / (32 * p[P_WARPS]) : 0;
	snprintf(names[0], TMPL_NAME_MAX, "mma_frag_kernel<%ld, %ld, %ld, %ld, %ld, %ld>",
		 p[P_WARPS], p[P_NT], p[P_TOK], p[P_U], p[P_CACHE], kc);
	return 1;
}

static int frag_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || frag_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	struct launch_step *st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	plan_dims(st->grid, (unsigned)((m + p[P_TOK] - 1) / p[P_TOK]),
		  (unsigned)(s->n / (TILE_ROWS * p[P_NT])), 1);
	plan_dims(st->block, (unsigned)(p[P_WARPS] * 32), 1, 1);
	plan_arg(st, ARG_PREP, 0);
	plan_arg(st, ARG_X, 0);
	plan_arg(st, ARG_Y, 0);
	plan_arg(st, ARG_M, 0);
	plan_arg(st, ARG_N, 0);
	plan_arg(st, ARG_K, 0);
	return 0;
}

static struct relayout frag_relayout(const long *p)
{
	(void)p;
	return (struct relayout){ RELAYOUT_TILES, TILE_ROWS, TILE_COLS };
}

/* templates/pack.cuh: the 8 x 32 tiles the kernel reads, swizzled as its
 * loads expect */
static const char *const shared_files[] = { "plan/tmpl_plan.h", "templates/pack.cuh", NULL };

const struct tmpl tmpl_mma_frag = {
	.stem = "mma_frag",
	.source = "templates/mma_frag.cuh",
	.adapter = "plan/tmpl_mma_frag.c",
	.shared = shared_files,
	.params = params,
	.nparams = NPARAMS,
	.relayout = frag_relayout,
	.check = frag_check,
	.kernels = frag_kernels,
	.plan = frag_plan,
};
