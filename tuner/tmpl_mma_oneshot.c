/*
 * tmpl_mma_oneshot.c: the adapter of templates/mma_oneshot.cuh, tensor
 * cores for up to 16 tokens with no split-K: a block owns rows weight rows
 * over the whole of K, copies them and the tokens into shared memory at
 * once, and its warps split K and meet in shared memory (no combine
 * across blocks, one kernel). Must agree with the launch contract at the
 * top of mma_oneshot.cuh.
 */
#include "tmpl.h"

#include <stdio.h>

enum { P_ROWS, P_TOKENS, P_WARPS, P_GROUPS, NPARAMS };

static const struct tmpl_param params[NPARAMS] = {
	[P_ROWS]   = { "rows", 8, 16, NULL },
	[P_TOKENS] = { "tokens", 8, 16, NULL },
	[P_WARPS]  = { "warps", 4, 16, NULL },
	[P_GROUPS] = { "groups", 1, 8, NULL },
};

/* mma_oneshot_smem of the template; its static reduction tile. */
static long dyn_smem(const long *p, long k)
{
	return (p[P_ROWS] + p[P_TOKENS]) * k * 2;
}

static long static_smem(const long *p)
{
	return p[P_WARPS] * p[P_TOKENS] * p[P_ROWS] * 4;
}

#define SMEM_LIMIT (227L * 1024)

static int pow2_in(long v, long lo, long hi)
{
	return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

static const char *oneshot_check(const struct shape *s, const long *p)
{
	const char *bad = tmpl_params_in_range(params, NPARAMS, p);
	if (bad)
		return bad;
	if (s->w != DT_BF16 || s->x != DT_BF16 || s->y != DT_BF16)
		return "mma_oneshot needs bf16 w, x and y";
	if (p[P_ROWS] != 8 && p[P_ROWS] != 16)
		return "rows must be 8 or 16";
	if (p[P_TOKENS] != 8 && p[P_TOKENS] != 16)
		return "tokens must be 8 or 16";
	if (!pow2_in(p[P_WARPS], 4, 16))
		return "warps must be 4, 8 or 16";
	if (!pow2_in(p[P_GROUPS], 1, 8))
		return "groups must be 1, 2, 4 or 8";
	if (s->n % p[P_ROWS])
		return "n not a multiple of rows";
	if (s->k % (p[P_WARPS] * p[P_GROUPS] * 32))
		return "k not a multiple of warps*groups*32";
	if (dyn_smem(p, s->k) + static_smem(p) > SMEM_LIMIT)
		return "shared memory exceeds 227 KiB";
	return NULL;
}

static int oneshot_kernels(const struct shape *s, const long *p,
			   char names[][TMPL_NAME_MAX], int max)
{
	(void)s;
	if (max < 1)
		return -1;
	snprintf(names[0], TMPL_NAME_MAX, "mma_oneshot_kernel<%ld, %ld, %ld, %ld>", p[P_ROWS],
		 p[P_TOKENS], p[P_WARPS], p[P_GROUPS]);
	return 1;
}

static void add_arg(struct launch_step *st, enum arg_kind kind)
{
	st->args[st->nargs].kind = kind;
	st->args[st->nargs].value = 0;
	st->nargs++;
}

static int oneshot_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || m > p[P_TOKENS] || oneshot_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	struct launch_step *st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	st->grid[0] = (unsigned)(s->n / p[P_ROWS]);
	st->grid[1] = st->grid[2] = 1;
	st->block[0] = (unsigned)(p[P_WARPS] * 32);
	st->block[1] = st->block[2] = 1;
	st->smem = (unsigned)dyn_smem(p, s->k);
	add_arg(st, ARG_W);
	add_arg(st, ARG_X);
	add_arg(st, ARG_Y);
	add_arg(st, ARG_M);
	add_arg(st, ARG_N);
	add_arg(st, ARG_K);
	return 0;
}

const struct tmpl tmpl_mma_oneshot = {
	.stem = "mma_oneshot",
	.source = "templates/mma_oneshot.cuh",
	.adapter = "tuner/tmpl_mma_oneshot.c",
	.params = params,
	.nparams = NPARAMS,
	.check = oneshot_check,
	.kernels = oneshot_kernels,
	.plan = oneshot_plan,
};
