/*
 * gt_table_check.c: build-time tool. A dispatch table header and its
 * kernels file are one unit: the header's declaration names the hash of
 * the kernels file it was written with (kernels_hash, tuner/emit/
 * tablefile.c), and the library build runs this check before it compiles
 * either, so a kernels file replaced without its header (or the reverse:
 * an interrupted copy, a hand edit, a half-written emit) stops the build
 * instead of running kernels the entries do not name.
 *
 * The hash is 64-bit FNV-1a over the kernels file's bytes, as
 * table_file_kernels_hash computes it (tuner/util/util.c's hash_bytes);
 * written out here because the runtime includes nothing of the tuner
 * (tests/cli/t_runtime_emit_unit.sh checks that the two agree).
 *
 * usage: gt_table_check HEADER.h KERNELS.cu   (exit 0: the pair matches)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at path, NUL-terminated, its length in *len; NULL when
 * it cannot be read. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *b = realloc(buf, cap = 2 * cap + 4096 + 1);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void fnv1a_hex(const char *p, size_t n, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

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
	fnv1a_hex(kernels, len, have);
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
