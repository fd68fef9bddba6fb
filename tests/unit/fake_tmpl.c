/*
 * fake_tmpl.c: a stand-in template registry for unit tests that must not
 * depend on the real adapters in tuner/tmpl.c. "gemv" has the real
 * parameter list; its static check is fake (it rejects split > 4 with a
 * fixed reason) so tests can see reasons passed through. "planted" has
 * the real planted template's single symbolic parameter.
 */
#include "tmpl.h"

#include <string.h>

static const char *const cache_symbols[] = {
	"default", "cg", "nc_na", "evict_first", "nc_na_evict_first", NULL,
};

static const struct tmpl_param gemv_params[] = {
	{ "warps", 1, 32, NULL },
	{ "rows", 1, 16, NULL },
	{ "tokens", 1, 16, NULL },
	{ "unroll", 1, 8, NULL },
	{ "split", 1, 64, NULL },
	{ "cache", 0, 4, cache_symbols },
};

/* Index of split in gemv_params. */
#define FAKE_SPLIT 4

static const char *fake_gemv_check(const struct shape *s, const long *p)
{
	(void)s;
	return p[FAKE_SPLIT] > 4 ? "fake: split > 4" : NULL;
}

static const struct tmpl fake_gemv = {
	"gemv", "templates/gemv.cuh", gemv_params,
	(int)(sizeof(gemv_params) / sizeof(gemv_params[0])),
	fake_gemv_check, NULL, NULL,
};

static const char *const mode_symbols[] = { "ok", "fault", "hang", NULL };

static const struct tmpl_param planted_params[] = {
	{ "mode", 0, 2, mode_symbols },
};

static const struct tmpl fake_planted = {
	"planted", "templates/planted.cuh", planted_params, 1, NULL, NULL, NULL,
};

const struct tmpl *const tmpl_all[] = { &fake_gemv, &fake_planted, NULL };

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
