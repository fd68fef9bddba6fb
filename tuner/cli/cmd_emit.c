/*
 * cmd_emit.c: `gemmtab emit`: read one environment's rows from a database,
 * keep the retests of the code this build runs (current.h), and let
 * tablewrite.c write the table header (runtime/tables/NAME.h, layout
 * runtime/gt_table.h) and beside it NAME_kernels.cu from the entries
 * emit.c chooses.
 */
#include "commands.h"
#include "current.h"
#include "jit.h"
#include "options.h"
#include "tablefile.h"
#include "tablewrite.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: gemmtab emit --db DB --out OUT.h [--env ID] [--incumbent OLD.h [--margin F]]\n"
	"                   [--strict] [--cache DIR]\n"
	"  --db DB      the results database (gemmtab sweep writes it)\n"
	"  --out OUT.h  the table header to write; OUT_kernels.cu is written beside it\n"
	"  --env ID     the environment whose retests to use [the newest]\n"
	"  --incumbent OLD.h\n"
	"               a table emit wrote before: at the Ms each of its entries served,\n"
	"               a challenger replaces that entry's candidate only where it beats\n"
	"               it by more than the margin (near ties stay as they were)\n"
	"  --margin F   that margin, a fraction [0.02]\n"
	"  --strict     fail when retests measured code this build's templates no longer\n"
	"               compile to, instead of leaving them out with a warning\n"
	"  --cache DIR  the cubin cache, for candidates whose code the database does not\n"
	"               know under this build's template text [.cache/gemmtab]\n";

/* Read env's rows, keep the retests of the code this build runs (under
 * strict, retests of code the templates no longer compile to are an
 * error), and write the table. Returns 0 or -1, or 1 when env has no
 * retest with enough pairs (message printed). */
static int emit_env(struct db *db, const struct table_spec *spec, const struct jit_options *jit,
		    int strict, const char *out_path)
{
	struct best_row *measured = NULL;
	struct retest_row *retests = NULL;
	int nmeasured, nretests, ret = -1;

	if ((nmeasured = db_best_rows(db, spec->env, &measured)) < 0 ||
	    (nretests = db_retest_rows(db, spec->env, &retests)) < 0)
		goto cleanup;
	int absent = 0, stale = spec->e.source_hash[0] ? 0
		: current_retests(db, jit, "emit", retests, &nretests, &absent);
	if (stale < 0)
		goto cleanup;
	if (absent)
		fprintf(stderr, "gemmtab emit: %d retest rows of templates this build does not "
			"have were passed by\n", absent);
	if (stale && strict) {
		error("%d retest rows of environment %lld measured code this build's templates "
		      "no longer compile to (--strict; gemmtab prune drops superseded rows, a "
		      "sweep measures the current code)", stale, spec->env);
		goto cleanup;
	}
	if (stale)
		warning("%d retest rows of environment %lld measured code this build's templates "
			"no longer compile to; left out (sweep again to measure the current code)",
			stale, spec->env);
	ret = table_write(spec, measured, nmeasured, retests, nretests, out_path);
cleanup:
	free(measured);
	free(retests);
	return ret;
}

int cmd_emit(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, *incumbent = NULL;
	struct table_spec spec = { 0 };
	struct jit_options jit;
	struct emit_incumbent *inc = NULL;
	struct db *db = NULL;
	size_t len;
	int env_arg = 0, strict = 0, ret;
	double margin = -1;
	const struct opt opts[] = {
		OPT_STRING("db", &path, OPT_REQUIRED),
		OPT_STRING("out", &out, OPT_REQUIRED),
		OPT_INT("env", &env_arg, 1, INT_MAX),
		OPT_STRING("incumbent", &incumbent, 0),
		OPT_DOUBLE("margin", &margin, 0, 1),
		OPT_FLAG("strict", &strict),
		OPT_STRING("cache", &jit.cache_dir, 0),
		OPT_END(),
	};
	jit_options_default(&jit);

	int st = parse_options("emit", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	len = strlen(out);
	if (len < 3 || strcmp(out + len - 2, ".h") || out[len - 3] == '/')
		return usage_error("emit", usage_text,
				   "--out: '%s' is not a header path (NAME.h)", out);
	if (margin >= 0 && !incumbent)
		return usage_error("emit", usage_text, "--margin needs --incumbent");
	if (incumbent && !strcmp(incumbent, out))
		return usage_error("emit", usage_text,
				   "--incumbent: '%s' is --out itself (copy it first)", out);
	if (incumbent) {
		if ((spec.ninc = table_file_read(incumbent, "--incumbent", &inc)) < 0)
			return 1;
		spec.inc = inc;
		spec.margin = margin >= 0 ? margin : 0.02;
	}

	ret = 1;
	if (access(path, F_OK)) {
		error("cannot open database %s: %s", path, strerror(errno));
		goto cleanup;
	}
	if (db_open_read(path, &db) || db_integrity(db))
		goto cleanup;
	if ((ret = db_env_pick(db, "emit", env_arg, &spec.env, &spec.e)))
		goto cleanup;
	spec.cmdline = options_command_line(argc, argv);
	spec.db_label = path;
	spec.arch = jit.arch;
	ret = emit_env(db, &spec, &jit, strict, out) ? 1 : 0;
cleanup:
	free((char *)spec.cmdline);
	free(inc);
	db_close(db);
	return ret;
}
