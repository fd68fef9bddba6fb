/*
 * tmpl.c: lookups in the registry of kernel templates (the list, tmpl_all,
 * is plan/registry.c): by stem, by parameter name, and a candidate's
 * prepared weight; the canonical text of a candidate's parameters (the
 * key the database and cache use); the plan checks; and the reading of a
 * cuBLASLt algorithm's attributes from the worker's reply.
 */
#include "tmpl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct tmpl *tmpl_find(const char *stem)
{
	for (int i = 0; tmpl_all[i]; i++)
		if (!strcmp(tmpl_all[i]->stem, stem))
			return tmpl_all[i];
	return NULL;
}

int tmpl_param_index(const struct tmpl *t, const char *name)
{
	for (int i = 0; i < t->nparams; i++)
		if (!strcmp(t->params[i].name, name))
			return i;
	return -1;
}

const char *tmpl_params_in_range(const struct tmpl_param *params, int n, const long *p)
{
	for (int i = 0; i < n; i++)
		if (p[i] < params[i].min || p[i] > params[i].max)
			return "parameter out of range";
	return NULL;
}

struct relayout tmpl_relayout(const struct tmpl *t, const long *p)
{
	if (t->relayout)
		return t->relayout(p);
	return (struct relayout){ RELAYOUT_NONE, 0, 0 };
}

/* (the canonical text of a candidate, the size of a prepared weight,
 * the plan checks, and the reading of a cuBLASLt algorithm's attributes
 * from the worker's reply) */

char *candidate_key(const struct candidate *c, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < c->tmpl->nparams && used < len; i++) {
		const struct tmpl_param *p = &c->tmpl->params[i];
		int n;
		if (p->symbols)
			n = snprintf(buf + used, len - used, "%s%s=%s", i ? "," : "",
				     p->name, p->symbols[c->params[i]]);
		else
			n = snprintf(buf + used, len - used, "%s%s=%ld", i ? "," : "",
				     p->name, c->params[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}

size_t relayout_bytes(const struct relayout *r, const struct shape *s)
{
	switch (r->kind) {
	case RELAYOUT_HILO:     /* hi and lo: two bf16 copies of the fp32 original */
		return (size_t)2 * s->n * s->k * 2;
	case RELAYOUT_TILES:    /* the same bf16 values, reordered */
	case RELAYOUT_TRANSPOSE:
		return (size_t)s->n * s->k * 2;
	default:
		return 0;
	}
}

int relayout_same(const struct relayout *a, const struct relayout *b)
{
	return a->kind == b->kind && a->rows == b->rows && a->cols == b->cols;
}

int plan_gemm_fits(const struct launch_step *st, int n, int k, size_t prep_bytes)
{
	return (st->w_offset + (size_t)n * (size_t)k) * 2 <= prep_bytes;
}

int plan_pdl_misplaced(const struct launch_plan *p)
{
	for (int i = 0; i < p->nsteps; i++)
		if (p->steps[i].pdl && (i == 0 || p->steps[i].kind != STEP_KERNEL ||
					p->steps[i - 1].kind != STEP_KERNEL))
			return i;
	return -1;
}

int plan_step_params(const struct launch_step *st, const struct step_operands *o,
		     void *ptr[PLAN_MAX_ARGS], int val[PLAN_MAX_ARGS],
		     void *params[PLAN_MAX_ARGS])
{
	for (int i = 0; i < st->nargs && i < PLAN_MAX_ARGS; i++) {
		params[i] = &ptr[i];
		switch (st->args[i].kind) {
		case ARG_W: ptr[i] = (void *)o->w; break;
		case ARG_PREP:
			if (!o->prep)
				return -1;
			ptr[i] = (void *)o->prep;
			break;
		case ARG_X: ptr[i] = (void *)o->x; break;
		case ARG_Y: ptr[i] = o->y; break;
		case ARG_WS: ptr[i] = o->ws; break;
		case ARG_SYNC: ptr[i] = o->sync; break;
		case ARG_M: val[i] = o->m; params[i] = &val[i]; break;
		case ARG_N: val[i] = o->n; params[i] = &val[i]; break;
		case ARG_K: val[i] = o->k; params[i] = &val[i]; break;
		case ARG_INT: val[i] = (int)st->args[i].value; params[i] = &val[i]; break;
		}
	}
	return 0;
}

int lt_attrs_read(const char **p, long *out, int n)
{
	const char *q = *p;
	for (int i = 0; i < n; i++) {
		char *end;
		errno = 0;
		out[i] = strtol(q, &end, 10);
		if (end == q || errno)
			return -1;
		q = end;
		if (i + 1 < n && *q++ != ',')
			return -1;
	}
	if (*q && *q != ';')
		return -1;
	*p = q + (*q == ';');
	return 0;
}
