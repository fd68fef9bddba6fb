/*
 * tableprune.h: a dispatch table pruned to some of its entries, written as
 * gemmtab emit writes a table (gemmtab verify --out): the kept entries as
 * they were, their kernels renumbered in a kernels file of their own, the
 * per-shape coverage recounted, the given command on the first line and
 * in generated_by, the two files published as one unit (tablefile.h).
 */
#ifndef GT_TABLEPRUNE_H
#define GT_TABLEPRUNE_H

/* Write the table at in_path (a header emit wrote, with its kernels file
 * beside it) with only the entries whose keep[i] is set (i in file order,
 * as table_file_read numbers them; nentries of them) to out_path and
 * OUT_kernels.cu, cmdline naming what made them. Returns the count kept,
 * or -1 after a message naming the file and line that does not read as
 * emit writes it. */
int table_file_prune(const char *in_path, const char *out_path, const char *cmdline,
		     const char *keep, int nentries);

#endif
