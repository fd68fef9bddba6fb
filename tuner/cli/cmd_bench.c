/*
 * cmd_bench.c: `gemmtab bench`, the project's headline benchmark. It
 * measures the built library (libgemmtab with its compiled-in dispatch
 * table), not the tuner's candidates: for every family of a space at its
 * loads and neighbour Ms, the worker validates gt_linear against the FP64
 * reference and times it paired against the cuBLAS baseline (docs/workload.md's
 * method). Prints per family and M, per load, and the score: the
 * geometric mean over the six loads of sum(t_baseline) / sum(t_library).
 * With --floors DB, every point and load also shows the practical read
 * floor that `gemmtab probe` recorded in DB over the library's time; with
 * --paired too, the worker also times that read (the probe's configuration
 * of it) paired against the library's graphs, so the fraction comes from
 * the bench's own process and batch (the replay overhead each process
 * subtracts moves by ~0.2 us, a few percent of a 3 us kernel).
 *
 * This file parses its options; the engine is tuner/bench/ (bench_run.h):
 * the points and their measurement, the report and the plot.
 */
#include "bench_run.h"
#include "commands.h"
#include "db.h"
#include "options.h"
#include "space.h"
#include "supervise.h"
#include "texttable.h"
#include "util.h"

#include "../../runtime/gemmtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most --pairs accepted: far more than a point needs, so only a typo
 * is refused. */
#define MAX_PAIRS 4096

static const char usage_text[] =
	"usage: gemmtab bench [--table FILE] [--space FILE] [--device N] [--pairs N]\n"
	"                     [--rounds N] [--recheck R] [--floors DB [--paired]]\n"
	"                     [--range-step S]\n"
	"                     [--format text|csv|md|json] [--section LIST] [--out FILE]\n"
	"                     [--plot FILE.svg]\n"
	"       gemmtab bench --from BENCH.md --plot FILE.svg\n"
	"  --table FILE   the table the library must have compiled in (checked)\n"
	"  --space FILE   families, loads and neighbour Ms [search_spaces/h200.yaml]\n"
	"  --device N     GPU [0]\n"
	"  --pairs N      paired repetitions per (family, M) [100]\n"
	"  --rounds N     measure every point N times, all points per round (fresh\n"
	"                 buffers each time), and report each figure's median [1]\n"
	"  --recheck R    measure each point slower than the baseline by more than\n"
	"                 3% after the rounds R more rounds, and report the median\n"
	"                 of all its rounds (its check names the first reading) [0]\n"
	"  --floors DB    also show each point's and load's floor_frac: the\n"
	"                 practical read floor gemmtab probe recorded in DB (its\n"
	"                 newest environment) over the library's time\n"
	"  --paired       with --floors: also time the probe's read of each point's\n"
	"                 weight bytes (its configuration in DB) paired against the\n"
	"                 library, in the same batch: the 'paired' column is the\n"
	"                 median of the per-pair ratios floor / library\n"
	"  --range-step S of a range shape (m: LO..HI), every M up to 64 and every\n"
	"                 S-th above (with the range's end and check points) [1]\n"
	"  --format F     text, csv, md or json [text]; csv is one tidy table (the\n"
	"                 first --section), json one document with every section\n"
	"  --section LIST points, loads, score, comma-separated [all; csv: points]\n"
	"  --out FILE     write the report there (atomically) instead of stdout\n"
	"  --plot FILE    also draw speedup against M per family (with the floor's\n"
	"                 bound and the baseline at 1) and the fraction of the floor\n"
	"  --from MD      with --plot and nothing else: redraw a saved --format md\n"
	"                 report (no GPU needed)\n";

/* The first line of the table file must be the compiled-in table's. */
static int check_table(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return error("--table %s: cannot read it", path);
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	/* The description names the command that generated each table
	 * compiled in, ended by ';', ')' or the end; the file's first line
	 * quotes its own between backticks. */
	const char *desc = gt_table_description(), *hit = NULL;
	char *open = strchr(text, '`'), *close = open ? strchr(open + 1, '`') : NULL;
	if (close) {
		*close = '\0';
		for (hit = strstr(desc, open + 1); hit; hit = strstr(hit + 1, open + 1))
			if (strchr(";)", hit[strlen(open + 1)]))
				break;
	}
	int same = hit != NULL;
	if (!same)
		error("--table %s is not the table built into this gemmtab (%s); rebuild with "
		      "make TABLE=%s", path, gt_table_description(), path);
	free(text);
	return same ? 0 : -1;
}

int cmd_bench(int argc, char **argv)
{
	const char *space = "search_spaces/h200.yaml", *table_path = NULL, *out_path = NULL;
	const char *floors_path = NULL, *section = NULL, *plot = NULL, *from = NULL;
	unsigned sections = BENCH_ALL;
	struct floor_row *floors = NULL;
	int nfloors = 0;
	char floors_label[256] = "";
	enum table_format f = TABLE_TEXT;
	int device = 0, pairs = 100, rounds = 1, recheck = 0, paired = 0, step = 1;
	struct space sp;
	const struct opt opts[] = {
		OPT_STRING("table", &table_path, 0),
		OPT_STRING("space", &space, 0),
		OPT_INT("device", &device, 0, OPT_MAX_DEVICE),
		OPT_INT("pairs", &pairs, 1, MAX_PAIRS),
		OPT_INT("rounds", &rounds, 1, MAX_ROUNDS),
		OPT_INT("recheck", &recheck, 0, MAX_ROUNDS),
		OPT_INT("range-step", &step, 1, 4096),
		OPT_STRING("floors", &floors_path, 0),
		OPT_FLAG("paired", &paired),
		OPT_FORMAT("format", &f, 0),
		OPT_STRING("section", &section, 0),
		OPT_STRING("plot", &plot, 0),
		OPT_STRING("from", &from, 0),
		OPT_STRING("out", &out_path, 0),
		OPT_END(),
	};

	int st = parse_options("bench", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (rounds + recheck > MAX_ROUNDS)
		return usage_error("bench", usage_text, "--rounds %d and --recheck %d: at most %d "
				   "rounds in all", rounds, recheck, MAX_ROUNDS);
	if (paired && !floors_path)
		return usage_error("bench", usage_text, "--paired needs --floors");
	if (from && !plot)
		return usage_error("bench", usage_text, "--from needs --plot (it redraws a saved "
				   "report)");
	if (from)
		return bench_plot_from_md(from, plot) ? 1 : 0;
	if (section && bench_sections_parse(section, &sections))
		return usage_error("bench", usage_text, "--section: '%s' is not a list of points, "
				   "loads and score", section);
	if (!section && f == TABLE_CSV)
		sections = BENCH_POINTS;
	if (worker_device_check("bench"))
		return 1;
	if (table_path && check_table(table_path))
		return 2;
	if (floors_path && (nfloors = bench_load_floors(floors_path, &floors, floors_label,
							  sizeof(floors_label))) < 0)
		return 2;
	if (space_load(space, &sp)) {
		free(floors);
		return 2;
	}

	struct point *p;
	int n = bench_points(&sp, space, step, floors_path, floors, nfloors, paired, &p);
	bench_measure_all(p, n, pairs, rounds, recheck, device);

	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		die("out of memory");
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += strcmp(p[i].status, "ok") != 0;
	struct bench_run run = { p, n, &sp.workload, space, device, pairs, rounds, recheck,
				 floors_path ? floors_label : NULL, paired };
	bench_print(&run, f, sections, out);
	if (plot && bench_plot(&run, plot))
		bad++;
	fclose(out);
	if (out_path) {
		if (write_file_atomic(out_path, buf, len))
			die("cannot write %s", out_path);
	} else {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
	free(p);
	free(floors);
	space_free(&sp);
	return bad ? 1 : 0;
}
