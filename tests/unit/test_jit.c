/*
 * test_jit.c: the NVRTC compile service for real, on the CPU: a handful of
 * gemv instantiations and a planted one compile for sm_90a into a fresh
 * cache; a second call finds them all cached; an illegal instantiation
 * fails alone with a message while its batch neighbours compile; a missed
 * deadline fails its batch. The template text is the one embedded in the
 * build (tuner/jit/sources.c), as in gemmtab itself.
 */
#include "check.h"
#include "jit_test.h"
#include "workload.h"

#include <dirent.h>

/* Files in the cache's subdirectory sub. */
static int count_files(const char *sub)
{
	char *path = xasprintf("%s/%s", cache_dir, sub);
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d)); )
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	free(path);
	return n;
}

/* The file at path is an ELF image (a cubin). */
static int is_elf(const char *path)
{
	size_t len = 0;
	char *bytes = read_file(path, &len);
	int elf = bytes && len > 4 && !memcmp(bytes, "\177ELF", 4);
	free(bytes);
	return elf;
}

static int last_done, last_total, calls;

static void progress(void *ctx, int done, int total)
{
	(void)ctx;
	CHECK(done >= last_done);
	last_done = done;
	last_total = total;
	calls++;
}

TEST(version_and_flags)
{
	const char *v = jit_nvrtc_version();
	CHECK(strchr(v, '.') != NULL);
	CHECK(atoi(v) >= 12);
	struct jit_options o = { .arch = "sm_90a" };
	char flags[JIT_FLAGS_MAX];
	CHECK_STR(jit_flags(&o, flags, sizeof(flags)),
		  "--gpu-architecture=sm_90a --std=c++17 -default-device --ptxas-options=-v");
}

TEST(compiles_then_finds_cached)
{
	struct jit_options o = jit_test_options("jit", 2);
	struct jit_item items[16];
	int n = 0;
	const long a[] = { 4, 1, 1, 8, 1, 2 }, b[] = { 8, 2, 1, 4, 1, 0 };
	const long c[] = { 4, 2, 4, 4, 2, 3 }, d[] = { 4, 2, 8, 4, 4, 4 };
	const long ok[] = { 0 };
	n = add_candidate(items, n, "gemv", &qkv, a);
	n = add_candidate(items, n, "gemv", &qkv, b);
	n = add_candidate(items, n, "gemv", &qkv, c);        /* + reduce<bf16> */
	n = add_candidate(items, n, "gemv", &router, d);     /* + reduce<float> */
	n = add_candidate(items, n, "gemv", &qkv, a);        /* a repeat */
	n = add_candidate(items, n, "planted", &qkv, ok);
	CHECK_INT(n, 8);

	last_done = calls = 0;
	CHECK_INT(jit_compile_all(&o, items, n, progress, NULL), 0);
	CHECK(calls > 0);
	CHECK_INT(last_done, n);
	CHECK_INT(last_total, n);
	struct jit_item first[16];
	for (int i = 0; i < n; i++) {
		CHECK_INT(items[i].ok, 1);
		CHECK_INT(items[i].cached, 0);
		CHECK_STR(items[i].error, "");
		CHECK(is_elf(items[i].cubin));
		CHECK(!strncmp(items[i].lowered, "_Z", 2));
		CHECK(items[i].regs > 0 && items[i].regs <= 255);
		CHECK_INT(items[i].local_bytes, 0);   /* none of these spills */
		CHECK(items[i].smem_bytes >= 0);
		if (!items[i].ok)
			fprintf(stderr, "  %s: %s\n", items[i].name, items[i].error);
		first[i] = items[i];
	}
	CHECK_STR(items[7].lowered, "_Z14planted_kernelI13__nv_bfloat16S0_Li0EEvPKT_PKS0_PT0_Pfiii");
	CHECK_STR(items[6].lowered, items[0].lowered);
	/* 4 warps add their partial sums through shared memory */
	CHECK(items[2].smem_bytes > 0);
	/* 7 distinct names: 6 gemv in batches of 4 (2 cubins) and 1 planted */
	CHECK_INT(count_files("i"), 7);
	CHECK_INT(count_files("b"), 3);

	CHECK_INT(jit_compile_all(&o, items, n, NULL, NULL), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(items[i].ok, 1);
		CHECK_INT(items[i].cached, 1);
		CHECK_STR(items[i].cubin, first[i].cubin);
		CHECK_STR(items[i].lowered, first[i].lowered);
		CHECK_INT(items[i].regs, first[i].regs);
		CHECK_INT(items[i].local_bytes, first[i].local_bytes);
		CHECK_INT(items[i].smem_bytes, first[i].smem_bytes);
	}
	remove_cache();

	/* batching depends on the set of names, not on their order */
	struct jit_item reversed[16];
	for (int i = 0; i < n; i++) {
		reversed[i] = first[n - 1 - i];
		reversed[i].ok = 0;
	}
	o = jit_test_options("jit", 2);
	CHECK_INT(jit_compile_all(&o, reversed, n, NULL, NULL), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(reversed[i].ok, 1);
		CHECK_STR(strrchr(reversed[i].cubin, '/'), strrchr(first[n - 1 - i].cubin, '/'));
	}
	remove_cache();
}

TEST(illegal_candidate_fails_alone)
{
	struct jit_options o = jit_test_options("jit", 2);
	o.batch = 8;
	struct jit_item items[8];
	int n = 0;
	const long a[] = { 4, 1, 1, 8, 1, 0 }, b[] = { 4, 1, 2, 8, 1, 1 };
	n = add_candidate(items, n, "gemv", &qkv, a);
	n = add_candidate(items, n, "gemv", &qkv, b);
	/* cache 9 trips a static_assert; a junk expression does not parse */
	n = add_item(items, n, "templates/gemv.cuh",
		     "gemv_kernel<__nv_bfloat16, __nv_bfloat16, 4, 1, 1, 8, 1, 9>");
	n = add_item(items, n, "templates/gemv.cuh", "gemv_kernel<no_such_type>");
	n = add_item(items, n, "templates/none.cuh", "x<1>");

	CHECK_INT(jit_compile_all(&o, items, n, NULL, NULL), 0);
	CHECK_INT(items[0].ok, 1);
	CHECK_INT(items[1].ok, 1);
	CHECK(items[0].regs > 0);
	for (int i = 2; i < 4; i++) {
		CHECK_INT(items[i].ok, 0);
		CHECK(strstr(items[i].error, "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION") != NULL);
		CHECK(strstr(items[i].error, "error") != NULL);
		CHECK_STR(items[i].lowered, "");
	}
	CHECK(strstr(items[2].error, "cache must be in [0, 4]") != NULL);
	CHECK_INT(items[4].ok, 0);
	CHECK_STR(items[4].error, "no embedded source templates/none.cuh");
	remove_cache();
}

TEST(deadline_fails_the_batch)
{
	struct jit_options o = jit_test_options("jit", 2);
	o.deadline_s = 0.001;
	struct jit_item items[2];
	int n = 0;
	const long a[] = { 4, 1, 1, 8, 1, 0 };
	n = add_candidate(items, n, "gemv", &qkv, a);
	CHECK_INT(jit_compile_all(&o, items, n, NULL, NULL), 0);
	CHECK_INT(items[0].ok, 0);
	CHECK(strstr(items[0].error, "compile deadline passed") != NULL);
	remove_cache();
}

TESTS(T(version_and_flags), T(compiles_then_finds_cached), T(illegal_candidate_fails_alone),
      T(deadline_fails_the_batch))
