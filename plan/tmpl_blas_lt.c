/*
 * tmpl_lt.c: one cuBLASLt algorithm as a tuner candidate (tuner/worker/lt.h): an
 * orientation and the algorithm's attributes, the numbers DESIGN.md stores
 * a cuBLASLt choice by. A search space's `cublaslt:` section asks the
 * heuristic for them on the GPU (gemmtab sweep); a `blas_lt` grid may also
 * name them outright. No kernel of ours: nothing for NVRTC to compile; the
 * tuner validates it against the FP64 reference and times it paired like
 * any candidate, and the runtime checks it with cublasLtMatmulAlgoCheck
 * when it prepares it.
 */
#include "tmpl.h"

#include <string.h>

enum {
	P_ORIENT, P_ALGO, P_TILE, P_STAGES, P_SPLITK, P_REDUCTION, P_SWIZZLE, P_CUSTOM, P_INNER,
	P_CLUSTER, NPARAMS
};

/* Same order as enum lt_orient in lt.h. */
static const char *const orient_symbols[] = { "t", "row", "n", NULL };
#define ORIENT_N 2

#define U32 0x7fffffffL
#define U16 0xffffL

/* The attributes in lt_attr_names order after the orientation. */
static const struct tmpl_param params[NPARAMS] = {
	[P_ORIENT]    = { "orient", 0, 2, orient_symbols },
	[P_ALGO]      = { "algo", 0, U32, NULL },
	[P_TILE]      = { "tile", 0, U32, NULL },
	[P_STAGES]    = { "stages", 0, U32, NULL },
	[P_SPLITK]    = { "splitk", 0, U32, NULL },
	[P_REDUCTION] = { "reduction", 0, U32, NULL },
	[P_SWIZZLE]   = { "swizzle", 0, U32, NULL },
	[P_CUSTOM]    = { "custom", 0, U32, NULL },
	[P_INNER]     = { "inner", 0, U16, NULL },
	[P_CLUSTER]   = { "cluster", 0, U16, NULL },
};

_Static_assert(NPARAMS == STEP_LT_VALUES, "the parameters are what a STEP_LT holds");

/* The dense bf16 projections only (the router's FP32 product is not one). */
static const char *lt_check(const struct shape *s, const long *p)
{
	const char *bad = tmpl_params_in_range(params, NPARAMS, p);
	if (bad)
		return bad;
	if (s->w != DT_BF16 || s->x != DT_BF16 || s->y != DT_BF16)
		return "w, x and y must be bf16";
	return NULL;
}

static int lt_kernels(const struct shape *s, const long *p, char names[][TMPL_NAME_MAX], int max)
{
	(void)s;
	(void)p;
	(void)names;
	(void)max;
	return 0;
}

static int lt_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || lt_check(s, p))
		return -1;
	memset(out, 0, sizeof(*out));
	out->ws_bytes = STEP_LT_WS_BYTES;
	out->nsteps = 1;
	struct launch_step *st = &out->steps[0];
	st->kind = STEP_LT;
	st->nargs = 0;
	for (int i = 0; i < NPARAMS; i++)
		st->lt[i] = p[i];
	return 0;
}

/* Orientation n multiplies by W^T prepared once (lossless). */
static struct relayout lt_relayout(const long *p)
{
	if (p[P_ORIENT] == ORIENT_N)
		return (struct relayout){ RELAYOUT_TRANSPOSE, 0, 0 };
	return (struct relayout){ RELAYOUT_NONE, 0, 0 };
}

const struct tmpl tmpl_lt = {
	.stem = "blas_lt",
	.source = NULL,
	.adapter = "plan/tmpl_blas_lt.c",
	.params = params,
	.nparams = NPARAMS,
	.relayout = lt_relayout,
	.check = lt_check,
	.kernels = lt_kernels,
	.plan = lt_plan,
};
