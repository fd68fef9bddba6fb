/*
 * test_mma.c: the mma_skinny adapter (plan/tmpl_mma_skinny.c) and its template:
 * parameters, static checks, NVRTC name expressions and launch plans for
 * every combine mode; the plan's constants against the #defines of
 * templates/mma_skinny.cuh; plan invariants over every parameter point;
 * the GPU test space tests/spaces/gpu_mma.yaml (loads, covers every
 * combine mode at every shape and M, prunes nothing statically); and one
 * instantiation per combine mode compiled by NVRTC for sm_90a without local
 * memory. Run from the repository root (the #define checks read
 * templates/ from disk).
 */
#include "check.h"
#include "jit_test.h"
#include "workload.h"
#include "space.h"
#include "tmpl_mma.h"

enum { BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, COMBINE, LAYOUT, MMA, PDL, WK, NP };
enum { SYNC, WGMMA };
enum { ROWS, TILES };
enum { PARTIALS, ATOMIC, CLUSTER };

/* bm, bn, bk, warps, stages, split, cache, combine, layout (mma sync: 0) */
static const long direct[NP] = { 64, 16, 64, 4, 3, 1, 0, PARTIALS, ROWS, SYNC };
static const long partials[NP] = { 64, 8, 128, 4, 4, 4, 1, PARTIALS, ROWS, SYNC };
static const long atomic[NP] = { 32, 8, 64, 8, 4, 4, 0, ATOMIC, ROWS, SYNC };
static const long cluster[NP] = { 64, 16, 64, 4, 4, 4, 0, CLUSTER, ROWS, SYNC };

static const struct tmpl *mma(void)
{
	const struct tmpl *t = tmpl_find("mma_skinny");
	if (!t)
		die("mma_skinny is not registered");
	return t;
}

static const enum arg_kind main_args[] = { ARG_W, ARG_X, ARG_Y, ARG_WS, ARG_M, ARG_N, ARG_K };
static const enum arg_kind reduce_args[] = { ARG_WS, ARG_Y, ARG_INT, ARG_M, ARG_N };

TEST(registered_with_parameters_in_order)
{
	const struct tmpl *t = mma();
	CHECK_STR(t->stem, "mma_skinny");
	CHECK_STR(t->source, "templates/mma_skinny.cuh");
	int seen = 0;
	for (int i = 0; tmpl_all[i]; i++)
		seen += tmpl_all[i] == t;
	CHECK_INT(seen, 1);

	static const char *const names[] = { "bm", "bn", "bk", "warps", "stages", "split",
					     "cache", "combine", "layout", "mma", "pdl", "wk" };
	static const long lo[] = { 16, 8, 32, 2, 2, 1, 0, 0, 0, 0, 0, 0 };
	static const long hi[] = { 256, 256, 128, 16, 6, 16, 1, 2, 1, 1, 1, 8 };
	CHECK_INT(t->nparams, NP);
	for (int i = 0; i < NP && i < t->nparams; i++) {
		CHECK_STR(t->params[i].name, names[i]);
		CHECK_INT(tmpl_param_index(t, names[i]), i);
		CHECK_INT(t->params[i].min, lo[i]);
		CHECK_INT(t->params[i].max, hi[i]);
		CHECK((t->params[i].symbols != NULL) == (i >= CACHE && i <= MMA));
	}
	const char *const *cache = t->params[CACHE].symbols;
	const char *const *combine = t->params[COMBINE].symbols;
	CHECK_STR(cache[0], "cg");
	CHECK_STR(cache[1], "evict_first");
	CHECK(cache[2] == NULL);
	CHECK_STR(combine[0], "partials");
	CHECK_STR(combine[1], "atomic");
	CHECK_STR(combine[2], "cluster");
	CHECK(combine[3] == NULL);
	const char *const *layout = t->params[LAYOUT].symbols;
	CHECK_STR(layout[0], "rows");
	CHECK_STR(layout[1], "tiles");
	CHECK(layout[2] == NULL);
	const char *const *instr = t->params[MMA].symbols;
	CHECK_STR(instr[0], "sync");
	CHECK_STR(instr[1], "wgmma");
	CHECK(instr[2] == NULL);
	/* the symbol index is the template argument */
	static const char *const file = "templates/mma_skinny.cuh";
	CHECK_INT(define_in(file, "MMA_CACHE_CG"), 0);
	CHECK_INT(define_in(file, "MMA_CACHE_EVICT_FIRST"), 1);
	CHECK_INT(define_in(file, "MMA_COMBINE_PARTIALS"), PARTIALS);
	CHECK_INT(define_in(file, "MMA_COMBINE_ATOMIC"), ATOMIC);
	CHECK_INT(define_in(file, "MMA_COMBINE_CLUSTER"), CLUSTER);
	CHECK_INT(define_in(file, "MMA_LAYOUT_ROWS"), ROWS);
	CHECK_INT(define_in(file, "MMA_LAYOUT_TILES"), TILES);
	CHECK_INT(define_in(file, "MMA_SYNC"), SYNC);
	CHECK_INT(define_in(file, "MMA_WGMMA"), WGMMA);
	CHECK_INT(define_in(file, "MMA_WGMMA_ALIGN"), 1024);

	struct candidate c = { .tmpl = t };
	memcpy(c.params, atomic, sizeof(atomic));
	char buf[160];
	CHECK_STR(candidate_key(&c, buf, sizeof(buf)),
		  "bm=32,bn=8,bk=64,warps=8,stages=4,split=4,cache=cg,combine=atomic,layout=rows,mma=sync,"
		  "pdl=0,wk=0");
}

TEST(kernel_names_per_combine)
{
	const struct tmpl *t = mma();
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK_INT(t->kernels(&qkv, direct, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "mma_skinny_kernel<64, 16, 64, 4, 3, 1, 0, 0, 0, 0, 0>");
	CHECK_INT(t->kernels(&qkv, partials, names, TMPL_MAX_KERNELS), 2);
	CHECK_STR(names[0], "mma_skinny_kernel<64, 8, 128, 4, 4, 4, 1, 0, 0, 0, 0>");
	CHECK_STR(names[1], "mma_splitk_reduce");
	CHECK_INT(t->kernels(&qkv, atomic, names, TMPL_MAX_KERNELS), 2);
	CHECK_STR(names[0], "mma_skinny_kernel<32, 8, 64, 8, 4, 4, 0, 1, 0, 0, 0>");
	CHECK_STR(names[1], "mma_splitk_reduce");
	CHECK_INT(t->kernels(&qkv, cluster, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "mma_skinny_cluster_kernel<64, 16, 64, 4, 4, 4, 0, 0, 0, 0>");
	long wk2[NP];
	memcpy(wk2, cluster, sizeof(wk2));
	wk2[BN] = 32;
	wk2[WK] = 2;
	CHECK(t->check(&qkv, wk2) == NULL);
	CHECK_INT(t->kernels(&qkv, wk2, names, TMPL_MAX_KERNELS), 1);
	CHECK_STR(names[0], "mma_skinny_cluster_kernel<64, 32, 64, 4, 4, 4, 0, 0, 0, 2>");
	CHECK_INT(t->kernels(&qkv, atomic, names, 1), -1);
	CHECK_INT(t->kernels(&qkv, cluster, names, 1), 1);
}

TEST(warp_layouts)
{
	/* mma_warps_m/n/k of mma_skinny.cuh: rows first, then tokens; wk sets
	 * warps on K first */
	static const struct { struct mma_tile t; long wm, wn, wk; } cases[] = {
		{ { 64, 32, 64, 4, 4, 8, SYNC, 0 }, 4, 1, 1 },
		{ { 64, 32, 64, 4, 4, 8, SYNC, 2 }, 2, 1, 2 },
		{ { 64, 32, 64, 4, 4, 8, SYNC, 4 }, 1, 1, 4 },
		{ { 32, 8, 128, 4, 4, 8, SYNC, 0 }, 2, 1, 2 },
		{ { 128, 64, 64, 8, 4, 4, SYNC, 2 }, 4, 1, 2 },
		{ { 32, 64, 64, 8, 4, 4, SYNC, 2 }, 2, 2, 2 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		long wm, wn, wk;
		mma_warp_layout(&cases[i].t, &wm, &wn, &wk);
		CHECK_INT(wm, cases[i].wm);
		CHECK_INT(wn, cases[i].wn);
		CHECK_INT(wk, cases[i].wk);
	}
	/* the epilogue tile holds one [bn][bm + 4] FP32 slice per k warp */
	const struct mma_tile small = { 64, 32, 32, 4, 2, 8, SYNC, 0 };
	const struct mma_tile split = { 64, 32, 32, 4, 2, 8, SYNC, 4 };
	CHECK_INT(mma_tile_smem(&small), 2 * (64 + 32) * 32 * 2);
	CHECK_INT(mma_tile_smem(&split), 4 * 32 * (64 + 4) * 4);
}

TEST(static_checks)
{
	const struct tmpl *t = mma();
	CHECK(t->check(&qkv, direct) == NULL);
	CHECK(t->check(&qkv, partials) == NULL);
	CHECK(t->check(&qkv, atomic) == NULL);
	CHECK(t->check(&qkv, cluster) == NULL);
	CHECK_STR(t->check(&router, direct), "w, x and y must be bf16");
	struct shape fp32y = qkv;
	fp32y.y = DT_FP32;
	CHECK_STR(t->check(&fp32y, direct), "w, x and y must be bf16");

	struct { long p[NP]; const char *why; } bad[] = {
		{ { 64, 16, 64, 4, 3, 1, 2, 0 }, "parameter out of range" },
		{ { 64, 16, 64, 4, 7, 1, 0, 0 }, "parameter out of range" },
		{ { 64, 16, 64, 4, 3, 17, 0, 0 }, "parameter out of range" },
		{ { 64, 16, 64, 4, 3, 1, 0, 0, 2 }, "parameter out of range" },
		{ { 96, 16, 64, 4, 3, 1, 0, 0 }, "bm must be 32, 64 or 128" },
		{ { 16, 16, 64, 4, 3, 1, 0, 0 }, "bm must be 32, 64 or 128" },
		{ { 64, 24, 64, 4, 3, 1, 0, 0 }, "bn must be 8, 16, 32 or 64" },
		{ { 64, 16, 96, 4, 3, 1, 0, 0 }, "bk must be 32, 64 or 128" },
		{ { 64, 16, 64, 3, 3, 1, 0, 0 }, "warps must be 2, 4 or 8" },
		{ { 64, 16, 64, 4, 3, 1, 0, ATOMIC }, "split 1 takes combine partials" },
		{ { 64, 16, 64, 4, 3, 1, 0, CLUSTER }, "split 1 takes combine partials" },
		{ { 64, 16, 32, 4, 3, 16, 0, CLUSTER }, "a cluster holds at most 8 blocks" },
		{ { 64, 16, 64, 4, 3, 3, 0, 0 }, NULL },      /* 128 k tiles in 3 uneven shares */
		{ { 64, 16, 64, 4, 3, 7, 0, CLUSTER }, NULL },
		/* 32 rows x 8 tokens is 2 fragments: 8 warps split k 4 ways, bk 32 has 2 */
		{ { 32, 8, 32, 8, 3, 1, 0, 0 }, "more k-splitting warps than k16 steps in bk" },
		/* the largest per-warp tile: 2 warps of 64 rows x 64 tokens, 4 x 8
		 * fragments = 128 accumulators per thread, the most there can be */
		{ { 128, 64, 32, 2, 2, 1, 0, 0 }, NULL },
		/* 6 stages of (128 + 64) x 128 bf16 = 288 KiB */
		{ { 128, 64, 128, 4, 6, 1, 0, 0 }, "shared memory exceeds 227 KiB" },
		{ { 128, 64, 128, 4, 4, 1, 0, 0 }, NULL },       /* 192 KiB */
		/* wgmma: bk 64, bm 64 or 128 on 4 warps per 64 rows, bn up to 256 */
		{ { 64, 256, 64, 4, 3, 1, 0, 0, 0, WGMMA }, NULL },
		{ { 64, 128, 64, 4, 3, 1, 0, 0, 0, SYNC }, "bn must be 8, 16, 32 or 64" },
		{ { 64, 64, 128, 4, 3, 1, 0, 0, 0, WGMMA }, "wgmma takes bk 64" },
		{ { 32, 64, 64, 2, 3, 1, 0, 0, 0, WGMMA }, "wgmma takes bm 64 or 128" },
		{ { 128, 64, 64, 4, 3, 1, 0, 0, 0, WGMMA }, "wgmma takes 4 or 8 warps per 64 rows of bm" },
		{ { 128, 64, 64, 16, 3, 1, 0, 0, 0, WGMMA }, NULL },
		{ { 64, 8, 64, 8, 3, 1, 0, 0, 0, WGMMA }, "two warpgroups per 64 rows need bn >= 16" },
		{ { 64, 64, 64, 4, 2, 1, 0, 0, 0, WGMMA }, "wgmma takes 3 or more stages" },
		{ { 64, 64, 64, 16, 3, 1, 0, 0, 0, SYNC }, "warps must be 2, 4 or 8" },
		{ { 64, 96, 64, 4, 3, 1, 0, 0, 0, WGMMA }, "bn must be a power of two in [8, 256]" },
		/* 6 stages of (64 + 256) x 64 bf16 = 240 KiB, + 1 KiB to align */
		{ { 64, 256, 64, 4, 6, 1, 0, 0, 0, WGMMA }, "shared memory exceeds 227 KiB" },
		/* wk: warps on K first (mma.sync); qkv 32's tile takes 2 of 4 */
		{ { 64, 32, 64, 4, 4, 8, 0, CLUSTER, TILES, SYNC, 0, 2 }, NULL },
		{ { 64, 32, 64, 4, 4, 8, 0, CLUSTER, TILES, SYNC, 0, 4 }, NULL },
		{ { 64, 32, 64, 4, 4, 8, 0, CLUSTER, TILES, SYNC, 0, 3 },
		  "wk must be 0, or 2, 4 or 8 and at most warps" },
		{ { 64, 32, 64, 4, 4, 8, 0, CLUSTER, TILES, SYNC, 0, 8 },
		  "wk must be 0, or 2, 4 or 8 and at most warps" },
		{ { 64, 32, 64, 4, 3, 1, 0, 0, 0, WGMMA, 0, 2 }, "wgmma takes wk 0" },
		/* 32 x 8 on 4 warps already splits K 2 ways: wk 2 is that layout */
		{ { 32, 8, 128, 4, 4, 8, 0, CLUSTER, ROWS, SYNC, 0, 2 },
		  "wk is this tile's default layout: wk 0 runs it" },
		/* 32 x 8 on 8 warps with 2 on K: 2 x 1 rows x tokens hold only 4 */
		{ { 32, 8, 128, 8, 4, 8, 0, CLUSTER, ROWS, SYNC, 0, 2 },
		  "wk leaves warps the tile's rows and tokens cannot hold" },
		/* 4 warps on K need 4 k16 steps per stage: bk 32 has 2 */
		{ { 64, 32, 32, 4, 4, 8, 0, CLUSTER, TILES, SYNC, 0, 4 },
		  "more k-splitting warps than k16 steps in bk" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = t->check(&qkv, bad[i].p);
		if (bad[i].why)
			CHECK_STR(why, bad[i].why);
		else
			CHECK(why == NULL);
	}
	/* n = 2336 = 73 x 32 takes bm 32 only */
	struct shape odd = qkv;
	odd.n = 2336;   /* 73 x 32 */
	const long b64[NP] = { 64, 16, 64, 4, 3, 1, 0, 0 }, b32[NP] = { 32, 16, 64, 4, 3, 1, 0, 0 };
	CHECK_STR(t->check(&odd, b64), "n not a multiple of bm");
	CHECK(t->check(&odd, b32) == NULL);
	/* oproj's k = 1024 takes split 8 at bk 128, not split 16 */
	const long s8[NP] = { 64, 16, 128, 4, 3, 8, 0, CLUSTER }, s16[NP] = { 64, 16, 128, 4, 3, 16, 0, 1 };
	CHECK(t->check(&oproj, s8) == NULL);
	CHECK_STR(t->check(&oproj, s16), "fewer k tiles than splits");
	struct shape odd_k = qkv;
	odd_k.k = 8192 + 32;
	CHECK_STR(t->check(&odd_k, direct), "k not a multiple of bk");
}

TEST(plan_direct)
{
	const struct tmpl *t = mma();
	struct launch_plan pl;
	CHECK_INT(t->plan(&qkv, direct, 33, &pl), 0);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.nsteps, 1);
	const struct launch_step *st = &pl.steps[0];
	CHECK_INT(st->kind, STEP_KERNEL);
	CHECK_INT(st->kernel, 0);
	CHECK_INT(st->grid[0], 3);              /* ceil(33 / 16) token tiles */
	CHECK_INT(st->grid[1], 1);
	CHECK_INT(st->grid[2], 2304 / 64);
	CHECK_INT(st->block[0], 128);
	CHECK_INT(st->block[1], 1);
	CHECK_INT(st->block[2], 1);
	CHECK_INT(st->smem, 3 * (64 + 16) * 64 * 2);
	CHECK(arg_kinds_are(st, main_args, 7));
}

TEST(plan_partials)
{
	const struct tmpl *t = mma();
	struct launch_plan pl;
	CHECK_INT(t->plan(&qkv, partials, 5, &pl), 0);
	CHECK_INT(pl.ws_bytes, 4 * 5 * 2304 * 4);
	CHECK_INT(pl.nsteps, 2);
	CHECK_INT(pl.steps[0].kind, STEP_KERNEL);
	CHECK_INT(pl.steps[0].grid[0], 1);
	CHECK_INT(pl.steps[0].grid[1], 4);
	CHECK_INT(pl.steps[0].grid[2], 36);
	CHECK_INT(pl.steps[0].smem, 4 * (64 + 8) * 128 * 2);
	CHECK(arg_kinds_are(&pl.steps[0], main_args, 7));
	const struct launch_step *red = &pl.steps[1];
	CHECK_INT(red->kind, STEP_KERNEL);
	CHECK_INT(red->kernel, 1);
	CHECK(arg_kinds_are(red, reduce_args, 5));
	CHECK_INT(red->args[2].value, 4);
	CHECK_INT(red->block[0], 256);
	CHECK_INT(red->grid[0], (5 * 2304 / 4 + 255) / 256);
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_REDUCE_THREADS"), red->block[0]);
}

TEST(plan_atomic_zeroes_inside_the_call)
{
	const struct tmpl *t = mma();
	struct launch_plan pl;
	CHECK_INT(t->plan(&qkv, atomic, 9, &pl), 0);
	CHECK_INT(pl.ws_bytes, 9 * 2304 * 4);
	CHECK_INT(pl.nsteps, 3);
	CHECK_INT(pl.steps[0].kind, STEP_MEMSET_WS);
	CHECK_INT(pl.steps[0].bytes, pl.ws_bytes);
	const struct launch_step *st = &pl.steps[1];
	CHECK_INT(st->kind, STEP_KERNEL);
	CHECK_INT(st->kernel, 0);
	CHECK_INT(st->grid[0], 2);              /* ceil(9 / 8) */
	CHECK_INT(st->grid[1], 4);
	CHECK_INT(st->grid[2], 2304 / 32);
	CHECK_INT(st->block[0], 256);
	/* 8 warps on 32 x 8: 2 row warps x 4 K warps; the ring (20 KiB) is
	 * larger than the 4 epilogue partials (4 x 8 x 36 floats) */
	CHECK_INT(st->smem, 4 * (32 + 8) * 64 * 2);
	CHECK(arg_kinds_are(st, main_args, 7));
	const struct launch_step *cv = &pl.steps[2];
	CHECK_INT(cv->kernel, 1);
	CHECK(arg_kinds_are(cv, reduce_args, 5));
	CHECK_INT(cv->args[2].value, 1);        /* a convert: one FP32 sum */
	CHECK_INT(cv->grid[0], (9 * 2304 / 4 + 255) / 256);
}

TEST(plan_cluster_is_one_kernel)
{
	const struct tmpl *t = mma();
	struct launch_plan pl;
	CHECK_INT(t->plan(&oproj, cluster, 256, &pl), 0);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.nsteps, 1);
	const struct launch_step *st = &pl.steps[0];
	CHECK_INT(st->kernel, 0);
	CHECK_INT(st->grid[0], 16);
	CHECK_INT(st->grid[1], 4);              /* one cluster spans the splits */
	CHECK_INT(st->grid[2], 8192 / 64);
	/* the ring, then the receive slots: the 16 x 64 FP32 tile */
	CHECK_INT(st->smem, 4 * (64 + 16) * 64 * 2 + 16 * 64 * 4);
	/* slots round up to whole float4s per rank: 3 ranks over 8 x 32 / 4 = 64, 22 each */
	CHECK_INT(mma_cluster_recv_bytes(8, 32, 3), 3 * 22 * 16);
	/* a tile that fits alone but not with its slots: 128 x 256 wgmma on 3
	 * stages is 148,480 bytes, its slots 131,072 */
	long big[NP] = { 128, 256, 64, 8, 3, 2, 0, CLUSTER, ROWS, WGMMA, 0 };
	CHECK_STR(t->check(&oproj, big), "shared memory exceeds 227 KiB");
	big[COMBINE] = PARTIALS;
	CHECK(t->check(&oproj, big) == NULL);
	CHECK(arg_kinds_are(st, main_args, 7));
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_MAX_CLUSTER_NONPORTABLE"), 16);
}

TEST(plan_epilogue_larger_than_ring)
{
	/* 2 stages of (128 + 64) x 32 bf16 = 24 KiB < the epilogue tile
	 * 64 tokens x (128 + MMA_EPI_PAD) floats = 33 KiB */
	const struct tmpl *t = mma();
	const long p[NP] = { 128, 64, 32, 4, 2, 1, 0, 0 };
	struct launch_plan pl;
	long pad = define_in("templates/mma_skinny.cuh", "MMA_EPI_PAD");
	CHECK_INT(pad, 4);
	CHECK_INT(t->plan(&qkv, p, 64, &pl), 0);
	CHECK_INT(pl.steps[0].smem, 64 * (128 + pad) * 4);
	/* 8 warps on 32 x 8 x 128: 4 K warps, 4 x 8 x (32 + pad) floats < ring */
	const long q[NP] = { 32, 8, 128, 8, 2, 1, 0, 0 };
	CHECK_INT(t->plan(&qkv, q, 1, &pl), 0);
	CHECK_INT(pl.steps[0].smem, 2 * 40 * 128 * 2);
}

/* The tiles layout: the kernel reads the prepared weight (bm x bk tiles,
 * as many bytes as W); the rows layout reads W and prepares nothing. */
TEST(plan_tiles_reads_the_packed_weight)
{
	const struct tmpl *t = mma();
	static const enum arg_kind tiles_args[] = { ARG_PREP, ARG_X, ARG_Y, ARG_WS, ARG_M, ARG_N,
						    ARG_K };
	long p[NP];
	memcpy(p, partials, sizeof(p));
	p[LAYOUT] = TILES;
	struct launch_plan pl;
	CHECK(t->check(&qkv, p) == NULL);
	CHECK_INT(t->plan(&qkv, p, 5, &pl), 0);
	CHECK_INT(pl.nsteps, 2);
	CHECK(arg_kinds_are(&pl.steps[0], tiles_args, 7));
	CHECK(arg_kinds_are(&pl.steps[1], reduce_args, 5));
	struct relayout r = tmpl_relayout(t, p);
	CHECK_INT(r.kind, RELAYOUT_TILES);
	CHECK_INT(r.rows, 64);
	CHECK_INT(r.cols, 128);
	CHECK_INT(relayout_bytes(&r, &qkv), (long long)qkv.n * qkv.k * 2);
	r = tmpl_relayout(t, partials);
	CHECK_INT(r.kind, RELAYOUT_NONE);
	CHECK_INT(relayout_bytes(&r, &qkv), 0);
	/* two tiles layouts share a prepared weight only with the same tile */
	long q[NP];
	memcpy(q, p, sizeof(q));
	q[SPLIT] = 2;
	struct relayout a = tmpl_relayout(t, p), b = tmpl_relayout(t, q);
	CHECK(relayout_same(&a, &b));
	q[BK] = 64;
	b = tmpl_relayout(t, q);
	CHECK(!relayout_same(&a, &b));
}

/* mma_hilo: the router's hi/lo product in one kernel, over the 2N x K
 * hi/lo matrix with a block's rows paired (hi and lo of bm/2 outputs):
 * atomics after a zero-fill of the FP32 output, or a cluster that stores
 * it. */
TEST(hilo_adapter)
{
	const struct tmpl *t = tmpl_find("mma_hilo");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_STR(t->source, "templates/mma_skinny.cuh");
	static const char *const names[] = { "bm", "bn", "bk", "warps", "stages", "split", "cache",
					     "combine", "mma", "pdl" };
	CHECK_INT(t->nparams, 10);
	for (int i = 0; i < 10 && i < t->nparams; i++)
		CHECK_STR(t->params[i].name, names[i]);
	/* bm, bn, bk, warps, stages, split, cache, combine, mma, pdl */
	const long p[] = { 64, 16, 64, 4, 4, 8, 1, 0, SYNC, 0 };
	CHECK(t->check(&router, p) == NULL);
	CHECK_STR(t->check(&qkv, p), "hi/lo needs fp32 w, bf16 x, fp32 y");
	const long b96[] = { 96, 16, 64, 4, 4, 8, 1, 0, SYNC, 0 };
	const long s3[] = { 64, 16, 64, 4, 4, 3, 1, 0, SYNC, 0 };
	CHECK_STR(t->check(&router, b96), "bm must be 32, 64 or 128");
	CHECK(t->check(&router, s3) == NULL);  /* uneven k shares */
	struct shape odd_k = router;
	odd_k.k = 8192 + 32;
	CHECK_STR(t->check(&odd_k, s3), "k not a multiple of bk");
	struct shape odd = router;
	odd.n = 80;     /* 2n = 160 rows: 2.5 blocks of 64 (the fit check's 2n % bm
			 * tests the same; only the message tells them apart) */
	CHECK_STR(t->check(&odd, p), "n not a multiple of bm/2");
	odd.n = 96;     /* a multiple of 32: three blocks of 64 paired rows */
	CHECK(t->check(&odd, p) == NULL);

	char kn[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK_INT(t->kernels(&router, p, kn, TMPL_MAX_KERNELS), 1);
	CHECK_STR(kn[0], "mma_hilo_kernel<64, 16, 64, 4, 4, 8, 1, 0>");

	struct launch_plan pl;
	CHECK_INT(t->plan(&router, p, 33, &pl), 0);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.nsteps, 2);
	CHECK_INT(pl.steps[0].kind, STEP_MEMSET_Y);
	CHECK_INT(pl.steps[0].bytes, 33 * 256 * 4);
	const struct launch_step *st = &pl.steps[1];
	CHECK_INT(st->kind, STEP_KERNEL);
	CHECK_INT(st->grid[0], 3);              /* ceil(33 / 16) */
	CHECK_INT(st->grid[1], 8);
	CHECK_INT(st->grid[2], 2 * 256 / 64);   /* 32 outputs' hi and lo rows each */
	CHECK_INT(st->block[0], 128);
	CHECK_INT(st->smem, 4 * (64 + 16) * 64 * 2);
	static const enum arg_kind hilo_args[] = { ARG_PREP, ARG_X, ARG_Y, ARG_M, ARG_N, ARG_K };
	CHECK(arg_kinds_are(st, hilo_args, 6));
	CHECK_INT(t->plan(&router, p, 0, &pl), -1);
	const struct relayout r = tmpl_relayout(t, p);
	CHECK_INT(r.kind, RELAYOUT_HILO);
	CHECK_INT(relayout_bytes(&r, &router), (long long)router.n * router.k * 4);
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_COMBINE_HILO"), 3);
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_COMBINE_HILO_CLUSTER"), 4);
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_LAYOUT_HILO"), 2);
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_MAX_CLUSTER"), 8);

	/* pdl: the zero-fill is a kernel and the product launches after it */
	const long q[] = { 64, 16, 64, 4, 4, 8, 1, 0, SYNC, 1 };
	CHECK(t->check(&router, q) == NULL);
	CHECK_INT(t->kernels(&router, q, kn, TMPL_MAX_KERNELS), 2);
	CHECK_STR(kn[1], "mma_zero_f32");
	CHECK_INT(t->kernels(&router, q, kn, 1), -1);
	CHECK_INT(t->plan(&router, q, 33, &pl), 0);
	CHECK_INT(pl.nsteps, 2);
	CHECK_INT(plan_pdl_misplaced(&pl), -1);
	const struct launch_step *z = &pl.steps[0];
	CHECK_INT(z->kind, STEP_KERNEL);
	CHECK_INT(z->kernel, 1);
	CHECK_INT(z->pdl, 0);
	static const enum arg_kind zero_args[] = { ARG_Y, ARG_INT };
	CHECK(arg_kinds_are(z, zero_args, 2));
	CHECK_INT(z->args[1].value, 33 * 256 / 4);
	CHECK_INT(z->grid[0] * z->block[0] >= 33 * 256 / 4, 1);
	CHECK_INT(pl.steps[1].kernel, 0);
	CHECK_INT(pl.steps[1].pdl, 1);

	/* cluster: one kernel, nothing zeroed; split within a portable
	 * cluster, and no pdl (there is nothing to overlap) */
	const long c[] = { 64, 32, 64, 4, 4, 8, 0, 1, WGMMA, 0 };
	CHECK(t->check(&router, c) == NULL);
	CHECK_INT(t->kernels(&router, c, kn, TMPL_MAX_KERNELS), 1);
	CHECK_STR(kn[0], "mma_hilo_cluster_kernel<64, 32, 64, 4, 4, 8, 0, 1>");
	CHECK_INT(t->plan(&router, c, 32, &pl), 0);
	CHECK_INT(pl.nsteps, 1);
	CHECK_INT(pl.steps[0].kind, STEP_KERNEL);
	CHECK_INT(pl.steps[0].pdl, 0);
	CHECK_INT(pl.steps[0].grid[0], 1);
	CHECK_INT(pl.steps[0].grid[1], 8);
	CHECK_INT(pl.steps[0].grid[2], 8);
	/* wgmma ring + alignment, then slots for 32 tokens x 32 outputs */
	CHECK_INT(pl.steps[0].smem, 4 * (64 + 32) * 64 * 2 + 1024 + 32 * 32 * 4);
	const long c16[] = { 64, 32, 64, 4, 4, 16, 0, 1, WGMMA, 0 };
	CHECK(t->check(&router, c16) == NULL);  /* non-portable: 16 blocks */
	const long c32[] = { 64, 32, 64, 4, 4, 32, 0, 1, WGMMA, 0 };
	CHECK_STR(t->check(&router, c32), "a cluster combine needs split in [2, 16]");
	const long c1[] = { 64, 32, 64, 4, 4, 1, 0, 1, WGMMA, 0 };
	CHECK_STR(t->check(&router, c1), "a cluster combine needs split in [2, 16]");
	const long cp[] = { 64, 32, 64, 4, 4, 8, 0, 1, WGMMA, 1 };
	CHECK_STR(t->check(&router, cp), "pdl needs a zero-fill to overlap (combine atomic)");
	/* 128 x 256 wgmma on 4 stages fits alone (197,632 bytes), not with
	 * the slots of its 64 outputs x 256 tokens (65,536) */
	const long cbig[] = { 128, 256, 64, 8, 4, 2, 0, 1, WGMMA, 0 };
	CHECK_STR(t->check(&router, cbig), "shared memory exceeds 227 KiB");
	const long abig[] = { 128, 256, 64, 8, 4, 2, 0, 0, WGMMA, 0 };
	CHECK(t->check(&router, abig) == NULL);

	/* zblock: one kernel, Y zeroed by one extra block: a first z slice
	 * (512/32 row blocks + 1), one flag */
	const long sz[] = { 32, 32, 128, 4, 4, 16, 0, 2, SYNC, 0 };
	CHECK(t->check(&router, sz) == NULL);
	CHECK_INT(t->kernels(&router, sz, kn, TMPL_MAX_KERNELS), 1);
	CHECK_STR(kn[0], "mma_hilo_zblock_kernel<32, 32, 128, 4, 4, 16, 0, 0>");
	CHECK_INT(t->plan(&router, sz, 33, &pl), 0);
	CHECK_INT(pl.nsteps, 1);
	CHECK_INT(pl.ws_bytes, 0);
	CHECK_INT(pl.sync_bytes, 4);
	CHECK_INT(pl.steps[0].grid[0], 2);
	CHECK_INT(pl.steps[0].grid[1], 16);
	CHECK_INT(pl.steps[0].grid[2], 512 / 32 + 1);
	CHECK_INT(pl.steps[0].block[0], 4 * 32 + 32);   /* and the flag's watcher */
	CHECK_INT(pl.steps[0].pdl, 0);
	static const enum arg_kind zblock_args[] = { ARG_PREP, ARG_X, ARG_Y, ARG_SYNC,
						   ARG_M, ARG_N, ARG_K };
	CHECK(arg_kinds_are(&pl.steps[0], zblock_args, 7));
	CHECK_INT(define_in("templates/mma_skinny.cuh", "MMA_COMBINE_HILO_ZBLOCK"), 5);
	const long sp[] = { 32, 32, 128, 4, 4, 16, 0, 2, SYNC, 1 };
	CHECK_STR(t->check(&router, sp), "pdl needs a zero-fill to overlap (combine atomic)");
	const long s1[] = { 32, 32, 128, 4, 4, 1, 0, 2, SYNC, 0 };
	CHECK_STR(t->check(&router, s1), "a zero-block combine needs split >= 2");
	/* the other combines take no counters */
	CHECK_INT(t->plan(&router, q, 33, &pl), 0);
	CHECK_INT(pl.sync_bytes, 0);
}

/* pdl: partials launch the reduce programmatically; atomic zeroes ws with a
 * kernel and launches the GEMM and the convert programmatically; a plan
 * with one kernel has nothing to overlap. */
TEST(plan_pdl)
{
	const struct tmpl *t = mma();
	struct launch_plan pl;
	long p[NP];
	memcpy(p, partials, sizeof(partials));
	p[PDL] = 1;
	CHECK(t->check(&qkv, p) == NULL);
	CHECK_INT(t->plan(&qkv, p, 5, &pl), 0);
	CHECK_INT(pl.nsteps, 2);
	CHECK_INT(pl.steps[0].pdl, 0);
	CHECK_INT(pl.steps[1].pdl, 1);
	CHECK_INT(plan_pdl_misplaced(&pl), -1);

	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	memcpy(p, atomic, sizeof(atomic));
	p[PDL] = 1;
	CHECK(t->check(&qkv, p) == NULL);
	CHECK_INT(t->kernels(&qkv, p, names, TMPL_MAX_KERNELS), 3);
	CHECK_STR(names[0], "mma_skinny_kernel<32, 8, 64, 8, 4, 4, 0, 1, 0, 0, 0>");
	CHECK_STR(names[1], "mma_splitk_reduce");
	CHECK_STR(names[2], "mma_zero_f32");
	CHECK_INT(t->plan(&qkv, p, 9, &pl), 0);
	CHECK_INT(pl.nsteps, 3);
	CHECK_INT(plan_pdl_misplaced(&pl), -1);
	CHECK_INT(pl.steps[0].kind, STEP_KERNEL);
	CHECK_INT(pl.steps[0].kernel, 2);
	CHECK_INT(pl.steps[0].pdl, 0);
	CHECK_INT(pl.steps[0].args[0].kind, ARG_WS);
	CHECK_INT(pl.steps[0].args[1].value, 9 * 2304 / 4);
	CHECK_INT(pl.steps[1].kernel, 0);
	CHECK_INT(pl.steps[1].pdl, 1);
	CHECK_INT(pl.steps[2].kernel, 1);
	CHECK_INT(pl.steps[2].pdl, 1);

	memcpy(p, cluster, sizeof(cluster));
	p[PDL] = 1;
	CHECK_STR(t->check(&qkv, p), "pdl needs a second kernel (split with partials or atomic)");
	memcpy(p, direct, sizeof(direct));
	p[PDL] = 1;
	CHECK_STR(t->check(&qkv, p), "pdl needs a second kernel (split with partials or atomic)");

	/* the rule itself: never the first step, only a kernel after a kernel */
	pl = (struct launch_plan){ .nsteps = 2 };
	pl.steps[0].kind = STEP_MEMSET_WS;
	pl.steps[1].kind = STEP_KERNEL;
	pl.steps[1].pdl = 1;
	CHECK_INT(plan_pdl_misplaced(&pl), 1);
	pl.steps[0].kind = STEP_KERNEL;
	CHECK_INT(plan_pdl_misplaced(&pl), -1);
	pl.steps[0].pdl = 1;
	CHECK_INT(plan_pdl_misplaced(&pl), 0);
}

/* wgmma: the kernel name carries the instruction, the plan asks for the
 * ring plus 1024 bytes to align it to the swizzle period. */
TEST(plan_wgmma)
{
	const struct tmpl *t = mma();
	const long p[NP] = { 128, 128, 64, 8, 4, 4, 0, ATOMIC, TILES, WGMMA };
	char kn[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	CHECK(t->check(&qkv, p) == NULL);
	CHECK_INT(t->kernels(&qkv, p, kn, TMPL_MAX_KERNELS), 2);
	CHECK_STR(kn[0], "mma_skinny_kernel<128, 128, 64, 8, 4, 4, 0, 1, 1, 1, 0>");
	struct launch_plan pl;
	CHECK_INT(t->plan(&qkv, p, 256, &pl), 0);
	CHECK_INT(pl.nsteps, 3);
	CHECK_INT(pl.steps[1].grid[0], 2);
	CHECK_INT(pl.steps[1].block[0], 256);
	CHECK_INT(pl.steps[1].smem, 4 * (128 + 128) * 64 * 2 + 1024);
}

TEST(plan_refuses_bad_input)
{
	const struct tmpl *t = mma();
	struct launch_plan pl;
	CHECK_INT(t->plan(&qkv, direct, 0, &pl), -1);
	CHECK_INT(t->plan(&router, direct, 1, &pl), -1);
	const long bad[NP] = { 64, 16, 64, 4, 3, 1, 0, ATOMIC };
	CHECK_INT(t->plan(&qkv, bad, 1, &pl), -1);
}

/* Every point of the full parameter grid: a legal one plans at every M
 * with the invariants the kernel's launch contract needs; an illegal one
 * does not plan. */
TEST(plan_invariants_over_the_grid)
{
	const struct tmpl *t = mma();
	static const long bms[] = { 32, 64, 128 }, bns[] = { 8, 16, 32, 64 };
	static const long bks[] = { 32, 64, 128 }, warps[] = { 2, 4, 8 };
	static const int ms[] = { 1, 7, 8, 9, 64, 257 };
	long legal = 0, total = 0, bad = 0;
	for (int a = 0; a < 3; a++) for (int b = 0; b < 4; b++)
	for (int c = 0; c < 3; c++) for (int d = 0; d < 3; d++)
	for (long stages = 2; stages <= 6; stages++)
	for (long split = 1; split <= 16; split++)
	for (long cache = 0; cache <= 1; cache++)
	for (long combine = 0; combine <= 2; combine++)
	for (long layout = 0; layout <= 1; layout++)
	for (long pdl = 0; pdl <= 1; pdl++) {
		const long p[NP] = { bms[a], bns[b], bks[c], warps[d], stages, split, cache, combine,
				     layout, SYNC, pdl };
		total++;
		struct launch_plan pl;
		if (t->check(&qkv, p)) {
			bad += t->plan(&qkv, p, 8, &pl) != -1;
			continue;
		}
		legal++;
		for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
			const int m = ms[i];
			if (t->plan(&qkv, p, m, &pl)) {
				bad++;
				continue;
			}
			const struct launch_step *k = NULL;
			int kernels = 0, memsets = 0;
			for (int s = 0; s < pl.nsteps; s++) {
				if (pl.steps[s].kind == STEP_KERNEL && pl.steps[s].kernel == 0)
					k = &pl.steps[s];
				kernels += pl.steps[s].kind == STEP_KERNEL;
				memsets += pl.steps[s].kind == STEP_MEMSET_WS;
				bad += pl.steps[s].kind == STEP_MEMSET_WS && pl.steps[s].bytes != pl.ws_bytes;
			}
			if (!k) {
				bad++;
				continue;
			}
			bad += k->grid[0] * p[BN] < (unsigned)m || (k->grid[0] - 1) * p[BN] >= (unsigned)m;
			bad += k->grid[1] != (unsigned)split;
			bad += k->grid[2] * p[BM] != (unsigned)qkv.n;
			bad += k->block[0] != (unsigned)(p[WARPS] * 32);
			bad += k->smem > 227 * 1024;
			bad += k->smem < (unsigned)(stages * (p[BM] + p[BN]) * p[BK] * 2);
			bad += k->smem < (unsigned)(p[BN] * (p[BM] + 4) * 4);
			const int reduce = split > 1 && combine != CLUSTER;
			const int zero = split > 1 && combine == ATOMIC;
			/* with pdl the zero-fill is a kernel, not a memset */
			bad += kernels != 1 + reduce + (zero && pdl);
			bad += memsets != (zero && !pdl);
			bad += plan_pdl_misplaced(&pl) != -1;
			bad += k->pdl != (pdl && zero);
			size_t ws = split == 1 || combine == CLUSTER ? 0 :
				    (size_t)(combine == ATOMIC ? 1 : split) * m * qkv.n * 4;
			bad += pl.ws_bytes != ws;
			bad += (k->args[0].kind == ARG_PREP) != (layout == TILES);
		}
	}
	CHECK_INT(total, 3 * 4 * 3 * 3 * 5 * 16 * 2 * 3 * 2 * 2);
	CHECK(legal > 1000);
	CHECK_INT(bad, 0);
}

struct coverage {
	long visited, pruned;
	int combos[3];                  /* per combine; split 1 counted apart */
	int direct;
	int layouts[2];
	int pdl;                        /* candidates with pdl = 1 */
	const char *first_reason;
};

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
	cov->layouts[c->params[LAYOUT]]++;
	cov->pdl += c->params[PDL] == 1;
	if (c->params[SPLIT] == 1)
		cov->direct++;
	else
		cov->combos[c->params[COMBINE]]++;
}

TEST(gpu_test_space_covers_every_mode)
{
	struct space sp;
	CHECK_INT(space_load("tests/spaces/gpu_mma.yaml", &sp), 0);
	if (sp.nshapes == 0)
		return;
	static const int want_ms[] = { 1, 2, 7, 8, 9, 16, 17, 31, 32, 33, 64, 127, 128, 129,
				       255, 256, 257 };
	CHECK_INT(sp.nshapes, 5);
	for (int i = 0; i < sp.nshapes; i++) {
		const struct shape *s = &sp.shapes[i];
		CHECK_INT(s->n_ms, ARRAY_SIZE(want_ms));
		for (int j = 0; j < s->n_ms && j < (int)ARRAY_SIZE(want_ms); j++) {
			CHECK_INT(s->ms[j], want_ms[j]);
			struct coverage cov = { 0 };
			space_enumerate(&sp, s, s->ms[j], visit, &cov);
			CHECK_INT(cov.visited, 56);
			CHECK_INT(cov.pruned, 0);
			if (cov.first_reason)
				fprintf(stderr, "  %s m=%d: %s\n", s->family, s->ms[j],
					cov.first_reason);
			CHECK_INT(cov.direct, 8);
			/* partials and atomic twice: without and with pdl */
			CHECK_INT(cov.combos[PARTIALS], 16);
			CHECK_INT(cov.combos[ATOMIC], 16);
			CHECK_INT(cov.combos[CLUSTER], 16);
			CHECK_INT(cov.pdl, 16);
			CHECK_INT(cov.layouts[ROWS], 28);
			CHECK_INT(cov.layouts[TILES], 28);
		}
	}
	space_free(&sp);
}

/* One instantiation per combine mode (and the reduce kernel) through the
 * real NVRTC compile service: every one compiles for sm_90a, uses no local
 * memory (no spills) and no static shared memory (the plan's dynamic size
 * is all it gets). The register counts are printed for the report. */
TEST(nvrtc_compiles_every_combine_without_spills)
{
	struct jit_options o = jit_test_options("mma", 4);
	/* the four plans above, plus the largest tile (128 x 64 on 2 warps:
	 * 128 accumulators per thread) and a cluster of 8 with evict_first */
	const long big[NP] = { 128, 64, 32, 2, 6, 1, 0, PARTIALS, ROWS };
	const long c8[NP] = { 32, 8, 64, 8, 4, 8, 1, CLUSTER, ROWS };
	/* and the tiles layout with each combine (and a 2-pass copy: 256
	 * threads over 32 x 128 / 8 = 512 chunks) */
	const long td[NP] = { 64, 16, 64, 4, 3, 1, 0, PARTIALS, TILES };
	const long ta[NP] = { 32, 8, 128, 8, 4, 4, 1, ATOMIC, TILES };
	const long tc[NP] = { 64, 16, 32, 4, 6, 8, 0, CLUSTER, TILES };
	/* and warps on K first: qkv 32's cluster tile with wk 2, atomics with 4 */
	const long kc[NP] = { 64, 32, 64, 4, 4, 8, 0, CLUSTER, TILES, SYNC, 0, 2 };
	const long ka[NP] = { 64, 16, 128, 4, 4, 4, 0, ATOMIC, ROWS, SYNC, 0, 4 };
	const long *cands[] = { direct, partials, atomic, cluster, big, c8, td, ta, tc, kc, ka };
	struct jit_item items[32];
	int n = 0;
	const struct tmpl *t = mma();
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		CHECK(t->check(&qkv, cands[i]) == NULL);
		n = add_candidate(items, n, t->stem, &qkv, cands[i]);
	}
	/* and the router's hi/lo kernel */
	n = add_item(items, n, t->source, "mma_hilo_kernel<64, 16, 64, 4, 4, 8, 1, 0>");
	/* and wgmma: 64 x 256 direct, 128 x 128 on 8 warps atomic and tiles, a
	 * cluster, the router's hi/lo */
	static const char *const wg[] = {
		"mma_skinny_kernel<64, 256, 64, 8, 3, 1, 0, 0, 0, 1, 0>",
		"mma_skinny_kernel<128, 128, 64, 8, 4, 4, 0, 1, 1, 1, 0>",
		"mma_skinny_cluster_kernel<64, 32, 64, 4, 4, 4, 0, 1, 1, 0>",
		"mma_hilo_kernel<64, 64, 64, 4, 4, 8, 0, 1>",
		"mma_hilo_cluster_kernel<32, 32, 64, 4, 4, 8, 0, 0>",
		"mma_hilo_cluster_kernel<128, 128, 64, 8, 4, 4, 0, 1>",
		"mma_hilo_cluster_kernel<64, 32, 128, 4, 4, 16, 0, 0>",
		"mma_hilo_zblock_kernel<32, 32, 128, 4, 4, 16, 0, 0>",
		"mma_hilo_zblock_kernel<64, 64, 64, 4, 6, 16, 0, 1>",
		"mma_zero_f32",
	};
	for (size_t i = 0; i < ARRAY_SIZE(wg); i++)
		n = add_item(items, n, t->source, wg[i]);
	/* the adapter's slot bytes are the template's: an instantiation whose
	 * split is 4 only when mma_recv_bytes agrees with
	 * mma_cluster_recv_bytes (else 1, which its static_assert refuses) */
	char agree[TMPL_NAME_MAX];
	snprintf(agree, sizeof(agree),
		 "mma_skinny_cluster_kernel<64, 8, 64, 4, 4, "
		 "(mma_recv_bytes(8, 32, 3) == %ld && mma_recv_bytes(16, 64, 5) == %ld ? 4 : 1), "
		 "0, 0, 0>", mma_cluster_recv_bytes(8, 32, 3), mma_cluster_recv_bytes(16, 64, 5));
	n = add_item(items, n, t->source, agree);
	CHECK_INT(n, 27);
	CHECK_INT(jit_compile_all(&o, items, n, NULL, NULL), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(items[i].ok, 1);
		if (!items[i].ok)
			fprintf(stderr, "  %s: %s\n", items[i].name, items[i].error);
		CHECK(items[i].regs > 0 && items[i].regs <= 255);
		CHECK_INT(items[i].local_bytes, 0);
		CHECK_INT(items[i].smem_bytes, 0);
		printf("# %-56s regs %3d local %d\n", items[i].name, items[i].regs,
		       items[i].local_bytes);
	}
	/* a cluster-size-1 instantiation trips the template's static_assert */
	struct jit_item bad = { .source_name = t->source };
	strcpy(bad.name, "mma_skinny_cluster_kernel<64, 16, 64, 4, 3, 1, 0, 0, 0, 0>");
	CHECK_INT(jit_compile_all(&o, &bad, 1, NULL, NULL), 0);
	CHECK_INT(bad.ok, 0);
	CHECK(strstr(bad.error, "a cluster combine needs split in [2, 8]") != NULL);
	remove_cache();
}

TESTS(T(registered_with_parameters_in_order), T(kernel_names_per_combine), T(warp_layouts),
      T(static_checks),
      T(plan_direct), T(plan_partials), T(plan_atomic_zeroes_inside_the_call),
      T(plan_cluster_is_one_kernel), T(plan_epilogue_larger_than_ring),
      T(plan_tiles_reads_the_packed_weight), T(hilo_adapter), T(plan_pdl), T(plan_wgmma),
      T(plan_refuses_bad_input),
      T(plan_invariants_over_the_grid), T(gpu_test_space_covers_every_mode), T(nvrtc_compiles_every_combine_without_spills))
