/*
 * climb.c: the cuBLASLt search (a space's cublaslt section): at every
 * bf16 shape, tuned M and orientation, the heuristic's first proposals
 * and their variants become blas_lt tasks; each later step of the climb
 * also varies the database's best so far (its seeds).
 */
#include "engine.h"
#include "emit.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The request's "seeds" for shape si at m in orientation orient: the
 * attributes of the database's best blas_lt candidates there, as the
 * worker's replies write them (comma-separated values, ';' between
 * algorithms), into list ("" when there are none); a stored params text
 * that does not parse is left out with a warning. Returns how many seeds
 * list holds, or -1. */
static int lt_seeds(struct sweep *sw, int si, int m, long orient, char *list, size_t len)
{
	const struct tmpl *t = tmpl_find("blas_lt");
	char *params[SPACE_LT_SEEDS_MAX];
	size_t used = 0;
	int seeds = 0;
	list[0] = '\0';
	int n = db_lt_seeds(sw->db, sw->env_id, sw->shape_id[si], m, t->params[0].symbols[orient],
			    params, sw->sp->lt.vary_seeds);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		long v[MAX_PARAMS];
		if (emit_params_parse(t, params[i], v)) {
			warning("cublaslt %s m=%d: the stored blas_lt '%s' is no seed",
				sw->sp->shapes[si].family, m, params[i]);
			free(params[i]);
			continue;
		}
		free(params[i]);
		/* the values after the orientation (v[0]) */
		for (int j = 1; j < t->nparams && used < len; j++)
			used += (size_t)snprintf(list + used, len - used, "%s%ld",
						 j > 1 ? "," : seeds ? ";" : "", v[j]);
		seeds++;
	}
	return used < len ? seeds : error("cublaslt: the seeds outgrow the request");
}

/* The most seconds one lt_algos request may take (a space's deadline_s
 * when longer). */
#define LT_DEADLINE_S 120.0

/* The first top algorithms cuBLASLt's heuristic proposes for shape si at
 * m in orientation orient, added as blas_lt tasks (tmpl_lt.c) named by
 * their attributes, with their variants and the seeds'. *sent holds a
 * hash of the seeds this point and orientation last sent: a later step
 * (step > 1) whose seeds are none or the same asks nothing (the answer
 * would be the last one's), and one with new seeds asks for their
 * variants alone (seeds_only) once a reply has named every proposal's
 * (sent->whole). Returns how many were new, or -1 when the worker does
 * not answer. */
static int ask_lt(struct sweep *sw, int si, int m, long orient, int step, struct lt_sent *sent)
{
	const struct tmpl *t = tmpl_find("blas_lt");
	const struct shape *s = &sw->sp->shapes[si];
	/* the variants and seeds only from the space's vary_min_m on */
	const int vary = m >= sw->sp->lt.vary_min_m;
	/* every value a long of up to 20 digits and its separator */
	char seeds[SPACE_LT_SEEDS_MAX * (MAX_PARAMS - 1) * 21] = "";
	_Static_assert(SPACE_LT_SEEDS_MAX <= PROTO_LT_SEEDS_MAX,
		       "the worker takes every seed a space may ask for");
	int nseeds = vary && sw->sp->lt.vary_seeds ? lt_seeds(sw, si, m, orient, seeds,
							     sizeof(seeds)) : 0;
	if (nseeds < 0)
		return -1;
	const uint64_t h = hash_str(HASH_INIT, seeds);
	if (step > 1 && (!nseeds || sent->seeds == h))
		return 0;
	sent->seeds = h;
	const int seeds_only = step > 1 && sent->whole;
	sw->lt_seeds += nseeds;
	struct kv_out req;
	struct kv r;
	kv_begin(&req, "lt_algos");
	kv_addf(&req, "id", "%d", si);
	kv_add_shape(&req, s, m);
	kv_addf(&req, "orient", "%ld", orient);
	kv_addf(&req, "max", "%d", sw->sp->lt.top);
	_Static_assert(SPACE_LT_SPLITK_MAX <= PROTO_LT_SPLITK_MAX &&
			       SPACE_LT_SPLITK_LIMIT <= PROTO_LT_SPLITK_LIMIT,
		       "the worker takes every splitk list a space may hold");
	if (vary && sw->sp->lt.nsplitk) {
		char list[SPACE_LT_SPLITK_MAX * 4];
		size_t used = 0;
		for (int i = 0; i < sw->sp->lt.nsplitk; i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
						 i ? "," : "", sw->sp->lt.splitk[i]);
		kv_add(&req, "splitk", list);
	}
	if (vary && *sw->sp->lt.vary)
		kv_add(&req, "vary", sw->sp->lt.vary);
	if (nseeds)
		kv_add(&req, "seeds", seeds);
	/* a later step after a whole reply: the proposals' variants are tasks
	 * of this process already; only the new seeds' are new */
	if (seeds_only)
		kv_add(&req, "seeds_only", "1");
	/* thousands of cublasLtMatmulAlgoCheck calls with many variants */
	const double deadline = sw->sp->sweep.deadline_s > LT_DEADLINE_S ? sw->sp->sweep.deadline_s
									  : LT_DEADLINE_S;
	if (sweep_ask(sw, kv_string(&req), deadline, &r, NULL) != CALL_OK)
		return error("cublaslt %s m=%d: no reply from the worker", s->family, m);
	int added = 0;
	const char *algos = kv_get(&r, "algos");
	if (strcmp(r.op, "lt_algos") || !algos)
		warning("cublaslt %s m=%d: %s", s->family, m,
			kv_get(&r, "reason") ? kv_get(&r, "reason") : r.op);
	if (kv_get(&r, "vary_error"))
		warning("cublaslt %s m=%d: the variants failed (%s); the heuristic's own kept",
			s->family, m, kv_get(&r, "vary_error"));
	if (kv_get(&r, "truncated"))
		warning("cublaslt %s m=%d: the worker's list of variants is full; the later "
			"proposals' and seeds' were left out", s->family, m);
	if (!seeds_only)
		sent->whole = !strcmp(r.op, "lt_algos") && algos && !kv_get(&r, "vary_error") &&
			      !kv_get(&r, "truncated");
	for (const char *p = algos; p && *p;) {
		struct candidate c = { t, { orient } };
		if (lt_attrs_read(&p, &c.params[1], t->nparams - 1)) {
			warning("cublaslt %s m=%d: cannot read '%s'", s->family, m, algos);
			break;
		}
		added += tasks_add(sw->tl, sw->sp, si, m, &c) > 0;
	}
	kv_free(&r);
	return added;
}

/* The cuBLASLt search (the space's cublaslt section), step step of the
 * climb: ask_lt for every bf16 shape, tuned m and orientation. Returns how
 * many candidates it added, or -1. */
int sweep_lt_step(struct sweep *sw, const char *family, int step)
{
	int added = 0;
	if (!sw->lt_sent)
		sw->lt_sent = xcalloc((size_t)sw->sp->nshapes * MAX_MS * ARRAY_SIZE(sw->sp->lt.orient),
				      sizeof(*sw->lt_sent));
	for (int si = 0; si < sw->sp->nshapes; si++) {
		const struct shape *s = &sw->sp->shapes[si];
		if ((family && strcmp(family, s->family)) || s->w != DT_BF16 || s->x != DT_BF16 ||
		    s->y != DT_BF16)
			continue;
		for (int j = 0; j < s->n_ms; j++)
			for (int o = 0; o < sw->sp->lt.norients; o++) {
				struct lt_sent *sent = &sw->lt_sent[((size_t)si * MAX_MS + (size_t)j) *
							      ARRAY_SIZE(sw->sp->lt.orient) + (size_t)o];
				int n = ask_lt(sw, si, s->ms[j], sw->sp->lt.orient[o], step, sent);
				if (n < 0)
					return -1;
				added += n;
			}
	}
	return added;
}
