/*
 * tmpl_gemv.c: the adapter of templates/gemv.cuh, the streaming GEMV for
 * small M: its parameters, static legality, NVRTC name expressions and
 * launch plan; a shape whose N or K the parameters do not divide gets
 * gemv_tail_kernel (the parameters stay the same). Must agree with the kernel's launch contract written at the
 * top of gemv.cuh.
 */
#include "tmpl.h"
#include "tmpl_plan.h"

#include <stdio.h>

enum { P_WARPS, P_ROWS, P_TOKENS, P_UNROLL, P_SPLIT, P_CACHE, NPARAMS };

/* Same order as GEMV_CACHE_* in gemv.cuh: the index is the template argument. */
static const char *const cache_symbols[] = {
	"default", "cg", "nc_na", "evict_first", "nc_na_evict_first", NULL,
};

static const struct tmpl_param params[NPARAMS] = {
	[P_WARPS]  = { "warps", 1, 32, NULL },
	[P_ROWS]   = { "rows", 1, 16, NULL },
	[P_TOKENS] = { "tokens", 1, 16, NULL },
	[P_UNROLL] = { "unroll", 1, 8, NULL },
	[P_SPLIT]  = { "split", 1, 64, NULL },
	[P_CACHE]  = { "cache", 0, 4, cache_symbols },
};

/* GEMV_REDUCE_THREADS in gemv.cuh: the reduce kernel's launch bound. */
#define REDUCE_THREADS 256
/* Registers a thread needs beside its arrays (addresses, indices, loop
 * counters); with ptxas's 255-register cap this keeps only layouts whose
 * accumulators and in-flight loads can live in registers. */
#define REG_OVERHEAD 16

static const char *type_name(enum dtype t)
{
	return t == DT_FP32 ? "float" : "__nv_bfloat16";
}

/* Weights per 16-byte load. */
static long vec_of(const struct shape *s)
{
	return 16 / (long)dtype_size(s->w);
}

/* Whether shape s needs gemv_tail_kernel under p: N not whole blocks of
 * rows, or K not whole block passes of every split. */
static int needs_tail(const struct shape *s, const long *p)
{
	const long chunk = p[P_WARPS] * 32 * p[P_UNROLL] * vec_of(s);
	return s->n % p[P_ROWS] || s->k % (p[P_SPLIT] * chunk);
}

static const char *gemv_check(const struct shape *s, const long *p)
{
	const char *bad = tmpl_params_in_range(params, NPARAMS, p);
	if (bad)
		return bad;
	if (s->x != DT_BF16)
		return "x must be bf16";
	/* the tail kernel: any N, K in whole 16-byte loads, a chunk per split */
	if (s->k % vec_of(s))
		return "k not a multiple of 16 bytes of w";
	if (needs_tail(s, p) && s->k / vec_of(s) < p[P_SPLIT])
		return "split more than k's 16-byte chunks";
	const long limit = hw_regs_per_thread(p[P_WARPS] * 32);
	long acc = p[P_ROWS] * p[P_TOKENS];
	long loads = 4 * p[P_UNROLL] * p[P_ROWS];     /* a uint4 per load */
	if (acc + loads + REG_OVERHEAD > limit)
		return "accumulators and loads do not fit in registers";
	return NULL;
}

static int gemv_kernels(const struct shape *s, const long *p,
			char names[][TMPL_NAME_MAX], int max)
{
	int need = p[P_SPLIT] > 1 ? 2 : 1;
	if (max < need)
		return -1;
	snprintf(names[0], TMPL_NAME_MAX, "%s<%s, %s, %ld, %ld, %ld, %ld, %ld, %ld>",
		 needs_tail(s, p) ? "gemv_tail_kernel" : "gemv_kernel", type_name(s->w), type_name(s->y), p[P_WARPS], p[P_ROWS], p[P_TOKENS],
		 p[P_UNROLL], p[P_SPLIT], p[P_CACHE]);
	if (need == 2)
		snprintf(names[1], TMPL_NAME_MAX, "gemv_splitk_reduce<%s>", type_name(s->y));
	return need;
}

static int gemv_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || gemv_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	long split = p[P_SPLIT];
	out->ws_bytes = split > 1 ? (size_t)split * m * s->n * sizeof(float) : 0;

	struct launch_step *st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	plan_dims(st->grid, (unsigned)((s->n + p[P_ROWS] - 1) / p[P_ROWS]), (unsigned)split, 1);
	plan_dims(st->block, (unsigned)(p[P_WARPS] * 32), 1, 1);
	plan_arg(st, ARG_W, 0);
	plan_arg(st, ARG_X, 0);
	plan_arg(st, ARG_Y, 0);
	plan_arg(st, ARG_WS, 0);
	plan_arg(st, ARG_M, 0);
	plan_arg(st, ARG_N, 0);
	plan_arg(st, ARG_K, 0);
	if (split == 1)
		return 0;

	st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 1;
	long total = (long)m * s->n;
	plan_dims(st->grid, (unsigned)((total + REDUCE_THREADS - 1) / REDUCE_THREADS), 1, 1);
	plan_dims(st->block, REDUCE_THREADS, 1, 1);
	plan_arg(st, ARG_WS, 0);
	plan_arg(st, ARG_Y, 0);
	plan_arg(st, ARG_INT, split);
	plan_arg(st, ARG_M, 0);
	plan_arg(st, ARG_N, 0);
	return 0;
}

static const char *const shared_files[] = { "plan/tmpl_plan.h", NULL };

const struct tmpl tmpl_gemv = {
	.stem = "gemv",
	.source = "templates/gemv.cuh",
	.adapter = "plan/tmpl_gemv.c",
	.shared = shared_files,
	.params = params,
	.nparams = NPARAMS,
	.check = gemv_check,
	.kernels = gemv_kernels,
	.plan = gemv_plan,
};
