/*
 * workload.c: the loads and their shapes (workload.h).
 */
#include "workload.h"
#include "expr.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int workload_add(struct workload *w, const char *family, int count, const char *when_text,
		 char *why, size_t len, int *offset)
{
	static const struct expr_name names[] = { { "m", 0, 0 } };
	struct workload_part *p;
	*offset = -1;
	if (w->nparts == WORKLOAD_MAX_PARTS) {
		snprintf(why, len, "more than %d shapes in a workload", WORKLOAD_MAX_PARTS);
		return -1;
	}
	p = &w->parts[w->nparts];
	memset(p, 0, sizeof(*p));
	snprintf(p->family, sizeof(p->family), "%s", family);
	p->count = count;
	if (when_text) {
		struct expr_error err;
		if (!(p->when = expr_parse(when_text, names, 1, &err))) {
			snprintf(why, len, "when: %s", err.msg);
			*offset = err.offset;
			return -1;
		}
		p->when_text = xstrdup(when_text);
	}
	w->nparts++;
	return 0;
}

void workload_reference(struct workload *w)
{
	static const int loads[] = { 1, 8, 16, 32, 128, 256 };
	static const struct { const char *family, *when; } parts[] = {
		{ "qkv", NULL }, { "oproj", NULL }, { "pooler", NULL },
		{ "unpooler", "m > 8" }, { "unpooler_slice", "m <= 8" }, { "router", NULL },
	};
	char why[160];
	int offset;
	memset(w, 0, sizeof(*w));
	w->nloads = (int)ARRAY_SIZE(loads);
	memcpy(w->loads, loads, sizeof(loads));
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (workload_add(w, parts[i].family, 1, parts[i].when, why, sizeof(why), &offset))
			die("the reference workload: %s", why);
	w->source = "the reference workload of docs/workload.md";
}

int workload_part_in(const struct workload_part *p, int m)
{
	long slots[1] = { m }, v;
	if (!p->when)
		return 1;
	return !expr_eval(p->when, slots, &v) && v;
}

int workload_max_m(const struct workload *w)
{
	return w->nloads ? w->loads[w->nloads - 1] : 0;
}

void workload_free(struct workload *w)
{
	for (int i = 0; i < w->nparts; i++) {
		expr_free(w->parts[i].when);
		free(w->parts[i].when_text);
	}
	memset(w, 0, sizeof(*w));
}
