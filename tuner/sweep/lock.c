/*
 * lock.c: the one-writer lock of a database (lock.h): flock(2) on the
 * database file, its holder's line in REALPATH.lock.
 */
#include "lock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A descriptor of the database file, created empty when absent (O_EXCL,
 * so two creators share one file). -1 with errno on an error. */
static int open_db_file(const char *db_path)
{
	for (int tries = 0; tries < 2; tries++) {
		int fd = open(db_path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			return fd;
		fd = open(db_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* The holder's file: the database's real path (symlinks resolved) and
 * ".lock" (caller frees); db_path.lock when the path does not resolve. */
static char *holder_path(const char *db_path)
{
	char real[PATH_MAX];
	return xasprintf("%s.lock", realpath(db_path, real) ? real : db_path);
}

/* The pid that holds the flock of fd's file, from /proc/locks (Linux),
 * or -1 when it is not found there. */
static long holder_pid(int fd)
{
	struct stat st;
	FILE *f = fstat(fd, &st) ? NULL : fopen("/proc/locks", "r");
	if (!f)
		return -1;
	char line[256], kind[16], mode[16];
	unsigned maj, min;
	unsigned long long ino;
	long pid, found = -1;
	while (found < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %15s %*s %15s %ld %x:%x:%llu", kind, mode, &pid, &maj, &min,
			   &ino) == 6 && !strcmp(kind, "FLOCK") && !strcmp(mode, "WRITE") &&
		    ino == (unsigned long long)st.st_ino && maj == major(st.st_dev) &&
		    min == minor(st.st_dev))
			found = pid;
	fclose(f);
	return found;
}

/* Who holds the lock of fd's file db_path, into buf: the holder's line
 * when the holder took it through this real path, else its pid (it took
 * it through another name: a hard link), else a word for someone. */
static void holder_read(const char *db_path, int fd, char *buf, size_t len)
{
	char *path = holder_path(db_path), mine[48];
	long pid = holder_pid(fd);
	int hfd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = hfd >= 0 ? pread(hfd, buf, len - 1, 0) : -1;
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (hfd >= 0)
		close(hfd);
	free(path);
	snprintf(mine, sizeof(mine), " by pid %ld since ", pid);
	if (pid >= 0 && !strstr(buf, mine))
		snprintf(buf, len, "written by pid %ld, through another name of the file", pid);
	else if (!*buf)
		snprintf(buf, len, "written by another process");
}

/* Write "VERBED by pid N since T" to the holder's file. Returns 0 or -1. */
static int holder_write(const char *db_path, const char *what)
{
	char stamp[32], text[256];
	utc_now(stamp, sizeof(stamp));
	const char *verb = !strcmp(what, "sweep") ? "swept" : !strcmp(what, "prune") ? "pruned"
		: !strcmp(what, "migrate") ? "migrated" : !strcmp(what, "merge") ? "merged into"
		: !strcmp(what, "probe") ? "probed into" : what;
	int len = snprintf(text, sizeof(text), "%s by pid %ld since %sZ\n", verb, (long)getpid(),
			   stamp);
	char *path = holder_path(db_path);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int ok = fd >= 0 && !ftruncate(fd, 0) && pwrite(fd, text, (size_t)len, 0) == len;
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (!ok)
		error("cannot write the lock's holder %s: %s", path, strerror(e));
	free(path);
	return ok ? 0 : -1;
}

int db_lock_take(const char *db_path, const char *what, struct db_lock *out)
{
	out->fd = -1;
	int fd = open_db_file(db_path);
	if (fd < 0)
		return error("cannot open %s to lock it: %s", db_path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		char holder[256];
		if (e == EWOULDBLOCK)
			holder_read(db_path, fd, holder, sizeof(holder));
		close(fd);
		if (e != EWOULDBLOCK)
			return error("cannot lock %s: %s", db_path, strerror(e));
		error("DB %s is being %s; wait for it to end or stop it", db_path, holder);
		return 1;
	}
	if (holder_write(db_path, what)) {
		close(fd);
		return -1;
	}
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
