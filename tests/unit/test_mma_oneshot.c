/*
 * test_mma_oneshot.c: the mma_oneshot adapter (tuner/tmpl_mma_oneshot.c)
 * and its template: parameters, static checks, the NVRTC name, the launch
 * plan (one kernel, no workspace, the shared memory the template checks),
 * plans refused past the token count, and every instantiation the default
 * space can ask for compiled by NVRTC for sm_90a without local memory.
 * Run from the repository root.
 */
#include "check.h"
#include "jit_test.h"
#include "workload.h"

enum { ROWS, TOKENS, WARPS, GROUPS, NP };

static const struct shape slice = {
	.family = "unpooler_slice", .n = 1024, .k = 4096, .w = DT_BF16, .x = DT_BF16,
	.y = DT_BF16, .tol = 1e-2,
};

static const struct tmpl *oneshot(void)
{
	const struct tmpl *t = tmpl_find("mma_oneshot");
	if (!t)
		die("mma_oneshot is not registered");
	return t;
}

TEST(registered_with_parameters_in_order)
{
	const struct tmpl *t = oneshot();
	CHECK_STR(t->source, "templates/mma_oneshot.cuh");
	CHECK(t->relayout == NULL);
	static const char *const names[] = { "rows", "tokens", "warps", "groups" };
	CHECK_INT(t->nparams, NP);
	for (int i = 0; i < NP && i < t->nparams; i++) {
		CHECK_STR(t->params[i].name, names[i]);
		CHECK(t->params[i].symbols == NULL);
	}
}

TEST(static_checks)
{
	const struct tmpl *t = oneshot();
	const long ok[NP] = { 8, 8, 8, 4 };
	CHECK(t->check(&slice, ok) == NULL);
	const long rows12[NP] = { 12, 8, 8, 4 };
	CHECK_STR(t->check(&slice, rows12), "rows must be 8 or 16");
	const long tok12[NP] = { 8, 12, 8, 4 };
	CHECK_STR(t->check(&slice, tok12), "tokens must be 8 or 16");
	const long w6[NP] = { 8, 8, 6, 4 };
	CHECK_STR(t->check(&slice, w6), "warps must be 4, 8 or 16");
	const long g3[NP] = { 8, 8, 8, 3 };
	CHECK_STR(t->check(&slice, g3), "groups must be 1, 2, 4 or 8");
	/* qkv's K of 8192: 16 rows of 16 KiB do not fit */
	CHECK_STR(t->check(&qkv, ok), "shared memory exceeds 227 KiB");
	CHECK_STR(t->check(&router, ok), "mma_oneshot needs bf16 w, x and y");
	struct shape odd = slice;
	odd.n = 1020;
	CHECK_STR(t->check(&odd, ok), "n not a multiple of rows");
	odd = slice;
	odd.k = 4096 + 256;     /* not a multiple of 16 warps x 8 groups x 32 */
	const long big[NP] = { 8, 8, 16, 8 };
	CHECK_STR(t->check(&odd, big), "k not a multiple of warps*groups*32");
	CHECK(t->check(&slice, big) == NULL);
}

TEST(plan_is_one_kernel)
{
	const struct tmpl *t = oneshot();
	const long p[NP] = { 8, 8, 8, 4 };
	char kn[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK_INT(t->kernels(&slice, p, kn, TMPL_MAX_KERNELS), 1);
	CHECK_STR(kn[0], "mma_oneshot_kernel<8, 8, 8, 4>");
	struct launch_plan pl;
	CHECK_INT(t->plan(&slice, p, 8, &pl), 0);
	CHECK_INT(pl.nsteps, 1);
	CHECK_INT(pl.ws_bytes, 0);
	const struct launch_step *st = &pl.steps[0];
	CHECK_INT(st->kind, STEP_KERNEL);
	CHECK_INT(st->pdl, 0);
	CHECK_INT(st->grid[0], 1024 / 8);
	CHECK_INT(st->grid[1], 1);
	CHECK_INT(st->block[0], 8 * 32);
	/* 8 weight rows and 8 token rows of 4096 bf16 */
	CHECK_INT(st->smem, (8 + 8) * 4096 * 2);
	static const enum arg_kind args[] = { ARG_W, ARG_X, ARG_Y, ARG_M, ARG_N, ARG_K };
	CHECK(arg_kinds_are(st, args, 6));
	/* any M up to the tokens, none past them */
	CHECK_INT(t->plan(&slice, p, 1, &pl), 0);
	CHECK_INT(t->plan(&slice, p, 9, &pl), -1);
	CHECK_INT(t->plan(&slice, p, 0, &pl), -1);
	const long p16[NP] = { 8, 16, 4, 1 };
	CHECK_INT(t->plan(&slice, p16, 16, &pl), 0);
	CHECK_INT(pl.steps[0].smem, (8 + 16) * 4096 * 2);
	CHECK_INT(t->plan(&slice, p16, 17, &pl), -1);
	/* 16 rows and 16 tokens of 4096 do not fit (256 KiB) */
	const long big[NP] = { 16, 16, 4, 1 };
	CHECK_STR(t->check(&slice, big), "shared memory exceeds 227 KiB");
}

/* Every legal point of the parameter grid for the slice (all but 16 rows
 * with 16 tokens: 36) compiles without
 * local memory; its static shared memory is the reduction tile the
 * adapter counts (warps x tokens x rows floats). */
TEST(nvrtc_compiles_every_instantiation_without_spills)
{
	struct jit_options o = jit_test_options("oneshot", 4);
	const struct tmpl *t = oneshot();
	static const long rows[] = { 8, 16 }, toks[] = { 8, 16 }, warps[] = { 4, 8, 16 },
			  groups[] = { 1, 2, 4, 8 };
	struct jit_item items[48];
	long want_smem[48];
	int n = 0;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 3; c++)
				for (int d = 0; d < 4; d++) {
					const long p[NP] = { rows[a], toks[b], warps[c], groups[d] };
					if (t->check(&slice, p))
						continue;
					want_smem[n] = warps[c] * toks[b] * rows[a] * 4;
					n = add_candidate(items, n, t->stem, &slice, p);
				}
	CHECK_INT(n, 36);
	CHECK_INT(jit_compile_all(&o, items, n, NULL, NULL), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(items[i].ok, 1);
		if (!items[i].ok)
			fprintf(stderr, "  %s: %s\n", items[i].name, items[i].error);
		CHECK(items[i].regs > 0 && items[i].regs <= 255);
		CHECK_INT(items[i].local_bytes, 0);
		CHECK_INT(items[i].smem_bytes, want_smem[i]);
		printf("# %-40s regs %3d local %d\n", items[i].name, items[i].regs,
		       items[i].local_bytes);
	}
	remove_cache();
}

TESTS(T(registered_with_parameters_in_order), T(static_checks), T(plan_is_one_kernel),
      T(nvrtc_compiles_every_instantiation_without_spills))
