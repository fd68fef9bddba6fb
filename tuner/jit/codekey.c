/*
 * codekey.c: the measurement key of a candidate at a shape (codekey.h).
 */
#include "codekey.h"
#include "util.h"

#include <string.h>

static uint64_t hash_long(uint64_t h, long long v)
{
	return hash_bytes(h, &v, sizeof(v));
}

unsigned long long plan_hash(unsigned long long h, const struct launch_plan *pl)
{
	h = hash_long(h, (long long)pl->ws_bytes);
	h = hash_long(h, (long long)pl->sync_bytes);
	h = hash_long(h, pl->nsteps);
	for (int i = 0; i < pl->nsteps && i < PLAN_MAX_STEPS; i++) {
		const struct launch_step *st = &pl->steps[i];
		h = hash_long(h, st->kind);
		h = hash_long(h, st->kernel);
		for (int d = 0; d < 3; d++)
			h = hash_long(hash_long(h, st->grid[d]), st->block[d]);
		h = hash_long(h, st->smem);
		h = hash_long(h, st->nargs);
		for (int a = 0; a < st->nargs && a < PLAN_MAX_ARGS; a++)
			h = hash_long(hash_long(h, st->args[a].kind), st->args[a].value);
		h = hash_long(h, (long long)st->bytes);
		h = hash_long(h, (long long)st->w_offset);
		h = hash_long(h, st->beta);
		for (int v = 0; v < STEP_LT_VALUES; v++)
			h = hash_long(h, st->lt[v]);
		h = hash_long(h, st->pdl);
	}
	return h;
}

void code_key(const struct tmpl *t, const long *p, const struct shape *s,
	      const char (*kernel_hash)[17], int nk, char out[17])
{
	uint64_t h = hash_str(HASH_INIT, "code-key-1");
	h = hash_str(h, t->stem);
	h = hash_long(h, nk);
	for (int i = 0; i < nk; i++)
		h = hash_str(h, kernel_hash[i]);
	struct relayout r = tmpl_relayout(t, p);
	h = hash_long(hash_long(hash_long(h, r.kind), r.rows), r.cols);
	for (int m = 1; m <= CODE_KEY_MAX_M;
	     m += m < CODE_KEY_DENSE_M ? 1 : CODE_KEY_STRIDE) {
		struct launch_plan pl;
		memset(&pl, 0, sizeof(pl));
		if (t->plan(s, p, m, &pl))
			h = hash_long(h, -1);
		else
			h = plan_hash(h, &pl);
	}
	hash_hex(h, out);
}
