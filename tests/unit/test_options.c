/*
 * test_options.c: the subcommands' option parser (tuner/cli/options.c): values
 * stored through the table, defaults kept, range and format checks,
 * positional words, "--", --help, and the one-line message that names
 * the bad argument.
 */
#include "check.h"
#include "options.h"
#include "texttable.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

#define USAGE "usage: gemmtab t [options]\n"

/* What one parse stored. */
struct parsed {
	const char *db, *query;
	int flag, n;
	double x;
	enum table_format f;
};

/* Parse the NULL-terminated words after "t" into *p (from its defaults);
 * returns parse_options' result, with the first line of stderr in
 * err[len] ("" if none). */
static int parse(struct parsed *p, const char *const *words, char *err, size_t len)
{
	char *argv[16] = { "t" };
	int argc = 1;
	const struct opt opts[] = {
		OPT_STRING("db", &p->db, OPT_REQUIRED),
		OPT_FLAG("flag", &p->flag),
		OPT_INT("n", &p->n, 1, 100),
		OPT_DOUBLE("x", &p->x, 0, 10),
		OPT_FORMAT("format", &p->f, 1 << TABLE_TEXT | 1 << TABLE_MD),
		OPT_ARG("QUERY", &p->query, 0),
		OPT_END(),
	};
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), out = dup(STDOUT_FILENO), r;

	for (; words[argc - 1] && argc < 15; argc++)
		argv[argc] = (char *)words[argc - 1];
	if (!tmp || saved < 0 || out < 0)
		die("cannot capture stderr");
	fflush(stderr);
	fflush(stdout);
	dup2(fileno(tmp), STDERR_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);       /* --help output: not checked */
	r = parse_options("t", argc, argv, opts, USAGE);
	fflush(stderr);
	fflush(stdout);
	dup2(saved, STDERR_FILENO);
	dup2(out, STDOUT_FILENO);
	close(saved);
	close(out);
	rewind(tmp);
	if (!fgets(err, (int)len, tmp))
		err[0] = '\0';
	err[strcspn(err, "\n")] = '\0';
	fclose(tmp);
	return r;
}

TEST(values_and_defaults)
{
	struct parsed p = { .n = 7, .x = 1.5, .f = TABLE_TEXT };
	char err[256];
	CHECK_INT(parse(&p, (const char *[]){ "--db", "a.db", "--n", "42", "--flag",
		  "--format", "md", "SELECT 1", NULL }, err, sizeof(err)), 0);
	CHECK_STR(p.db, "a.db");
	CHECK_STR(p.query, "SELECT 1");
	CHECK_INT(p.n, 42);
	CHECK_INT(p.flag, 1);
	CHECK_INT(p.f, TABLE_MD);
	CHECK_NEAR(p.x, 1.5, 0);        /* absent: the default stays */
	CHECK_STR(err, "");

	/* the last of a repeated option wins; after "--" a dash word is positional */
	struct parsed q = { 0 };
	CHECK_INT(parse(&q, (const char *[]){ "--db", "a", "--db", "b", "--x", "2.5", "--",
		  "--not-an-option", NULL }, err, sizeof(err)), 0);
	CHECK_STR(q.db, "b");
	CHECK_STR(q.query, "--not-an-option");
	CHECK_NEAR(q.x, 2.5, 0);
	CHECK_INT(q.flag, 0);
}

TEST(bad_arguments_are_named)
{
	static const struct {
		const char *words[6];
		const char *message;
	} cases[] = {
		{ { "--bogus", NULL }, "gemmtab t: unknown option '--bogus'" },
		{ { "--db", NULL }, "gemmtab t: --db needs a value" },
		{ { "--flag", NULL }, "gemmtab t: --db is required" },
		{ { "--db", "a", "--n", "many", NULL }, "gemmtab t: --n: 'many' is not a valid number" },
		{ { "--db", "a", "--n", "4.5", NULL }, "gemmtab t: --n: '4.5' is not a valid number" },
		{ { "--db", "a", "--n", "0", NULL }, "gemmtab t: --n: '0' is less than 1" },
		{ { "--db", "a", "--n", "101", NULL }, "gemmtab t: --n: '101' is more than 100" },
		{ { "--db", "a", "--x", "nan", NULL }, "gemmtab t: --x: 'nan' is not a valid number" },
		{ { "--db", "a", "--x", "11", NULL }, "gemmtab t: --x: '11' is more than 10" },
		{ { "--db", "a", "--format", "csv", NULL }, "gemmtab t: --format: 'csv' is not text or md" },
		{ { "--db", "a", "q1", "q2", NULL }, "gemmtab t: unexpected argument 'q2'" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parsed p = { 0 };
		char err[256];
		CHECK_INT(parse(&p, cases[i].words, err, sizeof(err)), 2);
		CHECK_STR(err, cases[i].message);
	}
}

TEST(help_stops_parsing)
{
	struct parsed p = { 0 };
	char err[256];
	CHECK_INT(parse(&p, (const char *[]){ "-h", "--bogus", NULL }, err, sizeof(err)),
		  PARSE_HELP);
	CHECK_STR(err, "usage: gemmtab t [options]");   /* to stdout, captured with it */
	CHECK_INT(parse(&p, (const char *[]){ "--help", NULL }, err, sizeof(err)), PARSE_HELP);
}

TESTS(T(values_and_defaults), T(bad_arguments_are_named), T(help_stops_parsing))
