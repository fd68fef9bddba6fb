/*
 * gt_table_check.c: build-time tool. A dispatch table header and its
 * kernels file are one unit: the header's declaration names the hash of
 * the kernels file it was written with (kernels_hash, tuner/emit/
 * tablefile.c), and the library build runs this check before it compiles
 * either, so a kernels file replaced without its header (or the reverse:
 * an interrupted copy, a hand edit, a half-written emit) stops the build
 * instead of running kernels the entries do not name.
 *
 * usage: gt_table_check HEADER.h KERNELS.cu   (exit 0: the pair matches)
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernels_hash literal of header text, into out[17]; 0 or -1. */
static int declared_hash(const char *text, char out[17])
{
	const char *p = strstr(text, "/* kernels_hash */");
	if (!p)
		return -1;
	const char *line = p;
	while (line > text && line[-1] != '\n')
		line--;
	line = memchr(line, '"', (size_t)(p - line));
	if (!line || strncmp(line + 17, "\",", 2))
		return -1;
	memcpy(out, line + 1, 16);
	out[16] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	char want[17], have[17];
	size_t len = 0;
	if (argc != 3) {
		fprintf(stderr, "usage: gt_table_check HEADER.h KERNELS.cu\n");
		return 2;
	}
	char *header = read_file(argv[1], NULL);
	char *kernels = read_file(argv[2], &len);
	if (!header || !kernels) {
		fprintf(stderr, "gt_table_check: cannot read %s\n", header ? argv[2] : argv[1]);
		return 1;
	}
	if (declared_hash(header, want)) {
		fprintf(stderr, "%s:1:1: error: the table declares no kernels_hash (written by an "
			"older gemmtab emit): emit it again with the command on its first line\n",
			argv[1]);
		return 1;
	}
	hash_hex(hash_bytes(HASH_INIT, kernels, len), have);
	if (strcmp(want, have)) {
		fprintf(stderr, "%s:1:1: error: the table names kernels file hash %s, but %s hashes "
			"to %s: the two were not written together; emit both again with the "
			"command on its first line\n", argv[1], want, argv[2], have);
		return 1;
	}
	free(header);
	free(kernels);
	return 0;
}
