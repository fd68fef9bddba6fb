/*
 * test_runtime_gpu.c: libgemmtab end to end on any Hopper card. For each
 * family of docs/workload.md, at the Ms the entries of the table compiled in
 * for this card cover (none where no table is: then every M must say so and
 * run the baseline; both ends
 * and the middle of each range, found through gt_weight_explain), the Ms
 * just outside them and the workload's loads and neighbours, gt_linear's
 * output is checked against the tuner's FP64 reference (harness.cu) within
 * docs/workload.md's bounds, run eagerly and captured in a CUDA graph (output
 * poisoned with NaN before the first of 3 replays, checked after the
 * last). Also: a capture before any eager call, misaligned x and y (the
 * baseline runs, still correct; a pointer not aligned to its element is
 * refused with nothing written), bad arguments on a live handle, and two
 * threads driving their own handles at once. Links build/lib/libgemmtab.a.
 *
 * Usage: gpu_test_runtime_gpu [ignored]   (tests/run.sh passes a cubin path)
 */
#include "check.h"
#include "gemmtab.h"
#include "harness.h"
#include "types.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One projection family of docs/workload.md. */
struct family {
	const char *name;
	int n, k;
	gt_dtype w, x, y;
	double tol;             /* global relative L2 bound; per row 2x */
	int max_m;              /* largest M tested */
};

/* The router goes past 2 x 512 rows so its baseline converts X in three
 * chunks (RT_X32_CHUNK_ROWS); the others stop past the largest neighbour. */
static const struct family families[] = {
	{ "qkv", 2304, 8192, GT_BF16, GT_BF16, GT_BF16, 1e-2, 513 },
	{ "oproj", 8192, 1024, GT_BF16, GT_BF16, GT_BF16, 1e-2, 513 },
	{ "pooler", 4096, 8192, GT_BF16, GT_BF16, GT_BF16, 1e-2, 513 },
	{ "unpooler", 8192, 4096, GT_BF16, GT_BF16, GT_BF16, 1e-2, 513 },
	{ "unpooler_slice", 1024, 4096, GT_BF16, GT_BF16, GT_BF16, 1e-2, 513 },
	{ "router", 256, 8192, GT_FP32, GT_BF16, GT_FP32, 1e-4, 1100 },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))
#define UNPOOLER 3
#define SLICE 4

/* The loads and neighbour Ms of docs/workload.md, plus chunk edges. */
static const int workload_ms[] = { 1, 2, 3, 7, 8, 9, 16, 17, 31, 32, 33, 127, 128, 129,
				   255, 256, 257, 512, 513, 1024, 1025, 1100 };

/* Replays of each graph before its output is checked (docs/workload.md: >= 3). */
#define REPLAYS 3
/* Ms gt_weight_explain is asked about to find the table's ranges. */
#define SCAN_MS 2048
#define MAX_CASES 96
/* Room after buffers for misaligned views. */
#define SLACK 64
#define POISON 0xFF             /* all-ones bytes: NaN in bf16 and fp32 */
#define WEIGHT_STD 0.02f

static gt_context *ctx;
static cudaStream_t stream;
static int setup_done, setup_ok;
/* gt_table_description says a table compiled in is this card's */
static int table_in_use;

#define CU(call) cu_check((call), #call, __LINE__)
static int cu_check(cudaError_t e, const char *what, int line)
{
	if (e == cudaSuccess)
		return 0;
	fprintf(stderr, "  line %d: %s: %s\n", line, what, cudaGetErrorString(e));
	check_failed_ = 1;
	return -1;
}

static int setup(void)
{
	if (setup_done)
		return setup_ok;
	setup_done = 1;
	int rc = gt_context_create(0, &ctx);
	if (rc != GT_OK) {
		fprintf(stderr, "  gt_context_create: %s\n", gt_status_string(rc));
		return 0;
	}
	if (CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)))
		return 0;
	printf("# table: %s\n", gt_table_description());
	table_in_use = strstr(gt_table_description(), " in use on ") != NULL;
	setup_ok = 1;
	return 1;
}

static size_t dsize(gt_dtype t)
{
	return t == GT_FP32 ? 4 : 2;
}

/* Device buffers of one family: W, X (with its misaligned copy room), Y,
 * the FP64 reference and the per-row error sums. */
struct bufs {
	void *w, *x, *x2, *y;
	double *r, *err2, *ref2;
	unsigned *nonfinite, *count;
	double *h_err2, *h_ref2;
	unsigned *h_nonfinite;
};

static void bufs_free(struct bufs *b)
{
	cudaFree(b->w);
	cudaFree(b->x);
	cudaFree(b->x2);
	cudaFree(b->y);
	cudaFree(b->r);
	cudaFree(b->err2);
	cudaFree(b->ref2);
	cudaFree(b->nonfinite);
	cudaFree(b->count);
	free(b->h_err2);
	free(b->h_ref2);
	free(b->h_nonfinite);
	memset(b, 0, sizeof(*b));
}

/* Buffers for f at up to f->max_m tokens; W filled (unless w_given) on
 * the non-blocking stream and deliberately not synchronized: the
 * gt_weight_prepare that follows must wait for it (run 20: tiled copies
 * made from a half-filled W failed qkv m=2..16 at 1.5e-2). */
static int bufs_alloc(const struct family *f, struct bufs *b, const void *w_given,
		      uint64_t seed)
{
	size_t m = (size_t)f->max_m;
	memset(b, 0, sizeof(*b));
	b->h_err2 = calloc(m, sizeof(double));
	b->h_ref2 = calloc(m, sizeof(double));
	b->h_nonfinite = calloc(m, sizeof(unsigned));
	if (!b->h_err2 || !b->h_ref2 || !b->h_nonfinite)
		return -1;
	if ((!w_given && CU(cudaMalloc(&b->w, (size_t)f->n * f->k * dsize(f->w)))) ||
	    CU(cudaMalloc(&b->x, m * f->k * dsize(f->x) + SLACK)) ||
	    CU(cudaMalloc(&b->x2, m * f->k * dsize(f->x) + SLACK)) ||
	    CU(cudaMalloc(&b->y, m * f->n * dsize(f->y) + SLACK)) ||
	    CU(cudaMalloc((void **)&b->r, m * f->n * sizeof(double))) ||
	    CU(cudaMalloc((void **)&b->err2, m * sizeof(double))) ||
	    CU(cudaMalloc((void **)&b->ref2, m * sizeof(double))) ||
	    CU(cudaMalloc((void **)&b->nonfinite, m * sizeof(unsigned))) ||
	    CU(cudaMalloc((void **)&b->count, sizeof(unsigned))))
		return -1;
	if (w_given)
		return 0;
	return CU(harness_fill_normal(b->w, (int)f->w, (size_t)f->n * f->k, WEIGHT_STD, seed,
				      stream));
}

/* Fresh activations for m tokens and their FP64 reference against w. */
static int fresh_inputs(const struct family *f, struct bufs *b, const void *w, int m,
			uint64_t seed)
{
	return CU(harness_fill_activations(b->x, (int)f->x, m, f->k, seed, stream)) ||
	       CU(harness_reference(w, (int)f->w, b->x, (int)f->x, b->r, m, f->n, f->k,
				    stream)) ||
	       CU(cudaStreamSynchronize(stream));
}

static int poison(const struct family *f, void *y, int m)
{
	return CU(cudaMemsetAsync(y, POISON, (size_t)m * f->n * dsize(f->y), stream));
}

/* Check y (m x n) against the reference: no NaN or Inf, global relative
 * L2 error <= tol, every row <= 2 tol. *err gets the global error. */
static int verify(const struct family *f, struct bufs *b, const void *y, int m, double *err)
{
	*err = -1;
	if (CU(harness_row_errors(y, (int)f->y, b->r, m, f->n, b->err2, b->ref2, b->nonfinite,
				  stream)) ||
	    CU(cudaMemcpyAsync(b->h_err2, b->err2, m * sizeof(double), cudaMemcpyDeviceToHost,
			       stream)) ||
	    CU(cudaMemcpyAsync(b->h_ref2, b->ref2, m * sizeof(double), cudaMemcpyDeviceToHost,
			       stream)) ||
	    CU(cudaMemcpyAsync(b->h_nonfinite, b->nonfinite, m * sizeof(unsigned),
			       cudaMemcpyDeviceToHost, stream)) ||
	    CU(cudaStreamSynchronize(stream)))
		return 0;
	double e2 = 0, r2 = 0, worst_row = 0;
	unsigned long bad = 0;
	for (int i = 0; i < m; i++) {
		e2 += b->h_err2[i];
		r2 += b->h_ref2[i];
		bad += b->h_nonfinite[i];
		double row = b->h_ref2[i] > 0 ? sqrt(b->h_err2[i] / b->h_ref2[i])
					      : (b->h_err2[i] > 0 ? INFINITY : 0);
		if (row > worst_row)
			worst_row = row;
	}
	*err = r2 > 0 ? sqrt(e2 / r2) : INFINITY;
	int ok = !bad && *err <= f->tol && worst_row <= 2 * f->tol;
	if (!ok)
		fprintf(stderr, "  %s m=%d: %lu non-finite, global %.3e (bound %.0e), worst row "
			"%.3e (bound %.0e)\n", f->name, m, bad, *err, f->tol, worst_row,
			2 * f->tol);
	return ok;
}

/* Run gt_linear eagerly into poisoned y and verify. */
static int run_eager(const struct family *f, struct bufs *b, gt_weight *wt, const void *x,
		     void *y, int m, double *err)
{
	if (poison(f, y, m))
		return 0;
	int rc = gt_linear(wt, x, m, y, stream);
	if (rc != GT_OK) {
		fprintf(stderr, "  %s m=%d: gt_linear: %s\n", f->name, m, gt_status_string(rc));
		return 0;
	}
	return verify(f, b, y, m, err);
}

/* Capture gt_linear into a graph, poison y, replay REPLAYS times, verify. */
static int run_graph(const struct family *f, struct bufs *b, gt_weight *wt, const void *x,
		     void *y, int m, double *err)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	int ok = 0;
	if (CU(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal)))
		return 0;
	int rc = gt_linear(wt, x, m, y, stream);
	if (CU(cudaStreamEndCapture(stream, &graph)))
		goto cleanup;
	if (rc != GT_OK) {
		fprintf(stderr, "  %s m=%d: captured gt_linear: %s\n", f->name, m,
			gt_status_string(rc));
		goto cleanup;
	}
	if (CU(cudaGraphInstantiate(&exec, graph, 0)) || poison(f, y, m))
		goto cleanup;
	for (int i = 0; i < REPLAYS; i++)
		if (CU(cudaGraphLaunch(exec, stream)))
			goto cleanup;
	ok = verify(f, b, y, m, err);
cleanup:
	if (exec)
		cudaGraphExecDestroy(exec);
	if (graph)
		cudaGraphDestroy(graph);
	return ok;
}

/* The explain line of m; "" on failure. */
static const char *explain(gt_weight *wt, int m)
{
	static char line[1024];
	if (gt_weight_explain(wt, m, line, sizeof(line)) != GT_OK)
		line[0] = '\0';
	return line;
}

/* Whether m runs a table entry (its index in *entry), per explain. */
static int routed(gt_weight *wt, int m, int *entry)
{
	char want[32];
	snprintf(want, sizeof(want), "m=%d: entry ", m);
	const char *line = explain(wt, m);
	if (strncmp(line, want, strlen(want)))
		return 0;
	*entry = atoi(line + strlen(want));
	return 1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void add_m(int *ms, int *n, int m, int max_m)
{
	if (m < 1 || m > max_m || *n >= MAX_CASES)
		return;
	for (int i = 0; i < *n; i++)
		if (ms[i] == m)
			return;
	ms[(*n)++] = m;
}

/* Whether an M that ran the baseline did so for a reason this card allows:
 * no table for it (then every M says so), or an entry's cuBLASLt
 * algorithm chosen under another cuBLASLt version (it falls back alone);
 * any other unused entry fails the test: on the card a table was tuned
 * for, every dispatch path must run. */
static void check_baseline_reason(const struct family *f, gt_weight *wt, int m)
{
	const char *why = explain(wt, m);
	if (!table_in_use) {
		if (!strstr(why, ": baseline: no table for ")) {
			fprintf(stderr, "  %s: %s\n", f->name, why);
			CHECK(!"without a table for this card every M says so");
		}
		return;
	}
	/* ": baseline: " is the weight-wide form: the table's kernels did not load */
	if (strstr(why, ": baseline: ") ||
	    (strstr(why, "not used") && !strstr(why, "a cuBLASLt algorithm chosen under"))) {
		fprintf(stderr, "  %s: %s\n", f->name, why);
		CHECK(!"every entry of this card's table is usable on it");
	}
}

/* The Ms to test for a weight: each entry's ends and middle, the Ms just
 * outside, the workload's Ms (check_baseline_reason on every M scanned).
 * Returns the count. */
static int test_ms(const struct family *f, gt_weight *wt, int *ms, int *nentries)
{
	int n = 0, lo = 0, prev = -1;
	*nentries = 0;
	for (int m = 1; m <= SCAN_MS + 1; m++) {
		int e = -1;
		if (m <= SCAN_MS && !routed(wt, m, &e))
			check_baseline_reason(f, wt, m);
		if (e == prev)
			continue;
		if (prev >= 0) {        /* the range [lo, m - 1] ended */
			add_m(ms, &n, lo, f->max_m);
			add_m(ms, &n, (lo + m - 1) / 2, f->max_m);
			add_m(ms, &n, m - 1, f->max_m);
			add_m(ms, &n, lo - 1, f->max_m);
			add_m(ms, &n, m, f->max_m);
			(*nentries)++;
		}
		lo = m;
		prev = e;
	}
	for (size_t i = 0; i < sizeof(workload_ms) / sizeof(workload_ms[0]); i++)
		add_m(ms, &n, workload_ms[i], f->max_m);
	qsort(ms, (size_t)n, sizeof(int), cmp_int);
	return n;
}

/* Every dispatch path of one family, eager and in a graph. */
static void check_family(size_t fi, const void *w_shared, void **w_out)
{
	const struct family *f = &families[fi];
	struct bufs b;
	gt_weight *wt = NULL;
	int ms[MAX_CASES], nentries = 0;
	if (bufs_alloc(f, &b, w_shared, 1000 + fi)) {
		CHECK(!"buffers allocated");
		goto cleanup;
	}
	const void *w = w_shared ? w_shared : b.w;
	int rc = gt_weight_prepare(ctx, w, f->n, f->k, f->w, f->x, f->y, &wt);
	CHECK_INT(rc, GT_OK);
	if (rc != GT_OK)
		goto cleanup;
	int n = test_ms(f, wt, ms, &nentries);
	size_t bytes = 0;
	CHECK_INT(gt_weight_device_bytes(wt, &bytes), GT_OK);
	/* at least the baseline's cuBLAS workspace, at most W's size ten times */
	CHECK(bytes > 0 && bytes <= 10 * (size_t)f->n * f->k * 4 + ((size_t)64 << 20));
	printf("# %s: %d table entries, %d Ms, %zu device bytes\n", f->name, nentries, n, bytes);
	for (int i = 0; i < n; i++) {
		int m = ms[i], entry = -1;
		double e1 = -1, e2 = -1;
		if (fresh_inputs(f, &b, w, m, 77 * (uint64_t)m + fi))
			break;
		int ok1 = run_eager(f, &b, wt, b.x, b.y, m, &e1);
		int ok2 = run_graph(f, &b, wt, b.x, b.y, m, &e2);
		CHECK(ok1);
		CHECK(ok2);
		char path[32] = "baseline";
		if (routed(wt, m, &entry))
			snprintf(path, sizeof(path), "entry %d", entry);
		printf("%s - %s m=%d %s: eager %.2e, graph x%d %.2e\n",
		       ok1 && ok2 ? "ok" : "not ok", f->name, m, path, e1, REPLAYS, e2);
	}
cleanup:
	gt_weight_destroy(wt);
	if (w_out && !w_shared) {
		*w_out = b.w;           /* the unpooler's weight serves its slice */
		b.w = NULL;
	}
	bufs_free(&b);
}

TEST(capture_before_any_eager_call)
{
	if (!setup()) {
		CHECK(!"context");
		return;
	}
	/* a fresh weight whose first calls ever are captured: kernels were
	 * loaded at prepare, cuBLAS must manage under capture */
	const struct family *f = &families[0];
	struct bufs b;
	gt_weight *wt = NULL;
	if (bufs_alloc(f, &b, NULL, 42) ||
	    gt_weight_prepare(ctx, b.w, f->n, f->k, f->w, f->x, f->y, &wt) != GT_OK) {
		CHECK(!"weight prepared");
		goto cleanup;
	}
	const int ms[] = { 1, 5, 300 };
	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		double err = -1;
		if (fresh_inputs(f, &b, b.w, ms[i], 4242 + i))
			break;
		int ok = run_graph(f, &b, wt, b.x, b.y, ms[i], &err);
		CHECK(ok);
		printf("# first call captured, %s m=%d: %s\n", f->name, ms[i], explain(wt, ms[i]));
	}
cleanup:
	gt_weight_destroy(wt);
	bufs_free(&b);
}

/* gt_weight_prepare_on: the re-layouts made on the calls' own stream (the
 * router's hi/lo; the slice's packed tiles where the table's entries ask
 * for them) serve FP64-correct graphs at routed Ms; W was filled on that
 * stream and not waited for. At least one call over the two families must
 * read a re-laid copy. */
TEST(prepare_on_the_calls_stream)
{
	if (!setup()) {
		CHECK(!"context");
		return;
	}
	const size_t which[] = { SLICE, NFAMILIES - 1 };       /* the router is last */
	int relaid = 0;         /* calls whose route reads a re-laid copy */
	for (size_t j = 0; j < sizeof(which) / sizeof(which[0]); j++) {
		const struct family *f = &families[which[j]];
		struct bufs b;
		gt_weight *wt = NULL;
		if (bufs_alloc(f, &b, NULL, 77 + j) ||
		    gt_weight_prepare_on(ctx, b.w, f->n, f->k, f->w, f->x, f->y, stream, &wt) !=
			    GT_OK) {
			CHECK(!"weight prepared on the stream");
			gt_weight_destroy(wt);
			bufs_free(&b);
			continue;
		}
		const int ms[] = { 3, 8, 32 };
		for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
			double err = -1;
			if (fresh_inputs(f, &b, b.w, ms[i], 7700 + i))
				break;
			CHECK(run_graph(f, &b, wt, b.x, b.y, ms[i], &err));
			const char *ex = explain(wt, ms[i]);
			relaid += strstr(ex, "layout=tiles") || strstr(ex, "mma_hilo");
			printf("# prepared on the stream, %s m=%d: err %.2e; %s\n", f->name, ms[i],
			       err, ex);
		}
		gt_weight_destroy(wt);
		bufs_free(&b);
	}
	/* the committed table routes the router through its hi/lo copy (and
	 * the slice through packed tiles where an entry says layout=tiles):
	 * the stream must have made what those calls read */
	CHECK(relaid > 0);
}

TEST(every_family_every_path)
{
	if (!setup()) {
		CHECK(!"context");
		return;
	}
	void *unpooler_w = NULL;
	for (size_t fi = 0; fi < NFAMILIES; fi++) {
		if (fi == SLICE) {
			/* the first 1024 rows of the unpooler weight, as docs/workload.md says */
			CHECK(unpooler_w != NULL);
			if (unpooler_w)
				check_family(fi, unpooler_w, NULL);
			continue;
		}
		check_family(fi, NULL, fi == UNPOOLER ? &unpooler_w : NULL);
	}
	cudaFree(unpooler_w);
}

/* The misaligned cases of one family at m (a routed M when there is one). */
static void check_misaligned(const struct family *f, int m)
{
	struct bufs b;
	gt_weight *wt = NULL;
	double err;
	int entry;
	if (bufs_alloc(f, &b, NULL, 555) ||
	    gt_weight_prepare(ctx, b.w, f->n, f->k, f->w, f->x, f->y, &wt) != GT_OK ||
	    fresh_inputs(f, &b, b.w, m, 556)) {
		CHECK(!"weight prepared");
		goto cleanup;
	}
	int was_routed = routed(wt, m, &entry);
	size_t xs = dsize(f->x), ys = dsize(f->y);
	size_t x_bytes = (size_t)m * f->k * xs, y_bytes = (size_t)m * f->n * ys;
	char *x_off = (char *)b.x2 + xs;        /* element-aligned, not 16-byte */
	char *y_off = (char *)b.y + ys;
	if (CU(cudaMemcpyAsync(x_off, b.x, x_bytes, cudaMemcpyDeviceToDevice, stream)))
		goto cleanup;

	/* not 16-byte aligned: the baseline runs, correctly */
	CHECK(run_eager(f, &b, wt, x_off, b.y, m, &err));
	CHECK(run_graph(f, &b, wt, x_off, b.y, m, &err));
	CHECK(run_eager(f, &b, wt, b.x, y_off, m, &err));
	CHECK(run_eager(f, &b, wt, x_off, y_off, m, &err));
	if (was_routed) {
		CHECK(strstr(explain(wt, m), "calls so far)") != NULL);
		printf("# %s\n", explain(wt, m));
	}
	/* aligned again: the route runs again */
	CHECK(run_eager(f, &b, wt, b.x, b.y, m, &err));

	/* not aligned to the element: refused, nothing written */
	unsigned count = 1;
	const void *bad_x[] = { (char *)b.x + 1, b.x, b.x };
	void *bad_y[] = { b.y, (char *)b.y + 1, (char *)b.y + ys / 2 };
	for (size_t i = 0; i < 3; i++) {
		if (poison(f, b.y, m + 1))
			break;
		CHECK_INT(gt_linear(wt, bad_x[i], m, bad_y[i], stream), GT_ERR_MISALIGNED);
		if (CU(harness_count_mismatch(b.y, y_bytes + SLACK / 2, POISON, b.count,
					      stream)) ||
		    CU(cudaMemcpyAsync(&count, b.count, sizeof(count), cudaMemcpyDeviceToHost,
				       stream)) ||
		    CU(cudaStreamSynchronize(stream)))
			break;
		CHECK_INT(count, 0);
	}
	printf("# misaligned %s m=%d (%s): checked\n", f->name, m,
	       was_routed ? "routed" : "baseline");
cleanup:
	gt_weight_destroy(wt);
	bufs_free(&b);
}

TEST(misaligned_pointers)
{
	if (!setup()) {
		CHECK(!"context");
		return;
	}
	check_misaligned(&families[0], 1);                      /* qkv */
	check_misaligned(&families[NFAMILIES - 1], 1);          /* router */
	check_misaligned(&families[NFAMILIES - 1], 12);
	check_misaligned(&families[1], 33);                     /* oproj, baseline */
}

TEST(bad_arguments_on_a_live_handle_write_nothing)
{
	if (!setup()) {
		CHECK(!"context");
		return;
	}
	const struct family *f = &families[NFAMILIES - 1];
	struct bufs b;
	gt_weight *wt = NULL;
	unsigned count = 1;
	if (bufs_alloc(f, &b, NULL, 9) ||
	    gt_weight_prepare(ctx, b.w, f->n, f->k, f->w, f->x, f->y, &wt) != GT_OK ||
	    poison(f, b.y, 4)) {
		CHECK(!"weight prepared");
		goto cleanup;
	}
	CHECK_INT(gt_linear(wt, b.x, 0, b.y, stream), GT_ERR_INVALID);
	CHECK_INT(gt_linear(wt, b.x, -5, b.y, stream), GT_ERR_INVALID);
	CHECK_INT(gt_linear(wt, NULL, 4, b.y, stream), GT_ERR_INVALID);
	CHECK_INT(gt_linear(wt, b.x, 4, NULL, stream), GT_ERR_INVALID);
	if (!CU(harness_count_mismatch(b.y, (size_t)4 * f->n * dsize(f->y), POISON, b.count,
				       stream)) &&
	    !CU(cudaMemcpyAsync(&count, b.count, sizeof(count), cudaMemcpyDeviceToHost, stream)) &&
	    !CU(cudaStreamSynchronize(stream)))
		CHECK_INT(count, 0);
	char line[16];
	CHECK_INT(gt_weight_explain(wt, 1, line, sizeof(line)), GT_OK);
	CHECK_INT(strlen(line), sizeof(line) - 1);              /* truncated, terminated */
	gt_weight *none = NULL;
	CHECK_INT(gt_weight_prepare(ctx, b.w, f->n, f->k, GT_FP32, GT_BF16, GT_BF16, &none),
		  GT_ERR_UNSUPPORTED);
	CHECK(none == NULL);
	gt_context *c2 = NULL;
	int count_dev = 0;
	if (!CU(cudaGetDeviceCount(&count_dev)))
		CHECK_INT(gt_context_create(count_dev, &c2), GT_ERR_INVALID);
cleanup:
	gt_weight_destroy(wt);
	bufs_free(&b);
}

/* One thread's work: its own handle and stream, many calls at changing
 * Ms; the last call (ms[3]) is checked by the main thread. Set up and
 * checked by the main thread, since check.h's state is not thread-safe. */
#define THREAD_CALLS 200
struct worker {
	const struct family *f;
	int ms[4];
	struct bufs b;
	gt_weight *wt;
	cudaStream_t s;
	int status;
};

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	const size_t last_bytes = (size_t)wk->ms[3] * wk->f->n * dsize(wk->f->y);
	wk->status = GT_OK;
	for (int i = 0; i < THREAD_CALLS && wk->status == GT_OK; i++) {
		/* the checked call writes into poison: earlier calls at the same
		 * m left the right answer in y already */
		if (i == THREAD_CALLS - 1 &&
		    cudaMemsetAsync(wk->b.y, POISON, last_bytes, wk->s) != cudaSuccess) {
			wk->status = GT_ERR_CUDA;
			break;
		}
		wk->status = gt_linear(wk->wt, wk->b.x, wk->ms[i % 4], wk->b.y, wk->s);
	}
	if (wk->status == GT_OK && cudaStreamSynchronize(wk->s) != cudaSuccess)
		wk->status = GT_ERR_CUDA;
	return NULL;
}

TEST(distinct_handles_from_distinct_threads)
{
	if (!setup()) {
		CHECK(!"context");
		return;
	}
	struct worker wk[2] = {
		{ .f = &families[0], .ms = { 1, 9, 300, 1 } },
		{ .f = &families[NFAMILIES - 1], .ms = { 3, 12, 600, 12 } },
	};
	pthread_t th[2];
	int started[2] = { 0, 0 };
	for (int i = 0; i < 2; i++) {
		const struct family *f = wk[i].f;
		if (bufs_alloc(f, &wk[i].b, NULL, 60 + i) ||
		    CU(cudaStreamCreateWithFlags(&wk[i].s, cudaStreamNonBlocking)) ||
		    gt_weight_prepare(ctx, wk[i].b.w, f->n, f->k, f->w, f->x, f->y, &wk[i].wt) !=
			    GT_OK ||
		    fresh_inputs(f, &wk[i].b, wk[i].b.w, wk[i].ms[3], 70 + i)) {
			CHECK(!"worker set up");
			goto cleanup;
		}
	}
	for (int i = 0; i < 2; i++) {
		started[i] = !pthread_create(&th[i], NULL, worker_main, &wk[i]);
		CHECK(started[i]);
	}
	for (int i = 0; i < 2; i++) {
		if (!started[i])
			continue;
		pthread_join(th[i], NULL);
		started[i] = 0;
		double err = -1;
		CHECK_INT(wk[i].status, GT_OK);
		CHECK(verify(wk[i].f, &wk[i].b, wk[i].b.y, wk[i].ms[3], &err));
		printf("# thread %d: %d calls on %s, last m=%d error %.2e\n", i, THREAD_CALLS,
		       wk[i].f->name, wk[i].ms[3], err);
	}
cleanup:
	for (int i = 0; i < 2; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		gt_weight_destroy(wk[i].wt);
		if (wk[i].s)
			cudaStreamDestroy(wk[i].s);
		bufs_free(&wk[i].b);
	}
}

TESTS(T(capture_before_any_eager_call), T(prepare_on_the_calls_stream),
      T(every_family_every_path), T(misaligned_pointers),
      T(bad_arguments_on_a_live_handle_write_nothing), T(distinct_handles_from_distinct_threads))
