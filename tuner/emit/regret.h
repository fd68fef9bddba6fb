/*
 * regret.h: the arithmetic of `gemmtab report --regret TABLE.h`: at every
 * measured M, what the table runs there against the best candidate the
 * database measured there and against the baseline, and the table's total
 * loss. Pure functions over the rows db.h fetches and the entries
 * tablefile.h reads, so the tests check them on hand-made numbers.
 */
#ifndef GT_REGRET_H
#define GT_REGRET_H

#include <stdio.h>

#include "db.h"
#include "emit.h"
#include "texttable.h"

/* One (family, M). Times are the baseline's over a ratio (median paired
 * base / candidate), so all three share the baseline's clock. */
struct regret_point {
	const struct best_row *row;     /* family, key, M, base_us */
	const struct emit_incumbent *entry;   /* the table's entry serving M, or NULL */
	double table_ratio;     /* its candidate's retest ratio at M (1 without an
				 * entry); NaN: the entry's candidate has no
				 * retest of >= EMIT_MIN_PAIRS pairs at M */
	double best_ratio;      /* the best such retest at M, or 1 (the baseline) */
	const struct retest_row *best;  /* that retest, or NULL */
	double base_us, table_us, best_us;
};

struct regret_sum {
	char family[FAMILY_MAX];        /* "" for the total */
	int points, unmeasured;         /* Ms summed; Ms with a NaN table_ratio */
	double base_us, table_us, best_us;   /* sums over the summed Ms */
};

/* One entry of the table: what it serves and the evidence behind it. */
struct regret_entry {
	const struct emit_incumbent *entry;
	int served;             /* Ms it serves: m_hi - m_lo + 1 */
	int measured;           /* of those, Ms some family of its key was measured at */
	int family_ms;          /* served Ms times the families of its key */
	int family_measured;    /* (family, M)s measured among them */
	double worst;           /* its candidate's smallest retest ratio over the
				 * measured Ms it serves; NaN when one has none */
	int worst_m;            /* where (0 when NaN) */
	double holdout_ratio;   /* its candidate's retest at entry->holdout, or NaN */
};

struct regret {
	struct regret_point *p;
	int n;
	struct regret_sum *sums;        /* per family in row order, then the total */
	int nsums;
	struct regret_entry *e;         /* one per table entry, in table order */
	int ne;
	/* over the entries: family-Ms served and measured; Ms served but not
	 * measured, and of those the ones of entries that name a held-out M
	 * at which their candidate wins */
	int family_ms, family_measured, unmeasured, certified;
};

/* The regret of the table inc[0..ninc) at every best row with a baseline
 * time (db_best_rows: every measured (family, M)), from the retests
 * rt[0..nrt) (db_retest_rows, current code only), and per entry what it
 * serves against what was measured. Everything is borrowed. */
void regret_build(const struct best_row *rows, int nrows, const struct retest_row *rt,
		  int nrt, const struct emit_incumbent *inc, int ninc, struct regret *out);
void regret_free(struct regret *r);
/* The per-M table, the per-entry table, then the per-family sums and the
 * summary lines (text, md); csv: the per-M table alone; json: the three
 * tables and the summary's counts, with the command and title. */
void regret_print(const struct regret *r, const char *title, enum table_format f,
		  FILE *out);

#endif
