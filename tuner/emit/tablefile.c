/*
 * tablefile.c: a table header and its kernels file as one unit (see
 * tablefile.h): the declaration emit writes and reads back, the kernels
 * hash, the publishing of the pair, and the entries read line by line with
 * emit.c's parsers of the comment and initializer lines emit writes.
 */
#include "tablefile.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void table_file_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c == '?')
			fprintf(f, "\\%c", c);
		else if (c < ' ' || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void table_file_kernels_hash(const char *text, size_t len, char out[17])
{
	hash_hex(hash_bytes(HASH_INIT, text, len), out);
}

/* "\t<literal>,\t/\* name *\/\n" */
static void put_field(FILE *f, const char *value, const char *name)
{
	fputc('\t', f);
	table_file_put_string(f, value);
	fprintf(f, ",\t/* %s */\n", name);
}

void table_file_put_decl(FILE *f, const char *cmdline, const struct env_info *e,
			 const char *arch, const char *kernels_hash, int nentries,
			 const char *entries)
{
	fputs("static const struct gt_table gt_compiled_table = {\n", f);
	put_field(f, cmdline, "generated_by");
	put_field(f, e->gpu_name, "gpu_name");
	put_field(f, arch, "arch");
	fprintf(f, "\t%d,\t/* sm_count */\n\t%lld,\t/* l2_bytes */\n"
		"\t%d, %d,\t/* sm_clock_mhz, mem_clock_mhz */\n", e->sm_count, e->l2_bytes,
		e->sm_clock_mhz, e->mem_clock_mhz);
	put_field(f, e->driver, "driver");
	put_field(f, e->cuda, "cuda");
	put_field(f, e->nvrtc, "nvrtc");
	put_field(f, e->cublas, "cublas");
	put_field(f, e->cublaslt, "cublaslt");
	put_field(f, e->source_hash, "source_hash");
	put_field(f, kernels_hash, "kernels_hash");
	fprintf(f, "\t%d,\t/* nentries */\n\t%s\n};\n", nentries,
		nentries ? entries : "0\t/* no entry: every M runs the baseline */");
}

/* The C string literal at the start of p (after blanks) into out (len
 * bytes): 0, or -1 when it is not one table_file_put_string writes. */
static int read_literal(const char *p, char *out, size_t len)
{
	size_t n = 0;
	p += strspn(p, " \t");
	if (*p++ != '"')
		return -1;
	for (; *p && *p != '"'; p++) {
		int c = (unsigned char)*p;
		if (c == '\\') {
			p++;
			if (*p >= '0' && *p <= '7') {
				c = (p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0');
				p += 2;
			} else if (*p) {
				c = (unsigned char)*p;
			} else {
				return -1;
			}
		}
		if (n + 1 >= len)
			return -1;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return *p == '"' ? 0 : -1;
}

int table_file_device(const char *path, const char *what, struct table_device *d)
{
	struct {
		const char *name;
		char *text;
		size_t len;
	} fields[] = {
		{ "gpu_name", d->gpu_name, sizeof(d->gpu_name) },
		{ "arch", d->arch, sizeof(d->arch) },
		{ "driver", d->driver, sizeof(d->driver) },
		{ "cuda", d->cuda, sizeof(d->cuda) },
		{ "cublaslt", d->cublaslt, sizeof(d->cublaslt) },
		{ "kernels_hash", d->kernels_hash, sizeof(d->kernels_hash) },
	};
	char *text = read_file(path, NULL), *save = NULL;
	int found = 0, in_decl = 0;
	memset(d, 0, sizeof(*d));
	d->sm_count = -1;
	if (!text)
		return error("%s: cannot read %s: %s", what, path, strerror(errno));
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "static const struct gt_table gt_compiled_table", 46))
			in_decl = 1;
		if (!in_decl)
			continue;
		char *c = strstr(line, "/* ");
		if (c && !strcmp(c, "/* sm_count */"))
			d->sm_count = atoi(line);
		for (size_t i = 0; c && i < ARRAY_SIZE(fields); i++) {
			char tail[64];
			snprintf(tail, sizeof(tail), "/* %s */", fields[i].name);
			if (strcmp(c, tail))
				continue;
			if (read_literal(line, fields[i].text, fields[i].len)) {
				free(text);
				return error("%s: %s: the %s of its declaration is not a string "
					     "emit writes", what, path, fields[i].name);
			}
			found++;
		}
	}
	free(text);
	if (found != (int)ARRAY_SIZE(fields) || d->sm_count < 0)
		return error("%s: %s declares no device (no gt_compiled_table with gpu_name, "
			     "arch, sm_count, driver, cuda, cublaslt and kernels_hash: "
			     "emit it again)", what, path);
	return 0;
}

/* Write buf to a temporary beside path, flushed to disk; the temporary's
 * name (heap) into *tmp. Returns 0, or -1 with errno set and no
 * temporary left. */
static int write_temp(const char *path, const char *buf, size_t len, char **tmp)
{
	*tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(*tmp, "wb");
	if (!f)
		goto fail;
	int bad = fwrite(buf, 1, len, f) != len;
	bad |= fflush(f) != 0;
	bad |= fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (!bad)
		return 0;
fail:;
	int e = errno;
	unlink(*tmp);
	free(*tmp);
	*tmp = NULL;
	errno = e;
	return -1;
}

int table_files_publish(const char *header_path, const char *header, size_t header_len,
			const char *kernels_path, const char *kernels, size_t kernels_len)
{
	char *ktmp = NULL, *htmp = NULL;
	int ret = -1;
	if (write_temp(kernels_path, kernels, kernels_len, &ktmp)) {
		error("cannot write %s: %s", kernels_path, strerror(errno));
		goto cleanup;
	}
	if (write_temp(header_path, header, header_len, &htmp)) {
		error("cannot write %s: %s (%s left as it was)", header_path, strerror(errno),
		      kernels_path);
		goto cleanup;
	}
	/* both complete: the kernels first, so that a header never names
	 * kernels its file lacks; a reader between the two renames sees a new
	 * kernels file whose hash the old header does not name, which the
	 * build refuses */
	if (rename(ktmp, kernels_path)) {
		error("cannot write %s: %s", kernels_path, strerror(errno));
		goto cleanup;
	}
	if (rename(htmp, header_path)) {
		error("cannot write %s: %s", header_path, strerror(errno));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (ktmp && ret)
		unlink(ktmp);
	if (htmp && ret)
		unlink(htmp);
	free(ktmp);
	free(htmp);
	return ret;
}
