/*
 * tasks.h: a search space flattened into work: one task per (shape, M,
 * candidate), each pointing at the distinct kernel instantiations it needs,
 * and the compile step that turns those instantiations into cubins.
 * Shared by `gemmtab sweep` and `gemmtab compile`.
 */
#ifndef GT_TASKS_H
#define GT_TASKS_H

#include "jit.h"
#include "space.h"

struct task {
	int shape;                       /* index into space.shapes */
	int m;
	struct candidate cand;
	const char *pruned;              /* static reason, or NULL */
	int nk;
	int item[TMPL_MAX_KERNELS];      /* indices into tasklist.items */
	char key[256];                   /* candidate_key() */
};

struct tasklist {
	struct task *t;
	int n, cap;
	struct jit_item *items;          /* distinct instantiations, sorted */
	int nitems;
	char *tried;                     /* per item: compile attempted */
	/* task_code_key's results by candidate, shape and kernels: the
	 * tasks of one candidate at a shape's tuned Ms share a code key */
	struct code_memo *memo;
	size_t memo_cap, memo_n;
};

/* Enumerate every (shape, tuned M, candidate) of the space and the
 * distinct instantiations they need (the sweep retests finalists at other
 * Ms through the same tasks). Returns 0 or -1. */
int tasks_build(const struct space *sp, const char *only_family, struct tasklist *out);
void tasks_free(struct tasklist *tl);
/* The code keys (task_code_key) of the tasks whose need[i] is set,
 * computed ahead on every CPU, so task_code_key reads them; tasks whose
 * kernels did not compile are left to it. */
void tasks_code_keys(struct tasklist *tl, const struct space *sp, const char *need);
/* Append (shape, m, c) for a template that launches no kernel of ours
 * (blas_lt candidates the GPU names: see gemmtab sweep), unless the same
 * candidate is already there at (shape, m). Returns 1 when added, 0 when
 * it was there, -1 when c's template names kernels. */
int tasks_add(struct tasklist *tl, const struct space *sp, int shape, int m,
	      const struct candidate *c);

/* Compile the instantiations of the tasks whose tasks[i] is set (every
 * task when tasks is NULL), cache first, printing progress and the
 * throughput on stderr unless quiet. A resumed sweep passes the tasks it
 * has yet to screen, so it compiles only what it will run. Returns 0 or
 * -1 (setup error); items that fail have ok 0 and their error. */
int tasks_compile(struct tasklist *tl, const struct jit_options *opts, int quiet,
		  const char *tasks);
/* Compile what task ti needs that was not compiled yet (a finalist
 * retested by a resumed sweep). Returns 0 when every kernel of ti is
 * ready, 1 when one failed to compile, -1 on a setup error. */
int tasks_ensure_compiled(struct tasklist *tl, const struct jit_options *opts, int ti);
/* The compile error of the first of task ti's kernels that is not ok, or
 * NULL when all are: ask after they were compiled (tasks_compile or
 * tasks_ensure_compiled). */
const char *task_compile_error(const struct tasklist *tl, int ti);

/* The code key of task ti (codekey.h): from the code of its compiled
 * kernels and its template's plans. Returns 0, or -1 with the reason in
 * why (a kernel that did not compile, or an unreadable cubin). */
int task_code_key(struct tasklist *tl, const struct space *sp, int ti, char out[17],
		  char *why, size_t len);

/* Progress on a terminal: "\r[#####     ] done/total label ETA"; when
 * stderr is not a terminal, a plain line every GEMMTAB_PROGRESS_S s [60]. */
void progress_show(const char *label, long done, long total, double started);
void progress_end(void);

#endif
