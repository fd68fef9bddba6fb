/*
 * test_mma_frag.c: the mma_frag adapter (plan/tmpl_mma_frag.c) and its
 * template: parameters and their symbols against the #defines of
 * templates/mma_frag.cuh, static checks (each reason at a point that
 * fails only it, and the limits at their edges), the NVRTC name
 * expression, the launch plan, the packed-weight relayout, plan
 * invariants over every parameter point at every family of docs/workload.md,
 * the GPU test space tests/spaces/gpu_frag.yaml (135 runs, none pruned)
 * and the h200 space's grid, and instantiations compiled by NVRTC for
 * sm_90a without local memory. Run from the repository root (the #define
 * checks and the spaces read files from disk).
 */
#include "check.h"
#include "jit_test.h"
#include "workload.h"
#include "space.h"

enum { WARPS, NT, TOK, U, CACHE, KFIX, NP };
enum { NC_NA, EVICT_FIRST };

/* The bf16 families of docs/workload.md beside workload.h's qkv and oproj. */
static const struct shape pooler = {
	.family = "pooler", .n = 4096, .k = 8192, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16,
	.tol = 1e-2,
};
static const struct shape unpooler = {
	.family = "unpooler", .n = 8192, .k = 4096, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16,
	.tol = 1e-2,
};
static const struct shape slice = {
	.family = "unpooler_slice", .n = 1024, .k = 4096, .w = DT_BF16, .x = DT_BF16,
	.y = DT_BF16, .tol = 1e-2,
};

/* A shape with no columns: refused before any division by k. */
static const struct shape empty = {
	.family = "empty", .n = 1024, .k = 0, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16,
	.tol = 1e-2,
};

/* warps, nt, tok, u, cache, kfix: 16 warps over the slice's 4096 k, each
 * in two batches of 4 chunks counted at run time, 64 blocks of 16 rows
 * (an initializer of 5 leaves kfix 0) */
static const long legal[NP] = { 16, 2, 8, 4, NC_NA, 0 };

static const enum arg_kind frag_args[] = { ARG_PREP, ARG_X, ARG_Y, ARG_M, ARG_N, ARG_K };

static const struct tmpl *frag(void)
{
	const struct tmpl *t = tmpl_find("mma_frag");
	if (!t)
		die("mma_frag is not registered");
	return t;
}

/* The static shared memory the kernel declares: red[WARPS][TOK][LD]
 * floats, LD = 8 NT padded to 8 (mod 32) (mma_frag_ld). */
static long sums_bytes(const long *p)
{
	const long rows = 8 * p[NT];
	return p[WARPS] * p[TOK] * (rows + (40 - rows % 32) % 32) * 4;
}

TEST(registered_with_parameters_in_order)
{
	const struct tmpl *t = frag();
	CHECK_STR(t->stem, "mma_frag");
	CHECK_STR(t->source, "templates/mma_frag.cuh");
	CHECK_STR(t->adapter, "plan/tmpl_mma_frag.c");
	int seen = 0;
	for (int i = 0; tmpl_all[i]; i++)
		seen += tmpl_all[i] == t;
	CHECK_INT(seen, 1);

	static const char *const names[] = { "warps", "nt", "tok", "u", "cache", "kfix" };
	static const long lo[] = { 1, 1, 8, 1, 0, 0 };
	static const long hi[] = { 32, 8, 16, 16, 1, 1 };
	CHECK_INT(t->nparams, NP);
	for (int i = 0; i < NP && i < t->nparams; i++) {
		CHECK_STR(t->params[i].name, names[i]);
		CHECK_INT(tmpl_param_index(t, names[i]), i);
		CHECK_INT(t->params[i].min, lo[i]);
		CHECK_INT(t->params[i].max, hi[i]);
		CHECK((t->params[i].symbols != NULL) == (i == CACHE));
	}
	const char *const *cache = t->params[CACHE].symbols;
	if (!cache)
		return;
	CHECK_STR(cache[0], "nc_na");
	CHECK_STR(cache[1], "evict_first");
	CHECK(cache[2] == NULL);
	/* the symbol index is the template argument */
	static const char *const file = "templates/mma_frag.cuh";
	CHECK_INT(define_in(file, "MMA_FRAG_CACHE_NA"), NC_NA);
	CHECK_INT(define_in(file, "MMA_FRAG_CACHE_EF"), EVICT_FIRST);

	struct candidate c = { .tmpl = t };
	memcpy(c.params, legal, sizeof(legal));
	c.params[CACHE] = EVICT_FIRST;
	char buf[96];
	CHECK_STR(candidate_key(&c, buf, sizeof(buf)),
		  "warps=16,nt=2,tok=8,u=4,cache=evict_first,kfix=0");
}

TEST(static_checks)
{
	const struct tmpl *t = frag();
	CHECK(t->check(&slice, legal) == NULL);
	CHECK_STR(t->check(&router, legal), "w, x and y must be bf16");
	struct shape fp32y = slice;
	fp32y.y = DT_FP32;
	CHECK_STR(t->check(&fp32y, legal), "w, x and y must be bf16");

	struct { const struct shape *s; long p[NP]; const char *why; } cases[] = {
		{ &slice, { 0, 2, 8, 4, 0 }, "parameter out of range" },
		{ &slice, { 33, 2, 8, 4, 0 }, "parameter out of range" },
		{ &slice, { 16, 0, 8, 4, 0 }, "parameter out of range" },
		{ &slice, { 16, 9, 8, 4, 0 }, "parameter out of range" },
		{ &slice, { 16, 2, 7, 4, 0 }, "parameter out of range" },
		{ &slice, { 16, 2, 17, 4, 0 }, "parameter out of range" },
		{ &slice, { 16, 2, 8, 0, 0 }, "parameter out of range" },
		{ &slice, { 16, 2, 8, 17, 0 }, "parameter out of range" },
		{ &slice, { 16, 2, 8, 4, 2 }, "parameter out of range" },
		{ &slice, { 16, 2, 8, 4, -1 }, "parameter out of range" },
		{ &slice, { 16, 2, 8, 4, 0, 2 }, "parameter out of range" },
		{ &slice, { 16, 2, 8, 4, 0, -1 }, "parameter out of range" },
		/* kfix: 4096 k over 2 warps are 64 chunks each, over 1 warp 128 */
		{ &slice, { 2, 2, 8, 4, 0, 1 }, NULL },
		{ &slice, { 1, 2, 8, 4, 0, 1 }, "kfix: more than 64 chunks of 32 k a warp" },
		{ &slice, { 1, 2, 8, 4, 0, 0 }, NULL },
		{ &slice, { 16, 2, 12, 4, 0 }, "tok must be 8 or 16" },
		{ &slice, { 16, 2, 16, 4, EVICT_FIRST }, NULL },
		/* 1024 rows are not whole blocks of 24 */
		{ &slice, { 16, 3, 8, 4, 0 }, "n not a multiple of 8*nt" },
		{ &qkv, { 16, 3, 8, 4, 0 }, NULL },     /* 2304 = 96 x 24 */
		/* 32 x 16 x 8 = 4096 k per batch: the slice has one, qkv two */
		{ &slice, { 16, 2, 8, 8, 0 }, NULL },
		{ &slice, { 16, 2, 8, 16, 0 }, "k not a multiple of 32*warps*u" },
		{ &oproj, { 16, 2, 8, 4, 0 }, "k not a multiple of 32*warps*u" },
		{ &slice, { 32, 4, 8, 8, 0 }, "k not a multiple of 32*warps*u" },
		/* 1024 threads leave 64 registers a thread: 8 chunks of 4 weight
		 * groups and a token group in flight are 160 */
		{ &qkv, { 32, 4, 8, 8, 0 }, "loads and accumulators do not fit in registers" },
		/* 512 threads leave 128: 4 x 8 x 3 loads + 8 accumulators + 24 is
		 * exactly that; with 16 tokens, 32 loads more */
		{ &qkv, { 16, 2, 8, 8, 0 }, NULL },
		{ &qkv, { 16, 2, 16, 8, 0 }, "loads and accumulators do not fit in registers" },
		/* 4 groups: 4 x 4 x 2 + 16 + 24 = 120 with 8 tokens; 136 with 16 */
		{ &slice, { 16, 4, 8, 4, 0 }, NULL },
		{ &slice, { 16, 4, 16, 4, 0 }, "loads and accumulators do not fit in registers" },
		/* the warps' sums: 32 x 16 tokens x 40 floats (32 rows padded) x 4
		 * bytes = 80 KiB; the registers fit (4 x 6 + 16 + 24 = 64), 8
		 * tokens (40 KiB) pass */
		{ &slice, { 32, 4, 16, 1, 0 }, "the warps' sums exceed 48 KiB of shared memory" },
		{ &slice, { 32, 4, 8, 1, 0 }, NULL },
		{ &slice, { 16, 8, 16, 1, 0 }, "the warps' sums exceed 48 KiB of shared memory" },
		/* 24 rows pad to 40 floats as 32 do: 16 tokens refused, 8 pass */
		{ &qkv, { 32, 3, 16, 1, 0 }, "the warps' sums exceed 48 KiB of shared memory" },
		{ &qkv, { 32, 3, 8, 1, 0 }, NULL },
		/* an empty shape */
		{ &empty, { 16, 2, 8, 4, 0 }, "n and k must be positive" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *why = t->check(cases[i].s, cases[i].p);
		if (cases[i].why)
			CHECK_STR(why, cases[i].why);
		else
			CHECK(why == NULL);
		if (!cases[i].why != !why)
			fprintf(stderr, "  case %zu: %s\n", i, why ? why : "(accepted)");
	}
	/* one block a row group: more than 65535 groups do not launch */
	struct shape tall = slice;
	tall.n = 8 * 65536;
	const long nt1[NP] = { 16, 1, 8, 4, 0 };
	CHECK_STR(t->check(&tall, nt1), "n/(8*nt) exceeds the grid");
	CHECK(t->check(&tall, legal) == NULL);  /* 32768 groups of 16 rows */
}

TEST(kernel_name)
{
	const struct tmpl *t = frag();
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK_INT(t->kernels(&slice, legal, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "mma_frag_kernel<16, 2, 8, 4, 0, 0>");
	const long ef[NP] = { 8, 1, 16, 4, EVICT_FIRST };
	CHECK_INT(t->kernels(&slice, ef, names, 1), 1);
	CHECK_STR(names[0], "mma_frag_kernel<8, 1, 16, 4, 1, 0>");
	/* kfix: the shape's chunks of a warp, k / (32 warps), as KC */
	const long fixed[NP] = { 16, 2, 8, 4, NC_NA, 1 };
	CHECK_INT(t->kernels(&slice, fixed, names, 1), 1);
	CHECK_STR(names[0], "mma_frag_kernel<16, 2, 8, 4, 0, 8>");
	CHECK_INT(t->kernels(&qkv, fixed, names, 1), 1);
	CHECK_STR(names[0], "mma_frag_kernel<16, 2, 8, 4, 0, 16>");
	CHECK_INT(t->kernels(&slice, legal, names, 0), -1);
}

TEST(plan_one_kernel_per_token_tile)
{
	const struct tmpl *t = frag();
	static const struct { long tok; int m; unsigned gx; } cases[] = {
		{ 8, 1, 1 }, { 8, 8, 1 }, { 8, 9, 2 }, { 8, 17, 3 },
		{ 16, 1, 1 }, { 16, 8, 1 }, { 16, 9, 1 }, { 16, 17, 2 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		long p[NP];
		memcpy(p, legal, sizeof(p));
		p[TOK] = cases[i].tok;
		CHECK(t->check(&slice, p) == NULL);
		struct launch_plan pl;
		memset(&pl, 0xff, sizeof(pl));         /* the plan must set everything */
		CHECK_INT(t->plan(&slice, p, cases[i].m, &pl), 0);
		CHECK_INT(pl.ws_bytes, 0);
		CHECK_INT(pl.sync_bytes, 0);
		CHECK_INT(pl.nsteps, 1);
		const struct launch_step *st = &pl.steps[0];
		CHECK_INT(st->kind, STEP_KERNEL);
		CHECK_INT(st->kernel, 0);
		CHECK_INT(st->grid[0], cases[i].gx);
		CHECK_INT(st->grid[1], 1024 / 16);
		CHECK_INT(st->grid[2], 1);
		CHECK_INT(st->block[0], 16 * 32);
		CHECK_INT(st->block[1], 1);
		CHECK_INT(st->block[2], 1);
		CHECK_INT(st->smem, 0);
		CHECK_INT(st->pdl, 0);
		CHECK(arg_kinds_are(st, frag_args, 6));
		CHECK_INT(plan_pdl_misplaced(&pl), -1);
	}
	/* qkv's 2304 rows in blocks of 24, 4 warps */
	const long q[NP] = { 4, 3, 16, 2, EVICT_FIRST };
	struct launch_plan pl;
	CHECK_INT(t->plan(&qkv, q, 33, &pl), 0);
	CHECK_INT(pl.steps[0].grid[0], 3);
	CHECK_INT(pl.steps[0].grid[1], 96);
	CHECK_INT(pl.steps[0].block[0], 128);
}

TEST(plan_refuses_bad_input)
{
	const struct tmpl *t = frag();
	struct launch_plan pl;
	CHECK_INT(t->plan(&slice, legal, 0, &pl), -1);
	CHECK_INT(t->plan(&slice, legal, -1, &pl), -1);
	CHECK_INT(t->plan(&router, legal, 1, &pl), -1);
	const long tok12[NP] = { 16, 2, 12, 4, 0 }, nt3[NP] = { 16, 3, 8, 4, 0 };
	CHECK_INT(t->plan(&slice, tok12, 8, &pl), -1);
	CHECK_INT(t->plan(&slice, nt3, 8, &pl), -1);
	const long cache2[NP] = { 16, 2, 8, 4, 2 };
	CHECK_INT(t->plan(&slice, cache2, 8, &pl), -1);
	CHECK_INT(t->plan(&empty, legal, 8, &pl), -1);
}

/* Every candidate reads W packed in 8 x 32 tiles, as many bytes as W:
 * one prepared weight serves them all. */
TEST(relayout_is_tiles_of_8_by_32)
{
	const struct tmpl *t = frag();
	const long points[][NP] = {
		{ 16, 2, 8, 4, 0 }, { 8, 1, 16, 4, 1 }, { 4, 4, 8, 2, 1 }, { 32, 8, 16, 16, 0 },
		{ 1, 1, 8, 1, 0 },
	};
	const struct relayout first = tmpl_relayout(t, points[0]);
	for (size_t i = 0; i < ARRAY_SIZE(points); i++) {
		const struct relayout r = tmpl_relayout(t, points[i]);
		CHECK_INT(r.kind, RELAYOUT_TILES);
		CHECK_INT(r.rows, 8);
		CHECK_INT(r.cols, 32);
		CHECK(relayout_same(&r, &first));
		CHECK_INT(relayout_bytes(&r, &slice), (long long)slice.n * slice.k * 2);
	}
}

/* Every point of the adapter's ranges at every family: an illegal one
 * does not plan; a legal one plans at every M as the launch contract of
 * mma_frag.cuh needs: each row group of W in exactly one block, each
 * token in exactly one token tile, K in whole batches of every warp, the
 * warps' sums in static shared memory, and the tiles the packing makes. */
TEST(plan_invariants_over_the_grid)
{
	const struct tmpl *t = frag();
	const struct shape *shapes[] = { &qkv, &oproj, &pooler, &unpooler, &slice, &router };
	static const int ms[] = { 1, 2, 7, 8, 9, 16, 17, 33, 257 };
	long bad = 0, legal_at[ARRAY_SIZE(shapes)] = { 0 };
	for (size_t f = 0; f < ARRAY_SIZE(shapes); f++) {
		const struct shape *s = shapes[f];
		for (long warps = 1; warps <= 32; warps++)
		for (long nt = 1; nt <= 8; nt++)
		for (long tok = 8; tok <= 16; tok++)
		for (long u = 1; u <= 16; u++)
		for (long cache = 0; cache <= 1; cache++)
		for (long kfix = 0; kfix <= 1; kfix++) {
			const long p[NP] = { warps, nt, tok, u, cache, kfix };
			struct launch_plan pl;
			if (t->check(s, p)) {
				bad += t->plan(s, p, 8, &pl) != -1;
				continue;
			}
			legal_at[f]++;
			bad += tok != 8 && tok != 16;
			bad += s->n % (8 * nt) != 0;
			bad += s->k % (32 * warps * u) != 0;
			bad += sums_bytes(p) > 48 * 1024;
			/* kfix: the kernel's KC is the shape's chunks of a warp, whole
			 * batches of u, at most 64; without it 0 */
			char name[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
			long kc = -1;
			if (t->kernels(s, p, name, TMPL_MAX_KERNELS) != 1 ||
			    sscanf(name[0], "mma_frag_kernel<%*d, %*d, %*d, %*d, %*d, %ld>", &kc) != 1)
				bad++;
			else if (kfix)
				bad += kc * 32 * warps != s->k || kc % u != 0 || kc > 64;
			else
				bad += kc != 0;
			const struct relayout r = tmpl_relayout(t, p);
			bad += r.kind != RELAYOUT_TILES || s->n % r.rows || s->k % r.cols;
			for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
				const unsigned m = (unsigned)ms[i];
				if (t->plan(s, p, ms[i], &pl)) {
					bad++;
					continue;
				}
				const struct launch_step *st = &pl.steps[0];
				bad += pl.nsteps != 1 || st->kind != STEP_KERNEL || st->kernel != 0;
				bad += st->grid[1] * 8 * nt != (unsigned)s->n;
				bad += st->grid[1] > 65535;
				bad += st->grid[0] * tok < m || (st->grid[0] - 1) * tok >= m;
				bad += st->grid[2] != 1;
				bad += st->block[0] != warps * 32 || st->block[1] != 1 ||
				       st->block[2] != 1;
				bad += st->smem != 0 || st->pdl != 0;
				bad += pl.ws_bytes != 0 || pl.sync_bytes != 0;
				bad += !arg_kinds_are(st, frag_args, 6);
			}
		}
	}
	CHECK_INT(bad, 0);
	for (size_t f = 0; f < ARRAY_SIZE(shapes) - 1; f++) {
		CHECK(legal_at[f] > 100);
		if (legal_at[f] <= 100)
			fprintf(stderr, "  %s: %ld legal points\n", shapes[f]->family, legal_at[f]);
	}
	CHECK_INT(legal_at[ARRAY_SIZE(shapes) - 1], 0);       /* the router is fp32 */
}

struct coverage {
	long visited, pruned;
	long configs[4];        /* the space's four configurations, in its order */
	const char *first_reason;
};

/* The configuration of gpu_frag.yaml a candidate is, or -1. */
static int frag_config(const long *p)
{
	static const long configs[4][NP] = {
		{ 16, 2, 8, 8, NC_NA, 1 }, { 8, 1, 16, 4, EVICT_FIRST, 0 },
		{ 4, 4, 8, 2, EVICT_FIRST, 0 }, { 16, 3, 8, 4, NC_NA, 1 },
	};
	for (int i = 0; i < 4; i++)
		if (!memcmp(p, configs[i], sizeof(configs[i])))
			return i;
	return -1;
}

static void visit(void *ctx, const struct shape *s, int m, const struct candidate *c,
		  const char *reason)
{
	struct coverage *cov = ctx;
	(void)s;
	(void)m;
	cov->visited++;
	if (reason) {
		cov->pruned++;
		if (!cov->first_reason)
			cov->first_reason = reason;
		return;
	}
	const int i = frag_config(c->params);
	if (i >= 0)
		cov->configs[i]++;
}

/* gpu_frag.yaml: configuration A at 4 families (not oproj's 1024 k), B
 * and C at all 5, D at qkv only (the one n of 24-row blocks), at 9 Ms
 * each: 135 runs, every one the adapter accepts. */
TEST(gpu_test_space_runs_every_configuration)
{
	struct space sp;
	CHECK_INT(space_load("tests/spaces/gpu_frag.yaml", &sp), 0);
	if (sp.nshapes == 0)
		return;
	static const int want_ms[] = { 1, 2, 7, 8, 9, 15, 16, 17, 33 };
	CHECK_INT(sp.nshapes, 5);
	CHECK_INT(sp.ngrids, 1);
	if (sp.ngrids >= 1)
		CHECK(sp.grids[0].tmpl == frag());
	struct coverage cov = { 0 };
	for (int i = 0; i < sp.nshapes; i++) {
		const struct shape *s = &sp.shapes[i];
		CHECK_INT(s->n_ms, ARRAY_SIZE(want_ms));
		for (int j = 0; j < s->n_ms && j < (int)ARRAY_SIZE(want_ms); j++) {
			CHECK_INT(s->ms[j], want_ms[j]);
			space_enumerate(&sp, s, s->ms[j], visit, &cov);
		}
	}
	CHECK_INT(cov.visited, 135);
	CHECK_INT(cov.pruned, 0);
	if (cov.first_reason)
		fprintf(stderr, "  pruned: %s\n", cov.first_reason);
	CHECK_INT(cov.configs[0], 4 * 9);
	CHECK_INT(cov.configs[1], 5 * 9);
	CHECK_INT(cov.configs[2], 5 * 9);
	CHECK_INT(cov.configs[3], 1 * 9);
	space_free(&sp);
}

/* search_spaces/h200.yaml's mma_frag grid names every parameter (the
 * loader itself refuses a value outside the adapter's ranges) and keeps
 * candidates at every M where the table may use the template: the slice
 * at 1 .. 8, the pooler at 1 .. 16 (8 tokens up to 8, 16 above). */
TEST(h200_space_grid_in_range)
{
	struct space sp;
	CHECK_INT(space_load("search_spaces/h200.yaml", &sp), 0);
	const struct grid *g = NULL;
	for (int i = 0; i < sp.ngrids; i++)
		if (sp.grids[i].tmpl == frag())
			g = &sp.grids[i];
	CHECK(g != NULL);
	if (!g) {
		space_free(&sp);
		return;
	}
	const struct shape *want[] = { &slice, &pooler };
	const int last_m[] = { 8, 16 };
	for (size_t w = 0; w < ARRAY_SIZE(want); w++) {
		const struct shape *s = NULL;
		for (int i = 0; i < sp.nshapes; i++)
			if (!strcmp(sp.shapes[i].family, want[w]->family))
				s = &sp.shapes[i];
		CHECK(s != NULL);
		if (!s)
			continue;
		for (int m = 1; m <= last_m[w]; m++) {
			struct coverage cov = { 0 };
			space_enumerate(&sp, s, m, visit, &cov);
			if (cov.visited - cov.pruned <= 0)
				fprintf(stderr, "  %s at M = %d: no mma_frag candidate\n", s->family, m);
			CHECK(cov.visited - cov.pruned > 0);
		}
	}
	space_free(&sp);
}

/* Through the real NVRTC compile service: the slice's point (8 tokens,
 * nc_na), 16 tokens with evict_first, and the register model's edge (16
 * warps, 2 groups, 8 chunks in flight: exactly 128 by the adapter's
 * count) compile for sm_90a with no local memory (no spills) and the
 * static shared memory of the warps' sums the adapter's check bounds. A
 * tok the check refuses trips the template's static_assert. */
TEST(nvrtc_compiles_without_spills)
{
	struct jit_options o = jit_test_options("frag", 2);
	const long ef[NP] = { 8, 1, 16, 4, EVICT_FIRST };
	const long edge[NP] = { 16, 2, 8, 8, NC_NA };
	const long fixed[NP] = { 16, 2, 8, 4, NC_NA, 1 };
	const long *cands[] = { legal, ef, edge, fixed };
	const struct shape *shapes[] = { &slice, &slice, &qkv, &slice };
	struct jit_item items[ARRAY_SIZE(cands)];
	int n = 0;
	const struct tmpl *t = frag();
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		CHECK(t->check(shapes[i], cands[i]) == NULL);
		n = add_candidate(items, n, t->stem, shapes[i], cands[i]);
	}
	CHECK_INT(n, 4);
	CHECK_STR(items[1].name, "mma_frag_kernel<8, 1, 16, 4, 1, 0>");
	CHECK_STR(items[3].name, "mma_frag_kernel<16, 2, 8, 4, 0, 8>");
	CHECK_INT(jit_compile_all(&o, items, n, NULL, NULL), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(items[i].ok, 1);
		if (!items[i].ok)
			fprintf(stderr, "  %s: %s\n", items[i].name, items[i].error);
		CHECK(items[i].regs > 0 && items[i].regs <= 255);
		CHECK_INT(items[i].local_bytes, 0);
		CHECK_INT(items[i].smem_bytes, sums_bytes(cands[i]));
		printf("# %-40s regs %3d local %d smem %d\n", items[i].name, items[i].regs,
		       items[i].local_bytes, items[i].smem_bytes);
	}
	struct jit_item bad;
	add_item(&bad, 0, t->source, "mma_frag_kernel<16, 2, 12, 4, 0, 0>");
	CHECK_INT(jit_compile_all(&o, &bad, 1, NULL, NULL), 0);
	CHECK_INT(bad.ok, 0);
	CHECK(strstr(bad.error, "tok is 8 or 16") != NULL);
	remove_cache();
}

TESTS(T(registered_with_parameters_in_order), T(static_checks), T(kernel_name),
      T(plan_one_kernel_per_token_tile), T(plan_refuses_bad_input),
      T(relayout_is_tiles_of_8_by_32), T(plan_invariants_over_the_grid),
      T(gpu_test_space_runs_every_configuration), T(h200_space_grid_in_range),
      T(nvrtc_compiles_without_spills))
