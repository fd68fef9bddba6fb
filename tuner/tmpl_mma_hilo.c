/*
 * tmpl_mma_hilo.c: the adapter of mma_hilo_kernel in templates/
 * mma_skinny.cuh, the router's hi/lo product on tensor cores in one
 * kernel. The FP32 weight is split once into hi = bf16(w) and lo =
 * bf16(w - float(hi)) (RELAYOUT_HILO: a 2N x K bf16 matrix, hi rows
 * first); a call zeroes the FP32 output and runs one mma_skinny pass over
 * all 2N rows whose blocks add their partial sums into Y with FP32 atomics
 * (row r and row N + r both land in column r), so the two products and
 * the split-K slices are summed in FP32 without a second kernel. With
 * pdl = 1 the zero-fill is the kernel mma_zero_f32 and the product is
 * launched after it with programmatic dependent launch: it streams its
 * weights while Y is zeroed and waits for the zero-fill only before its
 * atomics (see the top of mma_skinny.cuh).
 */
#include "tmpl.h"
#include "tmpl_mma.h"

#include <stdio.h>

enum { P_BM, P_BN, P_BK, P_WARPS, P_STAGES, P_SPLIT, P_CACHE, P_MMA, P_PDL, NPARAMS };

/* Same order as MMA_CACHE_* in mma_skinny.cuh. */
static const char *const cache_symbols[] = { "cg", "evict_first", NULL };

static const struct tmpl_param params[NPARAMS] = {
	[P_BM]      = { "bm", 16, 256, NULL },
	[P_BN]      = { "bn", 8, 256, NULL },
	[P_BK]      = { "bk", 32, 128, NULL },
	[P_WARPS]   = { "warps", 2, 16, NULL },
	[P_STAGES]  = { "stages", 2, 6, NULL },
	[P_SPLIT]   = { "split", 1, 32, NULL },
	[P_CACHE]   = { "cache", 0, 1, cache_symbols },
	[P_MMA]     = { "mma", 0, 1, mma_instr_symbols },
	[P_PDL]     = { "pdl", 0, 1, NULL },
};

/* MMA_REDUCE_THREADS in mma_skinny.cuh: mma_zero_f32's block. */
#define ZERO_THREADS 256

static struct mma_tile tile_of(const long *p)
{
	return (struct mma_tile){ p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES],
				  p[P_SPLIT], p[P_MMA] };
}

static const char *hilo_check(const struct shape *s, const long *p)
{
	for (int i = 0; i < NPARAMS; i++)
		if (p[i] < params[i].min || p[i] > params[i].max)
			return "parameter out of range";
	if (s->w != DT_FP32 || s->x != DT_BF16 || s->y != DT_FP32)
		return "hi/lo needs fp32 w, bf16 x, fp32 y";
	const struct mma_tile t = tile_of(p);
	const char *bad = mma_tile_shape_check(&t);
	if (bad)
		return bad;
	/* a block's rows are all hi or all lo: bm divides n, and so 2n */
	if (s->n % p[P_BM])
		return "n not a multiple of bm";
	return mma_tile_fit_check(&t, 2L * s->n, s->k);
}

static int hilo_kernels(const struct shape *s, const long *p,
			char names[][TMPL_NAME_MAX], int max)
{
	(void)s;
	if (max < 1 + (int)p[P_PDL])
		return -1;
	/* the last argument is the weight layout: rows (the hi/lo matrix as is) */
	snprintf(names[0], TMPL_NAME_MAX,
		 "mma_hilo_kernel<%ld, %ld, %ld, %ld, %ld, %ld, %ld, 0, %ld>",
		 p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES], p[P_SPLIT], p[P_CACHE],
		 p[P_MMA]);
	if (p[P_PDL])
		snprintf(names[1], TMPL_NAME_MAX, "mma_zero_f32");
	return 1 + (int)p[P_PDL];
}

static void add_arg(struct launch_step *st, enum arg_kind kind)
{
	st->args[st->nargs].kind = kind;
	st->args[st->nargs].value = 0;
	st->nargs++;
}

static int hilo_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || hilo_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	/* Y is the accumulator: zeroed inside the captured call every time,
	 * by a memset or (pdl) by a kernel the product may start under */
	struct launch_step *z = &out->steps[out->nsteps++];
	const long n4 = (long)m * s->n / 4;     /* n % bm == 0: a multiple of 4 */
	if (p[P_PDL]) {
		z->kind = STEP_KERNEL;
		z->kernel = 1;
		z->grid[0] = (unsigned)((n4 + ZERO_THREADS - 1) / ZERO_THREADS);
		z->grid[1] = z->grid[2] = 1;
		z->block[0] = ZERO_THREADS;
		z->block[1] = z->block[2] = 1;
		add_arg(z, ARG_Y);
		z->args[z->nargs].kind = ARG_INT;
		z->args[z->nargs++].value = n4;
	} else {
		z->kind = STEP_MEMSET_Y;
		z->bytes = (size_t)m * s->n * sizeof(float);
	}

	struct launch_step *st = &out->steps[out->nsteps++];
	const struct mma_tile t = tile_of(p);
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	st->pdl = (int)p[P_PDL];
	st->grid[0] = (unsigned)((m + p[P_BN] - 1) / p[P_BN]);
	st->grid[1] = (unsigned)p[P_SPLIT];
	st->grid[2] = (unsigned)(2L * s->n / p[P_BM]);
	st->block[0] = (unsigned)(p[P_WARPS] * 32);
	st->block[1] = st->block[2] = 1;
	st->smem = (unsigned)mma_tile_smem(&t);
	add_arg(st, ARG_PREP);
	add_arg(st, ARG_X);
	add_arg(st, ARG_Y);
	add_arg(st, ARG_M);
	add_arg(st, ARG_N);
	add_arg(st, ARG_K);
	return 0;
}

static struct relayout hilo_relayout(const long *p)
{
	(void)p;
	return (struct relayout){ RELAYOUT_HILO, 0, 0 };
}

const struct tmpl tmpl_mma_hilo = {
	.stem = "mma_hilo",
	.source = "templates/mma_skinny.cuh",
	.adapter = "tuner/tmpl_mma_hilo.c",
	.params = params,
	.nparams = NPARAMS,
	.relayout = hilo_relayout,
	.check = hilo_check,
	.kernels = hilo_kernels,
	.plan = hilo_plan,
};
