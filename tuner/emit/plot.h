/*
 * plot.h: speedup against M per family as a standalone SVG picture: the
 * measured speedup over the baseline and the floor bound above, the
 * fraction of the practical floor reached below, on one log2 M axis.
 * Output is a pure function of the input, so a plot can be committed
 * and compared byte for byte.
 */
#ifndef GT_PLOT_H
#define GT_PLOT_H

#include <stdio.h>

/* One family's points: n Ms (any order; the writer sorts by M), each with
 * the measured speedup over the baseline, the speedup the practical floor
 * allows there (base_us / floor_us: the "floor bound"), and the fraction of
 * the floor reached (floor_us / run_us). NaN means not known: a point with a
 * NaN speedup is not drawn; a NaN bound or frac leaves that mark out.
 * bound and frac may be NULL (all not known); m and speedup may not. */
struct plot_series {
	const char *family;
	int n;
	const int *m;
	const double *speedup;
	const double *bound;
	const double *frac;
};

/* Write an SVG document to out: title on top (XML-escaped), then two
 * panels sharing a log2 M axis from 1 to the largest M (ticks at powers of
 * two): top, speedup against M, one coloured polyline with point markers
 * per family, a dashed horizontal line at 1 labelled "cuBLAS", and each
 * family's floor bound as a dotted polyline of the same colour; bottom, the
 * fraction of the floor (0..1.1 or the largest value, grid at 0.25 steps)
 * per family. A legend names each family (and says solid = measured,
 * dotted = floor bound). The y range of the top panel covers every finite
 * speedup and bound, and 1, with a small margin, on "nice" ticks. Output is
 * deterministic: the same input gives byte-identical output (no
 * timestamps, fixed number formatting with %.2f or %.1f, no locale
 * dependence beyond the C locale, family colours from a fixed palette by
 * position). Returns 0, or -1 when no series has a finite point (nothing
 * to draw; writes nothing then). */
int plot_svg(FILE *out, const char *title, const struct plot_series *s, int ns);

#endif
