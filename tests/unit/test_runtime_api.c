/*
 * test_runtime_api.c: libgemmtab's public API without a GPU: every bad
 * argument returns its status before the library touches the device or
 * the handle (fake handles that would crash if dereferenced prove it),
 * every status has its message, and on a machine without a usable GPU
 * gt_context_create fails cleanly with GT_ERR_CUDA. Links
 * build/lib/libgemmtab.a as an application would.
 */
#include "check.h"
#include "gemmtab.h"

#include <stdint.h>
#include <string.h>

/*
 * Handles and device pointers that must never be dereferenced: an
 * unmapped address, so a library that touched one before checking the
 * other arguments would crash the test. Aligned for every element type.
 */
#define BOGUS_ADDR ((uintptr_t)0x10000000000ULL)
static gt_context *const fake_ctx = (gt_context *)BOGUS_ADDR;
static gt_weight *const fake_wt = (gt_weight *)(BOGUS_ADDR + 0x1000);
static const void *const fake_w = (const void *)(BOGUS_ADDR + 0x2000);
static const void *const fake_x = (const void *)(BOGUS_ADDR + 0x3000);
static void *const fake_y = (void *)(BOGUS_ADDR + 0x4000);

/* The qkv and router families of docs/workload.md. */
#define QKV_N 2304
#define QKV_K 8192
#define ROUTER_N 256

static gt_weight *const untouched = (gt_weight *)(BOGUS_ADDR + 0x5000);

/* prepare with the given arguments; *out must be left as it was */
static int prepare(gt_context *ctx, const void *w, int n, int k, int wd, int xd, int yd)
{
	gt_weight *out = untouched;
	int rc = gt_weight_prepare(ctx, w, n, k, (gt_dtype)wd, (gt_dtype)xd, (gt_dtype)yd, &out);
	CHECK(out == untouched);
	return rc;
}

TEST(status_strings_cover_every_status)
{
	CHECK_STR(gt_status_string(GT_OK), "success");
	CHECK_STR(gt_status_string(GT_ERR_INVALID),
		  "invalid argument (null pointer, m, n or k <= 0, or bad enum value)");
	CHECK_STR(gt_status_string(GT_ERR_UNSUPPORTED), "unsupported dtype combination");
	CHECK_STR(gt_status_string(GT_ERR_MISALIGNED),
		  "device pointer not aligned to its element size");
	CHECK_STR(gt_status_string(GT_ERR_CUDA), "a CUDA runtime call failed");
	CHECK_STR(gt_status_string(GT_ERR_CUBLAS), "a cuBLAS call failed");
	CHECK_STR(gt_status_string(GT_ERR_NO_MEMORY), "out of host or device memory");
	CHECK_STR(gt_status_string(7), "unknown status");
	CHECK_STR(gt_status_string(-1), "unknown status");
	CHECK_STR(gt_status_string(1 << 30), "unknown status");
	/* distinct messages: no two statuses read alike */
	for (int a = GT_OK; a <= GT_ERR_NO_MEMORY; a++)
		for (int b = a + 1; b <= GT_ERR_NO_MEMORY; b++)
			CHECK(strcmp(gt_status_string(a), gt_status_string(b)));
}

TEST(context_create_rejects_bad_arguments)
{
	gt_context *ctx = (gt_context *)untouched;
	CHECK_INT(gt_context_create(0, NULL), GT_ERR_INVALID);
	CHECK_INT(gt_context_create(-1, &ctx), GT_ERR_INVALID);
	CHECK(ctx == (gt_context *)untouched);
}

TEST(context_create_without_gpu_fails_cleanly)
{
	gt_context *ctx = (gt_context *)untouched;
	int rc = gt_context_create(0, &ctx);
	/* this test runs where no GPU is usable (make test needs none); if a
	 * GPU is there, creation must succeed instead */
	if (rc == GT_OK) {
		CHECK(ctx != NULL && ctx != (gt_context *)untouched);
		CHECK_INT(gt_context_destroy(ctx), GT_OK);
		return;
	}
	CHECK_INT(rc, GT_ERR_CUDA);
	CHECK(ctx == (gt_context *)untouched);
	/* and again: a failed create leaves nothing broken behind */
	CHECK_INT(gt_context_create(0, &ctx), GT_ERR_CUDA);
	CHECK_INT(gt_context_create(1000, &ctx), GT_ERR_CUDA);
}

TEST(destroy_null_is_a_noop)
{
	CHECK_INT(gt_context_destroy(NULL), GT_OK);
	CHECK_INT(gt_weight_destroy(NULL), GT_OK);
}

TEST(prepare_rejects_null_pointers)
{
	CHECK_INT(prepare(NULL, fake_w, QKV_N, QKV_K, GT_BF16, GT_BF16, GT_BF16), GT_ERR_INVALID);
	CHECK_INT(prepare(fake_ctx, NULL, QKV_N, QKV_K, GT_BF16, GT_BF16, GT_BF16), GT_ERR_INVALID);
	CHECK_INT(gt_weight_prepare(fake_ctx, fake_w, QKV_N, QKV_K, GT_BF16, GT_BF16, GT_BF16,
				    NULL), GT_ERR_INVALID);
}

TEST(prepare_rejects_bad_sizes)
{
	const int bad[] = { 0, -1, -8192, INT32_MIN };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(prepare(fake_ctx, fake_w, bad[i], QKV_K, GT_BF16, GT_BF16, GT_BF16),
			  GT_ERR_INVALID);
		CHECK_INT(prepare(fake_ctx, fake_w, QKV_N, bad[i], GT_BF16, GT_BF16, GT_BF16),
			  GT_ERR_INVALID);
		CHECK_INT(prepare(fake_ctx, fake_w, ROUTER_N, bad[i], GT_FP32, GT_BF16, GT_FP32),
			  GT_ERR_INVALID);
	}
}

TEST(prepare_rejects_bad_enum_values)
{
	const int bad[] = { -1, 2, 3, 1000 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(prepare(fake_ctx, fake_w, QKV_N, QKV_K, bad[i], GT_BF16, GT_BF16),
			  GT_ERR_INVALID);
		CHECK_INT(prepare(fake_ctx, fake_w, QKV_N, QKV_K, GT_BF16, bad[i], GT_BF16),
			  GT_ERR_INVALID);
		CHECK_INT(prepare(fake_ctx, fake_w, QKV_N, QKV_K, GT_BF16, GT_BF16, bad[i]),
			  GT_ERR_INVALID);
	}
}

TEST(prepare_rejects_unsupported_dtype_combinations)
{
	/* every (w, x, y) but the two served ones */
	for (int w = GT_BF16; w <= GT_FP32; w++)
		for (int x = GT_BF16; x <= GT_FP32; x++)
			for (int y = GT_BF16; y <= GT_FP32; y++) {
				int served = (w == GT_BF16 && x == GT_BF16 && y == GT_BF16) ||
					     (w == GT_FP32 && x == GT_BF16 && y == GT_FP32);
				if (served)
					continue;
				CHECK_INT(prepare(fake_ctx, fake_w, QKV_N, QKV_K, w, x, y),
					  GT_ERR_UNSUPPORTED);
			}
}

TEST(prepare_rejects_weights_misaligned_for_their_type)
{
	const char *w = (const char *)fake_w;
	CHECK_INT(prepare(fake_ctx, w + 1, QKV_N, QKV_K, GT_BF16, GT_BF16, GT_BF16),
		  GT_ERR_MISALIGNED);
	CHECK_INT(prepare(fake_ctx, w + 2, ROUTER_N, QKV_K, GT_FP32, GT_BF16, GT_FP32),
		  GT_ERR_MISALIGNED);
	CHECK_INT(prepare(fake_ctx, w + 3, ROUTER_N, QKV_K, GT_FP32, GT_BF16, GT_FP32),
		  GT_ERR_MISALIGNED);
}

TEST(linear_rejects_bad_arguments_before_touching_the_handle)
{
	CHECK_INT(gt_linear(NULL, fake_x, 1, fake_y, NULL), GT_ERR_INVALID);
	CHECK_INT(gt_linear(fake_wt, NULL, 1, fake_y, NULL), GT_ERR_INVALID);
	CHECK_INT(gt_linear(fake_wt, fake_x, 1, NULL, NULL), GT_ERR_INVALID);
	CHECK_INT(gt_linear(fake_wt, fake_x, 0, fake_y, NULL), GT_ERR_INVALID);
	CHECK_INT(gt_linear(fake_wt, fake_x, -1, fake_y, NULL), GT_ERR_INVALID);
	CHECK_INT(gt_linear(fake_wt, fake_x, INT32_MIN, fake_y, NULL), GT_ERR_INVALID);
}

TEST(explain_rejects_bad_arguments)
{
	char buf[64];
	memset(buf, 'x', sizeof(buf));
	CHECK_INT(gt_weight_explain(NULL, 1, buf, sizeof(buf)), GT_ERR_INVALID);
	CHECK_INT(buf[0], '\0');                /* always terminated when len > 0 */
	memset(buf, 'x', sizeof(buf));
	CHECK_INT(gt_weight_explain(fake_wt, 0, buf, sizeof(buf)), GT_ERR_INVALID);
	CHECK_INT(buf[0], '\0');
	CHECK_INT(gt_weight_explain(fake_wt, -3, buf, sizeof(buf)), GT_ERR_INVALID);
	CHECK_INT(gt_weight_explain(fake_wt, 1, NULL, 16), GT_ERR_INVALID);
	memset(buf, 'x', sizeof(buf));
	CHECK_INT(gt_weight_explain(fake_wt, 1, buf, 0), GT_ERR_INVALID);
	CHECK_INT(buf[0], 'x');                 /* len 0: nothing written */
}

TEST(device_bytes_rejects_bad_arguments)
{
	size_t bytes = 7;
	CHECK_INT(gt_weight_device_bytes(NULL, &bytes), GT_ERR_INVALID);
	CHECK_INT(bytes, 7);                    /* untouched on an error */
	CHECK_INT(gt_weight_device_bytes(fake_wt, NULL), GT_ERR_INVALID);
}

TEST(table_description_names_its_origin)
{
	const char *d = gt_table_description();
	CHECK(d != NULL);
	CHECK(d && strstr(d, "tuned on "));
	CHECK(d && strstr(d, " SMs, CUDA "));
	CHECK(d && strstr(d, " entries"));
	CHECK(d && !strchr(d, '\n'));
	CHECK(d == gt_table_description());     /* formatted once, stable */
}

TESTS(T(status_strings_cover_every_status), T(context_create_rejects_bad_arguments),
      T(context_create_without_gpu_fails_cleanly), T(destroy_null_is_a_noop),
      T(prepare_rejects_null_pointers), T(prepare_rejects_bad_sizes),
      T(prepare_rejects_bad_enum_values), T(prepare_rejects_unsupported_dtype_combinations),
      T(prepare_rejects_weights_misaligned_for_their_type),
      T(linear_rejects_bad_arguments_before_touching_the_handle),
      T(explain_rejects_bad_arguments), T(device_bytes_rejects_bad_arguments),
      T(table_description_names_its_origin))
