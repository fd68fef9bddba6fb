/*
 * tablefile.h: read back the entries of a dispatch table `gemmtab emit`
 * wrote (its header file): emit --incumbent and report --regret.
 */
#ifndef GT_TABLEFILE_H
#define GT_TABLEFILE_H

#include "emit.h"

/* The entries of the table at path (each comment line with the key of the
 * initializer line after it) into a heap array *out; returns the count, or
 * -1 after a message that starts with what (the option) and names the
 * file and line. */
int table_file_read(const char *path, const char *what, struct emit_incumbent **out);

#endif
