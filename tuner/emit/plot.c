/*
 * plot.c: speedup against M per family as one SVG document (see plot.h).
 *
 * Notes on the design:
 * - The picture is a pure function of the input: every coordinate and
 *   label is printed with %.1f or %.2f in the C locale (the tuner never
 *   calls setlocale), a series' colour and marker follow its position,
 *   and nothing reads the clock or the environment.
 * - A point is drawn when its M is at least 1 and its speedup finite; a
 *   point left out leaves out its bound and its fraction too (they
 *   describe the same run). Lines join the drawn points in M order, so a
 *   point left out is bridged by its neighbours.
 * - The x axis is log2 M from 1 to the largest drawn M (2 at least); both
 *   panels share it and only the bottom one carries its labels. Every
 *   drawn value lies inside its panel's range, so nothing needs clipping.
 * - The top panel is linear while its values span at most LOG_SPAN times
 *   (hi / lo), else log2 with ticks at 2^e and 1.5 * 2^e: one family far
 *   ahead (the router's 4-7x) would squash the others' 1.0-2.0 into the
 *   bottom rows of a linear panel.
 * - A title too long for the width is set smaller, down to 11 pixels.
 */
#include "plot.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 900
#define SVG_H 640
#define X0 72.0                 /* plot area's left and right edges */
#define X1 700.0
#define XPAD 10.0               /* data inset from the frame */
#define LEGEND_X 722.0
#define GRID "#e3e3e3"
#define INK "#444444"
#define LOG_SPAN 4.0

/* Okabe and Ito's colour-blind-safe palette less its yellow and black;
 * series past its end take the next marker shape. */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
};
static const char *const shape_tag[] = { "circle", "rect", "polygon" };
#define NCOLOURS ((int)ARRAY_SIZE(palette))
#define NSHAPES ((int)ARRAY_SIZE(shape_tag))

struct panel {
	double y0, y1;          /* pixel rows of the top and bottom edges */
	double lo, hi, step;    /* value range and grid step (log2 of them when log) */
	int decimals;           /* of the tick labels (linear) */
	int log;                /* log2 scale */
};

struct frame {
	double lmax;            /* log2 of the M at the right end */
	struct panel top, bot;
};

/* A NULL array is a series with no such value. */
static double value(const double *v, int i)
{
	return v ? v[i] : NAN;
}

static double x_of(const struct frame *f, double log2m)
{
	return X0 + XPAD + (X1 - X0 - 2 * XPAD) * log2m / f->lmax;
}

static double y_of(const struct panel *p, double v)
{
	if (p->log)
		v = log2(v);
	return p->y1 - (v - p->lo) / (p->hi - p->lo) * (p->y1 - p->y0);
}

/* Write s with &, <, > and " as entities and control characters, which
 * XML 1.0 does not admit, as spaces. */
static void put_escaped(FILE *out, const char *s)
{
	static const char special[] = "&<>\"";
	static const char *const entity[] = { "&amp;", "&lt;", "&gt;", "&quot;" };
	const char *e;
	for (; s && *s; s++) {
		if ((e = strchr(special, *s)))
			fputs(entity[e - special], out);
		else
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
}

/* The indices of s's drawn points (M >= 1, finite speedup) in M order,
 * ties in input order; *n gets their count. Caller frees. */
static int *drawn_points(const struct plot_series *s, int *n)
{
	int *idx = xmalloc(((size_t)(s->n > 0 ? s->n : 0) + 1) * sizeof(*idx));
	*n = 0;
	for (int i = 0; i < s->n; i++) {
		if (s->m[i] < 1 || !isfinite(s->speedup[i]))
			continue;
		/* insertion sort: a family has tens of points */
		int j = (*n)++;
		for (; j > 0 && s->m[idx[j - 1]] > s->m[i]; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return idx;
}

/* The top panel's range: lo..hi widened by 5% (0.02 at least) each way,
 * out to multiples of the smallest step of 1, 2, 2.5 or 5 times a power
 * of ten (0.01 at least) that spans it in at most six intervals; never
 * below 0 when lo is not. */
static void fit_top(struct panel *p, double lo, double hi)
{
	static const double mult[] = { 1, 2, 2.5, 5 };
	double margin = fmax(0.05 * (hi - lo), 0.02);
	double a = lo - margin, b = hi + margin;
	for (int e = -2; e <= 15; e++) {
		for (int i = 0; i < (int)ARRAY_SIZE(mult); i++) {
			if (e == -2 && mult[i] == 2.5)
				continue;       /* 0.025 would need three decimals */
			p->step = mult[i] * pow(10, e);
			p->lo = floor(a / p->step + 1e-9) * p->step;
			p->hi = ceil(b / p->step - 1e-9) * p->step;
			if ((p->hi - p->lo) / p->step < 6 + 1e-9)
				goto found;
		}
	}
found:
	if (p->lo < 0 && lo >= 0)
		p->lo = 0;
	/* a step of 0.25 or 0.05 needs two decimals, one of 0.5 or 2 one */
	p->decimals = fabs(p->step * 10 - round(p->step * 10)) < 1e-9 ? 1 : 2;
}

/* The top panel on a log2 scale: lo..hi (both > 0) widened by a tenth
 * of an octave each way, out to half octaves. */
static void fit_top_log(struct panel *p, double lo, double hi)
{
	p->log = 1;
	p->lo = floor((log2(lo) - 0.1) * 2) / 2;
	p->hi = ceil((log2(hi) + 0.1) * 2) / 2;
}

/* Both panels' ranges and the x axis' end. Returns -1 when no series has
 * a drawn point. */
static int frame_fit(struct frame *f, const struct plot_series *s,
		     int *const *idx, const int *cnt, int ns)
{
	double lo = 1, hi = 1, frac_lo = 0, frac_hi = 0;
	int m_max = 0, drawn = 0;
	for (int i = 0; i < ns; i++) {
		for (int k = 0; k < cnt[i]; k++) {
			int j = idx[i][k];
			double sp = s[i].speedup[j], b = value(s[i].bound, j);
			double fr = value(s[i].frac, j);
			lo = fmin(lo, sp);
			hi = fmax(hi, sp);
			if (isfinite(b)) {
				lo = fmin(lo, b);
				hi = fmax(hi, b);
			}
			if (isfinite(fr)) {
				frac_lo = fmin(frac_lo, fr);
				frac_hi = fmax(frac_hi, fr);
			}
			if (s[i].m[j] > m_max)
				m_max = s[i].m[j];
			drawn++;
		}
	}
	if (!drawn)
		return -1;
	f->lmax = log2(m_max > 2 ? m_max : 2);
	f->top = (struct panel){ .y0 = 52, .y1 = 372 };
	if (lo > 0 && hi / lo > LOG_SPAN)
		fit_top_log(&f->top, lo, hi);
	else
		fit_top(&f->top, lo, hi);
	f->bot = (struct panel){ .y0 = 408, .y1 = 572, .step = 0.25, .decimals = 2 };
	f->bot.hi = fmax(1.1, 1.05 * frac_hi);
	while ((f->bot.hi - frac_lo) / f->bot.step > 8)
		f->bot.step *= 2;
	/* 0 unless a (meaningless) negative fraction must fit too */
	f->bot.lo = floor(frac_lo / f->bot.step) * f->bot.step;
	return 0;
}

static void put_line(FILE *out, double x1, double y1, double x2, double y2, const char *attrs)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n",
		x1, y1, x2, y2, attrs);
}

/* Vertical grid lines at the powers of two in both panels, labelled under
 * the bottom one (every other power when there are more than 12). */
static void put_x_axis(FILE *out, const struct frame *f)
{
	int emax = (int)floor(f->lmax + 1e-9), every = emax >= 12 ? 2 : 1;
	for (int e = 0; e <= emax; e++) {
		double x = x_of(f, e);
		put_line(out, x, f->top.y0, x, f->top.y1, "stroke=\"" GRID "\"");
		put_line(out, x, f->bot.y0, x, f->bot.y1, "stroke=\"" GRID "\"");
	}
	fputs("<g text-anchor=\"middle\">\n", out);
	for (int e = 0; e <= emax; e += every)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%ld</text>\n",
			x_of(f, e), f->bot.y1 + 16, 1L << e);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">M (log2 scale)</text>\n</g>\n",
		(X0 + X1) / 2, f->bot.y1 + 40);
}

/* Grid lines and tick labels at a log2 panel's 2^e and 1.5 * 2^e. */
static void put_y_log_ticks(FILE *out, const struct panel *p)
{
	for (int e = (int)floor(p->lo) - 1; e <= (int)ceil(p->hi); e++) {
		for (int i = 0; i < 2; i++) {
			double v = ldexp(i ? 1.5 : 1.0, e), l = log2(v);
			if (l < p->lo - 1e-9 || l > p->hi + 1e-9)
				continue;
			double y = y_of(p, v);
			put_line(out, X0, y, X1, y, "stroke=\"" GRID "\"");
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.*f</text>\n", X0 - 6, y + 4,
				v < 1 ? 2 : v == floor(v) ? 0 : 1, v);
		}
	}
}

/* Grid lines and tick labels at a linear panel's steps. */
static void put_y_lin_ticks(FILE *out, const struct panel *p)
{
	long k0 = lround(ceil(p->lo / p->step - 1e-9));
	long k1 = lround(floor(p->hi / p->step + 1e-9));
	for (long k = k0; k <= k1; k++) {
		double v = (double)k * p->step, y = y_of(p, v);
		put_line(out, X0, y, X1, y, "stroke=\"" GRID "\"");
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.*f</text>\n",
			X0 - 6, y + 4, p->decimals, v);
	}
}

/* Horizontal grid lines and tick labels, the panel's frame, and its label
 * written upwards along the left edge. */
static void put_y_axis(FILE *out, const struct panel *p, const char *label)
{
	fputs("<g text-anchor=\"end\">\n", out);
	if (p->log)
		put_y_log_ticks(out, p);
	else
		put_y_lin_ticks(out, p);
	fprintf(out, "</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"none\" stroke=\"#999999\"/>\n", X0, p->y0, X1 - X0, p->y1 - p->y0);
	fprintf(out, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\" "
		"font-size=\"13\">", (p->y0 + p->y1) / 2);
	put_escaped(out, label);
	if (p->log)
		fputs(" (log2 scale)", out);
	fputs("</text>\n", out);
}

/* The baseline: a dashed line at speedup 1, under the series. */
static void put_baseline(FILE *out, const struct frame *f)
{
	double y = y_of(&f->top, 1);
	put_line(out, X0, y, X1, y, "stroke=\"" INK "\" stroke-width=\"1.2\" stroke-dasharray=\"6,4\"");
}

/* The baseline's label at its right end, over the series on a pale
 * backing: under the line, where speedups rarely are, unless the panel
 * ends there. */
static void put_baseline_label(FILE *out, const struct frame *f)
{
	double y = y_of(&f->top, 1);
	y = y + 15 < f->top.y1 - 2 ? y + 15 : y - 5;
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"46\" height=\"15\" fill=\"#ffffff\" "
		"fill-opacity=\"0.8\"/>\n", X1 - 49, y - 11);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"" INK "\">cuBLAS</text>\n",
		X1 - 4, y);
}

/* Open the marker element of shape at (x, y), r its half width; the
 * caller closes it with </shape_tag[shape]>. */
static void open_marker(FILE *out, int shape, double x, double y, double r)
{
	if (shape == 0)
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\">", x, y, r);
	else if (shape == 1)
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
			x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8);
	else
		fprintf(out, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\">",
			x, y - r * 1.3, x + r * 1.2, y + r * 0.8, x - r * 1.2, y + r * 0.8);
}

/* A polyline of class cls through the drawn points whose v is finite, in
 * panel p; nothing when there are none. */
static void put_polyline(FILE *out, const struct frame *f, const struct panel *p,
			 const struct plot_series *s, const int *idx, int n,
			 const double *v, const char *cls, const char *attrs)
{
	int first = 1;
	for (int k = 0; k < n; k++) {
		double y = value(v, idx[k]);
		if (!isfinite(y))
			continue;
		if (first)
			fprintf(out, "<polyline class=\"%s\" fill=\"none\" %s points=\"", cls, attrs);
		fprintf(out, "%s%.1f,%.1f", first ? "" : " ", x_of(f, log2(s->m[idx[k]])), y_of(p, y));
		first = 0;
	}
	if (!first)
		fputs("\"/>\n", out);
}

/* One family: its bound, speedup and fraction lines, then its markers,
 * each with a tooltip giving its numbers. */
static void put_series(FILE *out, const struct frame *f, const struct plot_series *s,
		       int pos, const int *idx, int n)
{
	const char *colour = palette[pos % NCOLOURS];
	int shape = pos / NCOLOURS % NSHAPES;
	fprintf(out, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">\n", colour, colour);
	put_polyline(out, f, &f->top, s, idx, n, s->bound, "bound",
		     "stroke-width=\"1.5\" stroke-dasharray=\"2,3\"");
	put_polyline(out, f, &f->top, s, idx, n, s->speedup, "speedup", "stroke-width=\"2\"");
	put_polyline(out, f, &f->bot, s, idx, n, s->frac, "frac", "stroke-width=\"1.5\"");
	for (int k = 0; k < n; k++) {
		int j = idx[k];
		double x = x_of(f, log2(s->m[j])), b = value(s->bound, j), fr = value(s->frac, j);
		open_marker(out, shape, x, y_of(&f->top, s->speedup[j]), 3.5);
		fputs("<title>", out);
		put_escaped(out, s->family);
		fprintf(out, ", M=%d: speedup %.2f", s->m[j], s->speedup[j]);
		if (isfinite(b))
			fprintf(out, ", floor bound %.2f", b);
		fprintf(out, "</title></%s>\n", shape_tag[shape]);
		if (!isfinite(fr))
			continue;
		open_marker(out, shape, x, y_of(&f->bot, fr), 3);
		fputs("<title>", out);
		put_escaped(out, s->family);
		fprintf(out, ", M=%d: %.2f of the floor</title></%s>\n", s->m[j], fr, shape_tag[shape]);
	}
	fputs("</g>\n", out);
}

/* One legend row at y: a line sample in colour with attrs, an optional
 * marker, and the text. */
static void put_key(FILE *out, double y, const char *colour, const char *attrs, int shape,
		    const char *text)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" %s/>\n",
		LEGEND_X, y, LEGEND_X + 28, y, colour, attrs);
	if (shape >= 0) {
		fprintf(out, "<g fill=\"%s\">", colour);
		open_marker(out, shape, LEGEND_X + 14, y, 3.5);
		fprintf(out, "</%s></g>\n", shape_tag[shape]);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", LEGEND_X + 36, y + 4);
	put_escaped(out, text);
	fputs("</text>\n", out);
}

/* The families in position order, then what each line style means. */
static void put_legend(FILE *out, const struct frame *f, const struct plot_series *s, int ns)
{
	double y = f->top.y0 + 8;
	fputs("<g class=\"legend\">\n", out);
	for (int i = 0; i < ns; i++, y += 18)
		put_key(out, y, palette[i % NCOLOURS], "stroke-width=\"2\"",
			i / NCOLOURS % NSHAPES, s[i].family);
	y += 10;
	put_key(out, y, INK, "stroke-width=\"2\"", -1, "solid = measured");
	put_key(out, y + 18, INK, "stroke-width=\"1.5\" stroke-dasharray=\"2,3\"", -1,
		"dotted = floor bound");
	put_key(out, y + 36, INK, "stroke-width=\"1.2\" stroke-dasharray=\"6,4\"", -1,
		"dashed = cuBLAS");
	fputs("</g>\n", out);
}

static void put_document(FILE *out, const char *title, const struct frame *f,
			 const struct plot_series *s, int *const *idx, const int *cnt, int ns)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, "
		"sans-serif\" font-size=\"12\" fill=\"#222222\">\n", SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", SVG_W, SVG_H);
	/* a bold character is ~0.62 of the font size wide: fit SVG_W less margins */
	double size = fmax(11, fmin(17, (SVG_W - 40) / (0.62 * (double)(title ? strlen(title) : 1))));
	fprintf(out, "<text x=\"%.1f\" y=\"30\" text-anchor=\"middle\" font-size=\"%.1f\" "
		"font-weight=\"bold\">", SVG_W / 2.0, size);
	put_escaped(out, title);
	fputs("</text>\n", out);
	put_x_axis(out, f);
	put_y_axis(out, &f->top, "speedup over cuBLAS");
	put_y_axis(out, &f->bot, "fraction of the floor");
	put_baseline(out, f);
	for (int i = 0; i < ns; i++)
		put_series(out, f, &s[i], i, idx[i], cnt[i]);
	put_baseline_label(out, f);
	put_legend(out, f, s, ns);
	fputs("</svg>\n", out);
}

int plot_svg(FILE *out, const char *title, const struct plot_series *s, int ns)
{
	int n = ns > 0 ? ns : 0;
	int **idx = xcalloc((size_t)n + 1, sizeof(*idx));
	int *cnt = xcalloc((size_t)n + 1, sizeof(*cnt));
	struct frame f;
	int rc = -1;
	for (int i = 0; i < n; i++)
		idx[i] = drawn_points(&s[i], &cnt[i]);
	if (frame_fit(&f, s, idx, cnt, n) < 0)
		goto cleanup;
	put_document(out, title, &f, s, idx, cnt, n);
	rc = 0;
cleanup:
	for (int i = 0; i < n; i++)
		free(idx[i]);
	free(idx);
	free(cnt);
	return rc;
}
