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
#include "workload.h"

/* H200 nominal peaks (docs/workload.md, "The floors"): HBM3e bandwidth and
 * dense BF16 tensor-core throughput. */
#define NOMINAL_BYTES_PER_S 4.8e12
#define NOMINAL_FLOP_PER_S 989e12

/* The nominal floor of Y[m,n] = X[m,k] W[n,k]^T in microseconds:
 * max(bytes / 4.8 TB/s, 2 m n k / 989 TFLOP/s), bytes = W + X + Y. */
double nominal_floor_us(int m, int n, int k, enum dtype w, enum dtype x,
			enum dtype y);

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
 * The load of m tokens over f[0..n) (every shape at every M): the sums of
 * the workload's shapes that run at m, each times its count. One with no
 * row at m is listed as missing rather than silently left out of the
 * sums, and the load is then incomplete (not in the score). Returns 1 if
 * some shape has a row at m (the load is present), else 0.
 */
int load_figures_compute(const struct shape_figures *f, int n, int m,
			 const struct workload *wl, struct load_figures *out);

/* What one (family, M) costs, as the all-M figure reads it. */
struct timed_point {
	const char *family;
	int m, n, k;
	enum dtype w, x, y;
	double base_us, run_us;
	int ok;                 /* both times are figures */
};

struct all_m {
	double value;           /* NaN when no M has every shape measured */
	int max_m;              /* the workload's largest load (or range end) */
	int measured;           /* Ms at which every shape was measured: the mean's */
	int in_range;           /* Ms of 1..max_m at which some shape runs */
};

/* The all-M figure: the geometric mean of the load speedup at M (each
 * shape's times summed count times) over the Ms of 1..max_m at which
 * every shape the load runs was measured. An M with a shape unmeasured
 * is left out, never counted as cuBLAS; out->measured of out->in_range
 * is the figure's coverage, and it is stated with it. Returns
 * out->value. */
double all_m_figure(const struct workload *wl, const struct timed_point *p, int n,
		    struct all_m *out);
/* Its line: "all-M: 1.234, the geometric mean over M = 1..256 ...". */
void print_all_m(const struct all_m *a, FILE *out);
/* The workload's shapes as one line: "qkv, unpooler (m > 8), 32 x down". */
void workload_text(const struct workload *wl, char *buf, size_t len);

/* The geometric mean of the complete loads' speedups; *covered gets how
 * many there were. NaN when none. */
double report_score(const struct load_figures *loads, int n, int *covered);

struct report {
	const struct workload *workload;
	struct shape_figures *shapes;   /* one per best row, in row order */
	int nshapes;
	struct load_figures loads[WORKLOAD_MAX_LOADS];   /* the present ones */
	int nloads;
	double score;
	int covered;
	struct all_m all_m;
};

/* The whole report from the rows over the workload (both borrowed: they
 * must outlive it). */
void report_build(const struct best_row *rows, int nrows,
		  const struct floor_row *floors, int nfloors, const struct workload *wl,
		  struct report *out);
void report_free(struct report *r);

/* Where a report's rows come from: the database as named, the
 * environment, and the title line text and md print. */
struct report_source {
	const char *db;
	long long env;
	const struct env_info *e;
	const char *title;
};

/* The sections of a report (--section): the per-(family, M) table, the
 * per-load table, the score and all-M figure. */
#define REPORT_FAMILIES 1u
#define REPORT_LOADS 2u
#define REPORT_SCORE 4u
#define REPORT_ALL 7u
/* With REPORT_FAMILIES, in text and md: every (family, M) row however
 * many (--full). Without it a report of more than REPORT_SUMMARY_ROWS
 * rows gives one line per family and run of Ms with one winner. */
#define REPORT_FULL 8u
#define REPORT_SUMMARY_ROWS 64
/* "families,loads" into *out; 0, or -1 for an unknown or empty list. */
int report_sections_parse(const char *list, unsigned *out);

/* The brief per-(family, M) section of r into t (report_summary.c): a
 * line per family and run of consecutive rows with one winner, its Ms,
 * its row count, the geometric mean of its speedups and their range. */
void report_summary_table(const struct report *r, struct table *t);

/* Print the sections of r. text and md: a title, then each section with
 * its heading and prose. csv: one tidy table, that of the first section
 * asked for (families: one row per family and M, one value per cell).
 * json: one document with the database, environment and command and each
 * section asked for. */
void report_print(const struct report *r, const struct report_source *src,
		  enum table_format f, unsigned sections, FILE *out);

/* "environment": {...} of env id's fingerprint, as a JSON member. */
void json_environment(struct json *j, long long id, const struct env_info *e);

/* Fetch env's rows from db and print its report over wl (cmd_report.c),
 * and its plot to the SVG file plot unless NULL. Returns 0 or -1. */
int report_write(struct db *db, long long env, const char *db_label,
		 const struct workload *wl, enum table_format f, unsigned sections,
		 const char *plot, FILE *out);

#endif
