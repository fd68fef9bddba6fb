/*
 * scratch.h: a scratch directory for a unit test, made on first use by
 * whichever test case asks first (scratch_dir, scratch) and removed at
 * exit with its plain files. Header-only, like check.h.
 */
#ifndef GT_TEST_SCRATCH_H
#define GT_TEST_SCRATCH_H

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

static char tmpdir[] = "/tmp/gemmtab-unit.XXXXXX";

static void remove_scratch(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *p = xasprintf("%s/%s", tmpdir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

/* The scratch directory, created (and its removal registered) once. */
static const char *scratch_dir(void)
{
	static int made;
	if (!made) {
		if (!mkdtemp(tmpdir))
			die("mkdtemp %s", tmpdir);
		atexit(remove_scratch);
		made = 1;
	}
	return tmpdir;
}

/* A path in the scratch directory (caller frees the string). */
static char *scratch(const char *name)
{
	return xasprintf("%s/%s", scratch_dir(), name);
}

#endif
