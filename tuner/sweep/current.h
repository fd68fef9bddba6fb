/*
 * current.h: which measured code this build runs. A candidate row of the
 * database is keyed by the code it ran (codekey.h); this build's template
 * text compiles (template, params) at a shape to one code key, which the
 * database's variant map knows when a sweep or `gemmtab compile --db`
 * recorded it, and which is found otherwise by compiling (NVRTC on the
 * CPU, through the cubin cache). emit, report and prune read rows only
 * where the two keys agree.
 */
#ifndef GT_CURRENT_H
#define GT_CURRENT_H

#include "db.h"
#include "jit.h"
#include "tmpl.h"

struct code_query {
	const char *tmpl;             /* stem as stored */
	const char *params;           /* canonical text as stored */
	struct shape s;               /* n, k and dtypes are read */
	long long shape_id;
	/* outputs */
	const struct tmpl *t;         /* NULL: no such template in this build */
	char code[17];                /* this build's code key; "" when t is NULL
				       * or the params do not parse or compile */
	int compiled;                 /* 1 when the key needed a compile */
};

/* Fill every q[i]'s outputs: from the variant map under this build's text,
 * else, when jit is not NULL, by compiling. Returns how many needed a
 * compile, or -1 on an error (message printed). */
int current_codes(struct db *db, const struct jit_options *jit, struct code_query *q, int n);

/* Which of pairs[0..n) (db_pairs) measured the code this build runs, into
 * state[i]: PAIR_CURRENT, PAIR_SUPERSEDED, or PAIR_ABSENT (its template is
 * not in this build: kept as it is, never read). cmd names the command in
 * the line that says how many candidates needed a compile. Returns 0 or
 * -1 (message printed). */
enum pair_state { PAIR_CURRENT, PAIR_SUPERSEDED, PAIR_ABSENT };
int current_pairs(struct db *db, const struct jit_options *jit, const char *cmd,
		  const struct db_pair *pairs, long n, enum pair_state *state);

/* Keep in rows[0..*n) only the retests that measured the code this build
 * runs (compacted; *n updated). Rows of templates this build lacks are
 * dropped and counted in *absent. cmd names the command in the line that
 * says how many candidates needed a compile. Returns how many rows of
 * this build's templates measured other code (dropped too), or -1. */
int current_retests(struct db *db, const struct jit_options *jit, const char *cmd,
		    struct retest_row *rows, int *n, int *absent);

#endif
