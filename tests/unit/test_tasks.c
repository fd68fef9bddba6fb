/*
 * test_tasks.c: a search space flattened into tasks and compiled only
 * where asked (tuner/jit/tasks.c): search_spaces/tiny.yaml's tasks, their
 * distinct instantiations, a compile of the first shape's tasks alone
 * (the second shape's items stay untouched, as a resumed sweep leaves
 * what it will not run), then tasks_ensure_compiled for a task of the
 * second shape. Real NVRTC for sm_90a on the CPU, into a fresh cache.
 * Run from the repository root.
 */
#include "check.h"
#include "jit_test.h"
#include "tasks.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct space sp;
static struct tasklist tl;
static struct jit_options opts;

static void setup(void)
{
	opts = jit_test_options("tasks", 2);
	CHECK_INT(space_load("search_spaces/tiny.yaml", &sp), 0);
	CHECK_INT(tasks_build(&sp, NULL, &tl), 0);
}

/* How many items of shape si's tasks have been tried. */
static int tried_of_shape(int si)
{
	int n = 0;
	for (int i = 0; i < tl.nitems; i++) {
		int mine = 0;
		for (int t = 0; t < tl.n && !mine; t++)
			for (int j = 0; j < tl.t[t].nk; j++)
				mine |= tl.t[t].shape == si && tl.t[t].item[j] == i;
		n += mine && tl.tried && tl.tried[i];
	}
	return n;
}

TEST(tasks_and_items)
{
	CHECK(sp.nshapes >= 2);
	CHECK(tl.n > 0);
	CHECK(tl.nitems > 0 && tl.nitems <= tl.n * TMPL_MAX_KERNELS);
	/* items are distinct and every task's item index is in range */
	for (int i = 1; i < tl.nitems; i++)
		CHECK(strcmp(tl.items[i - 1].name, tl.items[i].name) ||
		      strcmp(tl.items[i - 1].source_name, tl.items[i].source_name));
	for (int t = 0; t < tl.n; t++)
		for (int j = 0; j < tl.t[t].nk; j++)
			CHECK(tl.t[t].item[j] >= 0 && tl.t[t].item[j] < tl.nitems);
}

TEST(compile_only_what_is_asked)
{
	char *want = xcalloc((size_t)tl.n, 1);
	int other = -1;
	for (int t = 0; t < tl.n; t++) {
		want[t] = tl.t[t].shape == 0;
		if (tl.t[t].shape == 1 && other < 0)
			other = t;
	}
	CHECK_INT(tasks_compile(&tl, &opts, 1, want), 0);
	free(want);
	CHECK(tried_of_shape(0) > 0);
	/* the second shape (fp32 weights: other instantiations) is untouched */
	CHECK_INT(tried_of_shape(1), 0);
	CHECK(other >= 0);
	if (other < 0)
		return;
	CHECK_INT(tasks_ensure_compiled(&tl, &opts, other), 0);
	for (int j = 0; j < tl.t[other].nk; j++) {
		const struct jit_item *it = &tl.items[tl.t[other].item[j]];
		CHECK(it->ok);
		CHECK(access(it->cubin, R_OK) == 0);
	}
	CHECK(tried_of_shape(1) >= tl.t[other].nk);
	/* a second call has nothing left to do for that task: with the cache
	 * gone, it compiles nothing (a compile would make the cache again) */
	remove_cache();
	CHECK_INT(tasks_ensure_compiled(&tl, &opts, other), 0);
	CHECK(access(opts.cache_dir, F_OK) != 0);
}

static void teardown(void)
{
	remove_cache();
	tasks_free(&tl);
	space_free(&sp);
}

TEST(setup_case) { setup(); }
TEST(teardown_case) { teardown(); }

TESTS(T(setup_case), T(tasks_and_items), T(compile_only_what_is_asked), T(teardown_case))
