/*
 * scratch.h: a scratch directory for a unit test: tmpdir is a mkdtemp(3)
 * template until the test creates it, and remove_scratch (registered
 * with atexit by the test) removes its plain files and the directory.
 * Header-only, like check.h.
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

#endif
