/*
 * texttable.h: rows of text cells printed as an aligned text table, as CSV or
 * as a Markdown table or as JSON. `gemmtab query`, `report` and `bench`
 * print through it, so all speak the same formats the same way.
 */
#ifndef GT_TEXTTABLE_H
#define GT_TEXTTABLE_H

#include <stdio.h>

#include "json.h"

enum table_format { TABLE_TEXT, TABLE_CSV, TABLE_MD, TABLE_JSON };

/* "text", "csv", "md" or "json" into *out. Returns 0, or -1 for any other name. */
int table_format_parse(const char *name, enum table_format *out);

/* A comma-separated list of the section names names[0..n) into *out, bit
 * i for names[i]. Returns 0, or -1 for an unknown name or an empty list. */
int table_sections_parse(const char *list, const char *const *names, int n, unsigned *out);

/* Cells in row-major order; the first ncols cells are the header. A NULL
 * cell is an absent value (SQL NULL). */
struct table {
	int ncols;
	int ncells;
	int cap;
	char **cells;
};

/* An empty table of ncols columns (the header is added like any row). */
void table_init(struct table *t, int ncols);
/* Append a copy of s (or NULL) as the next cell; rows fill left to right. */
void table_add(struct table *t, const char *s);
void table_addf(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Print t to out. text: columns padded to their widest cell, two spaces
 * apart, a dashed rule under the header, columns holding only numbers
 * (and "-" placeholders) right-aligned, no trailing blanks. csv: RFC 4180
 * quoting, NULL as an empty field. md: a pipe table, '|' escaped, numeric
 * columns right-aligned. json: table_json's array. In text and md a NULL
 * cell prints as null_text;
 * tabs and newlines inside cells print as spaces (except in csv). Every
 * row must be complete: a partial last row is a bug (dies).
 */
void table_print(const struct table *t, enum table_format f,
		 const char *null_text, FILE *out);
void table_free(struct table *t);

/* t as a JSON array value of objects, one per row, keyed by the header:
 * a numeric column's cells (as table_print right-aligns them) are
 * numbers, every other cell a string; NULL and "-" cells are null. */
void table_json(const struct table *t, struct json *j);

#endif
