/*
 * test_sass.c: a kernel's code hash (tuner/jit/sass.h) and the code key of a
 * candidate (tuner/jit/codekey.h), for real on the CPU: the same kernel
 * compiled alone and among other kernels (cluster kernels, whose programs
 * reserve shared memory for every kernel) hashes the same; different
 * kernels hash differently; a cubin that is not one, or lacks the kernel,
 * is refused with the reason; the key follows the kernels' code and the
 * plan, not the template's text.
 */
#include "check.h"
#include "codekey.h"
#include "jit_test.h"
#include "sass.h"
#include "workload.h"

static const char *const names[] = {
	"mma_zero_f32",
	"mma_splitk_reduce",
	"mma_skinny_kernel<64, 8, 64, 4, 3, 2, 1, 0, 0, 0, 0>",
	"mma_skinny_cluster_kernel<64, 8, 64, 4, 3, 2, 1, 0, 0, 0>",
	"mma_skinny_cluster_kernel<64, 16, 64, 4, 3, 2, 1, 1, 1, 0>",
};
#define NNAMES ((int)(sizeof(names) / sizeof(names[0])))

/* Compile names[] in batches of `batch` into a new cache; their hashes. */
static void hashes(int batch, char out[][17])
{
	struct jit_options o = jit_test_options("sass", 2);
	struct jit_item items[NNAMES];
	char why[512];
	o.batch = batch;
	for (int i = 0; i < NNAMES; i++)
		add_item(items, i, "templates/mma_skinny.cuh", names[i]);
	CHECK(jit_compile_all(&o, items, NNAMES, NULL, NULL) == 0);
	for (int i = 0; i < NNAMES; i++) {
		const char *h = items[i].ok ? jit_item_code(&items[i], why, sizeof(why)) : NULL;
		if (!h)
			fprintf(stderr, "  %s: %s\n", names[i], items[i].ok ? why : items[i].error);
		CHECK(h != NULL);
		snprintf(out[i], 17, "%s", h ? h : "");
	}
	remove_cache();
}

TEST(batch_mates_do_not_change_the_hash)
{
	char alone[NNAMES][17], together[NNAMES][17];
	hashes(1, alone);
	hashes(NNAMES, together);
	for (int i = 0; i < NNAMES; i++) {
		CHECK_INT(strlen(alone[i]), 16);
		if (strcmp(alone[i], together[i]))
			fprintf(stderr, "  %s: alone %s, among others %s\n", names[i], alone[i], together[i]);
		CHECK_STR(alone[i], together[i]);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(alone[i], alone[j]) != 0);
	}
}

TEST(bad_cubins_are_refused)
{
	char hex[17], why[256];
	CHECK(sass_kernel_hash_mem("not an elf", 10, "k", hex, why, sizeof(why)) == -1);
	CHECK(strstr(why, "not a 64-bit") != NULL);
	unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1 };
	CHECK(sass_kernel_hash_mem(elf, sizeof(elf), "k", hex, why, sizeof(why)) == -1);
	CHECK(sass_kernel_hash("/nonexistent.cubin", "k", hex, why, sizeof(why)) == -1);
	CHECK(strstr(why, "/nonexistent.cubin") != NULL);
}

TEST(missing_kernel_is_named)
{
	struct jit_options o = jit_test_options("sass", 1);
	struct jit_item it;
	char hex[17], why[512];
	add_item(&it, 0, "templates/mma_skinny.cuh", "mma_zero_f32");
	CHECK(jit_compile_all(&o, &it, 1, NULL, NULL) == 0);
	CHECK(it.ok);
	CHECK(sass_kernel_hash(it.cubin, "_Z5nosuchv", hex, why, sizeof(why)) == -1);
	CHECK(strstr(why, "no section .text._Z5nosuchv") != NULL);
	remove_cache();
}

TEST(key_follows_code_and_plan)
{
	const struct tmpl *t = tmpl_find("gemv");
	struct shape s = { .n = 256, .k = 1024, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16 };
	struct shape wide = s;
	wide.n = 512;
	long p[MAX_PARAMS] = { 0 };
	char a[17], b[17], c[17], d[17];
	const char code1[1][17] = { "0123456789abcdef" }, code2[1][17] = { "0123456789abcdee" };
	CHECK(t != NULL);
	if (!t)
		return;
	/* the first legal point of the template's grid */
	for (int i = 0; i < t->nparams; i++)
		p[i] = t->params[i].min;
	for (p[0] = t->params[0].min; t->check(&s, p) && p[0] < t->params[0].max; p[0]++)
		;
	code_key(t, p, &s, code1, 1, a);
	code_key(t, p, &s, code1, 1, b);
	code_key(t, p, &s, code2, 1, c);
	code_key(t, p, &wide, code1, 1, d);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);       /* another instruction */
	CHECK(strcmp(a, d) != 0);       /* another grid */
}

TESTS(T(batch_mates_do_not_change_the_hash), T(bad_cubins_are_refused),
      T(missing_kernel_is_named), T(key_follows_code_and_plan))
