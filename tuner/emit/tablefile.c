/*
 * tablefile.c: a table header's entries, read back line by line with
 * emit.c's parsers of the comment and initializer lines emit writes.
 */
#include "tablefile.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int table_file_read(const char *path, const char *what, struct emit_incumbent **out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int n = 0, room = 0, open_entry = 0, lineno = 0;
	*out = NULL;
	if (!f)
		return error("%s: cannot open %s: %s", what, path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (open_entry && !strncmp(line, "\t{ ", 3)) {
			if (!emit_incumbent_key(line, &(*out)[n - 1])) {
				error("%s: %s:%d: not the initializer of the entry above "
				      "(n, k, w, x, y, its M range)", what, path, lineno);
				goto fail;
			}
			open_entry = 0;
			continue;
		}
		struct emit_incumbent e;
		if (!emit_incumbent_parse(line, &e))
			continue;
		if (open_entry) {
			error("%s: %s:%d: an entry before this one has no initializer",
			      what, path, lineno);
			goto fail;
		}
		if (n == room)
			*out = xrealloc(*out, (size_t)(room = room ? 2 * room : 64) * sizeof(**out));
		(*out)[n++] = e;
		open_entry = 1;
	}
	if (ferror(f)) {
		error("%s: cannot read %s", what, path);
		goto fail;
	}
	if (open_entry) {
		error("%s: %s: its last entry has no initializer", what, path);
		goto fail;
	}
	if (!n) {
		error("%s: %s has no entry gemmtab emit wrote (no line "
		      "\"\\t/* FAMILY, M LO[..HI]: TEMPLATE PARAMS\")", what, path);
		goto fail;
	}
	free(line);
	fclose(f);
	return n;
fail:
	free(line);
	fclose(f);
	free(*out);
	*out = NULL;
	return -1;
}
