/*
 * options.h: the one command-line parser every subcommand uses (git
 * style): a table of options, each a "--name" word that is a flag or takes
 * the next word as its value, checked and stored as it is read; words
 * that are not options fill the table's positional slots in order. A bad
 * argument is one line naming it, then the command's usage, on stderr.
 */
#ifndef GT_OPTIONS_H
#define GT_OPTIONS_H

enum opt_kind {
	OPTION_END = 0,         /* ends a table */
	OPTION_FLAG,            /* --name; dst int *, set to 1 */
	OPTION_STRING,          /* --name VALUE; dst const char **, the word itself */
	OPTION_INT,             /* --name N; dst int *, a decimal integer in [min, max]
				 * (a range inside int's) */
	OPTION_DOUBLE,          /* --name X; dst double *, a decimal number in [min, max]
				 * (digits with an optional '-', '.' and exponent;
				 * no hex, '+', blank, inf or nan) */
	OPTION_FORMAT,          /* --name F; dst enum table_format *: text, csv or md,
				 * those max allows (a mask of 1 << TABLE_*; 0: all) */
	OPTION_ARG,             /* a positional word, in table order; dst const char ** */
};

/* opt.flags */
#define OPT_REQUIRED 1  /* absent: "--name is required" (a positional: "name is required") */

struct opt {
	const char *name;       /* "space" for --space; a positional's name for messages */
	enum opt_kind kind;
	void *dst;
	long min, max;
	unsigned flags;
};

/* Table entries (git style). flags: 0 or OPT_REQUIRED. */
#define OPT_FLAG(name, dst)             { name, OPTION_FLAG, dst, 0, 0, 0 }
#define OPT_STRING(name, dst, flags)    { name, OPTION_STRING, dst, 0, 0, flags }
#define OPT_INT(name, dst, min, max)    { name, OPTION_INT, dst, min, max, 0 }
#define OPT_DOUBLE(name, dst, min, max) { name, OPTION_DOUBLE, dst, min, max, 0 }
#define OPT_FORMAT(name, dst, mask)     { name, OPTION_FORMAT, dst, 0, mask, 0 }
#define OPT_ARG(name, dst, flags)       { name, OPTION_ARG, dst, 0, 0, flags }
#define OPT_END()                       { NULL, OPTION_END, NULL, 0, 0, 0 }

/* Bounds several commands share: far above what one host has, so only a
 * typo is refused. */
#define OPT_MAX_DEVICE 255
#define OPT_MAX_JOBS 1024

/* What parse_options returns besides 0 and 2: --help or -h was given and
 * the usage printed to stdout; the command returns 0. */
#define PARSE_HELP (-1)

/*
 * Parse argv[1..argc-1] (argv[0] is the subcommand, e.g. "sweep") against
 * opts, a table ending with OPT_END(), storing each value through its dst
 * (the last of a repeated option wins; dsts of absent options keep their
 * defaults). "--" ends the options: every later word is positional. argv
 * is not modified and need not be NULL-terminated. usage is the command's
 * usage text, ending in a newline.
 * Returns 0; PARSE_HELP (usage printed to stdout); or 2 after printing
 * "gemmtab CMD: MESSAGE" naming the first bad argument (unknown option, a
 * missing or bad value, an unexpected or missing word) and then usage to
 * stderr.
 */
int parse_options(const char *cmd, int argc, char **argv, const struct opt *opts,
		  const char *usage);

/* "gemmtab CMD: MESSAGE" and usage to stderr, for a bad argument found
 * after parse_options; returns 2 (the bad-usage exit status). */
int usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "gemmtab ARGV..." as typed (argv[0] the subcommand), for a generated
 * file's first line: an argument with characters beyond
 * [A-Za-z0-9_./=+-] is single-quoted. The caller frees it. */
char *options_command_line(int argc, char **argv);

#endif
