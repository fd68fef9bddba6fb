/*
 * space.h: search spaces. A YAML file names shapes (projection families
 * with N, K, dtypes, tolerance, the Ms to tune and the neighbour Ms to
 * check), per template a parameter grid and constraints, and sweep
 * settings. The loader is space.c over ytree.c, the only file that
 * includes yaml.h.
 *
 * File format (see search_spaces/tiny.yaml):
 *
 *   sweep:                       # optional; these are the defaults
 *     screen_pairs: 10           # paired repetitions per screened candidate
 *     retest_pairs: 100          # >= 100 for anything a table may use
 *     retest_top: 3              # finalists per (shape, M)
 *     deadline_s: 20             # per candidate, compile excluded
 *     range_top: 3               # a range's finalists per anchor
 *     range_pairs: 100           # pairs per M of a range
 *   shapes:
 *     - family: qkv
 *       n: 2304
 *       k: 8192
 *       w: bf16                  # bf16 | fp32
 *       x: bf16
 *       y: bf16
 *       tol: 1e-2                # global rel. L2 bound (per row: 2x)
 *       m: [1, 8, 16, 32]        # a list, or a range 1..512 (every M timed)
 *       neighbours: [2, 3, 7]    # optional, a list's only
 *       anchors: [1, 8, 64]      # optional, a range's only: the Ms
 *                                # screened [its ends, the powers of 2]
 *   cublaslt:                    # optional: the cuBLASLt search
 *     orient: [t, row]           # tmpl_lt.c's orientations
 *     top: 8                     # heuristic proposals per orientation
 *   templates:                   # optional for bench and probe; sweep needs
 *                                # it or cublaslt
 *     gemv:                      # a stem known to tmpl.h
 *       params:                  # every parameter of the template, a list each
 *         warps: [4, 8, 16]
 *         cache: [default, cg]   # symbolic parameters by name
 *       constraints:             # optional; all must hold (C-like integer
 *         - "tokens <= m * 2"    # expressions over the params, n, k, m,
 *         - "k % (warps * 256) == 0"   # w_bytes, x_bytes, y_bytes; symbols by name)
 */
#ifndef GT_SPACE_H
#define GT_SPACE_H

#include "types.h"
#include "workload.h"

struct expr;   /* a parsed constraint, private to space.c */

/* The largest M a space may name. */
#define SPACE_MAX_M 65536L

struct grid {
	const struct tmpl *tmpl;
	int nvalues[MAX_PARAMS];
	long *values[MAX_PARAMS];     /* nvalues[i] values of tmpl->params[i] */
	int nconstraints;
	struct expr **constraints;
	char **constraint_text;       /* as written, for messages */
	int *constraint_line;         /* where each is written (0-based, as
				       * libyaml counts) */
	int *constraint_col;
};

struct sweep_settings {
	int screen_pairs;
	int retest_pairs;
	int retest_top;
	double deadline_s;
	int range_top;      /* a range's finalists per anchor, timed at every
			     * M between its neighbouring anchors */
	int range_pairs;    /* pairs of each of those retests */
};

/* The cuBLASLt search (the optional `cublaslt:` section): for every bf16
 * shape and tuned m, the first `top` algorithms cuBLASLt's heuristic
 * proposes in each orientation become blas_lt candidates (tmpl_lt.c),
 * stored by their attributes; with `splitk`, each of them also at every
 * split-K count listed that cuBLASLt accepts for it, and with `vary` at
 * every value of each attribute named there (one at a time) that it
 * accepts; with `vary_min_m`, those variants only at tuned Ms of at least
 * that (the proposals at every M); with `vary_seeds`, the best blas_lt
 * candidates the database already holds at that point and orientation
 * (in the sweep's environment, at the Ms the variants are asked at) are
 * varied too (a rerun climbs from what the last one found); `vary_steps`
 * climbs that many steps in one sweep, each seeded by the results of the
 * ones before, stopping early at a step that names nothing new. gemmtab
 * sweep asks the GPU for them. */
#define SPACE_LT_TOP_MAX 32
#define SPACE_LT_SPLITK_MAX 16          /* values in a splitk list */
#define SPACE_LT_SPLITK_LIMIT 64        /* the largest split-K count */
#define SPACE_LT_SEEDS_MAX 8            /* vary_seeds' largest value */
#define SPACE_LT_STEPS_MAX 16           /* vary_steps' largest value */
struct lt_search {
	int top;                      /* 0: no cuBLASLt search */
	int norients;
	long orient[3];               /* tmpl_lt.c's orient symbols, by index */
	int nsplitk;                  /* 0: the heuristic's algorithms only */
	int splitk[SPACE_LT_SPLITK_MAX];
	char vary[32];                /* attributes also varied, comma-separated
				       * (tile, stages, cluster, custom); "" none */
	int vary_min_m;               /* splitk and vary at tuned ms >= this only
				       * (0: at every m) */
	int vary_seeds;               /* the database's best per orientation also
				       * varied (0: the proposals only) */
	int vary_steps;               /* seeded steps in one sweep (0: one) */
};

/* cublaslt.vary's attribute names, NULL-terminated: the worker's
 * lt_algos request takes the same names (name i is lt.h's LT_VARY_* bit
 * 1 << i). */
extern const char *const space_lt_vary_names[];

/* Whether a cuBLASLt search names variants of its proposals (and so can
 * vary seeds). */
static inline int lt_varies(const struct lt_search *lt)
{
	return lt->nsplitk || *lt->vary;
}

/* The device figures a constraint may name. A dry run reads them from a
 * profile (the H200's built in, or --device-profile FILE); a sweep from
 * its GPU. */
struct device_profile {
	char name[64];
	long sm_count;          /* SMs */
	long smem_optin;        /* shared memory one block may opt in to, bytes */
	long smem_sm;           /* shared memory of one SM, bytes */
	long smem_reserved;     /* of it, reserved for each block */
	long l2_bytes;
	long max_cluster;       /* the portable largest thread-block cluster */
};

/* The H200's: 132 SMs, 227 KiB a block, 228 KiB an SM of which 1 KiB is
 * reserved per block, 60 MiB of L2 (as its worker reports them),
 * clusters of up to 8. */
void device_profile_h200(struct device_profile *d);
/* The built-in profile PATH names (h200 or h100), else read a profile
 * file (YAML: name, sm_count, smem_optin, smem_sm, smem_reserved,
 * l2_bytes, max_cluster, each required). Returns 0, or -1 after one
 * FILE:LINE:COL line (or one naming the built-ins where no file is). */
int device_profile_load(const char *path, struct device_profile *d);

struct space {
	char *path;
	struct sweep_settings sweep;
	struct lt_search lt;
	int nshapes;
	struct shape *shapes;
	int ngrids;
	struct grid *grids;
	struct device_profile dev;    /* what its constraints' device names
				       * read (the H200's unless changed) */
	struct workload workload;     /* its workload: section, or derived
				       * from its shapes (space.c) */
	int top_line, top_col;        /* the top level (1-based), for messages
				       * about a section it lacks */
};

/* Parse and check path. On any problem prints exactly one line
 * "FILE:LINE:COL: what is wrong" (1-based) to stderr and returns -1;
 * nothing is allocated then. Returns 0 and fills *out otherwise. */
int space_load(const char *path, struct space *out);
/* Let sp's constraints read d's figures, and check again that none of
 * them is undefined everywhere. Returns 0, or -1 after the FILE:LINE:COL
 * line of such a constraint. */
int space_set_device(struct space *sp, const struct device_profile *d);
/* Why shape s gets no candidate at its tuned Ms, in one line: per grid,
 * the constraints that reject the most points first, and what the
 * template's static check prunes. */
void space_why_none(const struct space *sp, const struct shape *s, char *buf, size_t len);
/* Add the shapes of frag (a shapes fragment, e.g. gt_untuned_write's) to
 * sp: a shape sp lacks is appended; one sp has (same n, k and dtypes)
 * gains the fragment's Ms (a list's union, a range widened) or, when it
 * has them all, is left. Says each on stderr. Returns 0, or -1 after one
 * line naming the fragment and the shape (a family name of another shape,
 * another bound, a range asked of a list, more than MAX_MS Ms). */
int space_add_shapes(struct space *sp, const struct space *frag);
/* space_load of a shapes fragment, which may hold no shape (shapes: []). */
int space_load_fragment(const char *path, struct space *out);
void space_free(struct space *s);

/* Called once per grid point for (shape, m) that satisfies the grid's
 * constraints. reason is NULL when the template's static check passed,
 * else the reason the candidate is pruned (it must still be recorded). */
typedef void (*space_visit_fn)(void *ctx, const struct shape *s, int m,
			       const struct candidate *c, const char *reason);

/* Visit every candidate of every grid for shape s at m, in a deterministic
 * order (grids in file order, parameters odometer-style, last fastest).
 * Returns the number of candidates visited (pruned included). */
long space_enumerate(const struct space *sp, const struct shape *s, int m,
		     space_visit_fn fn, void *ctx);

#endif
