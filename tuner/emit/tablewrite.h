/*
 * tablewrite.h: writing a dispatch table (`gemmtab emit`): the entries
 * emit.c chooses from one environment's rows, as the table header
 * NAME.h (layout runtime/gt_table.h) and beside it NAME_kernels.cu, which
 * instantiates the kernels the entries name. The caller keeps only the
 * retests of the code this build runs (current.h, of the sweep stage,
 * which emit may not reach), so nothing here compiles.
 */
#ifndef GT_TABLEWRITE_H
#define GT_TABLEWRITE_H

#include "emit.h"

#include <stdio.h>

/* s inside a C comment: a "*" before "/" is spaced out, control
 * characters print as spaces (both table files' comments). */
void table_put_comment(FILE *f, const char *s);

/* What a table is written from besides the rows. */
struct table_spec {
	const char *cmdline;        /* the command line as typed (both files' first line) */
	const char *db_label;       /* the database as typed */
	const char *arch;           /* the kernels' target ("sm_90a") */
	long long env;
	struct env_info e;          /* env's; a source_hash of "" is hashed from the entries */
	const struct emit_incumbent *inc;       /* entries to prefer (emit --incumbent) */
	int ninc;
	double margin;              /* by this fraction (emit_prefer) */
};

/* Choose the entries of spec->env from its rows (measured: db_best_rows;
 * retests: db_retest_rows, less those of code this build does not run),
 * write out_path, which ends in ".h", and NAME_kernels.cu beside it (its
 * directory made when missing), and print a summary per shape on stderr.
 * Returns 0 or -1, or 1 when no retest has EMIT_MIN_PAIRS pairs (message
 * printed). */
int table_write(const struct table_spec *spec, const struct best_row *measured, int nmeasured,
		const struct retest_row *retests, int nretests, const char *out_path);

#endif
