/*
 * embedded.h: text files compiled into the binary at build time by
 * tools/embed (the kernel templates and the database schema), by repository
 * path; util/embedded.c looks them up.
 */
#ifndef GT_EMBEDDED_H
#define GT_EMBEDDED_H

struct gt_embedded {
	const char *path;
	const char *text;
};

/* Terminated by an entry with path NULL. */
extern const struct gt_embedded gt_embedded[];

/* The text embedded for path, or NULL. */
const char *embedded_text(const char *path);

#endif
