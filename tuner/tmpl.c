/*
 * tmpl.c: the registry of kernel templates: the list every module walks
 * (tmpl_all) and lookups by stem and by parameter name. Each template's
 * adapter lives in its own tuner/tmpl_<stem>.c.
 */
#include "tmpl.h"

#include <string.h>

/* The adapters, one per templates/<stem>.cuh (blas_hilo has no file). */
extern const struct tmpl tmpl_gemv;
extern const struct tmpl tmpl_hilo;
extern const struct tmpl tmpl_mma;
extern const struct tmpl tmpl_mma_hilo;
extern const struct tmpl tmpl_planted;

const struct tmpl *const tmpl_all[] = {
	&tmpl_hilo,
	&tmpl_gemv,
	&tmpl_mma,
	&tmpl_mma_hilo,
	&tmpl_planted,
	NULL,
};

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

struct relayout tmpl_relayout(const struct tmpl *t, const long *p)
{
	if (t->relayout)
		return t->relayout(p);
	return (struct relayout){ RELAYOUT_NONE, 0, 0 };
}
