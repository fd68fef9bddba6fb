/*
 * test_runtime_untuned.c: the runtime's untuned-shape records (untuned.c)
 * without a GPU: the M buckets, the switch, counting as gt_linear counts,
 * a destroyed weight's counts kept, gt_stats' rows and gt_untuned_write's
 * fragment (which tests/cli/t_untuned.sh sweeps beside a base space).
 */
#include "check.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *gt_table_description(void)
{
	return "the test's table";
}

static struct shape qkv, router;

static void shapes(void)
{
	rt_shape_init(&qkv, 2304, 8192, GT_BF16, GT_BF16, GT_BF16);
	rt_shape_init(&router, 256, 8192, GT_FP32, GT_BF16, GT_FP32);
}

TEST(buckets_cover_every_m_once_in_order)
{
	int prev_hi = 0;
	for (int b = 0; b < RT_UNTUNED_BUCKETS; b++) {
		int lo, hi;
		rt_untuned_bounds(b, &lo, &hi);
		CHECK_INT(lo, prev_hi + 1);     /* contiguous, no gap, no overlap */
		CHECK(hi >= lo);
		CHECK_INT(rt_untuned_bucket(lo), b);
		CHECK_INT(rt_untuned_bucket(hi), b);
		prev_hi = hi;
	}
	CHECK_INT(prev_hi, 0x7fffffff);         /* the last bucket ends at INT_MAX */
	CHECK_INT(rt_untuned_bucket(64), 63);
	CHECK_INT(rt_untuned_bucket(65), 64);
	CHECK_INT(rt_untuned_bucket(72), 64);
	CHECK_INT(rt_untuned_bucket(512), 119);
	CHECK_INT(rt_untuned_bucket(513), 120);
	CHECK_INT(rt_untuned_bucket(1024), 120);
	CHECK_INT(rt_untuned_bucket(1025), 121);
}

TEST(off_records_nothing)
{
	shapes();
	CHECK_INT(gt_record_untuned(2), GT_ERR_INVALID);
	CHECK_INT(gt_record_untuned(0), GT_OK);
	CHECK(rt_untuned_open(&qkv) == NULL);   /* no storage, no counts */
	rt_untuned_count(NULL, RT_WHY_NO_ENTRY, 3);
	int n = -1;
	CHECK_INT(gt_stats(NULL, 0, &n), GT_OK);
	CHECK_INT(n, 0);
}

static unsigned long row_total(const gt_stat *s)
{
	return s->no_entry + s->unusable + s->misaligned + s->refused;
}

TEST(counts_per_shape_and_bucket_survive_destroy)
{
	shapes();
	CHECK_INT(gt_record_untuned(1), GT_OK);
	struct rt_untuned *a = rt_untuned_open(&qkv), *b = rt_untuned_open(&qkv);
	struct rt_untuned *r = rt_untuned_open(&router);
	CHECK(a && b && r);
	for (int i = 0; i < 5; i++)
		rt_untuned_count(a, RT_WHY_NO_ENTRY, 3);
	rt_untuned_count(b, RT_WHY_NO_ENTRY, 3);
	rt_untuned_count(b, RT_WHY_MISALIGNED, 3);
	rt_untuned_count(a, RT_WHY_UNUSABLE, 70);     /* bucket 65..72 */
	rt_untuned_count(a, RT_WHY_UNUSABLE, 65);
	rt_untuned_count(r, RT_WHY_REFUSED, 600);     /* bucket 513..1024 */
	rt_untuned_close(a);                          /* a's counts stay */
	rt_untuned_close(b);                          /* folded into a's */

	gt_stat st[8];
	int n = -1;
	CHECK_INT(gt_stats(st, 8, &n), GT_OK);
	CHECK_INT(n, 3);
	int seen = 0;
	for (int i = 0; i < n && i < 8; i++) {
		if (st[i].n == 2304 && st[i].m_lo == 3) {
			CHECK_INT(st[i].m_hi, 3);
			CHECK_INT((long)st[i].no_entry, 6);
			CHECK_INT((long)st[i].misaligned, 1);
			CHECK_INT((int)st[i].w, GT_BF16);
			seen |= 1;
		} else if (st[i].n == 2304 && st[i].m_lo == 65) {
			CHECK_INT(st[i].m_hi, 72);
			CHECK_INT((long)st[i].unusable, 2);
			CHECK_INT((long)row_total(&st[i]), 2);
			seen |= 2;
		} else if (st[i].n == 256) {
			CHECK_INT(st[i].m_lo, 513);
			CHECK_INT(st[i].m_hi, 1024);
			CHECK_INT((long)st[i].refused, 1);
			CHECK_INT((int)st[i].w, GT_FP32);
			CHECK_INT((int)st[i].y, GT_FP32);
			seen |= 4;
		}
	}
	CHECK_INT(seen, 7);
	/* cap below the rows: the count is still every row */
	n = -1;
	CHECK_INT(gt_stats(st, 1, &n), GT_OK);
	CHECK_INT(n, 3);
	CHECK_INT(gt_stats(NULL, 1, &n), GT_ERR_INVALID);
	CHECK_INT(gt_stats(st, 1, NULL), GT_ERR_INVALID);

	/* the fragment: qkv as a range over its untuned buckets, the router's
	 * refused bucket as its own range; misaligned only noted */
	char path[] = "/tmp/gemmtab-untuned-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(gt_untuned_write(path), GT_OK);
	FILE *f = fopen(path, "r");
	char buf[4096] = { 0 };
	size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(got > 0);
	CHECK(strstr(buf, "the test's table") != NULL);
	CHECK(strstr(buf, "\nshapes:\n") != NULL);
	CHECK(strstr(buf, "  - {family: n2304_k8192_bf16, n: 2304, k: 8192, w: bf16, x: bf16, "
			  "y: bf16, tol: 1e-2,\n     m: 3..72}") != NULL);
	CHECK(strstr(buf, "  - {family: n256_k8192_fp32, n: 256, k: 8192, w: fp32, x: bf16, "
			  "y: fp32, tol: 1e-4,\n     m: 513..1024}") != NULL);
	CHECK(strstr(buf, "6 calls with no entry, 2 whose entry this GPU cannot run, 1 with x "
			  "or y not 16-byte aligned") != NULL);
	unlink(path);
	CHECK_INT(gt_untuned_write("/nonexistent-dir/x.yaml"), GT_ERR_INVALID);
	CHECK_INT(gt_untuned_write(NULL), GT_ERR_INVALID);
	rt_untuned_close(r);
}

TEST(records_say_why_entries_are_off)
{
	struct shape s;
	rt_shape_init(&s, 8192, 1024, GT_BF16, GT_BF16, GT_BF16);
	struct rt_untuned *u = rt_untuned_open(&s), *v = rt_untuned_open(&s);
	CHECK(u != NULL && v != NULL);
	rt_untuned_note_off(u, "entry 2 (blas_lt, m 8-33): a cuBLASLt algorithm chosen under "
			    "cuBLASLt 13.1.0, this process runs cuBLASLt 13.2.0");
	rt_untuned_note_off(u, "entry 2 (blas_lt, m 8-33): a cuBLASLt algorithm chosen under "
			    "cuBLASLt 13.1.0, this process runs cuBLASLt 13.2.0");   /* once */
	rt_untuned_note_off(v, "entry 0 (blas_lt, m 1-1): cuBLASLt refused");
	rt_untuned_close(v);            /* its note folds into the shape's slot */
	char path[] = "/tmp/gemmtab-untuned-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	CHECK_INT(gt_untuned_write(path), GT_OK);
	FILE *f = fopen(path, "r");
	char buf[8192] = { 0 };
	size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(got > 0);
	const char *off = "  # off: entry 2 (blas_lt, m 8-33): a cuBLASLt algorithm chosen under "
			  "cuBLASLt 13.1.0, this process runs cuBLASLt 13.2.0\n";
	const char *at = strstr(buf, off);
	CHECK(at != NULL);
	CHECK(at && strstr(at + 1, off) == NULL);
	CHECK(strstr(buf, "  # off: entry 0 (blas_lt, m 1-1): cuBLASLt refused\n") != NULL);
	unlink(path);
	rt_untuned_close(u);
}

TEST(a_list_when_every_m_is_its_own_bucket)
{
	struct shape s;
	rt_shape_init(&s, 4096, 1024, GT_BF16, GT_BF16, GT_BF16);
	struct rt_untuned *u = rt_untuned_open(&s);
	CHECK(u != NULL);
	rt_untuned_count(u, RT_WHY_NO_ENTRY, 5);
	rt_untuned_count(u, RT_WHY_NO_ENTRY, 17);
	rt_untuned_count(u, RT_WHY_MISALIGNED, 40);   /* not tuning's: not listed */
	char path[] = "/tmp/gemmtab-untuned-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	CHECK_INT(gt_untuned_write(path), GT_OK);
	FILE *f = fopen(path, "r");
	char buf[8192] = { 0 };
	size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(got > 0);
	CHECK(strstr(buf, "n: 4096, k: 1024, w: bf16, x: bf16, y: bf16, tol: 1e-2,\n     m: [5, 17]}") != NULL);
	unlink(path);
	/* tests/cli/t_untuned.sh sweeps this fragment beside a base space */
	const char *keep = getenv("UNTUNED_FRAGMENT");
	if (keep)
		CHECK_INT(gt_untuned_write(keep), GT_OK);
	rt_untuned_close(u);
}

TESTS(T(buckets_cover_every_m_once_in_order), T(off_records_nothing),
      T(counts_per_shape_and_bucket_survive_destroy), T(records_say_why_entries_are_off),
      T(a_list_when_every_m_is_its_own_bucket))
