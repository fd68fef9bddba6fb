/*
 * test_init.c: unit tests of gemmtab init's spaces (tuner/space/init_*.c):
 * the space it writes for each config under tests/models loads, and every
 * gemv candidate it admits at every M of 1..256 keeps the rules
 * search_spaces/h200.yaml keeps by hand: each split's share of K holds
 * one block pass (warps * 32 threads x unroll 16-byte loads; a shorter
 * share faults in the tail kernel), and past M = 32 only the small set of
 * split 1, nc_na, unroll >= 2 runs. Run from the repository root.
 */
#include "check.h"
#include "init.h"
#include "scratch.h"
#include "space.h"
#include "tmpl.h"

#include <stdlib.h>
#include <unistd.h>

struct gemv_count {
	int warps, unroll, split, cache;  /* param indices */
	long nc_na;                       /* cache's symbol value */
	long seen, pruned, short_share, past_small_m, max_split;
};

static int param_index(const struct tmpl *t, const char *name)
{
	for (int i = 0; i < t->nparams; i++)
		if (!strcmp(t->params[i].name, name))
			return i;
	return -1;
}

static void visit(void *ctx, const struct shape *s, int m, const struct candidate *c,
		  const char *reason)
{
	struct gemv_count *g = ctx;
	if (strcmp(c->tmpl->stem, "gemv"))
		return;
	if (reason) {   /* the template's own check prunes it: never run */
		g->pruned++;
		return;
	}
	if (g->warps < 0) {
		g->warps = param_index(c->tmpl, "warps");
		g->unroll = param_index(c->tmpl, "unroll");
		g->split = param_index(c->tmpl, "split");
		g->cache = param_index(c->tmpl, "cache");
		const char *const *sym = c->tmpl->params[g->cache].symbols;
		for (long i = 0; sym[i]; i++)
			if (!strcmp(sym[i], "nc_na"))
				g->nc_na = i;
	}
	const long *p = c->params;
	long w_bytes = s->w == DT_FP32 ? 4 : 2;
	long pass = p[g->warps] * 32 * p[g->unroll] * (16 / w_bytes);
	g->seen++;
	if (p[g->split] > 1 && s->k / p[g->split] < pass)
		g->short_share++;
	if (m > 32 && !(p[g->split] == 1 && p[g->cache] == g->nc_na && p[g->unroll] >= 2))
		g->past_small_m++;
	if (p[g->split] > g->max_split)
		g->max_split = p[g->split];
}

/* Write model's space at tp (gemv only, M up to 256) and count its gemv
 * candidates at every M of every shape into *g. Returns 0 or -1. */
static int gemv_candidates(const char *model, int tp, struct gemv_count *g)
{
	struct init_opts o = { model, tp, 256, "bf16", 0, "gemv" };
	struct init_model m;
	struct init_plan p;
	struct space sp;
	char *path = scratch("space.yaml");
	int ret = -1;
	memset(g, 0, sizeof(*g));
	g->warps = -1;
	if (init_model_read(model, &m) || init_shapes(&m, tp, 0, &p))
		goto out;
	FILE *f = fopen(path, "w");
	if (!f || init_space_write(f, &m, &p, &o) || fclose(f))
		goto out;
	if (space_load(path, &sp))
		goto out;
	for (int i = 0; i < sp.nshapes; i++)
		for (int mm = 1; mm <= 256; mm++)
			space_enumerate(&sp, &sp.shapes[i], mm, visit, g);
	space_free(&sp);
	ret = 0;
out:
	free(path);
	return ret;
}

/* Llama-3-8B at TP 1: K 4096 and 14336; qkv at split 8 and warps 4 (a
 * 512-element share against a 1,024-element pass) faulted. */
TEST(llama_gemv_rules)
{
	struct gemv_count g;
	CHECK_INT(gemv_candidates("tests/models/llama-3-8b.json", 1, &g), 0);
	CHECK(g.seen > 1000);
	CHECK_INT(g.short_share, 0);
	CHECK_INT(g.past_small_m, 0);
	CHECK_INT(g.max_split, 8);      /* down's K 14336 still splits 8 ways */
}

/* The odd config at TP 8 (K 3000, 375 and 125) and DeepSeek-V2-Lite at
 * TP 8 (o_proj's K 256, the router's 64 x 2048): short K everywhere. */
TEST(odd_and_mla_gemv_rules)
{
	struct gemv_count g;
	CHECK_INT(gemv_candidates("tests/models/odd.json", 8, &g), 0);
	CHECK(g.seen > 0);
	CHECK_INT(g.short_share, 0);
	CHECK_INT(g.past_small_m, 0);
	CHECK_INT(gemv_candidates("tests/models/deepseek-v2-lite.json", 8, &g), 0);
	CHECK(g.seen > 0);
	CHECK_INT(g.short_share, 0);
	CHECK_INT(g.past_small_m, 0);
}

/* Every shape of every model's space at TP 1, 2 and 8 whose K is whole
 * 16-byte rows gets gemv candidates at M = 1 (the narrow routers too). */
TEST(every_shape_has_gemv_at_m1)
{
	static const char *const models[] = {
		"tests/models/llama-3-8b.json", "tests/models/mixtral-8x7b.json",
		"tests/models/deepseek-v2-lite.json", "tests/models/phi-2.json",
		"tests/models/gemma-2-9b.json", "tests/models/odd.json",
	};
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		for (int tp = 1; tp <= 8; tp += tp < 2 ? 1 : 6) {
			struct init_model m;
			struct init_plan p;
			CHECK_INT(init_model_read(models[i], &m), 0);
			CHECK_INT(init_shapes(&m, tp, 0, &p), 0);
			struct init_opts o = { models[i], tp, 1, "bf16", 0, "gemv" };
			char *path = scratch("m1.yaml");
			FILE *f = fopen(path, "w");
			CHECK(f && !init_space_write(f, &m, &p, &o) && !fclose(f));
			struct space sp;
			CHECK_INT(space_load(path, &sp), 0);
			for (int s = 0; s < sp.nshapes; s++) {
				if (sp.shapes[s].k % 8)
					continue;       /* the odd config's o_proj at TP 8: K 375 */
				struct gemv_count g = { .warps = -1 };
				space_enumerate(&sp, &sp.shapes[s], 1, visit, &g);
				if (!g.seen)
					fprintf(stderr, "  %s tp %d: %s has no gemv candidate\n",
						models[i], tp, sp.shapes[s].family);
				CHECK(g.seen > 0);
			}
			space_free(&sp);
			free(path);
		}
}

TESTS(T(llama_gemv_rules), T(odd_and_mla_gemv_rules), T(every_shape_has_gemv_at_m1))
