/*
 * verify.h: `gemmtab verify`'s engine: every entry of a dispatch table
 * timed again on the GPU at hand, paired against the cuBLAS baseline by a
 * worker (the sweep's own eval request, at retest strength), at the ends
 * of its M range and one M inside, so that a table keeps only what still
 * wins after a driver, CUDA or cuBLAS update or on another host.
 */
#ifndef GT_VERIFY_H
#define GT_VERIFY_H

#include "db.h"
#include "jit.h"
#include "tablefile.h"

/* An entry loses when its worst paired ratio is below this: slower than
 * the baseline by more than 3%, the bound docs/workload.md sets for an M
 * that may only match the baseline (gemmtab bench's REGRESSION_RATIO). */
#define VERIFY_LOSS 0.97
/* The Ms an entry is timed at: its range's ends and its middle. */
#define VERIFY_POINTS 3

enum verify_verdict {
	VERIFY_KEEP,        /* wins (median paired ratio > 1) at every point */
	VERIFY_SLOWER,      /* ran at every point, but not faster at one */
	VERIFY_UNUSABLE,    /* does not compile, validate or run here */
};

struct verify_point {
	int m;
	int ok;                     /* timed (status ok) */
	double ratio, ratio_lo, ratio_hi;
	int pairs;
	char why[640];              /* !ok: the status and reason */
};

struct verify_entry {
	struct emit_incumbent inc;  /* key, range, template and params */
	int npoints;
	struct verify_point pt[VERIFY_POINTS];
	enum verify_verdict verdict;
	double worst;               /* the smallest ratio (NaN when unusable) */
};

struct verify_options {
	const char *table;          /* the header to verify */
	int device;
	int pairs;                  /* paired repetitions per point */
	double deadline_s;          /* per request before the worker is killed */
	struct jit_options jit;
};

struct verify_result {
	struct env_info gpu;        /* the GPU it ran on (the worker's env) */
	struct table_device tuned;  /* the device the table declares */
	struct verify_entry *e;     /* in table order */
	int n;
};

/* Time every entry of o->table on o->device into *r (free with
 * verify_result_free). Returns 0, or -1 after a message: the table does
 * not read, nothing compiles, or no worker starts. A candidate that fails
 * is data: its entry's verdict is VERIFY_UNUSABLE with the reason. */
int verify_run(const struct verify_options *o, struct verify_result *r);
void verify_result_free(struct verify_result *r);

#endif
