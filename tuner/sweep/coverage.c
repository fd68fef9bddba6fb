/*
 * coverage.c: which templates of a space get candidates at each shape,
 * for the dry run: per shape, each template's count, or why it has none.
 * A template "should serve" a shape when it takes the shape's dtypes;
 * one that gets no candidate there is what --strict refuses.
 */
#include "engine.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* The most points of a grid takes_dtypes tries. */
#define PROBE_POINTS 100000

/* Whether grid g's template takes shape s's dtypes: some point of g
 * passes the template's own check at a shape of those dtypes with n and
 * k of 4096 (a size every template's tiles and splits divide), the
 * space's constraints aside. */
static int takes_dtypes(const struct grid *g, const struct shape *s)
{
	const struct tmpl *t = g->tmpl;
	struct shape probe = *s;
	long p[MAX_PARAMS];
	int at[MAX_PARAMS] = { 0 };
	if (!t->check)
		return 1;
	probe.n = probe.k = 4096;
	for (long tries = 0; tries < PROBE_POINTS; tries++) {
		for (int i = 0; i < t->nparams; i++)
			p[i] = g->values[i][at[i]];
		if (!t->check(&probe, p))
			return 1;
		int i = 0;
		while (i < t->nparams && ++at[i] == g->nvalues[i])
			at[i++] = 0;
		if (i == t->nparams)
			break;
	}
	return 0;
}

/* The part of space_why_none's line (all, "; " between templates) that
 * is about template stem, into out. */
static void why_of(const char *all, const char *stem, char *out, size_t len)
{
	const size_t n = strlen(stem);
	snprintf(out, len, "no reason found");
	for (const char *p = all; p && *p;) {
		const char *end = strstr(p, "; ");
		const size_t seg = end ? (size_t)(end - p) : strlen(p);
		if (!strncmp(p, stem, n) && p[n] == ' ') {
			snprintf(out, len, "%.*s", (int)seg, p);
			return;
		}
		p = end ? end + 2 : NULL;
	}
}

/* The candidates template t can run at shape si (any M). */
static long template_runnable(const struct sweep *sw, int si, const struct tmpl *t)
{
	long n = 0;
	for (int i = 0; i < sw->tl->n; i++)
		n += sw->tl->t[i].shape == si && sw->tl->t[i].cand.tmpl == t &&
		     !sw->tl->t[i].pruned;
	return n;
}

int sweep_print_coverage(const struct sweep *sw, const char *family)
{
	const struct space *sp = sw->sp;
	static char all[8192];
	char why[1024];
	int missing = 0;
	for (int si = 0; si < sp->nshapes && sp->ngrids; si++) {
		const struct shape *s = &sp->shapes[si];
		if (family && strcmp(family, s->family))
			continue;
		all[0] = '\0';
		printf("templates at %s (n %d, k %d):", s->family, s->n, s->k);
		for (int gi = 0; gi < sp->ngrids; gi++) {
			const struct grid *g = &sp->grids[gi];
			const long n = template_runnable(sw, si, g->tmpl);
			printf("%s %s ", gi ? ";" : "", g->tmpl->stem);
			if (n) {
				printf("%ld", n);
				continue;
			}
			if (!takes_dtypes(g, s)) {
				printf("none (not its dtypes)");
				continue;
			}
			if (!all[0])
				space_why_none(sp, s, all, sizeof(all));
			why_of(all, g->tmpl->stem, why, sizeof(why));
			printf("NONE: %s", why);
			missing++;
		}
		printf("\n");
	}
	return missing;
}
