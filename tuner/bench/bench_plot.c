/*
 * bench_plot.c: the plot of `gemmtab bench --plot` (bench_run.h): speedup
 * against M per family, with the floor's bound and the baseline at 1, and
 * the fraction of the floor; from a bench just measured, or from a saved
 * `bench --format md` report (--from).
 */
#include "bench_run.h"
#include "plotset.h"
#include "space.h"
#include "util.h"

#include "../../runtime/gemmtab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A table's short name for a plot's title: from its description
 * ("gemmtab emit --db D --out T ...; tuned on GPU with ...") the --out
 * file and the GPU; the description itself when it has neither. */
static const char *table_name(const char *desc)
{
	static char buf[256];
	const char *out = desc ? strstr(desc, "--out ") : NULL;
	const char *gpu = desc ? strstr(desc, "tuned on ") : NULL;
	if (!out || !gpu)
		return desc ? desc : "";
	out += 6;
	gpu += 9;
	snprintf(buf, sizeof(buf), "%.*s, tuned on %.*s", (int)strcspn(out, " ;)"), out,
		 (int)strcspn(gpu, ",;)"), gpu);
	return buf;
}

int bench_plot(const struct bench_run *b, const char *path)
{
	struct plot_set ps = { 0 };
	for (int i = 0; i < b->n; i++) {
		const struct point *q = &b->p[i];
		int ok = !strcmp(q->status, "ok");
		double frac = !isnan(q->pfrac) ? q->pfrac : q->floor_us / q->lib_us;
		plot_set_add(&ps, q->s->family, q->m, ok ? q->ratio : NAN,
			     q->base_us / q->floor_us, frac);
	}
	char *t = xasprintf("gemmtab bench: %s", table_name(gt_table_description()));
	int ret = plot_set_write(&ps, t, "--plot", path);
	free(t);
	plot_set_free(&ps);
	return ret;
}

/* The cells of one Markdown table row into cell[0..max), '|' split where
 * not escaped, trimmed; the count. Modifies line. */
static int md_cells(char *line, char **cell, int max)
{
	int n = 0;
	char *p = strchr(line, '|');
	while (p && n < max) {
		char *start = p + 1, *q = start;
		while (*q && !(*q == '|' && q[-1] != '\\'))
			q++;
		if (!*q)
			break;
		*q = '\0';
		while (*start == ' ')
			start++;
		for (char *e = q - 1; e >= start && *e == ' '; e--)
			*e = '\0';
		cell[n++] = start;
		p = q;
	}
	return n;
}

static int column_of(char **head, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(head[i], name))
			return i;
	return -1;
}

int bench_plot_from_md(const char *md, const char *path)
{
	size_t len;
	char *text = read_file(md, &len);
	if (!text)
		return error("--from %s: cannot read it: %s", md, strerror(errno));
	struct plot_set ps = { 0 };
	char *title = NULL, *head[32], *cell[32];
	int cols = 0, c_base = -1, c_sp = -1, c_ff = -1, c_pf = -1;
	int line_no = 0, ret = -1, in_table = 0;
	for (char *line = text, *next; line && *line; line = next) {
		/* line by line, empty ones counted, so errors name the right one */
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line_no++;
		if (!title && !strncmp(line, "# ", 2))
			title = xstrdup(line + 2);
		if (line[0] != '|') {
			if (in_table)
				break;
			continue;
		}
		char *dup = xstrdup(line);
		int n = md_cells(dup, cell, 32);
		if (!in_table) {
			if (n < 2 || strcmp(cell[0], "family") || strcmp(cell[1], "M")) {
				free(dup);
				continue;
			}
			in_table = 1;
			cols = n;
			for (int i = 0; i < n; i++)
				head[i] = xstrdup(cell[i]);
			c_base = column_of(head, n, "base_us");
			c_sp = column_of(head, n, "speedup");
			c_ff = column_of(head, n, "floor_frac");
			c_pf = column_of(head, n, "paired");
			free(dup);
			if (c_base < 0 || c_sp < 0) {
				error("--from %s:%d: the table has no base_us or speedup column (not a "
				      "bench report?)", md, line_no);
				goto out;
			}
			continue;
		}
		if (n && !strncmp(cell[0], "---", 3)) {
			free(dup);
			continue;
		}
		if (n != cols) {
			error("--from %s:%d: a row of %d cells under a header of %d", md, line_no, n,
			      cols);
			free(dup);
			goto out;
		}
		char *end;
		long m = strtol(cell[1], &end, 10);
		double sp = strtod(cell[c_sp], NULL);
		if (*end || m < 1 || m > SPACE_MAX_M) {
			error("--from %s:%d: M '%s' is not a number in 1..%d", md, line_no, cell[1],
			      (int)SPACE_MAX_M);
			free(dup);
			goto out;
		}
		double ff = c_ff >= 0 && strcmp(cell[c_ff], "-") ? strtod(cell[c_ff], NULL) : NAN;
		double pf = c_pf >= 0 && strcmp(cell[c_pf], "-") ? strtod(cell[c_pf], NULL) : NAN;
		/* floor_frac = floor / lib and speedup = base / lib: base / floor
		 * is speedup / floor_frac */
		plot_set_add(&ps, cell[0], (int)m, sp, sp / ff, !isnan(pf) ? pf : ff);
		free(dup);
	}
	if (!in_table) {
		error("--from %s: no 'Per family and M' table (| family | M | ...) in it", md);
	} else {
		char *t = xasprintf("gemmtab bench: %s (%s)", md, table_name(title));
		ret = plot_set_write(&ps, t, "--plot", path);
		free(t);
	}
out:
	for (int i = 0; i < cols; i++)
		free(head[i]);
	free(title);
	free(text);
	plot_set_free(&ps);
	return ret;
}
