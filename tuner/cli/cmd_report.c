/*
 * cmd_report.c: `gemmtab report`: read one environment's results from a
 * database and print what the dispatch would run per family and M, the
 * load speedups and the score (the arithmetic is report.c's).
 */
#include "commands.h"
#include "current.h"
#include "options.h"
#include "plotset.h"
#include "regret.h"
#include "report.h"
#include "space.h"
#include "tablefile.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>

static const char usage_text[] =
	"usage: gemmtab report --db DB [--space FILE] [--env ID]\n"
	"                      [--format text|csv|md|json] [--section LIST] [--plot FILE.svg]\n"
	"                      [--full] [--regret TABLE.h]\n"
	"  --db DB           the results database (gemmtab sweep writes it)\n"
	"  --space FILE      the loads and the shapes each runs: the space's workload:\n"
	"                    section (or, without one, each family once at each tuned M)\n"
	"                    [the reference workload of docs/workload.md]\n"
	"  --env ID          the environment to report [the newest]\n"
	"  --format F        text, csv, md or json [text]; csv is one tidy table (the\n"
	"                    first --section), json one document with every section\n"
	"  --section LIST    families, loads, score, comma-separated [all; csv: families]\n"
	"  --full            every (family, M) row in text and md; without it a report\n"
	"                    of more than 64 rows gives a line per family and run of Ms\n"
	"                    with one winner\n"
	"  --plot FILE.svg   also draw speedup against M per family (with the floor's\n"
	"                    bound and the baseline at 1) and the fraction of the floor\n"
	"  --regret TABLE.h  instead: at every measured M, the time of what the table\n"
	"                    (gemmtab emit wrote it) runs there against the best candidate\n"
	"                    measured there and the baseline; per entry the Ms it serves,\n"
	"                    those measured, its worst measured ratio and its held-out M;\n"
	"                    the table's total loss and its served-but-unmeasured Ms\n";

/* "fixture.db, env 1: NVIDIA H200 (132 SMs, 1980 MHz), driver ..." */
static char *report_title(const char *db_label, long long env,
			  const struct env_info *e)
{
	return xasprintf("%s, env %lld: %s (%d SMs, %d MHz), driver %s, CUDA %s, "
			 "NVRTC %s, cuBLAS %s, cuBLASLt %s, sources %s",
			 db_label, env, e->gpu_name, e->sm_count, e->sm_clock_mhz,
			 e->driver, e->cuda, e->nvrtc, e->cublas, e->cublaslt,
			 e->source_hash[0] ? e->source_hash : "hashed per template");
}

/* The best rows of env over the (candidate, shape)s whose code this build
 * runs (current.h); the count or -1. */
static int best_current(struct db *db, long long env, struct best_row **rows)
{
	struct db_pair *pairs = NULL;
	struct jit_options jit;
	long n = db_pairs(db, &pairs), kept = 0;
	int ret = -1;
	if (n < 0)
		return -1;
	enum pair_state *state = xmalloc(sizeof(*state) * (size_t)(n ? n : 1));
	jit_options_default(&jit);
	if (!current_pairs(db, &jit, "report", pairs, n, state)) {
		for (long i = 0; i < n; i++)
			if (state[i] == PAIR_CURRENT)
				pairs[kept++] = pairs[i];
		ret = db_best_rows_current(db, env, pairs, kept, rows);
	}
	free(state);
	free(pairs);
	return ret;
}

/* The regret of the table at table_path over env's rows. Returns 0 or -1. */
static int regret_write(struct db *db, long long env, const char *db_label,
			const char *table_path, enum table_format f, FILE *out)
{
	struct env_info e;
	struct best_row *rows = NULL;
	struct retest_row *rt = NULL;
	struct emit_incumbent *inc = NULL;
	struct jit_options jit;
	struct regret r;
	char *title = NULL;
	int found, nrows, nrt = 0, ninc, absent = 0, ret = -1;

	if ((ninc = table_file_read(table_path, "--regret", &inc)) < 0)
		return -1;
	if ((found = db_env_get(db, env, &e))) {
		free(inc);
		return found < 0 ? -1 : error("DB: no environment with id %lld", env);
	}
	jit_options_default(&jit);
	nrows = e.source_hash[0] ? db_best_rows(db, env, &rows) : best_current(db, env, &rows);
	if (nrows < 0 || (nrt = db_retest_rows(db, env, &rt)) < 0 ||
	    (!e.source_hash[0] && current_retests(db, &jit, "report", rt, &nrt, &absent) < 0))
		goto cleanup;
	char *where = report_title(db_label, env, &e);
	title = xasprintf("%s against %s", table_path, where);
	free(where);
	regret_build(rows, nrows, rt, nrt, inc, ninc, &r);
	regret_print(&r, title, f, out);
	regret_free(&r);
	ret = 0;
cleanup:
	free(title);
	free(rows);
	free(rt);
	free(inc);
	return ret;
}

/* The plot of r: per family, speedup and the floor's bound over M, and
 * the fraction of the floor. */
static int report_plot(const struct report *r, const char *title, const char *path)
{
	struct plot_set ps = { 0 };
	for (int i = 0; i < r->nshapes; i++) {
		const struct shape_figures *s = &r->shapes[i];
		plot_set_add(&ps, s->row->family, s->row->m, s->speedup,
			     s->row->base_us / s->floor_us, s->frac_floor);
	}
	char *t = xasprintf("gemmtab report: %s", title);
	int ret = plot_set_write(&ps, t, "--plot", path);
	free(t);
	plot_set_free(&ps);
	return ret;
}

int report_write(struct db *db, long long env, const char *db_label,
		 const struct workload *wl, enum table_format f, unsigned sections,
		 const char *plot, FILE *out)
{
	struct env_info e;
	struct best_row *rows = NULL;
	struct floor_row *floors = NULL;
	struct report r;
	char *title = NULL;
	int found, nrows, nfloors, ret = -1;

	if ((found = db_env_get(db, env, &e)))
		return found < 0 ? -1 : error("DB: no environment with id %lld", env);
	/* as emit: only the code this build runs (an environment with a
	 * legacy hash of every template predates per-candidate keys) */
	nrows = e.source_hash[0] ? db_best_rows(db, env, &rows) : best_current(db, env, &rows);
	if (nrows < 0 || (nfloors = db_floors(db, env, &floors)) < 0)
		goto cleanup;
	if (!nrows)
		warning("env %lld has no timed result and no baseline yet", env);
	title = report_title(db_label, env, &e);
	report_build(rows, nrows, floors, nfloors, wl, &r);
	const struct report_source src = { db_label, env, &e, title };
	report_print(&r, &src, f, sections, out);
	ret = plot ? report_plot(&r, title, plot) : 0;
	report_free(&r);
cleanup:
	free(title);
	free(rows);
	free(floors);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *space = NULL, *regret = NULL, *section = NULL, *plot = NULL;
	enum table_format f = TABLE_TEXT;
	unsigned sections;
	struct env_info e;
	struct db *db;
	struct space sp;
	struct workload reference, *wl = &reference;
	int env_arg = 0, full = 0, ret;
	long long env;
	const struct opt opts[] = {
		OPT_STRING("db", &path, OPT_REQUIRED),
		OPT_FLAG("full", &full),
		OPT_STRING("space", &space, 0),
		OPT_INT("env", &env_arg, 1, INT_MAX),
		OPT_FORMAT("format", &f, 0),
		OPT_STRING("regret", &regret, 0),
		OPT_STRING("section", &section, 0),
		OPT_STRING("plot", &plot, 0),
		OPT_END(),
	};

	int st = parse_options("report", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (section && report_sections_parse(section, &sections))
		return usage_error("report", usage_text, "--section: '%s' is not a list of "
				   "families, loads and score", section);
	if ((section || plot) && regret)
		return usage_error("report", usage_text, "--%s is for the report, not --regret",
				   section ? "section" : "plot");
	if (!section)
		sections = f == TABLE_CSV ? REPORT_FAMILIES : REPORT_ALL;
	if (full)
		sections |= REPORT_FULL;
	if (space) {
		if (space_load(space, &sp))
			return 2;
		wl = &sp.workload;
	} else {
		workload_reference(&reference);
	}
	ret = 1;
	if (db_open_read(path, &db))
		goto out;
	if (db_integrity(db)) {
		db_close(db);
		goto out;
	}
	if (!(ret = db_env_pick(db, "report", env_arg, &env, &e)) &&
	    (regret ? regret_write(db, env, path, regret, f, stdout)
		    : report_write(db, env, path, wl, f, sections, plot, stdout)))
		ret = 1;
	db_close(db);
out:
	if (space)
		space_free(&sp);
	else
		workload_free(&reference);
	return ret;
}
