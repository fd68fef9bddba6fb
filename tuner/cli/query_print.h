/*
 * query_print.h: the rows of read-only SQL (db_query) printed as `gemmtab
 * query` prints them: an aligned text table, CSV or Markdown per
 * statement (a blank line between), or one JSON document for all.
 */
#ifndef GT_QUERY_PRINT_H
#define GT_QUERY_PRINT_H

#include <stdio.h>

#include "db.h"

/* Run the statements of sql against db and print each one's rows to out
 * in format "text", "csv", "md" or "json". Returns 0 or -1 (message
 * printed; in text, csv and md earlier statements' rows stay printed,
 * json prints its document only when every statement ran). */
int query_fprint(struct db *db, const char *sql, const char *format, FILE *out);

#endif
