/*
 * cmd_report.c: `gemmtab report`: read one environment's results from a
 * database and print what the dispatch would run per family and M, the
 * load speedups and the score (the arithmetic is report.c's).
 */
#include "commands.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: gemmtab report --db DB [--env ID] [--format text|md|csv]\n"
	"  --db DB           the results database (gemmtab sweep writes it)\n"
	"  --env ID          the environment to report [the newest]\n"
	"  --format F        text, md or csv [text]\n";

/* "fixture.db, env 1: NVIDIA H200 (132 SMs, 1980 MHz), driver ..." */
static char *report_title(const char *db_label, long long env,
			  const struct env_info *e)
{
	return xasprintf("%s, env %lld: %s (%d SMs, %d MHz), driver %s, CUDA %s, "
			 "NVRTC %s, cuBLAS %s, cuBLASLt %s, sources %s",
			 db_label, env, e->gpu_name, e->sm_count, e->sm_clock_mhz,
			 e->driver, e->cuda, e->nvrtc, e->cublas, e->cublaslt,
			 e->source_hash);
}

int report_write(struct db *db, long long env, const char *db_label,
		 enum table_format f, FILE *out)
{
	struct env_info e;
	struct best_row *rows = NULL;
	struct floor_row *floors = NULL;
	struct report r;
	char *title = NULL;
	int found, nrows, nfloors, ret = -1;

	if ((found = db_env_get(db, env, &e)))
		return found < 0 ? -1 : error("DB: no environment with id %lld", env);
	if ((nrows = db_best_rows(db, env, &rows)) < 0 ||
	    (nfloors = db_floors(db, env, &floors)) < 0)
		goto cleanup;
	if (!nrows)
		warning("env %lld has no timed result and no baseline yet", env);
	title = report_title(db_label, env, &e);
	report_build(rows, nrows, floors, nfloors, &r);
	report_print(&r, title, f, out);
	report_free(&r);
	ret = 0;
cleanup:
	free(title);
	free(rows);
	free(floors);
	return ret;
}

/* "gemmtab report: MESSAGE" and the usage to stderr; returns 2. */
__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("gemmtab report: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage_text);
	return 2;
}

/* An environment id: a positive decimal integer. Returns 0 or -1. */
static int parse_id(const char *s, long long *id)
{
	char *end;
	errno = 0;
	*id = strtoll(s, &end, 10);
	return (errno || end == s || *end || *id <= 0) ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *env_arg = NULL, *format = "text";
	enum table_format f;
	struct env_info e;
	struct db *db;
	long long env = -1;
	int ret = 1;

	for (int i = 1; i < argc; i += 2) {      /* every option takes a value */
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (a[0] != '-')
			return usage_error("unexpected argument '%s'", a);
		if (strcmp(a, "--db") && strcmp(a, "--env") && strcmp(a, "--format"))
			return usage_error("unknown option '%s'", a);
		if (!v)
			return usage_error("%s needs a value", a);
		*(!strcmp(a, "--db") ? &path : !strcmp(a, "--env") ? &env_arg : &format) = v;
	}
	if (!path)
		return usage_error("--db is required");
	if (table_format_parse(format, &f))
		return usage_error("--format: '%s' is not text, md or csv", format);
	if (env_arg && parse_id(env_arg, &env))
		return usage_error("--env: '%s' is not an environment id", env_arg);

	if (db_open_existing(path, &db))
		return 1;
	if (env_arg) {
		int found = db_env_get(db, env, &e);
		if (found > 0) {
			fprintf(stderr, "gemmtab report: --env: %s has no environment %s\n",
				path, env_arg);
			ret = 2;
		}
		if (found)
			goto cleanup;
	} else if ((env = db_latest_env(db)) < 0) {
		error("%s holds no environment yet (run gemmtab sweep)", path);
		goto cleanup;
	}
	if (!report_write(db, env, path, f, stdout))
		ret = 0;
cleanup:
	db_close(db);
	return ret;
}
