/*
 * emit.h: what `gemmtab emit` puts in a dispatch table, decided from the
 * retests in a database: the rows grouped by the key the runtime looks up
 * (n, k, dtypes), each candidate's evidence at every measured M, and the
 * inclusive M ranges each candidate serves. Pure functions over the rows
 * db.h fetches (no SQL, no files here), so the tests check them on
 * hand-made numbers; cmd_emit.c reads the database and tablewrite.c
 * writes the files.
 */
#ifndef GT_EMIT_H
#define GT_EMIT_H

#include "db.h"

/* A retest may enter a table only with at least this many pairs
 * (docs/workload.md, timing method step 5; the `best` view's rule). */
#define EMIT_MIN_PAIRS 100

/* What the runtime looks a table up by: families with the same key are
 * one shape for dispatch. */
struct emit_key {
	int n, k;
	enum dtype w, x, y;
};

/* One candidate's evidence at one measured M: the weakest of its retest
 * rows there (the smallest median ratio and the fewest pairs, when
 * families sharing a key both retested it). ratio is NaN and pairs -1
 * where it has no retest at that M. */
struct emit_cell {
	double ratio;
	int pairs;
	double bonus;       /* added to log(ratio) when choosing (emit_prefer) */
};

/* Does a cell win: at least EMIT_MIN_PAIRS pairs and a median paired
 * ratio above 1 (a NaN ratio does not). */
int emit_cell_wins(const struct emit_cell *c);

/* The largest gap between two measured Ms whose unmeasured Ms between
 * them an entry may serve: one 16-row tile (grid.h; the Ms 16t + 1 ..
 * 16t + 16 launch the same tile count). */
#define EMIT_SPAN_GAP 16

/* A candidate range: candidate index cand serves every M of m_lo..m_hi;
 * ms[lo..hi] (indices) are the measured Ms in the range and those that
 * bracket its unmeasured Ms, and cand wins at each of them. holdout is
 * the measured M off the grid that certified the range's unmeasured Ms
 * (0 when the range serves only measured Ms). */
struct emit_range {
	int cand;
	int lo, hi;
	int m_lo, m_hi;
	int holdout;
};

/*
 * Choose the ranges of one key. ms[0..nms) are the measured Ms, strictly
 * ascending; cells[c * nms + i] is candidate c's evidence at ms[i], for c
 * in [0, ncand). A cell's score is log(ratio) + bonus.
 *
 * What is served: every measured M where some candidate wins
 * (emit_cell_wins), by the winner of the largest score there (ties
 * within 1e-9 to the smallest index); and the unmeasured Ms strictly
 * between two measured Ms a < b only inside a certified span. The grid is
 * grid.h's over ms[0]..ms[nms - 1]; a segment is two measured grid Ms a <
 * b with b the grid M after a and b - a <= EMIT_SPAN_GAP. Its candidate
 * is chosen on the grid alone: of those that win at a and at b, the one
 * whose smaller score of the two is the largest (ties: smallest index).
 * Its span is the longest run of segments through a in which that
 * candidate wins at every grid M, cut at every measured M off the grid
 * that it does not win: the unmeasured Ms between two measured Ms of the
 * segment are served by it when it wins at both and the piece of the span
 * through them (the run of measured Ms it wins) holds a measured M off
 * the grid strictly between the piece's ends (a held-out M: no choice
 * read it).
 * Everything else runs the baseline. A candidate that spans more Ms so
 * never takes a measured M from a faster one.
 *
 * This maximises the worth, the sum over served Ms of w(M) times the log
 * ratio (an unmeasured M's ratio counted as the smaller of its segment's
 * ends), for any workload weights w(M) > 0: each measured M and each
 * segment is decided alone, and one M's weight scales every candidate
 * there alike.
 *
 * Pieces of one candidate at adjacent Ms are one range. Writes the
 * ranges, ascending by M, into out (room for 2 * nms) and returns their
 * count.
 */
int emit_choose(const int *ms, int nms, const struct emit_cell *cells,
		int ncand, struct emit_range *out);

/* One candidate of a group: its template stem and canonical params. */
struct emit_cand {
	char tmpl[64];
	char params[512];
};

/* Everything emit decides one key from. */
struct emit_group {
	struct emit_key key;
	char families[256];         /* "qkv", or "a, b" when families share the key */
	int *ms;                    /* measured Ms, ascending */
	int nms;
	struct emit_cand *cands;    /* ordered by tmpl then params */
	int ncand;
	struct emit_cell *cells;    /* ncand * nms, as emit_choose reads them */
};

/*
 * Group an environment's rows by key. measured are the (shape, m) points
 * the database has a best row or a baseline for (db_best_rows): every
 * such M is a measured M of its key, so a range never spans an M that was
 * measured without a winning retest. retests are the rows of
 * db_retest_rows. Groups are ordered by n, k, w, x, y; a key with
 * measured Ms but no retest has a group with no candidates. Returns the
 * count; *out is a heap array (free with emit_groups_free).
 */
int emit_group_rows(const struct best_row *measured, int nmeasured,
		    const struct retest_row *retests, int nretests,
		    struct emit_group **out);
void emit_groups_free(struct emit_group *g, int n);

/* One dispatch entry: a chosen range with its evidence. */
struct emit_entry {
	const struct emit_group *group;
	const struct emit_cand *cand;
	int m_lo, m_hi;             /* inclusive */
	int lo, hi;                 /* its evidence: group->ms[lo..hi] (emit_range) */
	int holdout;                /* the held-out M certifying it, or 0 */
	double ratio_min;           /* smallest median ratio over those Ms */
	int pairs_min;              /* fewest pairs behind any of them */
};

/* The entries of every group in order (so sorted by n, k, w, x, y, m_lo)
 * into a heap array *out (caller frees; it points into groups). Returns
 * the count. */
int emit_select(const struct emit_group *groups, int ngroups,
		struct emit_entry **out);

/* An entry of a table gemmtab emit wrote, read back from its comment
 * line: families, inclusive M range, template stem and params text. */
struct emit_incumbent {
	char families[256];
	int m_lo, m_hi;
	struct emit_cand cand;      /* template stem and params text */
	struct emit_key key;        /* from the entry's initializer line */
	int holdout;                /* " (held out: M 72)" after the params, or 0 */
};

/* Read one line of a table header: 1 and *out when it is an entry's
 * comment line ("\t/\* qkv, M 9..16: mma_skinny bm=64,...", perhaps
 * followed by " (held out: M 12)"), else 0. */
int emit_incumbent_parse(const char *line, struct emit_incumbent *out);
/* The entry's initializer line that follows its comment ("\t{ 2304, 8192,
 * 0, 0, 0, 9, 16, ..."): 1 when it is one and its M range is inc's (the
 * key then set in inc), else 0. */
int emit_incumbent_key(const char *line, struct emit_incumbent *inc);

/*
 * Prefer the incumbents: the cells of each incumbent's candidate at the
 * measured Ms its range covers get a bonus of log(1 + margin), so that a
 * challenger takes such an M only where its ratios beat the incumbent's
 * by more than the margin (for a retest's noise on one machine not to
 * re-pick near ties; docs/guide.md, emit --margin). Whether a cell wins
 * (emit_cell_wins) and every figure written stay as measured. An
 * incumbent matches the group of its key and families text, and there
 * the candidate of its template and params; returns how many matched.
 */
int emit_prefer(struct emit_group *groups, int ngroups, const struct emit_incumbent *inc,
		int ninc, double margin);

/* Parse a candidate's canonical params text ("warps=8,...,cache=cg", as
 * candidate_key writes it) back into values in the template's parameter
 * order. Returns 0, or -1 (message printed) when a name is unknown,
 * missing or repeated, a value is out of range or not a symbol, or the
 * text is not canonical. */
int emit_params_parse(const struct tmpl *t, const char *text, long *params);
/* The same without a message: -1 only. */
int emit_params_parse_quiet(const struct tmpl *t, const char *text, long *params);

#endif
