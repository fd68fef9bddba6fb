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
	int neighbour;                   /* 1: a neighbour M (retest only) */
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
};

/* Enumerate every (shape, tuned M, candidate) of the space (neighbours
 * are added later by the sweep from its finalists) and the distinct
 * instantiations they need. Returns 0 or -1. */
int tasks_build(const struct space *sp, const char *only_family, struct tasklist *out);
void tasks_free(struct tasklist *tl);

/* Compile every instantiation (cache first), printing progress and the
 * throughput on stderr unless quiet. Returns 0 or -1 (setup error). */
int tasks_compile(struct tasklist *tl, const struct jit_options *opts, int quiet);

/* Fill opts with defaults: CUDA include from $CUDA_HOME or the build's
 * toolkit, arch from the build, cache under .cache/gemmtab, all CPUs,
 * batches of 16, 120 s per batch. */
void jit_options_default(struct jit_options *opts);

/* Progress line on a terminal: "\r[#####     ] done/total label ETA".
 * Does nothing when stderr is not a terminal. */
void progress_show(const char *label, long done, long total, double started);
void progress_end(void);

#endif
