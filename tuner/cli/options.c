/*
 * options.c: parse a subcommand's arguments against its option table
 * (see options.h): one loop for every command, so every command accepts
 * and refuses arguments the same way and says so in the same words.
 */
#include "options.h"
#include "texttable.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The formats by enum table_format, for messages. */
static const char *const format_names[] = {
	[TABLE_TEXT] = "text", [TABLE_CSV] = "csv", [TABLE_MD] = "md", [TABLE_JSON] = "json",
};

int usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "gemmtab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage);
	return 2;
}

/* "text, csv or md": the formats mask allows (0: all), in enum order. */
static void allowed_formats(long mask, char *buf, size_t len)
{
	const char *names[ARRAY_SIZE(format_names)];
	size_t n = 0, at = 0;
	for (size_t f = 0; f < ARRAY_SIZE(format_names); f++)
		if (!mask || (mask & (1L << f)))
			names[n++] = format_names[f];
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i ? "" : i + 1 == n ? " or " : ", ", names[i]);
}

/* Whether v is a plain decimal number: an optional '-', digits, and (when
 * fraction) at most one '.' among them and an exponent (e-9, E+3); no
 * sign '+', blank, hex or name (strtod alone takes "0x10", " 5", "inf"). */
static int decimal_word(const char *v, int fraction)
{
	int digits = 0, dots = 0;
	if (*v == '-')
		v++;
	for (; *v && *v != 'e' && *v != 'E'; v++) {
		if (*v >= '0' && *v <= '9')
			digits++;
		else if (*v == '.' && fraction && !dots)
			dots++;
		else
			return 0;
	}
	if (!digits)
		return 0;
	if (!*v)
		return 1;
	if (!fraction)
		return 0;
	v++;
	if (*v == '-' || *v == '+')
		v++;
	if (!*v)
		return 0;
	for (; *v; v++)
		if (*v < '0' || *v > '9')
			return 0;
	return 1;
}

/* Check v for option o and store it through o->dst. Returns NULL, or what
 * is wrong with it ("is not a valid number") in why[len]. */
static const char *store_value(const struct opt *o, const char *v, char *why, size_t len)
{
	char *end;
	errno = 0;
	switch (o->kind) {
	case OPTION_STRING:
		*(const char **)o->dst = v;
		return NULL;
	case OPTION_INT:
	case OPTION_DOUBLE: {
		if (!decimal_word(v, o->kind == OPTION_DOUBLE))
			return "is not a valid number";
		double x = o->kind == OPTION_INT ? strtol(v, &end, 10) : strtod(v, &end);
		if (errno || end == v || *end || !isfinite(x))
			return "is not a valid number";
		if (x < o->min || x > o->max) {
			snprintf(why, len, "is %s than %ld", x < o->min ? "less" : "more",
				 x < o->min ? o->min : o->max);
			return why;
		}
		if (o->kind == OPTION_INT)
			*(int *)o->dst = (int)x;
		else
			*(double *)o->dst = x;
		return NULL;
	}
	case OPTION_FORMAT: {
		enum table_format f;
		if (table_format_parse(v, &f) || (o->max && !(o->max & (1L << f)))) {
			char names[32];
			allowed_formats(o->max, names, sizeof(names));
			snprintf(why, len, "is not %s", names);
			return why;
		}
		*(enum table_format *)o->dst = f;
		return NULL;
	}
	default:
		die("option --%s: kind %d takes no value", o->name, (int)o->kind);
	}
}

/* The entry of opts named by the word "--name" or "--name=value", or
 * NULL; *value is what follows the '=' (NULL without one). */
static const struct opt *find_option(const struct opt *opts, const char *word,
				     const char **value)
{
	*value = NULL;
	if (word[0] != '-' || word[1] != '-')
		return NULL;
	const char *eq = strchr(word + 2, '=');
	size_t len = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
	for (const struct opt *o = opts; o->kind != OPTION_END; o++)
		if (o->kind != OPTION_ARG && strlen(o->name) == len &&
		    !strncmp(o->name, word + 2, len)) {
			*value = eq ? eq + 1 : NULL;
			return o;
		}
	return NULL;
}

/* Every OPT_REQUIRED entry was seen (seen[i] for opts[i]). Returns 0 or 2
 * (message and usage printed). */
static int check_required(const char *cmd, const struct opt *opts, const char *seen,
			  const char *usage)
{
	for (int i = 0; opts[i].kind != OPTION_END; i++)
		if ((opts[i].flags & OPT_REQUIRED) && !seen[i])
			return usage_error(cmd, usage, "%s%s is required",
					   opts[i].kind == OPTION_ARG ? "" : "--", opts[i].name);
	return 0;
}

int parse_options(const char *cmd, int argc, char **argv, const struct opt *opts,
		  const char *usage)
{
	char seen[64] = { 0 };   /* per table entry; a table has about ten */
	int only_args = 0, n = 0;

	while (opts[n].kind != OPTION_END)
		n++;
	if (n > (int)sizeof(seen))
		die("the option table of '%s' has %d entries; parse_options holds %zu",
		    cmd, n, sizeof(seen));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o;
		char why[64];
		const char *bad;

		if (!only_args && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			fputs(usage, stdout);
			return PARSE_HELP;
		}
		if (!only_args && !strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (only_args || a[0] != '-' || !a[1]) {
			for (o = opts; o->kind != OPTION_END; o++)
				if (o->kind == OPTION_ARG && !seen[o - opts])
					break;
			if (o->kind == OPTION_END)
				return usage_error(cmd, usage, "unexpected argument '%s'", a);
			*(const char **)o->dst = a;
			seen[o - opts] = 1;
			continue;
		}
		const char *v;
		if (!(o = find_option(opts, a, &v))) {
			const char *eq = strchr(a, '=');
			return usage_error(cmd, usage, "unknown option '%.*s'",
					   eq ? (int)(eq - a) : (int)strlen(a), a);
		}
		seen[o - opts] = 1;
		if (o->kind == OPTION_FLAG) {
			if (v)
				return usage_error(cmd, usage, "--%s takes no value", o->name);
			*(int *)o->dst = 1;
			continue;
		}
		if (!v) {
			if (++i >= argc)
				return usage_error(cmd, usage, "%s needs a value", a);
			v = argv[i];
			/* "--db --dry-run": a forgotten value, not a file named so */
			if (v[0] == '-' && v[1] == '-')
				return usage_error(cmd, usage, "%s needs a value ('%s' is an option; "
						   "write --%s=%s for a value that starts with --)",
						   a, v, o->name, v);
		}
		if ((bad = store_value(o, v, why, sizeof(why))))
			return usage_error(cmd, usage, "--%s: '%s' %s", o->name, v, bad);
	}
	return check_required(cmd, opts, seen, usage);
}

char *options_command_line(int argc, char **argv)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die("open_memstream: %s", strerror(errno));
	fputs("gemmtab", f);
	for (int i = 0; i < argc; i++) {
		int plain = argv[i][0] != '\0';
		for (const char *p = argv[i]; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_./=+-", *p))
				plain = 0;
		fprintf(f, plain ? " %s" : " '%s'", argv[i]);
	}
	fclose(f);
	return buf;
}
