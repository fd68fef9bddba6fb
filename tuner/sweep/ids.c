/*
 * ids.c: the database ids of the space's shapes and of each task's
 * candidate (keyed by the code it compiles to), which screens the
 * database holds already, and the records of what never reaches a GPU.
 */
#include "engine.h"
#include "tasks.h"
#include "tmpl.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The database's id of every shape of the space. */
void sweep_load_shape_ids(struct sweep *sw)
{
	sw->shape_id = xcalloc((size_t)sw->sp->nshapes, sizeof(long long));
	for (int si = 0; si < sw->sp->nshapes; si++)
		if (db_shape_id(sw->db, &sw->sp->shapes[si], &sw->shape_id[si]))
			sweep_write_failed(sw, "the shapes");
}

/* Task i's candidate id from its code key (codekey.h), recorded as what
 * this build's template text compiles to at the task's shape, and
 * whether the database holds its screen already (a moved or re-commented
 * template whose code is the same was measured before). A candidate that
 * never reaches the GPU (pruned, or not compiled) is keyed by its text. */
static void resolve_id(struct sweep *sw, int i)
{
	struct task *t = &sw->tl->t[i];
	const char *text = tmpl_source_hash(t->cand.tmpl);
	char code[17], why[512];
	if (t->pruned || task_compile_error(sw->tl, i))
		memcpy(code, text, sizeof(code));
	else if (task_code_key(sw->tl, sw->sp, i, code, why, sizeof(why)))
		die("%s %s: %s", t->cand.tmpl->stem, t->key, why);
	long long shape = sw->shape_id[t->shape];
	/* (a template with no kernel of ours gets a variant too: its key,
	 * its plans at every M a space may name, costs more to compute than
	 * a lookup when report reads 24,000 cuBLASLt candidates) */
	if (db_candidate_id(sw->db, t->cand.tmpl->stem, t->key, code, &sw->cand_id[i]) ||
	    db_record_variant(sw->db, t->cand.tmpl->stem, t->key, shape, text, sw->cand_id[i]))
		sweep_write_failed(sw, "the candidates");
	int r = db_has_result(sw->db, sw->env_id, shape, sw->cand_id[i], t->m, "screen", NULL);
	if (r < 0)
		die("%s: cannot read results", sw->db_path);
	sw->done[i] = (char)r;
}

/* Ids for the candidates of tasks from on (all of them, or what a
 * climbing step added; load_shape_ids first) where the database knows
 * what this build's text compiles to (or nothing needs compiling), and
 * which of their screens it holds. The rest (id 0) are resolved by
 * resolve_ids once compiled. */
void sweep_load_ids(struct sweep *sw, int from)
{
	sw->cand_id = xrealloc(sw->cand_id, (size_t)sw->tl->n * sizeof(long long));
	sw->done = xrealloc(sw->done, (size_t)sw->tl->n);
	/* those resolved now, in order, after their code keys on every CPU */
	char *now = xcalloc((size_t)sw->tl->n + 1, 1), *keys = xcalloc((size_t)sw->tl->n + 1, 1);
	for (int i = from; i < sw->tl->n; i++) {
		struct task *t = &sw->tl->t[i];
		long long shape = sw->shape_id[t->shape];
		sw->cand_id[i] = 0;
		sw->done[i] = 0;
		int known = db_variant(sw->db, t->cand.tmpl->stem, t->key, shape,
				       tmpl_source_hash(t->cand.tmpl), &sw->cand_id[i], NULL);
		if (known < 0)
			die("%s: cannot read candidates", sw->db_path);
		if (!known) {
			now[i] = t->pruned || t->nk == 0;
			keys[i] = now[i] && !t->pruned;
			continue;
		}
		int r = db_has_result(sw->db, sw->env_id, shape, sw->cand_id[i], t->m, "screen",
				      NULL);
		if (r < 0)
			die("%s: cannot read results", sw->db_path);
		sw->done[i] = (char)r;
	}
	tasks_code_keys(sw->tl, sw->sp, keys);
	for (int i = from; i < sw->tl->n; i++)
		if (now[i])
			resolve_id(sw, i);
	free(now);
	free(keys);
}

/* The ids load_ids left open, once their kernels were compiled. */
void sweep_resolve_ids(struct sweep *sw, int from)
{
	char *need = xcalloc((size_t)sw->tl->n + 1, 1);
	for (int i = from; i < sw->tl->n; i++)
		need[i] = !sw->cand_id[i] && !sw->tl->t[i].pruned &&
			  !task_compile_error(sw->tl, i);
	tasks_code_keys(sw->tl, sw->sp, need);
	free(need);
	for (int i = from; i < sw->tl->n; i++)
		if (!sw->cand_id[i])
			resolve_id(sw, i);
}

/* Record what never reaches the GPU among tasks from on: static prunes
 * and compile errors. */
void sweep_record_static(struct sweep *sw, int from)
{
	for (int i = from; i < sw->tl->n; i++) {
		struct task *t = &sw->tl->t[i];
		if (sw->done[i])
			continue;
		if (t->pruned) {
			sweep_record(sw, i, t->m, "screen", NULL, "pruned", t->pruned);
			sw->done[i] = 1;
			continue;
		}
		const char *error = task_compile_error(sw->tl, i);
		if (error) {
			sweep_record(sw, i, t->m, "screen", NULL, "compile_error", error);
			sw->done[i] = 1;
		}
	}
}
