/*
 * report_summary.c: the per-(family, M) section of a large report in
 * brief: one line per family and run of consecutive Ms that one winner
 * (or cuBLAS) serves, with the run's speedup (geometric mean, lowest and
 * highest). `gemmtab report --full` prints every row instead.
 */
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What row s runs: "TMPL PARAMS", or "cublas" where nothing won. */
static void winner_label(const struct shape_figures *s, char *buf, size_t len)
{
	if (s->wins)
		snprintf(buf, len, "%.63s %.900s", s->row->tmpl, s->row->params);
	else
		snprintf(buf, len, "cublas");
}

/* The rows [i, j) of r: same family, same winner. */
static int run_end(const struct report *r, int i)
{
	char a[1024], b[1024];
	winner_label(&r->shapes[i], a, sizeof(a));
	int j = i + 1;
	for (; j < r->nshapes; j++) {
		winner_label(&r->shapes[j], b, sizeof(b));
		if (strcmp(r->shapes[j].row->family, r->shapes[i].row->family) || strcmp(a, b))
			break;
	}
	return j;
}

static void add_run(struct table *t, const struct report *r, int i, int j)
{
	const struct shape_figures *s = r->shapes;
	double logs = 0, lo = INFINITY, hi = -INFINITY;
	char label[1024];
	for (int k = i; k < j; k++) {
		logs += log(s[k].speedup);
		lo = s[k].speedup < lo ? s[k].speedup : lo;
		hi = s[k].speedup > hi ? s[k].speedup : hi;
	}
	table_add(t, s[i].row->family);
	if (j - i > 1)
		table_addf(t, "%d..%d", s[i].row->m, s[j - 1].row->m);
	else
		table_addf(t, "%d", s[i].row->m);
	table_addf(t, "%d", j - i);
	table_addf(t, "%.3f", exp(logs / (j - i)));
	table_addf(t, "%.3f..%.3f", lo, hi);
	winner_label(&s[i], label, sizeof(label));
	table_add(t, label);
}

void report_summary_table(const struct report *r, struct table *t)
{
	static const char *const head[] = { "family", "Ms", "rows", "speedup",
		"min..max", "winner" };
	table_init(t, ARRAY_SIZE(head));
	for (size_t c = 0; c < ARRAY_SIZE(head); c++)
		table_add(t, head[c]);
	for (int i = 0, j; i < r->nshapes; i = j) {
		j = run_end(r, i);
		add_run(t, r, i, j);
	}
}
