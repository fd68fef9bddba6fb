/*
 * texttable.c: formatting a table of text cells as aligned text, CSV or
 * Markdown (see texttable.h).
 */
#include "texttable.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int table_sections_parse(const char *list, const char *const *names, int n, unsigned *out)
{
	char *copy = xstrdup(list), *save = NULL;
	*out = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int i = 0;
		while (i < n && strcmp(w, names[i]))
			i++;
		if (i == n) {
			free(copy);
			return -1;
		}
		*out |= 1u << i;
	}
	free(copy);
	return *out ? 0 : -1;
}

int table_format_parse(const char *name, enum table_format *out)
{
	if (!strcmp(name, "text"))
		*out = TABLE_TEXT;
	else if (!strcmp(name, "csv"))
		*out = TABLE_CSV;
	else if (!strcmp(name, "md"))
		*out = TABLE_MD;
	else if (!strcmp(name, "json"))
		*out = TABLE_JSON;
	else
		return -1;
	return 0;
}

void table_init(struct table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

void table_add(struct table *t, const char *s)
{
	if (t->ncells == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->cells = xrealloc(t->cells, (size_t)t->cap * sizeof(*t->cells));
	}
	t->cells[t->ncells++] = s ? xstrdup(s) : NULL;
}

void table_addf(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	table_add(t, NULL);
	t->cells[t->ncells - 1] = s;
}

void table_free(struct table *t)
{
	for (int i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static int is_number(const char *s)
{
	char *end;
	if (!*s)
		return 0;
	strtod(s, &end);
	return *end == '\0';
}

/* A column is numeric when its data cells are numbers, NULLs or "-"
 * placeholders, and at least one is a number. */
static int column_numeric(const struct table *t, int col)
{
	int numbers = 0;
	for (int i = t->ncols + col; i < t->ncells; i += t->ncols) {
		const char *s = t->cells[i];
		if (!s || !strcmp(s, "-"))
			continue;
		if (!is_number(s))
			return 0;
		numbers++;
	}
	return numbers > 0;
}

/* Display width: UTF-8 continuation bytes take no column ("µs"). */
static int text_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Write s with tabs and line breaks as spaces and, in md, '|' escaped. */
static void put_flat(const char *s, int md, FILE *out)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r' || *s == '\t')
			fputc(' ', out);
		else if (md && *s == '|')
			fputs("\\|", out);
		else
			fputc(*s, out);
	}
}

static void put_csv(const char *s, FILE *out)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void print_csv(const struct table *t, FILE *out)
{
	for (int i = 0; i < t->ncells; i++) {
		put_csv(t->cells[i], out);
		fputc((i + 1) % t->ncols ? ',' : '\n', out);
	}
}

static void print_md(const struct table *t, const int *numeric,
		     const char *null_text, FILE *out)
{
	for (int i = 0; i < t->ncells; i++) {
		int col = i % t->ncols;
		fputs(col ? " " : "| ", out);
		put_flat(t->cells[i] ? t->cells[i] : null_text, 1, out);
		fputs(" |", out);
		if (col < t->ncols - 1)
			continue;
		fputc('\n', out);
		if (i >= t->ncols)
			continue;
		for (int c = 0; c < t->ncols; c++)
			fputs(numeric[c] ? "|---:" : "|---", out);
		fputs("|\n", out);
	}
}

static void pad(int n, FILE *out)
{
	while (n-- > 0)
		fputc(' ', out);
}

/* One text row: cells padded to widths, numeric columns right-aligned. */
static void print_text_row(char *const *cells, int ncols, const int *width,
			   const int *numeric, const char *null_text, FILE *out)
{
	for (int c = 0; c < ncols; c++) {
		const char *s = cells[c] ? cells[c] : null_text;
		int fill = width[c] - text_width(s);
		int last = c == ncols - 1;
		if (c)
			fputs("  ", out);
		if (numeric[c])
			pad(fill, out);
		put_flat(s, 0, out);
		if (!numeric[c] && !last)
			pad(fill, out);
	}
	fputc('\n', out);
}

static void print_text(const struct table *t, const int *numeric,
		       const char *null_text, FILE *out)
{
	int *width = xcalloc((size_t)t->ncols, sizeof(*width));
	for (int i = 0; i < t->ncells; i++) {
		const char *s = t->cells[i] ? t->cells[i] : null_text;
		int w = text_width(s);
		if (w > width[i % t->ncols])
			width[i % t->ncols] = w;
	}
	for (int i = 0; i < t->ncells; i += t->ncols) {
		print_text_row(t->cells + i, t->ncols, width, numeric, null_text, out);
		if (i)
			continue;
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				fputs("  ", out);
			for (int k = 0; k < width[c]; k++)
				fputc('-', out);
		}
		fputc('\n', out);
	}
	free(width);
}

void table_json(const struct table *t, struct json *j)
{
	int *numeric = xcalloc((size_t)(t->ncols ? t->ncols : 1), sizeof(*numeric));
	for (int c = 0; c < t->ncols; c++)
		numeric[c] = column_numeric(t, c);
	json_begin_array(j);
	for (int i = t->ncols; i < t->ncells; i++) {
		int col = i % t->ncols;
		const char *s = t->cells[i];
		if (!col)
			json_begin_object(j);
		json_key(j, t->cells[col] ? t->cells[col] : "");
		if (!s || (numeric[col] && !strcmp(s, "-")))
			json_null(j);
		else if (numeric[col] && json_number_text(s))
			json_raw(j, s);
		else if (numeric[col])
			json_number(j, strtod(s, NULL));
		else
			json_string(j, s);
		if (col == t->ncols - 1)
			json_end_object(j);
	}
	json_end_array(j);
	free(numeric);
}

void table_print(const struct table *t, enum table_format f,
		 const char *null_text, FILE *out)
{
	if (!t->ncols)
		return;
	if (t->ncells % t->ncols)
		die("BUG: table row has %d of %d cells", t->ncells % t->ncols, t->ncols);
	if (f == TABLE_JSON) {
		struct json j;
		json_init(&j, out);
		table_json(t, &j);
		return;
	}
	if (f == TABLE_CSV) {
		print_csv(t, out);
		return;
	}
	int *numeric = xcalloc((size_t)t->ncols, sizeof(*numeric));
	for (int c = 0; c < t->ncols; c++)
		numeric[c] = column_numeric(t, c);
	if (f == TABLE_MD)
		print_md(t, numeric, null_text, out);
	else
		print_text(t, numeric, null_text, out);
	free(numeric);
}
