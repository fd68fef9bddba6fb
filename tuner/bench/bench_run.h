/*
 * bench_run.h: the engine of `gemmtab bench` (tuner/cli/cmd_bench.c parses
 * its options). bench_measure.c makes a space's points (every family at its
 * loads and neighbour Ms, with its probed floor) and measures them on the
 * GPU worker, over rounds and rechecks; bench_print.c prints them (per
 * family and M, per load, the score) as text, csv, md or json;
 * bench_plot.c draws them, or a saved md report, as an SVG plot.
 */
#ifndef GT_BENCH_RUN_H
#define GT_BENCH_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "db.h"
#include "space.h"
#include "texttable.h"

/* A neighbour M may be slower than the baseline only within noise
 * (docs/workload.md); the bound is 3%. */
#define REGRESSION_RATIO 0.97
/* The most rounds a point is measured, --rounds and --recheck's together. */
#define MAX_ROUNDS 32

struct point {
	const struct shape *s;
	int m;
	char status[16];
	double base_us, lib_us, ratio, lo, hi, err;
	double floor_us;        /* the family's probed floor (--floors), or NaN */
	/* --paired: the probe's read configuration (0: none), and the read's
	 * and the library's median net times in their batch and the median
	 * floor / library ratio of its pairs (NaN when not measured) */
	int floor_blocks, floor_unroll;
	double pfloor_us, plib_us, pfrac, plo, phi;
	char explain[512];
	/* --recheck: the rounds it added to this point (0: none), and the
	 * point's ratio over the bench's rounds before them */
	int rechecked;
	double first_ratio;
};

/* One bench's points and what they were measured under, for printing. */
struct bench_run {
	const struct point *p;
	int n;
	const struct workload *wl;
	const char *space;
	int device, pairs, rounds, recheck;
	const char *floors;     /* the floors' label, or NULL without --floors */
	int paired;
};

/* The sections of the report (--section) */
#define BENCH_POINTS 1u
#define BENCH_LOADS 2u
#define BENCH_SCORE 4u
#define BENCH_ALL 7u

/* bench_measure.c */

/* The floors of --floors: the newest environment of DB. Returns the count
 * (0: none recorded, a warning) or -1 (error printed); *label names
 * where they come from. */
int bench_load_floors(const char *path, struct floor_row **out, char *label, size_t len);
/* The points of space sp (read from the file space): every shape at the
 * Ms bench times it at (a range's at step), each with its family's floor
 * of floors[0..nfloors) (--floors floors_path; NULL without) and, with
 * paired, the floor's read configuration; a warning names each family
 * whose floor_frac or paired column reads '-'. Into a heap array *out
 * (caller frees); returns the count. */
int bench_points(const struct space *sp, const char *space, int step, const char *floors_path,
		 const struct floor_row *floors, int nfloors, int paired, struct point **out);
/* Every point over rounds rounds, into its medians (combine_rounds); then,
 * with recheck, each point still slower than REGRESSION_RATIO over
 * recheck more rounds, numbered on from the first (fresh inputs), into
 * the medians over all of its rounds. */
void bench_measure_all(struct point *p, int n, int pairs, int rounds, int recheck, int device);

/* bench_print.c */

/* The sections of a comma-separated list of points, loads and score into
 * *out (BENCH_*). Returns 0, or -1 when a name is none of them. */
int bench_sections_parse(const char *list, unsigned *out);
/* The bench report in format f: text and md the headed sections asked
 * for, csv one tidy table (the first section asked for), json one
 * document. */
void bench_print(const struct bench_run *b, enum table_format f, unsigned sections, FILE *out);

/* bench_plot.c */

/* The plot of the points: speedup, the floor's bound (base / floor) and
 * the fraction of the floor (the paired one where measured). Returns 0 or
 * -1 (error printed). */
int bench_plot(const struct bench_run *b, const char *path);
/* bench --from FILE.md --plot FILE.svg: the plot of a saved `bench
 * --format md` report (its "Per family and M" table), no GPU needed.
 * Returns 0 or -1 (error printed). */
int bench_plot_from_md(const char *md, const char *path);

#endif
