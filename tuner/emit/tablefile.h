/*
 * tablefile.h: a dispatch table's two files as one unit: the declaration
 * of the device and libraries it was tuned with (the struct gt_table
 * initializer, layout runtime/gt_table.h) and the hash of its kernels file
 * that the header names; writing the header and its kernels file so that
 * neither replaces the old one before both are complete; and reading back
 * the entries and the declaration of a header `gemmtab emit` wrote (emit
 * --incumbent, report --regret, verify).
 */
#ifndef GT_TABLEFILE_H
#define GT_TABLEFILE_H

#include "emit.h"

#include <stdio.h>

/* The entries of the table at path (each comment line with the key of the
 * initializer line after it) into a heap array *out; returns the count, or
 * -1 after a message that starts with what (the option) and names the
 * file and line. */
int table_file_read(const char *path, const char *what, struct emit_incumbent **out);

/* s as a C string literal (quotes, backslashes, '?' against trigraphs and
 * non-printing bytes escaped). */
void table_file_put_string(FILE *f, const char *s);

/* The hash a header names its kernels file by: FNV-1a (util.h) over the
 * file's bytes, 16 hex digits into out. runtime/check/gt_table_check.c
 * computes the same at build time and refuses a pair that differs. */
void table_file_kernels_hash(const char *text, size_t len, char out[17]);

/* The table's declaration, "static const struct gt_table
 * gt_compiled_table = { ... };": generated_by (the command line), the
 * device and library versions of e, the kernels' arch ("sm_90a"), the
 * source and kernels hashes and the entry count; entries names the array
 * of that many entries (ignored when nentries is 0). */
void table_file_put_decl(FILE *f, const char *cmdline, const struct env_info *e,
			 const char *arch, const char *kernels_hash, int nentries,
			 const char *entries);

/* The device a header declares (its gt_compiled_table initializer). */
struct table_device {
	char gpu_name[128];
	char arch[32];
	int sm_count;
	char driver[32], cuda[32], cublaslt[32];
	char kernels_hash[17];
};
/* Read the declaration of the header at path into *d: 0, or -1 after a
 * message that starts with what and names the file. */
int table_file_device(const char *path, const char *what, struct table_device *d);

/* Publish a header and its kernels file as one unit: both are written
 * in full to temporaries beside them (flushed to disk), and only then
 * renamed, the kernels file first; on any failure neither file changes
 * and both temporaries are gone. Returns 0, or -1 after a message naming
 * the file. */
int table_files_publish(const char *header_path, const char *header, size_t header_len,
			const char *kernels_path, const char *kernels, size_t kernels_len);

#endif
