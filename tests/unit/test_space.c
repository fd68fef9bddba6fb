/*
 * test_space.c: unit tests of the search-space loader (tuner/space/space.c) and
 * its constraint expressions (tuner/space/expr.c): every error a space can hold
 * with its exact "FILE:LINE:COL: message" line, the real spaces under
 * search_spaces/, enumeration order and counts, constraint semantics.
 * Run from the repository root (fixture paths are relative). Linked with
 * the real template registry; pruning reasons are compared with the
 * registry's own check.
 */
#include "check.h"
#include "expr.h"
#include "space.h"
#include "tmpl.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/* Load path with stderr captured into msg. Returns space_load's result. */
static int load_capture(const char *path, struct space *sp, char *msg, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	int r = space_load(path, sp);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(msg, 1, len - 1, tmp);
	msg[n] = '\0';
	fclose(tmp);
	return r;
}

/* Expect path to fail with exactly the one line "path:want\n". */
static void expect_error(const char *path, const char *want)
{
	struct space sp;
	char msg[1024], line[1024];
	memset(&sp, 0xff, sizeof(sp));
	snprintf(line, sizeof(line), "%s:%s\n", path, want);
	int r = load_capture(path, &sp, msg, sizeof(msg));
	CHECK_INT(r, -1);
	CHECK_STR(msg, line);
	if (r == 0) {
		space_free(&sp);
		return;
	}
	/* nothing allocated, nothing left to free */
	CHECK(!sp.path && !sp.shapes && !sp.grids && !sp.nshapes && !sp.ngrids);
}

static const struct bad_case {
	const char *file;       /* under tests/spaces/bad/ */
	const char *want;       /* the line after "FILE:" */
} bad_cases[] = {
	{ "syntax", "11:10: yaml syntax error: did not find expected ',' or ']' "
		"(while parsing a flow sequence at 10:8)" },
	{ "syntax_indent", "5:4: yaml syntax error: did not find expected '-' indicator "
		"(while parsing a block collection at 3:3)" },
	{ "bad_utf8", "3:14: invalid input: invalid leading UTF-8 octet" },
	{ "unknown_key", "9:5: unknown key 'tols' in shape (expected family, n, k, w, x, "
		"y, tol, m, anchors, neighbours)" },
	{ "unknown_top_key", "20:1: unknown key 'tune' in the top level (expected sweep, "
		"shapes, workload, cublaslt, templates)" },
	{ "unknown_sweep_key", "3:3: unknown key 'pairs' in sweep (expected screen_pairs, "
		"retest_pairs, retest_top, deadline_s, range_top, range_pairs)" },
	{ "string_for_list", "10:8: m must be a list of Ms ([1, 8, 16]) or a range (1..512), "
		"not '1, 3'" },
	{ "map_for_list", "3:3: shapes must be a list, not a mapping" },
	{ "top_list", "2:1: the top level must be a mapping, not a list" },
	{ "quoted_int", "4:8: n must be an integer, not a quoted string" },
	{ "float_for_int", "5:8: k must be an integer, not '1024.5'" },
	{ "null_value", "4:7: n must be an integer, not an empty value" },
	{ "symbol_quoted_int", "17:16: unroll must be an integer, not 'one'" },
	{ "dup_key", "6:5: duplicate key 'n' (first at line 4)" },
	{ "dup_template", "20:3: duplicate key 'gemv' (first at line 12)" },
	{ "complex_key", "4:7: a mapping key must be a scalar, not a list" },
	{ "missing_field", "3:5: shape lacks required key 'tol'" },
	{ "missing_param", "14:7: params of gemv lacks 'cache' (every parameter needs a list)" },
	{ "n_zero", "4:8: n must be in [1, 1048576], not 0" },
	{ "k_negative", "5:8: k must be in [1, 1048576], not -1024" },
	{ "m_zero", "10:12: m must be in [1, 65536], not 0" },
	{ "m_too_big", "10:12: m must be in [1, 65536], not 65537" },
	{ "too_many_m", "10:128: m has more than 32 values" },
	{ "dup_m", "10:15: duplicate m value 1" },
	{ "neighbour_is_m", "11:21: neighbour 3 is also a tuned m" },
	{ "tol_one", "9:10: tol must be in (0, 1), not 1" },
	{ "tol_zero", "9:10: tol must be in (0, 1), not 0" },
	{ "sweep_range", "3:17: retest_pairs must be in [1, 1000000], not 0" },
	{ "bad_dtype", "6:8: w must be bf16 or fp32, not 'fp16'" },
	{ "bad_family", "3:13: family must be 1 to 31 letters, digits or '_', not 'a b'" },
	{ "dup_family", "11:13: duplicate family 'a' (first at line 3)" },
	{ "param_range", "14:18: warps must be in [1, 32], not 64" },
	{ "dup_symbol", "19:28: duplicate cache value cg" },
	{ "unknown_symbol", "19:24: unknown cache value 'fast' (expected default, cg, nc_na, "
		"evict_first, nc_na_evict_first)" },
	{ "unknown_template", "12:3: unknown template 'gemm' (known: blas_hilo, blas_lt, gemv, mma_skinny, mma_hilo, mma_frag, planted)" },
	{ "unknown_param", "14:7: unknown parameter 'warp' of template gemv (expected warps, "
		"rows, tokens, unroll, split, cache)" },
	{ "param_not_list", "15:13: rows must be a list, not a scalar" },
	{ "grid_too_big", "14:7: grid of gemv has 1048576 points (at most 1000000)" },
	{ "empty_m", "10:8: m must not be empty" },
	{ "empty_values", "18:14: split must not be empty" },
	{ "empty_shapes", "2:9: shapes must not be empty" },
	{ "empty", "2:1: empty file (expected a mapping with shapes and templates)" },
	{ "two_documents", "20:1: more than one yaml document" },
	{ "anchor", "10:8: yaml anchors are not supported in a search space (write the value out)" },
	{ "alias", "10:8: yaml aliases are not supported in a search space (write the value out)" },
	{ "tag", "4:8: yaml tags are not supported in a search space (write the value out)" },
	{ "deep", "20:39: nesting deeper than 32 levels" },
	{ "constraint_not_string", "21:9: a constraint must be a string, not a list" },
	/* constraint syntax: the column of the fault inside the string */
	{ "lt_orient_unknown", "12:15: unknown orient value 'col' (expected t, row, n)" },
	{ "lt_top_zero", "13:8: top must be in [1, 32], not 0" },
	{ "lt_no_top", "12:3: cublaslt lacks required key 'top'" },
	{ "lt_orient_three", "12:11: orient has more than 3 values" },
	{ "lt_splitk_zero", "14:15: splitk must be in [1, 64], not 0" },
	{ "lt_splitk_empty", "14:11: splitk must not be empty" },
	{ "lt_splitk_dup", "14:18: duplicate splitk value 2" },
	{ "lt_vary_unknown", "14:19: unknown vary value 'tiles' (expected tile, stages, cluster, custom)" },
	{ "lt_vary_min_m_alone", "14:15: vary_min_m without splitk or vary limits nothing" },
	{ "lt_vary_min_m_zero", "15:15: vary_min_m must be in [1, 65536], not 0" },
	{ "lt_vary_seeds_alone", "14:15: vary_seeds without splitk or vary varies nothing" },
	{ "lt_vary_seeds_big", "15:15: vary_seeds must be in [0, 8], not 9" },
	{ "lt_vary_steps_unseeded", "15:15: vary_steps past 1 needs vary_seeds: each step is "
		"seeded by the ones before" },
	{ "lt_vary_steps_big", "16:15: vary_steps must be in [1, 16], not 17" },
	{ "expr_plain", "21:30: constraint: expected ')' to close the '(' at character 5, "
		"found end of expression" },
	{ "expr_single", "21:33: constraint: '=' is not an operator (use '==')" },
	{ "expr_double", "21:36: constraint: '=' is not an operator (use '==')" },
	{ "expr_unknown", "22:19: constraint: unknown identifier 'kk'" },
	{ "expr_symbol_other", "21:19: constraint: unknown identifier 'hang'" },
	{ "expr_flow", "20:40: constraint: expected a number, a name or '(', found end of "
		"expression" },
	{ "expr_empty", "21:10: constraint: empty expression" },
	{ "expr_multiline", "21:9: constraint: expected a number, a name or '(', found end "
		"of expression (at character 21)" },
};

TEST(bad_fixtures)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		char path[256];
		snprintf(path, sizeof(path), "tests/spaces/bad/%s.yaml", bad_cases[i].file);
		expect_error(path, bad_cases[i].want);
	}
}

TEST(missing_file)
{
	expect_error("tests/spaces/bad/no_such_file.yaml",
		     "1:1: cannot open: No such file or directory");
}

/* Write text to a file in a fresh temp dir; returns its path in path[]
 * or NULL. remove_temp() deletes both. */
static const char *write_temp(const char *text, size_t len, char path[64])
{
	strcpy(path, "/tmp/test_space.XXXXXX");
	if (!mkdtemp(path))
		return NULL;
	strcat(path, "/s.yaml");
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

static void remove_temp(char path[64])
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

TEST(huge_file)
{
	/* one byte over the limit: a comment line of 1 MiB */
	size_t len = (1 << 20) + 1;
	char *text = malloc(len);
	memset(text, 'x', len);
	text[0] = '#';
	text[len - 1] = '\n';
	char path[64];
	CHECK(write_temp(text, len, path) != NULL);
	expect_error(path, "1:1: file is larger than 1048576 bytes");
	remove_temp(path);
	free(text);
}

TEST(too_many_items)
{
	/* m: [1, 2, ..., 4097]: the 4097th item is refused where it stands */
	char *text = malloc(64 * 1024), want[128];
	size_t len = (size_t)sprintf(text, "shapes:\n  - m: [");
	size_t col = 0;
	for (int i = 1; i <= 4097; i++) {
		if (i == 4097)
			col = len - strlen("shapes:\n") + 1;
		len += (size_t)sprintf(text + len, "%d", i);
		if (i < 4097)
			len += (size_t)sprintf(text + len, ", ");
	}
	len += (size_t)sprintf(text + len, "]\n");
	char path[64];
	CHECK(write_temp(text, len, path) != NULL);
	snprintf(want, sizeof(want), "2:%zu: more than 4096 items in one list", col);
	expect_error(path, want);
	remove_temp(path);
	free(text);
}

static const struct shape *find_shape(const struct space *sp, const char *family)
{
	for (int i = 0; i < sp->nshapes; i++)
		if (!strcmp(sp->shapes[i].family, family))
			return &sp->shapes[i];
	return NULL;
}

static int has_m(const int *ms, int n, int m)
{
	for (int i = 0; i < n; i++)
		if (ms[i] == m)
			return 1;
	return 0;
}

/* a cuBLASLt search and no templates: what the sweep resolves on the GPU */
TEST(cublaslt_section)
{
	struct space sp;
	CHECK_INT(space_load("tests/spaces/gpu_lt.yaml", &sp), 0);
	CHECK_INT(sp.nshapes, 3);
	CHECK_INT(sp.ngrids, 0);
	CHECK_INT(sp.lt.top, 4);
	CHECK_INT(sp.lt.norients, 3);
	CHECK_INT(sp.lt.orient[0], 0);  /* t */
	CHECK_INT(sp.lt.orient[1], 1);  /* row */
	CHECK_INT(sp.lt.orient[2], 2);  /* n */
	CHECK_INT(sp.lt.nsplitk, 0);    /* the heuristic's algorithms only */
	space_free(&sp);
	CHECK_INT(space_load("tests/spaces/fake_lt_splitk.yaml", &sp), 0);
	CHECK_INT(sp.lt.nsplitk, 3);
	CHECK_INT(sp.lt.splitk[0], 1);
	CHECK_INT(sp.lt.splitk[2], 3);
	CHECK_STR(sp.lt.vary, "cluster,stages");
	CHECK_INT(sp.lt.vary_min_m, 0); /* the variants at every m */
	space_free(&sp);
	CHECK_INT(space_load("tests/spaces/fake_lt_vary_min_m.yaml", &sp), 0);
	CHECK_INT(sp.lt.vary_min_m, 8);
	CHECK_INT(sp.lt.vary_seeds, 0);
	space_free(&sp);
	CHECK_INT(space_load("tests/spaces/fake_lt_vary_seeds.yaml", &sp), 0);
	CHECK_INT(sp.lt.vary_seeds, 2);
	CHECK_INT(sp.lt.vary_steps, 0); /* one step */
	space_free(&sp);
	CHECK_INT(space_load("tests/spaces/fake_lt_vary_steps.yaml", &sp), 0);
	CHECK_INT(sp.lt.vary_steps, 6);
	space_free(&sp);
	CHECK_INT(space_load("search_spaces/tiny.yaml", &sp), 0);
	CHECK_INT(sp.lt.top, 0);        /* no section: no search */
	space_free(&sp);
}

/* shapes alone (no templates): what gemmtab bench --space and probe read */
TEST(shapes_only_space)
{
	struct space sp;
	CHECK_INT(space_load("tests/spaces/diag_samecall.yaml", &sp), 0);
	CHECK_INT(sp.nshapes, 2);
	CHECK_INT(sp.ngrids, 0);
	space_free(&sp);
}

TEST(tiny_space)
{
	struct space sp;
	CHECK_INT(space_load("search_spaces/tiny.yaml", &sp), 0);
	CHECK_STR(sp.path, "search_spaces/tiny.yaml");
	CHECK_INT(sp.nshapes, 2);
	const struct shape *r = find_shape(&sp, "t_router");
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->w, DT_FP32);
		CHECK_INT(r->x, DT_BF16);
		CHECK_INT(r->y, DT_FP32);
		CHECK_NEAR(r->tol, 1e-4, 1e-12);
	}
	CHECK_INT(sp.ngrids, 3);
	CHECK_STR(sp.grids[0].tmpl->stem, "gemv");
	if (sp.ngrids > 2) {
		CHECK_STR(sp.grids[1].tmpl->stem, "mma_skinny");
		CHECK_STR(sp.grids[2].tmpl->stem, "mma_frag");
	}
	/* between them the candidates use every cache policy and split 1, > 1 */
	int cache = tmpl_param_index(sp.grids[0].tmpl, "cache");
	int split = tmpl_param_index(sp.grids[0].tmpl, "split");
	CHECK_INT(sp.grids[0].nvalues[cache], 5);
	int split1 = 0, splitn = 0;
	for (int i = 0; i < sp.grids[0].nvalues[split]; i++) {
		split1 |= sp.grids[0].values[split][i] == 1;
		splitn |= sp.grids[0].values[split][i] > 1;
	}
	CHECK(split1 && splitn);
	long total = 0;
	for (int i = 0; i < sp.nshapes; i++)
		for (int j = 0; j < sp.shapes[i].n_ms; j++)
			total += space_enumerate(&sp, &sp.shapes[i], sp.shapes[i].ms[j], NULL, NULL);
	/* gemv: 6 at m = 1 and 8 at m = 3, for each shape; mma_skinny (bf16
	 * only): 2 token tiles x 2 layouts x (split 1, split 2 partials and
	 * cluster, split 4 atomic) = 16 at each m with mma.sync, the 8
	 * partials and atomic ones again with pdl, and the 4 split 2 clusters
	 * again with wgmma; mma_frag: 2 at each m of each shape (the
	 * space has no dtype constraint: its adapter refuses the router) */
	CHECK_INT(total, 28 + 2 * (16 + 8 + 4) + 8);
	space_free(&sp);
	CHECK(!sp.shapes && !sp.grids && !sp.path);
}

/* The families and loads of docs/workload.md. */
static const struct family {
	const char *name;
	int n, k;
	enum dtype w, y;
	double tol;
} families[] = {
	{ "qkv", 2304, 8192, DT_BF16, DT_BF16, 1e-2 },
	{ "oproj", 8192, 1024, DT_BF16, DT_BF16, 1e-2 },
	{ "pooler", 4096, 8192, DT_BF16, DT_BF16, 1e-2 },
	{ "unpooler", 8192, 4096, DT_BF16, DT_BF16, 1e-2 },
	{ "unpooler_slice", 1024, 4096, DT_BF16, DT_BF16, 1e-2 },
	{ "router", 256, 8192, DT_FP32, DT_FP32, 1e-4 },
};

/* The family serving load m: unpooler_slice replaces unpooler at m <= 8. */
static int serves(const char *family, int m)
{
	if (!strcmp(family, "unpooler_slice"))
		return m <= 8;
	if (!strcmp(family, "unpooler"))
		return m > 8;
	return 1;
}

/* Every family present with docs/workload.md's shape, tuned at exactly the
 * loads of loads[] it serves; neighbours only at Ms it serves. */
static void check_workload(const struct space *sp, const int *loads, int nloads)
{
	CHECK_INT(sp->nshapes, 6);
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct shape *s = find_shape(sp, families[f].name);
		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK_INT(s->n, families[f].n);
		CHECK_INT(s->k, families[f].k);
		CHECK_INT(s->w, families[f].w);
		CHECK_INT(s->x, DT_BF16);
		CHECK_INT(s->y, families[f].y);
		CHECK_NEAR(s->tol, families[f].tol, 1e-12);
		int served = 0;
		for (int i = 0; i < nloads; i++) {
			served += serves(s->family, loads[i]);
			CHECK_INT(has_m(s->ms, s->n_ms, loads[i]), serves(s->family, loads[i]));
		}
		CHECK_INT(s->n_ms, served);
		for (int i = 0; i < s->n_neighbours; i++)
			CHECK(serves(s->family, s->neighbours[i]));
	}
}

TEST(quick_space)
{
	static const int loads[] = { 1, 8, 16, 32 };
	struct space sp;
	CHECK_INT(space_load("search_spaces/quick.yaml", &sp), 0);
	check_workload(&sp, loads, 4);
	CHECK(sp.sweep.retest_pairs >= 100);
	/* a grid sized for one GPU run: every (shape, M) has candidates, none
	 * more than 600 (run 2 in lab/notes.md: 5152 in all, 43 s) */
	for (int i = 0; i < sp.nshapes; i++)
		for (int j = 0; j < sp.shapes[i].n_ms; j++) {
			long n = space_enumerate(&sp, &sp.shapes[i], sp.shapes[i].ms[j], NULL, NULL);
			CHECK(n >= 1 && n <= 600);
		}
	space_free(&sp);
}

TEST(h200_space)
{
	static const int loads[] = { 1, 8, 16, 32, 128, 256 };
	struct space sp;
	CHECK_INT(space_load("search_spaces/h200.yaml", &sp), 0);
	check_workload(&sp, loads, 6);
	CHECK(sp.sweep.retest_pairs >= 100);
	CHECK(sp.sweep.range_pairs >= 100);
	/* every M of 1..512 is a range M of each family serving it, and the
	 * anchors are the loads it serves */
	for (int i = 0; i < sp.nshapes; i++) {
		const struct shape *s = &sp.shapes[i];
		CHECK(shape_is_range(s));
		CHECK_INT(s->n_neighbours, 0);
		for (int m = 1; m <= 512; m++)
			CHECK_INT(m >= s->m_lo && m <= s->m_hi, serves(s->family, m));
		int served = 0;
		for (size_t j = 0; j < sizeof(loads) / sizeof(loads[0]); j++) {
			CHECK_INT(has_m(s->ms, s->n_ms, loads[j]), serves(s->family, loads[j]));
			served += serves(s->family, loads[j]);
		}
		CHECK_INT(s->n_ms, served);
		for (int j = 0; j < s->n_ms; j++)
			CHECK(space_enumerate(&sp, s, s->ms[j], NULL, NULL) >= 1);
	}
	space_free(&sp);
}

/* The contract's 90 points (bench's quick space): the loads and the
 * neighbours each family serves. */
TEST(h200_loads_space)
{
	static const int loads[] = { 1, 8, 16, 32, 128, 256 };
	static const int neighbours[] = { 2, 3, 7, 9, 17, 31, 33, 127, 129, 255, 257, 512 };
	struct space sp;
	int points = 0;
	CHECK_INT(space_load("search_spaces/h200_loads.yaml", &sp), 0);
	check_workload(&sp, loads, 6);
	for (int i = 0; i < sp.nshapes; i++) {
		const struct shape *s = &sp.shapes[i];
		for (size_t j = 0; j < sizeof(neighbours) / sizeof(neighbours[0]); j++)
			CHECK_INT(has_m(s->neighbours, s->n_neighbours, neighbours[j]),
				  serves(s->family, neighbours[j]));
		points += s->n_ms + s->n_neighbours;
	}
	CHECK_INT(points, 90);
	space_free(&sp);
}

struct visits {
	int n;
	char keys[64][128];
	int reasons_match;
	int m_seen;
};

static void record(void *ctx, const struct shape *s, int m, const struct candidate *c,
		   const char *reason)
{
	struct visits *v = ctx;
	const char *want = c->tmpl->check ? c->tmpl->check(s, c->params) : NULL;
	if (!(want == reason || (want && reason && !strcmp(want, reason))))
		v->reasons_match = 0;
	v->m_seen = m;
	if (v->n < 64)
		candidate_key(c, v->keys[v->n], sizeof(v->keys[0]));
	v->n++;
}

TEST(enumerate_order)
{
	static const char *const want[] = {
		"warps=2,rows=1,tokens=1,unroll=1,split=1,cache=cg",
		"warps=2,rows=1,tokens=1,unroll=1,split=1,cache=default",
		"warps=2,rows=1,tokens=1,unroll=1,split=8,cache=default",
		"warps=2,rows=1,tokens=1,unroll=1,split=2,cache=default",
		"warps=1,rows=1,tokens=1,unroll=1,split=1,cache=cg",
		"warps=1,rows=1,tokens=1,unroll=1,split=1,cache=default",
		"warps=1,rows=1,tokens=1,unroll=1,split=8,cache=default",
		"warps=1,rows=1,tokens=1,unroll=1,split=2,cache=default",
		"mode=hang",
		"mode=ok",
	};
	struct space sp;
	struct visits v = { .reasons_match = 1 };
	CHECK_INT(space_load("tests/spaces/ok/enum.yaml", &sp), 0);
	CHECK_INT(sp.sweep.retest_pairs, 150);
	CHECK_INT(sp.sweep.screen_pairs, 10);   /* defaults where not given */
	CHECK_INT(sp.sweep.retest_top, 3);
	CHECK_NEAR(sp.sweep.deadline_s, 20.0, 0);
	CHECK_INT(sp.ngrids, 2);
	CHECK_INT(sp.grids[0].nconstraints, 4);
	CHECK_STR(sp.grids[0].constraint_text[1], "cache != cg || split == 1");
	const struct shape *b = find_shape(&sp, "e_bf16");
	CHECK(b && b->n_neighbours == 2 && b->neighbours[1] == 5);

	CHECK_INT(space_enumerate(&sp, b, 1, record, &v), 10);
	CHECK_INT(v.n, 10);
	for (int i = 0; i < 10 && i < v.n; i++)
		CHECK_STR(v.keys[i], want[i]);
	CHECK(v.reasons_match);
	CHECK_INT(v.m_seen, 1);

	/* m = 4 lets tokens 2 through: after each tokens=1 group, in order */
	memset(&v, 0, sizeof(v));
	v.reasons_match = 1;
	CHECK_INT(space_enumerate(&sp, b, 4, record, &v), 18);
	CHECK_STR(v.keys[4], "warps=2,rows=1,tokens=2,unroll=1,split=1,cache=cg");
	CHECK_STR(v.keys[15], "warps=1,rows=1,tokens=2,unroll=1,split=2,cache=default");
	CHECK(v.reasons_match);
	CHECK_INT(v.m_seen, 4);

	/* fp32 outputs (y_bytes 4) keep warps = 1 only */
	memset(&v, 0, sizeof(v));
	CHECK_INT(space_enumerate(&sp, find_shape(&sp, "e_fp32"), 1, record, &v), 6);
	CHECK_STR(v.keys[0], "warps=1,rows=1,tokens=1,unroll=1,split=1,cache=cg");
	CHECK_STR(v.keys[4], "mode=hang");
	space_free(&sp);
}

TEST(styles)
{
	struct space sp;
	CHECK_INT(space_load("tests/spaces/ok/styles.yaml", &sp), 0);
	CHECK_INT(sp.sweep.screen_pairs, 10);
	CHECK_INT(sp.sweep.retest_pairs, 100);
	CHECK_INT(sp.nshapes, 1);
	CHECK_STR(sp.shapes[0].family, "s_one");
	CHECK_INT(sp.shapes[0].n_ms, 2);
	CHECK_INT(sp.shapes[0].ms[0], 8);       /* file order */
	CHECK_NEAR(sp.shapes[0].tol, 0.01, 1e-15);
	CHECK_INT(sp.grids[0].nconstraints, 2);
	CHECK_STR(sp.grids[0].constraint_text[0], "tokens <= m");
	CHECK_STR(sp.grids[0].constraint_text[1], "cache == nc_na || tokens == 1");
	int cache = tmpl_param_index(sp.grids[0].tmpl, "cache");
	CHECK_INT(sp.grids[0].values[cache][0], 2);     /* nc_na's index */
	CHECK_INT(sp.grids[0].values[cache][1], 4);
	CHECK_INT(space_enumerate(&sp, &sp.shapes[0], 8, NULL, NULL), 3);
	CHECK_INT(space_enumerate(&sp, &sp.shapes[0], 1, NULL, NULL), 2);
	space_free(&sp);
}

/* ---- expressions ---- */

static const struct expr_name test_names[] = {
	{ "a", 0, 0 }, { "b", 1, 0 }, { "seven", -1, 7 }, { "a", -1, 99 },
};

/* Parse and evaluate text with a, b; returns expr_eval's result. */
static int eval_text(const char *text, long a, long b, long *out)
{
	struct expr_error err;
	long slots[2] = { a, b };
	struct expr *e = expr_parse(text, test_names, 4, &err);
	CHECK(e != NULL);
	if (!e) {
		fprintf(stderr, "  '%s': %s at %d\n", text, err.msg, err.offset);
		return -2;
	}
	int r = expr_eval(e, slots, out);
	expr_free(e);
	return r;
}

TEST(expr_values)
{
	static const struct { const char *text; long want; } cases[] = {
		{ "1 + 2 * 3", 7 }, { "(1 + 2) * 3", 9 }, { "10 - 4 - 3", 3 },
		{ "100 / 10 / 5", 2 }, { "-7 / 2", -3 }, { "-7 % 3", -1 }, { "7 % -3", 1 },
		{ "!0", 1 }, { "!5", 0 }, { "- -4", 4 }, { "-(2 + 3)", -5 }, { "!!7", 1 },
		{ "2 < 3 == 1", 1 }, { "3 > 2 > 1", 0 }, { "1 || 0 && 0", 1 },
		{ "(1 || 0) && 0", 0 }, { "1 <= 1 && 2 >= 3", 0 }, { "1 != 2", 1 },
		{ "2 && 3", 1 }, { "0 || 0", 0 }, { "a * b + seven", 6 * 5 + 7 },
		{ "a-b", 1 }, { "a==6&&b!=4", 1 }, { "0010", 10 },
		{ "  a  ", 6 }, { "2147483647 * 2", 4294967294L },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long v = -12345;
		CHECK_INT(eval_text(cases[i].text, 6, 5, &v), 0);
		if (v != cases[i].want)
			fprintf(stderr, "  '%s'\n", cases[i].text);
		CHECK_INT(v, cases[i].want);
	}
}

TEST(expr_undefined)
{
	long v = 0;
	/* division and modulo by zero, overflow: undefined, not a crash */
	CHECK_INT(eval_text("1 / 0", 0, 0, &v), -1);
	CHECK_INT(eval_text("a % b", 3, 0, &v), -1);
	CHECK_INT(eval_text("1 / 0 || 1", 0, 0, &v), -1);
	CHECK_INT(eval_text("2147483647 * 2147483647 * 2147483647", 0, 0, &v), -1);
	CHECK_INT(eval_text("-a", LONG_MIN, 0, &v), -1);
	CHECK_INT(eval_text("a / -1", LONG_MIN, 0, &v), -1);
	CHECK_INT(eval_text("a + 1", LONG_MAX, 0, &v), -1);
	CHECK_INT(eval_text("a - 1", LONG_MIN, 0, &v), -1);
	/* short-circuit, as in C: the undefined branch is never evaluated */
	CHECK_INT(eval_text("0 && 1 / 0", 0, 0, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(eval_text("b == 0 || a % b == 0", 7, 0, &v), 0);
	CHECK_INT(v, 1);
}

TEST(expr_errors)
{
	static const struct { const char *text; int offset; const char *msg; } cases[] = {
		{ "", 0, "empty expression" },
		{ "   ", 3, "empty expression" },
		{ "1 +", 3, "expected a number, a name or '(', found end of expression" },
		{ "(1", 2, "expected ')' to close the '(' at character 1, found end of expression" },
		{ "a = 1", 2, "'=' is not an operator (use '==')" },
		{ "a & b", 2, "'&' is not an operator (use '&&')" },
		{ "a | b", 2, "'|' is not an operator (use '||')" },
		{ "foo + 1", 0, "unknown identifier 'foo'" },
		{ "a + ab", 4, "unknown identifier 'ab'" },
		{ "1 2", 2, "expected an operator or end of expression, found '2'" },
		{ "a $ b", 2, "expected an operator or end of expression, found '$'" },
		{ "2147483648", 0, "integer literal too large (at most 2147483647)" },
		{ "12abc", 2, "bad integer literal (decimal digits only)" },
		{ "a <= = b", 5, "expected a number, a name or '(', found '='" },
		{ "a != != b", 5, "expected a number, a name or '(', found '!'" },
		{ "(a))", 3, "expected an operator or end of expression, found ')'" },
		{ "* a", 0, "expected a number, a name or '(', found '*'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct expr_error err = { -1, "" };
		struct expr *e = expr_parse(cases[i].text, test_names, 4, &err);
		CHECK(e == NULL);
		expr_free(e);
		CHECK_INT(err.offset, cases[i].offset);
		CHECK_STR(err.msg, cases[i].msg);
	}
}

TEST(expr_limits)
{
	struct expr_error err;
	char text[2048];
	/* nesting: 100 parentheses deep is refused, not a stack overflow */
	memset(text, '(', 100);
	strcpy(text + 100, "1");
	CHECK(expr_parse(text, test_names, 4, &err) == NULL);
	CHECK_STR(err.msg, "expression nested deeper than 64 levels");
	/* 300 terms exceed the node budget */
	size_t len = 0;
	for (int i = 0; i < 300; i++)
		len += (size_t)sprintf(text + len, "%s1", i ? "+" : "");
	CHECK(expr_parse(text, test_names, 4, &err) == NULL);
	CHECK_STR(err.msg, "expression has more than 256 terms");
	/* 1025 characters */
	memset(text, ' ', 1024);
	strcpy(text + 1024, "1");
	CHECK(expr_parse(text, test_names, 4, &err) == NULL);
	CHECK_INT(err.offset, 1024);
	CHECK_STR(err.msg, "expression longer than 1024 characters");
}

TESTS(T(bad_fixtures), T(missing_file), T(shapes_only_space), T(cublaslt_section), T(huge_file), T(too_many_items),
      T(tiny_space), T(quick_space), T(h200_space), T(h200_loads_space), T(enumerate_order), T(styles),
      T(expr_values), T(expr_undefined), T(expr_errors), T(expr_limits))
