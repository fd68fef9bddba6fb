/*
 * report.h: the arithmetic of `gemmtab report` and the tables that print
 * it: what each (family, M) runs and how fast, each load's speedup, the
 * score, and every time as a fraction of the practical and nominal floors.
 * Pure functions over the rows db.h fetches (no SQL here), so the tests
 * check them on hand-made numbers.
 */
#ifndef GT_REPORT_H
#define GT_REPORT_H

#include <stdio.h>

#include "db.h"
#include "texttable.h"

/* The scored loads, token counts M (docs/workload.md, "The six loads"). */
#define REPORT_NLOADS 6
extern const int report_loads[REPORT_NLOADS];
/* The five scored families; unpooler stands for unpooler_slice at M <= 8
 * (load_family). */
#define REPORT_NFAMILIES 5
extern const char *const report_families[REPORT_NFAMILIES];

/* H200 nominal peaks (docs/workload.md, "The floors"): HBM3e bandwidth and
 * dense BF16 tensor-core throughput. */
#define NOMINAL_BYTES_PER_S 4.8e12
#define NOMINAL_FLOP_PER_S 989e12

/* The nominal floor of Y[m,n] = X[m,k] W[n,k]^T in microseconds:
 * max(bytes / 4.8 TB/s, 2 m n k / 989 TFLOP/s), bytes = W + X + Y. */
double nominal_floor_us(int m, int n, int k, enum dtype w, enum dtype x,
			enum dtype y);

/* The family a load of m tokens runs in place of family: unpooler_slice
 * replaces unpooler for m <= 8 and unpooler replaces unpooler_slice above
 * (docs/workload.md); any other family is itself. */
const char *load_family(const char *family, int m);

/* One (shape, M) as the dispatch would run it. */
struct shape_figures {
	const struct best_row *row;
	int wins;               /* the candidate's median ratio > 1: it runs */
	double run_us;          /* cand_us if it wins, else base_us */
	double speedup;         /* the median ratio if it wins, else 1 */
	double lo, hi;          /* the ratio's spread if it wins, else NaN */
	double floor_us;        /* the family's practical floor; NaN unprobed */
	double nominal_us;
	double frac_floor;      /* floor_us / run_us */
	double frac_nominal;    /* nominal_us / run_us */
};

/* The figures of row, with its family's floor from floors[] (by name). */
void shape_figures_compute(const struct best_row *row,
			   const struct floor_row *floors, int nfloors,
			   struct shape_figures *out);

/* One load: the sums over the families it runs. */
struct load_figures {
	int m;
	int nexpected;          /* families this load should sum */
	int nused;              /* families summed (one row each at m) */
	char missing[256];      /* ", "-separated: expected, no row at m */
	char ambiguous[256];    /* families with more than one shape at m */
	char screen[256];       /* families summed on screen figures only */
	double base_us, run_us; /* sums */
	double floor_us;        /* sum; NaN if a family has no floor probe */
	double nominal_us;
	double speedup;         /* base_us / run_us */
	int complete;           /* nothing missing or ambiguous, figures finite */
};

/*
 * The load of m tokens over f[0..n) (every shape at every M). The
 * families it expects are the workload's five (docs/workload.md) and any other
 * family present at any M, each mapped through load_family(): one with no
 * row at m is listed as missing rather than silently left out of the sums,
 * and the load is then incomplete (not in the score). Returns 1 if some
 * expected family has a row at m (the load is present), else 0.
 */
int load_figures_compute(const struct shape_figures *f, int n, int m,
			 struct load_figures *out);

/* The geometric mean of the complete loads' speedups; *covered gets how
 * many there were. NaN when none. */
double report_score(const struct load_figures *loads, int n, int *covered);

struct report {
	struct shape_figures *shapes;   /* one per best row, in row order */
	int nshapes;
	struct load_figures loads[REPORT_NLOADS];   /* the present ones */
	int nloads;
	double score;
	int covered;
};

/* The whole report from the rows (borrowed: they must outlive it). */
void report_build(const struct best_row *rows, int nrows,
		  const struct floor_row *floors, int nfloors, struct report *out);
void report_free(struct report *r);

/* Print the per-shape table, the per-load table and the score. title
 * names the database and environment (text and md only; csv holds just
 * the three tables, a blank line apart). */
void report_print(const struct report *r, const char *title,
		  enum table_format f, FILE *out);

/* Fetch env's rows from db and print its report (cmd_report.c). Returns
 * 0 or -1. */
int report_write(struct db *db, long long env, const char *db_label,
		 enum table_format f, FILE *out);

#endif
