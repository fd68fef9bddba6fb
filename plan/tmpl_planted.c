/*
 * tmpl_planted.c: the adapter of templates/planted.cuh, the test-only
 * kernels that plant a correct-but-slow result, a fault or a hang, so the
 * tests can prove validation, crash isolation and deadlines.
 */
#include "tmpl.h"

#include <stdio.h>

enum { P_MODE, NPARAMS };

/* Same order as PLANTED_* in planted.cuh. */
static const char *const mode_symbols[] = { "ok", "fault", "hang", NULL };
enum { MODE_OK, MODE_FAULT, MODE_HANG };

static const struct tmpl_param params[NPARAMS] = {
	[P_MODE] = { "mode", MODE_OK, MODE_HANG, mode_symbols },
};

/* PLANTED_THREADS in planted.cuh; fault and hang need only one warp. */
#define OK_THREADS 128
#define MAX_GRID_Y 65535
#define WARP 32

static const char *type_name(enum dtype t)
{
	return t == DT_FP32 ? "float" : "__nv_bfloat16";
}

static const char *planted_check(const struct shape *s, const long *p)
{
	if (p[P_MODE] < MODE_OK || p[P_MODE] > MODE_HANG)
		return "parameter out of range";
	if (s->x != DT_BF16)
		return "x must be bf16";
	return NULL;
}

static int planted_kernels(const struct shape *s, const long *p,
			   char names[][TMPL_NAME_MAX], int max)
{
	if (max < 1)
		return -1;
	snprintf(names[0], TMPL_NAME_MAX, "planted_kernel<%s, %s, %ld>",
		 type_name(s->w), type_name(s->y), p[P_MODE]);
	return 1;
}

static int planted_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || planted_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	struct launch_step *st = &out->steps[out->nsteps++];
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	if (p[P_MODE] == MODE_OK) {
		st->grid[0] = (unsigned)((s->n + OK_THREADS - 1) / OK_THREADS);
		st->grid[1] = (unsigned)(m < MAX_GRID_Y ? m : MAX_GRID_Y);
		st->block[0] = OK_THREADS;
	} else {
		st->grid[0] = 1;
		st->grid[1] = 1;
		st->block[0] = WARP;
	}
	st->grid[2] = 1;
	st->block[1] = 1;
	st->block[2] = 1;
	static const enum arg_kind kinds[] = { ARG_W, ARG_X, ARG_Y, ARG_WS, ARG_M, ARG_N, ARG_K };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		st->args[st->nargs++] = (struct launch_arg){ kinds[i], 0 };
	return 0;
}

const struct tmpl tmpl_planted = {
	.stem = "planted",
	.source = "templates/planted.cuh",
	.adapter = "plan/tmpl_planted.c",
	.params = params,
	.nparams = NPARAMS,
	.check = planted_check,
	.kernels = planted_kernels,
	.plan = planted_plan,
};
