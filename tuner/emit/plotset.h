/*
 * plotset.h: the points of `report --plot` and `bench --plot` gathered row
 * by row, grouped into one plot_series per family (in the order families
 * first appear) and written as an SVG file (plot.h).
 */
#ifndef GT_PLOTSET_H
#define GT_PLOTSET_H

struct plot_point {
	char family[64];
	int m;
	double speedup, bound, frac;    /* NaN: not known */
};

struct plot_set {
	struct plot_point *p;
	int n, cap;
};

void plot_set_add(struct plot_set *s, const char *family, int m, double speedup,
		  double bound, double frac);
/* Write the plot of s to path (atomically). Returns 0, or -1 with an
 * error naming opt and path (nothing to draw, or the write failed). */
int plot_set_write(const struct plot_set *s, const char *title, const char *opt,
		   const char *path);
void plot_set_free(struct plot_set *s);

#endif
