/*
 * lock.c: the one-writer lock of a database (lock.h).
 */
#include "lock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int db_lock_take(const char *db_path, const char *what, struct db_lock *out)
{
	char *path = xasprintf("%s.lock", db_path);
	out->fd = -1;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		free(path);
		return error("cannot open the lock %s.lock: %s", db_path, strerror(e));
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		char holder[256] = "";
		ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
		close(fd);
		free(path);
		if (e != EWOULDBLOCK)
			return error("cannot lock %s.lock: %s", db_path, strerror(e));
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		error("DB %s is being %s; wait for it to end or stop it", db_path,
		      *holder ? holder : "written by another process");
		return 1;
	}
	char stamp[32], text[256];
	utc_now(stamp, sizeof(stamp));
	const char *verb = !strcmp(what, "sweep") ? "swept" : !strcmp(what, "prune") ? "pruned"
		: !strcmp(what, "migrate") ? "migrated" : what;
	int len = snprintf(text, sizeof(text), "%s by pid %ld since %sZ\n", verb, (long)getpid(),
			   stamp);
	if (ftruncate(fd, 0) || pwrite(fd, text, (size_t)len, 0) != len) {
		int e = errno;
		close(fd);
		free(path);
		return error("cannot write the lock %s.lock: %s", db_path, strerror(e));
	}
	free(path);
	out->fd = fd;
	return 0;
}

void db_lock_drop(struct db_lock *l)
{
	/* (the holder's line stays: the next holder overwrites it, and an
	 * unlocked file names nobody to a taker) */
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
