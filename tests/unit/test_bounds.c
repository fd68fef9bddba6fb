/*
 * test_bounds.c: every template's static legality (its adapter's check in
 * plan/) against its kernels' indexing, on the CPU. For every point of a
 * grid of shapes (odd and even N and K, bf16 and fp32 weights), of each
 * template's parameters and of M that the adapter admits, the plan's
 * steps are walked and a C model of each kernel gives the byte ranges
 * each block reads and writes: W (or the prepared weight), X, Y, the
 * workspace and the sync words. Every range must lie inside its buffer.
 *
 * The models transcribe the templates' address expressions
 * (templates/gemv.cuh, mma_skinny.cuh, mma_frag.cuh) per block, over the
 * first, second, next-to-last and last block of each grid dimension (the
 * ranges grow with the block index, so these bound every block). A load
 * counts where the source forms its address: loads the kernel issues
 * before any test (mma_frag's first batch) count unconditionally, clamped
 * rows (gemv_tail_kernel's rows past N, mma_skinny's token rows past M)
 * at the row they clamp to. Whether the compiler keeps a guarded load
 * behind its guard is a property of the compiled code, not of these
 * ranges. A kernel the models do not know fails the test, so a new
 * template comes with its model.
 */
#include "check.h"
#include "tmpl.h"
#include "types.h"

#include <stdlib.h>

enum buf { B_W, B_PREP, B_X, B_Y, B_WS, B_SYNC, NBUFS };
static const char *const buf_names[NBUFS] = { "w", "prep", "x", "y", "ws", "sync" };

/* One admitted point and the block being modelled. */
struct point {
	const struct tmpl *t;
	const long *p;
	const struct shape *s;
	int m;
	long long size[NBUFS];          /* bytes of each buffer */
	const struct launch_step *st;
	const char *kernel;             /* the step's kernel name, or NULL */
	long ints[16];                  /* the kernel name's integer arguments */
	int nints;
	unsigned b[3];                  /* the block */
	long points, bad;               /* admitted points walked, ranges out */
	int quiet;                      /* count, print nothing */
};

/* Bytes [lo, hi) of buffer `buf` are read or written ("what"); an empty
 * range touches nothing. */
static void touch(struct point *pt, enum buf buf, long long lo, long long hi, const char *what)
{
	if (hi <= lo || (lo >= 0 && hi <= pt->size[buf]))
		return;
	if (pt->bad++ < 8 && !pt->quiet) {
		struct candidate c = { .tmpl = pt->t };
		for (int i = 0; i < pt->t->nparams; i++)
			c.params[i] = pt->p[i];
		char key[256];
		fprintf(stderr, "  %s %s, n %d k %d m %d: %s block (%u,%u,%u) %s %s bytes [%lld, %lld) of %lld\n",
			pt->t->stem, candidate_key(&c, key, sizeof(key)), pt->s->n, pt->s->k, pt->m,
			pt->kernel ? pt->kernel : "step", pt->b[0], pt->b[1], pt->b[2], what,
			buf_names[buf], lo, hi, pt->size[buf]);
	}
}

/* The buffer a pointer argument i of the step resolves to. */
static enum buf arg_buf(const struct launch_step *st, int i)
{
	switch (st->args[i].kind) {
	case ARG_W: return B_W;
	case ARG_PREP: return B_PREP;
	case ARG_X: return B_X;
	case ARG_Y: return B_Y;
	case ARG_WS: return B_WS;
	case ARG_SYNC: return B_SYNC;
	default: return NBUFS;
	}
}

/* The value of the step's ARG_INT argument (the only one of a step). */
static long arg_int(const struct launch_step *st)
{
	for (int i = 0; i < st->nargs; i++)
		if (st->args[i].kind == ARG_INT)
			return st->args[i].value;
	return -1;
}

static long long min_ll(long long a, long long b)
{
	return a < b ? a : b;
}

static long long max_ll(long long a, long long b)
{
	return a > b ? a : b;
}

/* gemv_kernel and gemv_tail_kernel<TW, TY, WARPS, ROWS, TOKENS, UNROLL,
 * SPLIT, CACHE>(W, X, Y, ws, M, N, K) (templates/gemv.cuh). */
static void model_gemv(struct point *pt, int tail)
{
	const long warps = pt->ints[0], rows = pt->ints[1], unroll = pt->ints[3];
	const long split = pt->ints[4];
	const long long M = pt->m, N = pt->s->n, K = pt->s->k;
	const long long ws = (long long)dtype_size(pt->s->w), ys = (long long)dtype_size(pt->s->y);
	const long long xs = (long long)dtype_size(pt->s->x);
	const long long threads = warps * 32, vec = 16 / ws, by = pt->b[1];
	const long long n0 = (long long)pt->b[0] * rows;
	long long klo, khi, rlo, rhi, slo, shi;   /* K columns, W rows, stored rows */
	if (!tail) {
		const long long kslice = K / split, step = threads * vec * unroll;
		const long long iters = (kslice + step - 1) / step;
		klo = by * kslice;
		/* the last thread's last unrolled load of the last iteration */
		khi = iters ? klo + (iters - 1) * step + (unroll - 1) * threads * vec +
			(threads - 1) * vec + vec : klo;
		rlo = n0;
		rhi = n0 + rows;        /* no row guard: N % ROWS == 0 */
		slo = n0;
		shi = n0 + rows;
	} else {
		const long long nchunks = K / vec;
		const long long c_begin = by * nchunks / split, c_end = (by + 1) * nchunks / split;
		/* each split loads its share of K's chunks, [c_begin, c_end) */
		klo = c_begin * vec;
		khi = c_end * vec;
		rlo = min_ll(n0, N - 1);        /* rows past N read row N - 1 */
		rhi = min_ll(n0 + rows, N);
		rhi = max_ll(rhi, rlo + 1);
		slo = n0;
		shi = min_ll(n0 + rows, N);     /* rows past N are not stored */
	}
	const enum buf w = arg_buf(pt->st, 0);
	touch(pt, w, (rlo * K + klo) * ws, ((rhi - 1) * K + khi) * ws, "reads");
	/* tokens past M read row M - 1 */
	touch(pt, arg_buf(pt->st, 1), klo * xs, ((M - 1) * K + khi) * xs, "reads");
	if (shi <= slo)
		return;
	if (split == 1)
		touch(pt, arg_buf(pt->st, 2), slo * ys, ((M - 1) * N + shi) * ys, "writes");
	else
		touch(pt, arg_buf(pt->st, 3), (by * M * N + slo) * 4,
		      ((by * M + M - 1) * N + shi) * 4, "writes");
}

/* gemv_splitk_reduce<TY>(ws, Y, splits, M, N) */
static void model_gemv_reduce(struct point *pt)
{
	const long long total = (long long)pt->m * pt->s->n;
	touch(pt, arg_buf(pt->st, 0), 0, arg_int(pt->st) * total * 4, "reads");
	touch(pt, arg_buf(pt->st, 1), 0, total * (long long)dtype_size(pt->s->y), "writes");
}

/*
 * mma_skinny_kernel<BM, BN, BK, WARPS, STAGES, SPLIT, CACHE, COMBINE,
 * LAYOUT, MMA, WK>, mma_skinny_cluster_kernel<.. SPLIT, CACHE, LAYOUT,
 * MMA, WK> (W, X, Y, ws, M, N, K) and the hi/lo kernels <BM, BN, BK,
 * WARPS, STAGES, SPLIT, CACHE, MMA>(W, X, Y, [sync,] M, N, K): the block's
 * k tiles (mma_load_stage) and its 16-byte output units.
 */
enum mma_kind { MMA_PLAIN, MMA_CLUSTER, MMA_HILO, MMA_HILO_ZBLOCK };

static void model_mma(struct point *pt, enum mma_kind kind)
{
	const long long bm = pt->ints[0], bn = pt->ints[1], bk = pt->ints[2];
	const long long split = pt->ints[5];
	const int hilo = kind == MMA_HILO || kind == MMA_HILO_ZBLOCK;
	const long combine = kind == MMA_PLAIN ? pt->ints[7] : -1;     /* 0 partials, 1 atomic */
	const long layout = kind == MMA_PLAIN ? pt->ints[8] : kind == MMA_CLUSTER ? pt->ints[7] : 0;
	const long long M = pt->m, N = pt->s->n, K = pt->s->k;
	const long long t0 = (long long)pt->b[0] * bn, sp = pt->b[1];
	const enum buf w = arg_buf(pt->st, 0), x = arg_buf(pt->st, 1), y = arg_buf(pt->st, 2);
	if (kind == MMA_HILO_ZBLOCK) {
		touch(pt, arg_buf(pt->st, 3), 0, 4, "counts on");
		if (pt->b[2] == 0) {    /* the zero block: all of Y, nothing else */
			if (pt->b[0] == 0 && pt->b[1] == 0)
				touch(pt, y, 0, M * N * 4, "zeroes");
			return;
		}
	}
	const long long n0 = ((long long)pt->b[2] - (kind == MMA_HILO_ZBLOCK)) * bm;
	const long long ktotal = K / bk, kt_first = sp * ktotal / split;
	const long long ktiles = (sp + 1) * ktotal / split - kt_first;
	if (ktiles > 0) {
		const long long k0 = kt_first * bk, k1 = (kt_first + ktiles) * bk;
		if (layout == 1) {      /* packed bm x bk tiles, a row block's along K */
			const long long tile = (n0 / bm) * (K / bk);
			touch(pt, w, (tile + kt_first) * bm * bk * 2,
			      (tile + kt_first + ktiles) * bm * bk * 2, "reads");
		} else if (hilo) {      /* hi rows n0/2.., lo rows N + n0/2.. */
			touch(pt, w, (n0 / 2 * K + k0) * 2, ((n0 / 2 + bm / 2 - 1) * K + k1) * 2, "reads");
			touch(pt, w, ((N + n0 / 2) * K + k0) * 2,
			      ((N + n0 / 2 + bm / 2 - 1) * K + k1) * 2, "reads");
		} else {
			touch(pt, w, (n0 * K + k0) * 2, ((n0 + bm - 1) * K + k1) * 2, "reads");
		}
		/* token rows past M copy from row 0 (zero-filled) */
		const long long xlast = min_ll(t0 + bn, M) - 1;
		touch(pt, x, k0 * 2, ((xlast < 0 ? 0 : xlast) * K + k1) * 2, "reads");
	}
	/* output units: tokens t0.. below M, 4 rows each of the block's
	 * out_rows (hi/lo: bm/2 outputs n0/2..) */
	const long long tlast = min_ll(t0 + bn, M) - 1;
	if (tlast < t0)
		return;
	const long long out0 = hilo ? n0 / 2 : n0, rows = hilo ? bm / 2 : bm;
	const long long lo = t0 * N + out0, hi = tlast * N + out0 + rows;
	if (hilo)
		touch(pt, y, lo * 4, hi * 4, "adds to");
	else if (split == 1 || kind == MMA_CLUSTER)
		touch(pt, y, lo * 2, hi * 2, "writes");
	else if (combine == 0)
		touch(pt, arg_buf(pt->st, 3), (sp * M * N + lo) * 4, (sp * M * N + hi) * 4, "writes");
	else
		touch(pt, arg_buf(pt->st, 3), lo * 4, hi * 4, "adds to");
}

/* mma_splitk_reduce(ws, Y, splits, M, N): float4s i < M*N/4 */
static void model_mma_reduce(struct point *pt)
{
	const long long total4 = (long long)pt->m * pt->s->n / 4;
	touch(pt, arg_buf(pt->st, 0), 0, arg_int(pt->st) * total4 * 16, "reads");
	touch(pt, arg_buf(pt->st, 1), 0, total4 * 4 * 2, "writes");
}

/* mma_zero_f32(p, n4) */
static void model_zero(struct point *pt)
{
	touch(pt, arg_buf(pt->st, 0), 0, arg_int(pt->st) * 16, "zeroes");
}

/* mma_frag_kernel<WARPS, NT, TOK, U, CACHE, KC>(W packed 8 x 32, X, Y, M,
 * N, K): each warp's chunks of 32 k, its first batch of U loaded before
 * any test. */
static void model_frag(struct point *pt)
{
	const long long warps = pt->ints[0], nt = pt->ints[1], tok = pt->ints[2];
	const long long u = pt->ints[3], kc = pt->ints[5];
	const long long M = pt->m, N = pt->s->n, K = pt->s->k;
	if (kc > 0 && K != 32 * warps * kc)
		return;         /* the kernel traps before any access */
	const long long per_warp = kc > 0 ? kc : K / 32 / warps;
	const long long t0 = (long long)pt->b[0] * tok, group0 = (long long)pt->b[1] * nt;
	/* chunks [0, c1) over the warps; the last warp's first batch at least */
	const long long c1 = (warps - 1) * per_warp + max_ll(per_warp, u);
	touch(pt, arg_buf(pt->st, 0), group0 * (K / 32) * 512,
	      ((group0 + nt - 1) * (K / 32) + c1) * 512, "reads");
	const long long xlast = min_ll(t0 + tok, M) - 1;        /* rows past M: M - 1 */
	touch(pt, arg_buf(pt->st, 1), min_ll(t0, M - 1) * K * 2, (xlast * K + c1 * 32) * 2, "reads");
	if (t0 < M)
		touch(pt, arg_buf(pt->st, 2), (t0 * N + group0 * 8) * 2,
		      (xlast * N + group0 * 8 + nt * 8) * 2, "writes");
}

/* The kernel name's integer template arguments into pt->ints. */
static void parse_ints(struct point *pt)
{
	pt->nints = 0;
	const char *a = strchr(pt->kernel, '<');
	while (a && *a && *a != '>' && pt->nints < 16) {
		a++;
		char *end;
		long v = strtol(a, &end, 10);
		if (end != a && (*end == ',' || *end == '>'))
			pt->ints[pt->nints++] = v;
		a = strpbrk(a, ",>");
	}
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* One kernel step at one block; 0, or -1 for a kernel no model knows. */
static int model_kernel(struct point *pt)
{
	const char *k = pt->kernel;
	if (starts(k, "gemv_kernel<") || starts(k, "gemv_tail_kernel<"))
		model_gemv(pt, starts(k, "gemv_tail"));
	else if (starts(k, "gemv_splitk_reduce<"))
		model_gemv_reduce(pt);
	else if (starts(k, "mma_skinny_kernel<"))
		model_mma(pt, MMA_PLAIN);
	else if (starts(k, "mma_skinny_cluster_kernel<"))
		model_mma(pt, MMA_CLUSTER);
	else if (starts(k, "mma_hilo_kernel<") || starts(k, "mma_hilo_cluster_kernel<"))
		model_mma(pt, MMA_HILO);
	else if (starts(k, "mma_hilo_zblock_kernel<"))
		model_mma(pt, MMA_HILO_ZBLOCK);
	else if (!strcmp(k, "mma_splitk_reduce"))
		model_mma_reduce(pt);
	else if (!strcmp(k, "mma_zero_f32"))
		model_zero(pt);
	else if (starts(k, "mma_frag_kernel<"))
		model_frag(pt);
	else
		return -1;
	return 0;
}

/* Block indices 0, 1, d-2, d-1 of a grid dimension d (fewer when d < 4). */
static int edge_blocks(unsigned d, unsigned out[4])
{
	const unsigned cand[4] = { 0, 1, d >= 2 ? d - 2 : 0, d - 1 };
	int n = 0;
	for (int i = 0; i < 4; i++)
		if (cand[i] < d && (n == 0 || cand[i] > out[n - 1]))
			out[n++] = cand[i];
	return n;
}

/* Walk the plan of one admitted point; -1 when a kernel has no model. */
static int walk_plan(struct point *pt, const struct launch_plan *pl,
		     char names[][TMPL_NAME_MAX], int nk)
{
	pt->size[B_WS] = (long long)pl->ws_bytes;
	pt->size[B_SYNC] = (long long)pl->sync_bytes;
	for (int i = 0; i < pl->nsteps; i++) {
		const struct launch_step *st = &pl->steps[i];
		pt->st = st;
		pt->kernel = NULL;
		pt->b[0] = pt->b[1] = pt->b[2] = 0;
		if (st->kind == STEP_MEMSET_Y || st->kind == STEP_MEMSET_WS) {
			touch(pt, st->kind == STEP_MEMSET_Y ? B_Y : B_WS, 0, (long long)st->bytes, "zeroes");
		} else if (st->kind == STEP_GEMM_BF16) {
			touch(pt, B_PREP, (long long)st->w_offset * 2,
			      ((long long)st->w_offset + (long long)pt->s->n * pt->s->k) * 2, "reads");
			touch(pt, B_Y, 0, (long long)pt->m * pt->s->n * (long long)dtype_size(pt->s->y),
			      "writes");
		} else if (st->kind == STEP_KERNEL) {
			if (st->kernel < 0 || st->kernel >= nk)
				return -1;
			pt->kernel = names[st->kernel];
			parse_ints(pt);
			unsigned e[3][4];
			int ne[3];
			for (int d = 0; d < 3; d++)
				ne[d] = edge_blocks(st->grid[d], e[d]);
			for (int z = 0; z < ne[2]; z++)
				for (int yb = 0; yb < ne[1]; yb++)
					for (int xb = 0; xb < ne[0]; xb++) {
						pt->b[0] = e[0][xb];
						pt->b[1] = e[1][yb];
						pt->b[2] = e[2][z];
						if (model_kernel(pt))
							return -1;
					}
		}
		/* STEP_LT: cuBLASLt's own indexing, in its workspace */
	}
	return 0;
}

/* A template's parameter grid: per parameter the values to try. */
struct grid {
	const char *stem;
	const char *values[12];         /* per parameter, comma-separated */
};

static const struct grid grids[] = {
	{ "gemv", { "1,2,3,4,8,16,32", "1,2,3,4,8,16", "1,2,3,4,8,16", "1,2,3,4,8",
		    "1,2,3,4,5,8,16,64", "0,4" } },
	{ "mma_skinny", { "16,32,64,128", "8,16,32,64,128,256", "32,64,128", "2,4,8,16", "2,3,4",
			  "1,2,3,5,8,16", "0", "0,1,2", "0,1", "0,1", "0,1", "0,2,4,8" } },
	{ "mma_hilo", { "16,32,64,128", "8,16,32,64,128,256", "32,64,128", "2,4,8,16", "2,3,4",
			"1,2,3,5,8,16,32", "0", "0,1,2", "0,1", "0,1" } },
	{ "mma_frag", { "1,2,3,4,8,16,32", "1,2,3,4,8", "8,12,16", "1,2,3,4,8,16", "0", "0,1" } },
	{ "blas_lt", { "0,1,2", "0", "0", "0", "0", "0", "0", "0", "0", "0" } },
	{ "blas_hilo", { NULL } },
};

/* Shapes: N and K odd, even, powers of two and not; bf16 and fp32 weights. */
static const struct { int n, k; enum dtype w, y; } shapes[] = {
	{ 1000, 3000, DT_BF16, DT_BF16 }, { 1024, 1024, DT_BF16, DT_BF16 },
	{ 3584, 4736, DT_BF16, DT_BF16 }, { 6144, 4096, DT_BF16, DT_BF16 },
	{ 96, 8192, DT_BF16, DT_BF16 },   { 1536, 1000, DT_BF16, DT_BF16 },
	{ 1001, 1001, DT_BF16, DT_BF16 }, { 4096, 1536, DT_BF16, DT_BF16 },
	{ 60, 1000, DT_FP32, DT_FP32 },   { 64, 4096, DT_FP32, DT_FP32 },
	{ 128, 2880, DT_FP32, DT_FP32 },  { 8, 64, DT_FP32, DT_FP32 },
};
static const int ms[] = { 1, 2, 3, 5, 8, 9, 16, 17, 33, 64, 100, 129, 256, 300 };

#define NSHAPES ((int)(sizeof(shapes) / sizeof(shapes[0])))
#define NMS ((int)(sizeof(ms) / sizeof(ms[0])))

/* Parameter i's values from the grid's text into v; returns the count. */
static int grid_values(const struct grid *g, int i, long v[16])
{
	int n = 0;
	for (const char *a = g->values[i]; a && *a && n < 16; a = strchr(a, ',') ? strchr(a, ',') + 1 : "")
		v[n++] = strtol(a, NULL, 10);
	return n;
}

/* Every admitted point of template t over the shapes and Ms: how many
 * were walked; pt->bad counts the ranges out of bounds. */
static long walk_template(const struct tmpl *t, const struct grid *g, struct point *pt)
{
	long vals[12][16];
	int nv[12], idx[12] = { 0 };
	for (int i = 0; i < t->nparams; i++) {
		nv[i] = grid_values(g, i, vals[i]);
		if (nv[i] == 0)
			return -1;
	}
	long p[MAX_PARAMS] = { 0 };
	for (;;) {
		for (int i = 0; i < t->nparams; i++)
			p[i] = vals[i][idx[i]];
		for (int si = 0; si < NSHAPES; si++) {
			struct shape s = { .n = shapes[si].n, .k = shapes[si].k, .w = shapes[si].w,
					   .x = DT_BF16, .y = shapes[si].y };
			if (t->check(&s, p))
				continue;
			char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
			int nk = t->kernels(&s, p, names, TMPL_MAX_KERNELS);
			struct relayout r = tmpl_relayout(t, p);
			for (int mi = 0; mi < NMS; mi++) {
				struct launch_plan pl;
				if (t->plan(&s, p, ms[mi], &pl))
					return -1;      /* admitted, yet no plan */
				*pt = (struct point){ .t = t, .p = p, .s = &s, .m = ms[mi],
						      .points = pt->points, .bad = pt->bad };
				pt->size[B_W] = (long long)s.n * s.k * (long long)dtype_size(s.w);
				pt->size[B_PREP] = (long long)relayout_bytes(&r, &s);
				pt->size[B_X] = (long long)ms[mi] * s.k * (long long)dtype_size(s.x);
				pt->size[B_Y] = (long long)ms[mi] * s.n * (long long)dtype_size(s.y);
				if (walk_plan(pt, &pl, names, nk)) {
					fprintf(stderr, "  %s: no model for kernel %s\n", t->stem,
						pt->kernel ? pt->kernel : "(index out of range)");
					return -1;
				}
				pt->points++;
			}
		}
		int i = 0;
		while (i < t->nparams && ++idx[i] == nv[i])
			idx[i++] = 0;
		if (i == t->nparams)
			break;
	}
	return pt->points;
}

/* The test-only template whose kernels fault on purpose has no model. */
static int modelled(const struct tmpl *t)
{
	return strcmp(t->stem, "planted") != 0;
}

static const struct grid *grid_of(const struct tmpl *t)
{
	for (size_t i = 0; i < sizeof(grids) / sizeof(grids[0]); i++)
		if (!strcmp(grids[i].stem, t->stem))
			return &grids[i];
	return NULL;
}

/* Every template but the test-only one has a grid; each admits points of
 * the grid, and every admitted point's blocks stay inside their buffers. */
TEST(every_admitted_point_stays_in_bounds)
{
	int templates = 0;
	for (int i = 0; tmpl_all[i]; i++) {
		const struct tmpl *t = tmpl_all[i];
		if (!modelled(t))
			continue;
		const struct grid *g = grid_of(t);
		CHECK(g != NULL);
		if (!g)
			continue;
		struct point pt = { 0 };
		long n = walk_template(t, g, &pt);
		printf("  %s: %ld admitted points (shape, parameters, M), %ld ranges out of bounds\n",
		       t->stem, n, pt.bad);
		CHECK(n > 0);
		CHECK_INT(pt.bad, 0);
		templates++;
	}
	CHECK_INT(templates, 6);
}

/* The model finds what it looks for: a gemv_kernel point whose N is not
 * whole blocks of rows (the adapter names gemv_tail_kernel there), walked
 * past the check. */
TEST(models_catch_out_of_bounds)
{
	const struct tmpl *t = tmpl_find("gemv");
	CHECK(t != NULL);
	if (!t)
		return;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	struct launch_plan pl = { .nsteps = 1 };
	pl.steps[0] = (struct launch_step){ .kind = STEP_KERNEL, .kernel = 0,
					    .grid = { 2, 1, 1 }, .block = { 32, 1, 1 } };
	const enum arg_kind kinds[] = { ARG_W, ARG_X, ARG_Y, ARG_WS, ARG_M, ARG_N, ARG_K };
	for (int i = 0; i < 7; i++)
		pl.steps[0].args[pl.steps[0].nargs++] = (struct launch_arg){ kinds[i], 0 };
	struct point pt;
	/* gemv_kernel over N = 12 with rows 8: the second block's rows 8..15 */
	snprintf(names[0], TMPL_NAME_MAX, "gemv_kernel<__nv_bfloat16, __nv_bfloat16, 1, 8, 1, 1, 1, 0>");
	const long q[] = { 1, 8, 1, 1, 1, 0 };
	struct shape s12 = { .n = 12, .k = 256, .w = DT_BF16, .x = DT_BF16, .y = DT_BF16 };
	CHECK(t->check(&s12, q) == NULL);
	CHECK_INT(t->kernels(&s12, q, names + 1, 1), 1);
	CHECK(starts(names[1], "gemv_tail_kernel<"));
	pt = (struct point){ .t = t, .p = q, .s = &s12, .m = 1, .quiet = 1 };
	pt.size[B_W] = 12 * 256 * 2;
	pt.size[B_X] = 256 * 2;
	pt.size[B_Y] = 12 * 2;
	CHECK_INT(walk_plan(&pt, &pl, names, 1), 0);
	CHECK(pt.bad > 0);
	/* the tail kernel the adapter names there stays inside */
	pt = (struct point){ .t = t, .p = q, .s = &s12, .m = 1, .quiet = 1 };
	pt.size[B_W] = 12 * 256 * 2;
	pt.size[B_X] = 256 * 2;
	pt.size[B_Y] = 12 * 2;
	CHECK_INT(walk_plan(&pt, &pl, names + 1, 1), 0);
	CHECK_INT(pt.bad, 0);
}

/* Each kernel template's model sees a launch one block too large in every
 * dimension of its main kernel (first admitted point of its grid, at
 * M = 33) reach past a buffer. */
TEST(models_see_a_grid_too_large)
{
	int seen = 0;
	for (int i = 0; tmpl_all[i]; i++) {
		const struct tmpl *t = tmpl_all[i];
		const struct grid *g = grid_of(t);
		if (!modelled(t) || !g || !t->source)
			continue;
		long vals[12][16], p[MAX_PARAMS] = { 0 };
		int nv[12], idx[12] = { 0 }, found = 0;
		for (int j = 0; j < t->nparams; j++)
			nv[j] = grid_values(g, j, vals[j]);
		struct shape s = { .n = 0 };
		while (!found) {
			for (int j = 0; j < t->nparams; j++)
				p[j] = vals[j][idx[j]];
			for (int si = 0; si < NSHAPES && !found; si++) {
				s = (struct shape){ .n = shapes[si].n, .k = shapes[si].k, .w = shapes[si].w,
						    .x = DT_BF16, .y = shapes[si].y };
				found = !t->check(&s, p);
			}
			int j = 0;
			while (j < t->nparams && ++idx[j] == nv[j])
				idx[j++] = 0;
			if (j == t->nparams)
				break;
		}
		CHECK(found);
		if (!found)
			continue;
		char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
		int nk = t->kernels(&s, p, names, TMPL_MAX_KERNELS);
		struct launch_plan pl;
		CHECK_INT(t->plan(&s, p, 33, &pl), 0);
		struct relayout r = tmpl_relayout(t, p);
		for (int st = 0; st < pl.nsteps; st++)
			if (pl.steps[st].kind == STEP_KERNEL && pl.steps[st].kernel == 0)
				for (int d = 0; d < 3; d++)
					pl.steps[st].grid[d]++;
		struct point pt = { .t = t, .p = p, .s = &s, .m = 33, .quiet = 1 };
		pt.size[B_W] = (long long)s.n * s.k * (long long)dtype_size(s.w);
		pt.size[B_PREP] = (long long)relayout_bytes(&r, &s);
		pt.size[B_X] = 33LL * s.k * (long long)dtype_size(s.x);
		pt.size[B_Y] = 33LL * s.n * (long long)dtype_size(s.y);
		CHECK_INT(walk_plan(&pt, &pl, names, nk), 0);
		printf("  %s at n %d k %d: %ld ranges out of bounds\n", t->stem, s.n, s.k, pt.bad);
		CHECK(pt.bad > 0);
		seen++;
	}
	CHECK_INT(seen, 4);
}

TESTS(T(every_admitted_point_stays_in_bounds), T(models_catch_out_of_bounds),
      T(models_see_a_grid_too_large))
