/*
 * cmd_query.c: `gemmtab query`: run read-only SQL, or one of the canned
 * questions, against a results database and print the rows as text, CSV,
 * Markdown or one JSON document, from a database that passed
 * PRAGMA integrity_check.
 */
#include "commands.h"
#include "db.h"
#include "options.h"
#include "query_print.h"
#include "texttable.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* unretested's count without --top: search_spaces/h200.yaml's retest_top */
#define DEFAULT_TOP 8

/* The canned questions; all but probe read a view that db/gemmtab.sql
 * documents.
 * A question that takes --top has one %d in its SQL: the count. */
static const struct canned {
	const char *name;
	const char *help;
	const char *sql;
	int takes_top;
} canned[] = {
	{ "best", "the chosen result per env, family and M (retest before screen)",
	  "SELECT env_id, family, n, k, m, phase, pairs, base_us, cand_us, ratio, "
	  "ratio_lo, ratio_hi, template, params FROM best "
	  "ORDER BY env_id, family, n, k, m", 0 },
	{ "failures", "non-ok results counted by status and reason",
	  "SELECT * FROM failures", 0 },
	{ "compile_errors", "candidates that did not compile, with the reason",
	  "SELECT * FROM compile_errors", 0 },
	{ "progress", "results per env, family, M and phase, by outcome",
	  "SELECT * FROM progress", 0 },
	{ "baseline", "cuBLAS and cuBLASLt times per env, family and M",
	  "SELECT env_id, family, n, k, m, cublas_us, cublaslt_us, ratio, lt_algo FROM baselines",
	  0 },
	{ "envs", "the measuring environments and their result counts",
	  "SELECT * FROM envs", 0 },
	/* the probe table itself, in order (a view would add nothing) */
	{ "probe", "floor and overhead probes, oldest first",
	  "SELECT env_id, what, family, bytes, us, config, recorded_at FROM probe "
	  "ORDER BY env_id, what, family, id", 0 },
	{ "waves", "screens per env, family and M by the most waves of blocks or "
	  "clusters any of their kernels took on the GPU, with the best time of each",
	  "SELECT * FROM waves", 0 },
	{ "unretested", "the newest code's --top best screens per env, family and M that "
	  "were never retested (rerun the sweep)",
	  "SELECT * FROM unretested WHERE rank <= %d", 1 },
	{ "params", "one row per candidate and parameter (name, value)",
	  "SELECT * FROM candidate_param ORDER BY candidate_id", 0 },
};

/* The usage text with the canned NAMEs (caller frees). */
static char *query_usage(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		die("out of memory");
	fprintf(out, "usage: gemmtab query --db DB [--format text|csv|md|json] [--top N] (SQL | NAME)\n"
		"  --db DB           the results database\n"
		"  --format F        text, csv, md or json (one document) [text]\n"
		"  --top N           unretested: the best N screens of each point, as the\n"
		"                    space's retest_top [%d, search_spaces/h200.yaml's]\n"
		"Runs read-only SQL (tables and views: see db/gemmtab.sql) or one of\n"
		"these NAMEs:\n", DEFAULT_TOP);
	for (size_t i = 0; i < ARRAY_SIZE(canned); i++)
		fprintf(out, "  %-16s  %s\n", canned[i].name, canned[i].help);
	fclose(out);
	return buf;
}

/* The canned question named arg, or NULL. */
static const struct canned *find_canned(const char *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(canned); i++)
		if (!strcmp(arg, canned[i].name))
			return &canned[i];
	return NULL;
}

int cmd_query(int argc, char **argv)
{
	const char *path = NULL, *format = "text", *query = NULL;
	char *usage = query_usage(), *sql = NULL;
	enum table_format f;
	struct db *db;
	int top = -1;
	const struct opt opts[] = {
		OPT_STRING("db", &path, OPT_REQUIRED),
		OPT_STRING("format", &format, 0),
		OPT_INT("top", &top, 1, 1000),
		OPT_ARG("SQL or NAME", &query, OPT_REQUIRED),
		OPT_END(),
	};

	int ret = parse_options("query", argc, argv, opts, usage);
	if (ret) {
		ret = ret == PARSE_HELP ? 0 : ret;
		goto cleanup;
	}
	/* the database takes the format by name: refuse a bad one here, as
	 * bad usage */
	if (table_format_parse(format, &f)) {
		ret = usage_error("query", usage, "--format: '%s' is not text, csv, md or json", format);
		goto cleanup;
	}
	const struct canned *c = find_canned(query);
	/* one word of letters, digits and _ is a name, never SQL */
	if (!c && query[strspn(query, "abcdefghijklmnopqrstuvwxyz"
			       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] == '\0') {
		ret = usage_error("query", usage, "unknown query '%s' (see gemmtab query --help)",
				  query);
		goto cleanup;
	}
	if (top >= 0 && !(c && c->takes_top)) {
		ret = usage_error("query", usage, "--top: only unretested takes a count");
		goto cleanup;
	}
	if (c && c->takes_top)
		sql = xasprintf(c->sql, top >= 0 ? top : DEFAULT_TOP);
	ret = 1;
	/* a damaged file answers wrongly: check it before any answer */
	if (db_open_read(path, &db))
		goto cleanup;
	if (db_integrity(db)) {
		db_close(db);
		goto cleanup;
	}
	ret = query_fprint(db, sql ? sql : c ? c->sql : query, format, stdout) ? 1 : 0;
	db_close(db);
cleanup:
	free(sql);
	free(usage);
	return ret;
}
