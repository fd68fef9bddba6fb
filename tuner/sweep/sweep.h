/*
 * sweep.h: the search, behind two entries. sweep_run measures a space's
 * tasks on one worker per GPU into a database: screens, retests, settles,
 * the M ranges and the cuBLASLt climb, every result committed as it
 * arrives (the only database writer). sweep_dry_run prints what a sweep
 * would do and its cost estimate, touching no GPU and writing nothing.
 */
#ifndef GT_SWEEP_H
#define GT_SWEEP_H

#include <stddef.h>

#include "jit.h"
#include "space.h"
#include "tasks.h"

struct seed;
/* How a sweep searches (--search): dense is the method the committed
 * table came from (every candidate screened at every anchor, the best
 * retested, every M of a range timed); new is search.c's, whose parts
 * --search-opts switches (docs/guide.md, "gemmtab sweep"). */
enum sweep_search { SWEEP_DENSE, SWEEP_NEW };
#define SEARCH_PRUNE 1u  /* skip a candidate whose read floor cannot beat the baseline */
#define SEARCH_EARLY 2u  /* screens of 3 pairs; only those within best/1.25 go on */
#define SEARCH_RACE  4u  /* finalists raced with elimination; 100 pairs for the winner and
			  * those within the noise of it */
#define SEARCH_GRID  8u  /* ranges measured on emit's grid, with held-out Ms and the
			  * Ms between grid neighbours of different winners */
#define SEARCH_CARRY 16u /* with grid: each template's best at the anchors and at the
			  * grid M before raced at each grid M (spans.c) */
#define SEARCH_CROSS 32u /* with grid: each anchor's best cuBLASLt algorithms screened
			  * at the range's other anchors too (spans.c) */
#define SEARCH_BRIDGE 64u /* with grid: where a segment's ends have different winners, each
			   * retested at the other end before its Ms are raced (spans.c) */
#define SEARCH_THIN 128u  /* every other anchor of a range screens its neighbour anchors'
			   * best templates and cuBLASLt's own (search.c) */
#define SEARCH_ALL   255u

/* What the command line asked of a sweep. */
struct sweep_opts {
	const char *space;              /* the space's path, for messages */
	const char *family;             /* only this family (NULL: all) */
	const char *db_path;
	int retest;                     /* 0: screen only (--no-retest) */
	const char *retest_since;       /* redo retests older than this UTC time */
	double limit_s;                 /* --time-limit in seconds (0: none) */
	const int *devices;             /* the GPUs, ndev of them */
	int ndev;
	struct jit_options jit;
	const struct seed *seed;        /* --seed-from (seed.h), or NULL */
	enum sweep_search search;
	unsigned search_parts;          /* SEARCH_*: the new search's parts */
};

/* --search METHOD and --search-opts PARTS (NULL: all of them; a comma
 * list of prune, early, race, grid, carry, cross, bridge, thin, or none)
 * into *search and *parts.
 * Returns 0, or -1 with what is wrong in why (len bytes). */
int sweep_search_parse(const char *method, const char *parts, enum sweep_search *search,
		       unsigned *out, char *why, size_t len);

/* Sweep tasks tl of space sp as o asks, on o->ndev GPUs, into o->db_path
 * (created if absent, locked while it runs). sp and tl stay the
 * caller's; tl may be rebuilt for the GPU's own figures. Returns 0, 1 on
 * an error (message printed), or 3 when --time-limit stopped it (what is
 * recorded stands; the same command resumes). */
int sweep_run(struct space *sp, struct tasklist *tl, const struct sweep_opts *o);

/* Print the plan of tasks tl of sp (per point counts, the estimate, and,
 * when o->db_path exists, what it holds already). Returns 0, or 1 when
 * the database cannot be read or strict is set and some shape gets no
 * candidate (message printed). */
int sweep_dry_run(struct space *sp, struct tasklist *tl, const struct sweep_opts *o,
		  int strict);

/* The compile rate `gemmtab compile` measured on this machine and left
 * in cache_dir (instantiations a second, into *rate). Returns 0, or -1
 * when there is none. */
int sweep_compile_rate(const char *cache_dir, double *rate);
/* Remember that n instantiations compiled in seconds here (written to a
 * temp file, renamed). Returns 0 or -1 (message printed). */
int sweep_compile_rate_save(const char *cache_dir, int n, double seconds);

/* Keep only shard i of n of sp's shapes (--shard I/N), split by a hash of
 * each shape (the same on every host), saying so on stderr; returns how
 * many are left. */
int sweep_keep_shard(struct space *sp, int i, int n);

#endif
