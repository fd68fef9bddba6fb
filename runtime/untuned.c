/*
 * untuned.c: what the runtime ran on the cuBLAS baseline, and why, per
 * weight shape and M bucket (gt_record_untuned, gt_stats,
 * gt_untuned_write). Pure host code, no CUDA calls: the CPU tests
 * (tests/unit/test_untuned.c) drive it as gt_linear does.
 *
 * Storage is fixed at prepare: one slot per weight prepared while
 * recording is on, RT_UNTUNED_BUCKETS counters per reason, so gt_linear
 * only increments (a relaxed atomic add: one handle is used by one thread
 * at a time, but gt_stats may read from another). A destroyed weight's
 * counts fold into a slot kept for its shape, so nothing is lost and the
 * slots stay as many as the live weights and distinct shapes.
 *
 * A count is a gt_linear call on the host. A call captured into a CUDA
 * graph counts once, when it is captured, however often the graph is
 * replayed: under graphs the counts say which shapes and Ms ran untuned,
 * not how often.
 */
#include "rt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_untuned *reg_head;     /* live slots, then retired ones */
static int record_state = -1;           /* -1: GEMMTAB_RECORD_UNTUNED unread */

/* M buckets: every M to 64, then 8 Ms a bucket to 512, then powers of 2
 * (513..1024, 1025..2048, ...) up to INT_MAX. */
int rt_untuned_bucket(int m)
{
	if (m <= 64)
		return m - 1;
	if (m <= 512)
		return 64 + (m - 65) / 8;
	int b = 64 + 56;
	long hi = 1024;
	while (m > hi) {
		hi *= 2;
		b++;
	}
	return b;
}

void rt_untuned_bounds(int b, int *lo, int *hi)
{
	if (b < 64) {
		*lo = *hi = b + 1;
	} else if (b < 120) {
		*lo = 65 + 8 * (b - 64);
		*hi = *lo + 7;
	} else {
		long h = 1024L << (b - 120);
		*lo = (int)(h / 2 + 1);
		*hi = h > 0x7fffffffL ? 0x7fffffff : (int)h;
	}
}

int gt_record_untuned(int on)
{
	if (on != 0 && on != 1)
		return GT_ERR_INVALID;
	pthread_mutex_lock(&reg_lock);
	record_state = on;
	pthread_mutex_unlock(&reg_lock);
	return GT_OK;
}

static int recording(void)
{
	if (record_state < 0) {
		const char *e = getenv("GEMMTAB_RECORD_UNTUNED");
		record_state = e && *e && strcmp(e, "0") != 0;
	}
	return record_state;
}

/* Add text to notes (*n of RT_UNTUNED_OFF) unless it is there or full;
 * under reg_lock. */
static void add_note(char (*notes)[RT_WHY_MAX], int *n, const char *text)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(notes[i], text))
			return;
	if (*n < RT_UNTUNED_OFF)
		snprintf(notes[(*n)++], RT_WHY_MAX, "%s", text);
}

struct rt_untuned *rt_untuned_open(const struct shape *s)
{
	pthread_mutex_lock(&reg_lock);
	struct rt_untuned *u = NULL;
	if (recording() && (u = calloc(1, sizeof(*u)))) {
		u->shape = *s;
		u->live = 1;
		u->next = reg_head;
		reg_head = u;
	}
	pthread_mutex_unlock(&reg_lock);
	return u;
}

static int same_shape(const struct shape *a, const struct shape *b)
{
	return a->n == b->n && a->k == b->k && a->w == b->w && a->x == b->x && a->y == b->y;
}

void rt_untuned_close(struct rt_untuned *u)
{
	if (!u)
		return;
	pthread_mutex_lock(&reg_lock);
	struct rt_untuned *keep = NULL;
	for (struct rt_untuned *p = reg_head; p && !keep; p = p->next)
		if (p != u && !p->live && same_shape(&p->shape, &u->shape))
			keep = p;
	if (!keep) {
		u->live = 0;            /* the shape's retired slot from now on */
	} else {
		for (int r = 0; r < RT_WHY_N; r++)
			for (int b = 0; b < RT_UNTUNED_BUCKETS; b++)
				keep->n[r][b] += atomic_load_explicit(&u->n[r][b], memory_order_relaxed);
		for (int j = 0; j < u->noff; j++)
			add_note(keep->off, &keep->noff, u->off[j]);
		struct rt_untuned **pp = &reg_head;
		while (*pp != u)
			pp = &(*pp)->next;
		*pp = u->next;
		free(u);
	}
	pthread_mutex_unlock(&reg_lock);
}

void rt_untuned_note_off(struct rt_untuned *u, const char *text)
{
	if (!u || !text || !*text)
		return;
	pthread_mutex_lock(&reg_lock);
	add_note(u->off, &u->noff, text);
	pthread_mutex_unlock(&reg_lock);
}

/* The registry's counts summed per shape, shapes in first-seen order:
 * a calloc'ed array (*n of them), each a shape, its sums and why its
 * entries were off. */
struct shape_sum {
	struct shape shape;
	unsigned long n[RT_WHY_N][RT_UNTUNED_BUCKETS];
	int noff;
	char off[RT_UNTUNED_OFF][RT_WHY_MAX];
};

static struct shape_sum *sum_shapes(int *count)
{
	int cap = 0, n = 0;
	struct shape_sum *out = NULL;
	for (struct rt_untuned *p = reg_head; p; p = p->next)
		cap++;
	if (cap && !(out = calloc((size_t)cap, sizeof(*out))))
		return *count = -1, NULL;
	for (struct rt_untuned *p = reg_head; p; p = p->next) {
		int i = 0;
		while (i < n && !same_shape(&out[i].shape, &p->shape))
			i++;
		if (i == n)
			out[n++].shape = p->shape;
		for (int r = 0; r < RT_WHY_N; r++)
			for (int b = 0; b < RT_UNTUNED_BUCKETS; b++)
				out[i].n[r][b] += atomic_load_explicit(&p->n[r][b], memory_order_relaxed);
		for (int j = 0; j < p->noff; j++)
			add_note(out[i].off, &out[i].noff, p->off[j]);
	}
	*count = n;
	return out;
}

int gt_stats(gt_stat *out, int cap, int *count)
{
	if (!count || cap < 0 || (cap > 0 && !out))
		return GT_ERR_INVALID;
	pthread_mutex_lock(&reg_lock);
	int ns = 0, rows = 0;
	struct shape_sum *s = sum_shapes(&ns);
	pthread_mutex_unlock(&reg_lock);
	if (ns < 0)
		return GT_ERR_NO_MEMORY;
	for (int i = 0; i < ns; i++)
		for (int b = 0; b < RT_UNTUNED_BUCKETS; b++) {
			unsigned long any = 0;
			for (int r = 0; r < RT_WHY_N; r++)
				any |= s[i].n[r][b];
			if (!any)
				continue;
			if (rows < cap) {
				gt_stat *o = &out[rows];
				o->n = s[i].shape.n;
				o->k = s[i].shape.k;
				o->w = (gt_dtype)s[i].shape.w;
				o->x = (gt_dtype)s[i].shape.x;
				o->y = (gt_dtype)s[i].shape.y;
				rt_untuned_bounds(b, &o->m_lo, &o->m_hi);
				o->no_entry = s[i].n[RT_WHY_NO_ENTRY][b];
				o->unusable = s[i].n[RT_WHY_UNUSABLE][b];
				o->misaligned = s[i].n[RT_WHY_MISALIGNED][b];
				o->refused = s[i].n[RT_WHY_REFUSED][b];
			}
			rows++;
		}
	free(s);
	*count = rows;
	return GT_OK;
}

static const char *dtype_word(int d)
{
	return d == DT_FP32 ? "fp32" : "bf16";
}

/* One shape's line of the fragment: its Ms as a list (at most 32 Ms, all
 * single-M buckets) or as a range LO..HI over every bucket that ran
 * untuned; misaligned calls are not tuning's to mend and only noted. */
static void write_shape(FILE *f, const struct shape_sum *s)
{
	int ms[32], nms = 0, list = 1, lo = 0, hi = 0;
	unsigned long why[RT_WHY_N] = { 0 };
	for (int b = 0; b < RT_UNTUNED_BUCKETS; b++) {
		for (int r = 0; r < RT_WHY_N; r++)
			why[r] += s->n[r][b];
		if (!(s->n[RT_WHY_NO_ENTRY][b] | s->n[RT_WHY_UNUSABLE][b] | s->n[RT_WHY_REFUSED][b]))
			continue;
		int blo, bhi;
		rt_untuned_bounds(b, &blo, &bhi);
		if (!lo)
			lo = blo;
		hi = bhi;
		if (blo != bhi || nms == 32)
			list = 0;
		else
			ms[nms++] = blo;
	}
	const char *t = dtype_word(s->shape.w), *y = dtype_word(s->shape.y);
	fprintf(f, "  # %d x %d: %lu calls with no entry, %lu whose entry this GPU cannot run, "
		"%lu with x or y not 16-byte aligned, %lu cuBLASLt refused\n", s->shape.n,
		s->shape.k, why[RT_WHY_NO_ENTRY], why[RT_WHY_UNUSABLE], why[RT_WHY_MISALIGNED],
		why[RT_WHY_REFUSED]);
	for (int i = 0; i < s->noff; i++) {
		fputs("  # off: ", f);
		for (const char *c = s->off[i]; *c; c++)
			fputc(*c == '\n' ? ' ' : *c, f);
		fputc('\n', f);
	}
	if (!lo) {
		fprintf(f, "  # (only misaligned calls: nothing to tune)\n");
		return;
	}
	fprintf(f, "  - {family: n%d_k%d_%s, n: %d, k: %d, w: %s, x: bf16, y: %s, tol: %s,\n     m: ",
		s->shape.n, s->shape.k, t, s->shape.n, s->shape.k, t, y,
		s->shape.y == DT_FP32 ? "1e-4" : "1e-2");
	if (list) {
		fputc('[', f);
		for (int i = 0; i < nms; i++)
			fprintf(f, "%s%d", i ? ", " : "", ms[i]);
		fputs("]}\n", f);
	} else if (lo == hi) {
		fprintf(f, "[%d]}\n", lo);
	} else {
		fprintf(f, "%d..%d}\n", lo, hi);
	}
}

int gt_untuned_write(const char *path)
{
	if (!path || !*path)
		return GT_ERR_INVALID;
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return GT_ERR_INVALID;
	pthread_mutex_lock(&reg_lock);
	int ns = 0;
	struct shape_sum *s = sum_shapes(&ns);
	pthread_mutex_unlock(&reg_lock);
	if (ns < 0)
		return GT_ERR_NO_MEMORY;
	FILE *f = fopen(tmp, "w");
	if (!f) {
		free(s);
		return GT_ERR_INVALID;
	}
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	fprintf(f, "# The shapes and Ms libgemmtab ran on the cuBLAS baseline (gt_untuned_write,\n"
		   "# %s), for the table: %s\n"
		   "# Sweep them beside a base space:\n"
		   "#   gemmtab sweep --space search_spaces/h200.yaml --shapes THIS_FILE\n"
		   "# A count is a gt_linear call on the host; a call captured into a CUDA graph\n"
		   "# counts once, however often the graph replays.\n",
		when, gt_table_description());
	int any = 0;
	for (int i = 0; i < ns; i++) {
		unsigned long tune = 0;
		for (int b = 0; b < RT_UNTUNED_BUCKETS; b++)
			tune |= s[i].n[RT_WHY_NO_ENTRY][b] | s[i].n[RT_WHY_UNUSABLE][b] |
				s[i].n[RT_WHY_REFUSED][b];
		any |= tune != 0;
	}
	fprintf(f, "shapes:%s\n", any ? "" : " []");
	for (int i = 0; i < ns; i++)
		write_shape(f, &s[i]);
	free(s);
	int bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return GT_ERR_INVALID;
	}
	return GT_OK;
}
