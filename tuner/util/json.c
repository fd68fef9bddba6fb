/*
 * json.c: the JSON document writer (see json.h).
 */
#include "json.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

static int cmd_argc;
static char **cmd_argv;

void command_line_set(int argc, char **argv)
{
	cmd_argc = argc;
	cmd_argv = argv;
}

void json_init(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

/* The separator before a value: none after a key, else a comma after the
 * level's first member, and a line break and indent inside containers. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth) {
		fputs(j->count[j->depth - 1]++ ? ",\n" : "\n", j->out);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
}

static void begin(struct json *j, int c)
{
	before_value(j);
	if (j->depth == JSON_MAX_DEPTH)
		die("BUG: JSON nested deeper than %d", JSON_MAX_DEPTH);
	fputc(c, j->out);
	j->count[j->depth++] = 0;
}

static void end(struct json *j, int c)
{
	if (!j->depth)
		die("BUG: JSON container closed twice");
	if (j->count[--j->depth]) {
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	fputc(c, j->out);
	if (!j->depth)
		fputc('\n', j->out);
}

void json_begin_object(struct json *j) { begin(j, '{'); }
void json_end_object(struct json *j) { end(j, '}'); }
void json_begin_array(struct json *j) { begin(j, '['); }
void json_end_array(struct json *j) { end(j, ']'); }

void json_put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	before_value(j);
	json_put_string(j->out, key);
	fputs(": ", j->out);
	j->after_key = 1;
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	before_value(j);
	json_put_string(j->out, s);
}

void json_null(struct json *j)
{
	before_value(j);
	fputs("null", j->out);
}

void json_number(struct json *j, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	before_value(j);
	fprintf(j->out, "%.17g", v);
}

void json_int(struct json *j, long long v)
{
	before_value(j);
	fprintf(j->out, "%lld", v);
}

void json_raw(struct json *j, const char *s)
{
	before_value(j);
	fputs(s, j->out);
}

static const char *digits(const char *s)
{
	const char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	return p == s ? NULL : p;
}

int json_number_text(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (!(s = digits(s)))
		return 0;
	if (*s == '.' && !(s = digits(s + 1)))
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(s = digits(s)))
			return 0;
	}
	return *s == '\0';
}

void json_command(struct json *j)
{
	json_key(j, "command");
	json_begin_array(j);
	for (int i = 0; i < cmd_argc; i++)
		json_string(j, cmd_argv[i]);
	json_end_array(j);
}
