/*
 * plotset.c: grouping plot points per family and writing the SVG (see
 * plotset.h).
 */
#include "plotset.h"
#include "plot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plot_set_add(struct plot_set *s, const char *family, int m, double speedup,
		  double bound, double frac)
{
	if (s->n == s->cap)
		s->p = xrealloc(s->p, (size_t)(s->cap = s->cap ? 2 * s->cap : 64) * sizeof(*s->p));
	struct plot_point *p = &s->p[s->n++];
	snprintf(p->family, sizeof(p->family), "%s", family);
	p->m = m;
	p->speedup = speedup;
	p->bound = bound;
	p->frac = frac;
}

void plot_set_free(struct plot_set *s)
{
	free(s->p);
	memset(s, 0, sizeof(*s));
}

int plot_set_write(const struct plot_set *s, const char *title, const char *opt,
		   const char *path)
{
	int n = s->n ? s->n : 1, ns = 0, ret = -1;
	struct plot_series *series = xcalloc((size_t)n, sizeof(*series));
	int *m = xmalloc(sizeof(*m) * (size_t)n);
	double *v = xmalloc(sizeof(*v) * 3 * (size_t)n);
	int used = 0;
	/* families in order of first appearance, each one's points together */
	for (int i = 0; i < s->n; i++) {
		int seen = 0;
		for (int j = 0; j < ns && !seen; j++)
			seen = !strcmp(series[j].family, s->p[i].family);
		if (seen)
			continue;
		struct plot_series *f = &series[ns++];
		f->family = s->p[i].family;
		f->m = m + used;
		f->speedup = v + used;
		f->bound = v + n + used;
		f->frac = v + 2 * n + used;
		for (int j = i; j < s->n; j++) {
			if (strcmp(s->p[j].family, f->family))
				continue;
			m[used] = s->p[j].m;
			v[used] = s->p[j].speedup;
			v[n + used] = s->p[j].bound;
			v[2 * n + used] = s->p[j].frac;
			used++;
			f->n++;
		}
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		die("out of memory");
	int drawn = plot_svg(out, title, series, ns);
	fclose(out);
	if (drawn)
		error("%s %s: no point with a figure to draw", opt, path);
	else if (write_file_atomic(path, buf, len))
		error("%s %s: cannot write it: %s", opt, path, strerror(errno));
	else
		ret = 0;
	free(buf);
	free(series);
	free(m);
	free(v);
	return ret;
}
