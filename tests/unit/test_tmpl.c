/*
 * test_tmpl.c: the template registry and the gemv and planted adapters:
 * parameter tables, static checks, NVRTC name expressions and launch
 * plans, and that the plans agree with the launch constants written in the
 * template sources. Pure logic; no CUDA.
 */
#include "check.h"
#include "workload.h"
#include "tmpl.h"
#include "util.h"

#include <stdlib.h>


/* warps, rows, tokens, unroll, split, cache */
static const long gemv_split2[] = { 4, 1, 4, 4, 2, 1 };
static const long gemv_plain[] = { 4, 2, 1, 8, 1, 2 };

TEST(registry_lists_and_finds_templates)
{
	const struct tmpl *g = tmpl_find("gemv"), *p = tmpl_find("planted");
	CHECK(g && p);
	CHECK(tmpl_find("nope") == NULL);
	if (!g || !p)
		return;
	CHECK_STR(g->stem, "gemv");
	CHECK_STR(g->source, "templates/gemv.cuh");
	CHECK_STR(p->source, "templates/planted.cuh");
	int n = 0, seen_g = 0, seen_p = 0;
	for (; tmpl_all[n]; n++) {
		seen_g += tmpl_all[n] == g;
		seen_p += tmpl_all[n] == p;
	}
	CHECK_INT(seen_g, 1);
	CHECK_INT(seen_p, 1);
	CHECK(n >= 2);
}

TEST(gemv_parameters_in_order)
{
	const struct tmpl *g = tmpl_find("gemv");
	static const char *const names[] = { "warps", "rows", "tokens", "unroll", "split", "cache" };
	static const long lo[] = { 1, 1, 1, 1, 1, 0 }, hi[] = { 32, 16, 16, 8, 64, 4 };
	CHECK_INT(g->nparams, 6);
	for (int i = 0; i < 6 && i < g->nparams; i++) {
		CHECK_STR(g->params[i].name, names[i]);
		CHECK_INT(tmpl_param_index(g, names[i]), i);
		CHECK_INT(g->params[i].min, lo[i]);
		CHECK_INT(g->params[i].max, hi[i]);
	}
	CHECK_INT(tmpl_param_index(g, "nope"), -1);
	const char *const *sym = g->params[5].symbols;
	static const char *const want[] = { "default", "cg", "nc_na", "evict_first",
					    "nc_na_evict_first" };
	CHECK(sym != NULL);
	for (int i = 0; sym && i < 5; i++)
		CHECK_STR(sym[i], want[i]);
	CHECK(sym && sym[5] == NULL);
	for (int i = 0; i < 5; i++)
		CHECK(g->params[i].symbols == NULL);
}

TEST(gemv_candidate_key)
{
	struct candidate c = { .tmpl = tmpl_find("gemv") };
	memcpy(c.params, gemv_split2, sizeof(gemv_split2));
	char buf[128];
	CHECK_STR(candidate_key(&c, buf, sizeof(buf)),
		  "warps=4,rows=1,tokens=4,unroll=4,split=2,cache=cg");
}

TEST(gemv_kernel_names)
{
	const struct tmpl *g = tmpl_find("gemv");
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK_INT(g->kernels(&qkv, gemv_split2, names, TMPL_MAX_KERNELS), 2);
	CHECK_STR(names[0], "gemv_kernel<__nv_bfloat16, __nv_bfloat16, 4, 1, 4, 4, 2, 1>");
	CHECK_STR(names[1], "gemv_splitk_reduce<__nv_bfloat16>");
	CHECK_INT(g->kernels(&qkv, gemv_split2, names, 1), -1);

	const long r[] = { 4, 2, 16, 4, 1, 4 };
	CHECK_INT(g->kernels(&router, r, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "gemv_kernel<float, float, 4, 2, 16, 4, 1, 4>");
	const long rs[] = { 4, 2, 16, 4, 4, 2 };
	CHECK_INT(g->kernels(&router, rs, names, TMPL_MAX_KERNELS), 2);
	CHECK_STR(names[1], "gemv_splitk_reduce<float>");
}

TEST(gemv_static_checks)
{
	const struct tmpl *g = tmpl_find("gemv");
	CHECK(g->check(&qkv, gemv_split2) == NULL);
	CHECK(g->check(&qkv, gemv_plain) == NULL);

	/* 8 warps * 32 * 8 unroll * 8 bf16 = 16384 does not divide 8192: the
	 * tail kernel takes it, as it takes a split of 3 and rows of 5 */
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	const long big_chunk[] = { 8, 1, 1, 8, 1, 0 };
	CHECK(g->check(&qkv, big_chunk) == NULL);
	CHECK_INT(g->kernels(&qkv, big_chunk, names, TMPL_MAX_KERNELS), 1);
	CHECK(!strncmp(names[0], "gemv_tail_kernel<", 17));
	/* fp32 weights: 4 per load, so the same layout fits the router whole */
	CHECK(g->check(&router, big_chunk) == NULL);
	CHECK_INT(g->kernels(&router, big_chunk, names, TMPL_MAX_KERNELS), 1);
	CHECK(!strncmp(names[0], "gemv_kernel<", 12));
	const long split3[] = { 4, 1, 1, 1, 3, 0 };
	CHECK(g->check(&qkv, split3) == NULL);
	CHECK_INT(g->kernels(&qkv, split3, names, TMPL_MAX_KERNELS), 2);
	CHECK(!strncmp(names[0], "gemv_tail_kernel<", 17));
	const long rows5[] = { 4, 5, 1, 1, 1, 0 };
	CHECK(g->check(&qkv, rows5) == NULL);
	/* K in whole 16-byte rows, and a chunk for every split */
	struct shape k12 = qkv;
	k12.k = 12;
	CHECK_STR(g->check(&k12, gemv_plain), "k not a multiple of 16 bytes of w");
	struct shape k16 = qkv;
	k16.k = 16;
	const long split4[] = { 1, 1, 1, 1, 4, 0 };
	CHECK_STR(g->check(&k16, split4), "split more than k's 16-byte chunks");

	struct shape fp32x = qkv;
	fp32x.x = DT_FP32;
	CHECK_STR(g->check(&fp32x, gemv_plain), "x must be bf16");

	/* 1024 threads leave 64 registers: 8 loads of 2 rows need 64 alone */
	const long fat[] = { 32, 2, 1, 8, 1, 0 };
	struct shape wide = qkv;
	wide.k = 65536;
	CHECK_STR(g->check(&wide, fat), "accumulators and loads do not fit in registers");
	const long many_acc[] = { 1, 16, 16, 1, 1, 0 };
	CHECK_STR(g->check(&qkv, many_acc), "accumulators and loads do not fit in registers");

	const long bad_cache[] = { 4, 1, 1, 1, 1, 5 };
	CHECK_STR(g->check(&qkv, bad_cache), "parameter out of range");
	const long bad_warps[] = { 0, 1, 1, 1, 1, 0 };
	CHECK_STR(g->check(&qkv, bad_warps), "parameter out of range");
}

static const enum arg_kind main_args[] = { ARG_W, ARG_X, ARG_Y, ARG_WS, ARG_M, ARG_N, ARG_K };

TEST(gemv_plan_without_split)
{
	const struct tmpl *g = tmpl_find("gemv");
	struct launch_plan pl;
	CHECK_INT(g->plan(&qkv, gemv_plain, 1, &pl), 0);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.nsteps, 1);
	const struct launch_step *st = &pl.steps[0];
	CHECK_INT(st->kind, STEP_KERNEL);
	CHECK_INT(st->kernel, 0);
	CHECK_INT(st->grid[0], 2304 / 2);
	CHECK_INT(st->grid[1], 1);
	CHECK_INT(st->grid[2], 1);
	CHECK_INT(st->block[0], 128);
	CHECK_INT(st->block[1], 1);
	CHECK_INT(st->block[2], 1);
	CHECK_INT(st->smem, 0);
	CHECK(arg_kinds_are(st, main_args, 7));
}

TEST(gemv_plan_with_split)
{
	const struct tmpl *g = tmpl_find("gemv");
	struct launch_plan pl;
	CHECK_INT(g->plan(&qkv, gemv_split2, 3, &pl), 0);
	CHECK_INT(pl.ws_bytes, 2 * 3 * 2304 * 4);
	CHECK_INT(pl.nsteps, 2);
	CHECK_INT(pl.steps[0].grid[0], 2304);
	CHECK_INT(pl.steps[0].grid[1], 2);
	CHECK_INT(pl.steps[0].block[0], 128);
	CHECK(arg_kinds_are(&pl.steps[0], main_args, 7));

	const struct launch_step *red = &pl.steps[1];
	static const enum arg_kind red_args[] = { ARG_WS, ARG_Y, ARG_INT, ARG_M, ARG_N };
	CHECK_INT(red->kind, STEP_KERNEL);
	CHECK_INT(red->kernel, 1);
	CHECK(arg_kinds_are(red, red_args, 5));
	CHECK_INT(red->args[2].value, 2);
	CHECK_INT(red->block[0], 256);
	CHECK_INT(red->grid[0], (3 * 2304 + 255) / 256);
	/* the reduce kernel's launch bound in the template is the same */
	CHECK_INT(define_in("templates/gemv.cuh", "GEMV_REDUCE_THREADS"), red->block[0]);
}

TEST(gemv_plan_refuses_bad_input)
{
	const struct tmpl *g = tmpl_find("gemv");
	struct launch_plan pl;
	CHECK_INT(g->plan(&qkv, gemv_plain, 0, &pl), -1);
	struct shape k12 = qkv;
	k12.k = 12;
	CHECK_INT(g->plan(&k12, gemv_plain, 1, &pl), -1);
	/* rows of 5 over N = 2304: the tail kernel's grid covers the last,
	 * partial block */
	const long rows5[] = { 4, 5, 1, 1, 1, 0 };
	CHECK_INT(g->plan(&qkv, rows5, 1, &pl), 0);
	CHECK_INT(pl.steps[0].grid[0], 461);
}

TEST(planted_adapter)
{
	const struct tmpl *p = tmpl_find("planted");
	CHECK_INT(p->nparams, 1);
	CHECK_STR(p->params[0].name, "mode");
	CHECK_STR(p->params[0].symbols[0], "ok");
	CHECK_STR(p->params[0].symbols[1], "fault");
	CHECK_STR(p->params[0].symbols[2], "hang");
	CHECK(p->params[0].symbols[3] == NULL);

	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	const long fault[] = { 1 }, ok[] = { 0 }, hang[] = { 2 }, bad[] = { 3 };
	CHECK_INT(p->kernels(&qkv, fault, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "planted_kernel<__nv_bfloat16, __nv_bfloat16, 1>");
	CHECK_INT(p->kernels(&router, hang, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "planted_kernel<float, float, 2>");
	CHECK(p->check(&qkv, ok) == NULL);
	CHECK_STR(p->check(&qkv, bad), "parameter out of range");

	struct launch_plan pl;
	CHECK_INT(p->plan(&qkv, ok, 5, &pl), 0);
	CHECK_INT(pl.nsteps, 1);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.steps[0].grid[0], 2304 / 128);
	CHECK_INT(pl.steps[0].grid[1], 5);
	CHECK_INT(pl.steps[0].block[0], 128);
	CHECK(arg_kinds_are(&pl.steps[0], main_args, 7));
	CHECK_INT(define_in("templates/planted.cuh", "PLANTED_THREADS"), pl.steps[0].block[0]);
	CHECK_INT(p->plan(&qkv, ok, 70000, &pl), 0);
	CHECK_INT(pl.steps[0].grid[1], 65535);
	CHECK_INT(p->plan(&qkv, hang, 5, &pl), 0);
	CHECK_INT(pl.steps[0].grid[0], 1);
	CHECK_INT(pl.steps[0].grid[1], 1);
	CHECK_INT(pl.steps[0].block[0], 32);
	CHECK_INT(p->plan(&qkv, ok, 0, &pl), -1);
}

TEST(hilo_adapter)
{
	const struct tmpl *t = tmpl_find("blas_hilo");
	struct launch_plan pl;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_INT(t->nparams, 0);
	const struct relayout r = tmpl_relayout(t, NULL), none = { RELAYOUT_NONE, 0, 0 };
	CHECK_INT(r.kind, RELAYOUT_HILO);
	CHECK(t->source == NULL);
	/* the router's dtypes only */
	CHECK(t->check(&router, NULL) == NULL);
	CHECK_STR(t->check(&qkv, NULL), "hi/lo needs fp32 w, bf16 x, fp32 y");
	CHECK_INT(t->kernels(&router, NULL, names, TMPL_MAX_KERNELS), 0);
	/* two GEMMs: hi overwrites Y, lo (N*K elements further) adds to it */
	CHECK_INT(t->plan(&router, NULL, 33, &pl), 0);
	CHECK_INT(pl.nsteps, 2);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.steps[0].kind, STEP_GEMM_BF16);
	CHECK_INT(pl.steps[0].w_offset, 0);
	CHECK_INT(pl.steps[0].beta, 0);
	CHECK_INT(pl.steps[1].kind, STEP_GEMM_BF16);
	CHECK_INT(pl.steps[1].w_offset, (long long)router.n * router.k);
	CHECK_INT(pl.steps[1].beta, 1);
	CHECK_INT(t->plan(&router, NULL, 0, &pl), -1);
	/* the prepared weight holds both halves: as many bytes as fp32 W */
	CHECK_INT(relayout_bytes(&r, &router), (long long)router.n * router.k * 4);
	CHECK_INT(relayout_bytes(&none, &router), 0);
	/* gemv reads W as given */
	CHECK_INT(tmpl_relayout(tmpl_find("gemv"), NULL).kind, RELAYOUT_NONE);
}

/* blas_lt: an orientation and a cuBLASLt algorithm's attributes, one
 * STEP_LT carrying them all, in the baseline's 32 MiB workspace. */
TEST(lt_adapter)
{
	const struct tmpl *t = tmpl_find("blas_lt");
	struct launch_plan pl;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX], key[256];
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(t->source == NULL);
	CHECK_INT(t->nparams, STEP_LT_VALUES);
	static const char *const order[] = { "orient", "algo", "tile", "stages", "splitk",
					     "reduction", "swizzle", "custom", "inner", "cluster" };
	for (int i = 0; i < STEP_LT_VALUES && i < t->nparams; i++)
		CHECK_STR(t->params[i].name, order[i]);
	/* run 49's cuBLASLt choice for qkv at M = 32, in the row orientation */
	const long p[] = { 1, 66, 13, 35, 3, 2, 0, 1, 0, 0 };
	const struct candidate c = { t, { 1, 66, 13, 35, 3, 2, 0, 1, 0, 0 } };
	CHECK_STR(candidate_key(&c, key, sizeof(key)),
		  "orient=row,algo=66,tile=13,stages=35,splitk=3,reduction=2,swizzle=0,"
		  "custom=1,inner=0,cluster=0");
	CHECK(t->check(&qkv, p) == NULL);
	CHECK_STR(t->check(&router, p), "w, x and y must be bf16");
	const long bad_orient[] = { 3, 66, 13, 35, 3, 2, 0, 1, 0, 0 };
	CHECK_STR(t->check(&qkv, bad_orient), "parameter out of range");
	const long bad_inner[] = { 0, 66, 13, 35, 3, 2, 0, 1, 65536, 0 };
	CHECK_STR(t->check(&qkv, bad_inner), "parameter out of range");
	CHECK_INT(t->kernels(&qkv, p, names, TMPL_MAX_KERNELS), 0);
	CHECK_INT(tmpl_relayout(t, p).kind, RELAYOUT_NONE);
	/* orientation n multiplies by W^T, prepared once: as many bytes as W */
	const long pn[] = { 2, 66, 13, 35, 3, 2, 0, 1, 0, 0 };
	const struct relayout tr = tmpl_relayout(t, pn);
	CHECK_INT(tr.kind, RELAYOUT_TRANSPOSE);
	CHECK_INT(relayout_bytes(&tr, &qkv), (long long)qkv.n * qkv.k * 2);
	CHECK(t->check(&qkv, pn) == NULL);
	CHECK_INT(t->plan(&qkv, p, 31, &pl), 0);
	CHECK_INT(pl.nsteps, 1);
	CHECK_INT(pl.ws_bytes, 32L << 20);
	CHECK_INT(pl.steps[0].kind, STEP_LT);
	CHECK_INT(pl.steps[0].pdl, 0);
	for (int i = 0; i < STEP_LT_VALUES; i++)
		CHECK_INT(pl.steps[0].lt[i], p[i]);
	CHECK_INT(t->plan(&qkv, p, 0, &pl), -1);
	CHECK_INT(t->plan(&router, p, 8, &pl), -1);
}

/* The worker's lt_algos reply, read strictly: a record one value short,
 * a trailing comma or stray text is refused, not padded with zeros. */
TEST(lt_attrs_read_strictly)
{
	long v[3];
	const char *text = "1,2,3;40,50,60", *p = text;
	CHECK_INT(lt_attrs_read(&p, v, 3), 0);
	CHECK_INT(v[0], 1);
	CHECK_INT(v[2], 3);
	CHECK_INT(lt_attrs_read(&p, v, 3), 0);
	CHECK_INT(v[1], 50);
	CHECK_INT(*p, '\0');
	static const char *const bad[] = { "1,2", "1,2,", "1,2,3,", "1,2;3", "1,x,3", "1,2,3x",
					   "", "99999999999999999999,1,2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = bad[i];
		CHECK_INT(lt_attrs_read(&p, v, 3), -1);
		CHECK(p == bad[i]);
	}
}

/* plan_step_params: the launch parameter array both launchers (tuner and
 * runtime) build from a step's argument kinds. */
TEST(step_params_resolve_every_kind)
{
	int w, prep, x, y, ws;
	unsigned sync;
	struct launch_step st = { .kind = STEP_KERNEL, .nargs = 10 };
	static const enum arg_kind kinds[] = { ARG_W, ARG_PREP, ARG_X, ARG_Y, ARG_WS, ARG_SYNC,
					       ARG_M, ARG_N, ARG_K, ARG_INT };
	for (int i = 0; i < 10; i++)
		st.args[i].kind = kinds[i];
	st.args[9].value = -7;
	const struct step_operands o = { .w = &w, .prep = &prep, .x = &x, .y = &y, .ws = &ws,
					 .sync = &sync, .m = 33, .n = 2304, .k = 8192 };
	void *ptr[PLAN_MAX_ARGS], *params[PLAN_MAX_ARGS];
	int val[PLAN_MAX_ARGS];
	CHECK_INT(plan_step_params(&st, &o, ptr, val, params), 0);
	const void *want[] = { &w, &prep, &x, &y, &ws, &sync };
	for (int i = 0; i < 6; i++) {
		CHECK(params[i] == &ptr[i]);
		CHECK(*(void **)params[i] == want[i]);
	}
	static const int ints[] = { 33, 2304, 8192, -7 };
	for (int i = 6; i < 10; i++) {
		CHECK(params[i] == &val[i]);
		CHECK_INT(*(int *)params[i], ints[i - 6]);
	}
	/* a kernel that takes the prepared weight when there is none */
	struct step_operands none = o;
	none.prep = NULL;
	CHECK_INT(plan_step_params(&st, &none, ptr, val, params), -1);
	st.args[1].kind = ARG_X;
	CHECK_INT(plan_step_params(&st, &none, ptr, val, params), 0);
}

/* A GEMM step's matrix must lie inside the prepared weight: the hi/lo
 * weight of 4 x 8 holds two 4 x 8 bf16 matrices (128 bytes). */
TEST(gemm_step_bounds)
{
	struct launch_step st = { .kind = STEP_GEMM_BF16 };
	CHECK_INT(plan_gemm_fits(&st, 4, 8, 128), 1);
	st.w_offset = 32;               /* the lo half: ends at byte 128 */
	CHECK_INT(plan_gemm_fits(&st, 4, 8, 128), 1);
	CHECK_INT(plan_gemm_fits(&st, 4, 8, 127), 0);
	st.w_offset = 33;
	CHECK_INT(plan_gemm_fits(&st, 4, 8, 128), 0);
	st.w_offset = 0;
	CHECK_INT(plan_gemm_fits(&st, 4, 8, 0), 0);     /* no prepared weight */
}

TESTS(T(registry_lists_and_finds_templates), T(gemv_parameters_in_order), T(lt_adapter), T(lt_attrs_read_strictly),
      T(gemv_candidate_key), T(gemv_kernel_names), T(gemv_static_checks),
      T(gemv_plan_without_split), T(gemv_plan_with_split), T(gemv_plan_refuses_bad_input),
      T(planted_adapter), T(hilo_adapter), T(step_params_resolve_every_kind),
      T(gemm_step_bounds))
