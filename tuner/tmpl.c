/*
 * tmpl.c: lookups in the registry of kernel templates (the list, tmpl_all,
 * is tuner/registry.c): by stem, by parameter name, and a candidate's
 * prepared weight.
 */
#include "tmpl.h"

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
