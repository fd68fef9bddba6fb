/*
 * ytree.h: a search-space file as a tree of YAML nodes with their source
 * positions (ytree.c, the only file that reads YAML), and the one-line
 * "FILE:LINE:COL: what" error reporting that space.c shares.
 */
#ifndef GT_YTREE_H
#define GT_YTREE_H

#include <stddef.h>

/* Bounds on hostile or mistaken input: real spaces are a few KiB, nest
 * four levels deep and hold lists of a few dozen values. */
#define SPACE_MAX_BYTES (1 << 20)
#define SPACE_MAX_DEPTH 32
#define SPACE_MAX_ITEMS 4096
/* Room for a user-supplied name quoted in a message. */
#define SHOWN_MAX 48

/* How a scalar was written (libyaml's styles, without its header). */
enum ystyle { Y_PLAIN, Y_SINGLE_QUOTED, Y_DOUBLE_QUOTED, Y_LITERAL, Y_FOLDED };

enum kind { K_SCALAR, K_LIST, K_MAP };

/* One YAML node with its source position. */
struct ynode {
	enum kind kind;
	int line, col;          /* 0-based, as libyaml counts */
	int end_line;           /* scalars: line of the end mark */
	size_t index;           /* characters before the node in the file */
	enum ystyle style;      /* scalars */
	char *text;             /* scalars: the value, NUL-terminated */
	int nkids;              /* lists: items; maps: key, value, key, value... */
	struct ynode **kids;
};

struct loader {
	const char *path;
	const char *buf;        /* the whole file */
	size_t len;
};

/* Print the one error line at 0-based line and col; returns -1. */
int yreport(const struct loader *L, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same at node at; returns -1. */
int yfail(const struct loader *L, const struct ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A user-supplied string made safe for a one-line message: printable
 * ASCII only, truncated with "...". Returns buf. */
const char *yshown(const char *s, char buf[SHOWN_MAX]);
void ynode_free(struct ynode *n);
/* Read at most SPACE_MAX_BYTES of L->path. Returns the NUL-terminated
 * contents (caller frees) or NULL after reporting. */
char *yread_file(const struct loader *L, size_t *len);
/* Byte offset of the character at index (libyaml counts characters). */
size_t ybyte_of_index(const struct loader *L, size_t index);
/* Parse L->buf into a tree. Returns the root or NULL after reporting. */
struct ynode *ybuild_tree(const struct loader *L);

#endif
