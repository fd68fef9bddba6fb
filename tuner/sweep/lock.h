/*
 * lock.h: one writer of a database's contents at a time. A sweep and a
 * prune hold an exclusive lock (flock(2)) on DB.lock beside the database
 * for as long as they run, with their pid, start time and command written
 * in it; the kernel drops the lock when the holder dies, kill -9 included,
 * so it is never stale. A second taker is refused with who holds it.
 * (A separate file: a descriptor of the database itself closed by us
 * would drop SQLite's own POSIX locks.)
 */
#ifndef GT_LOCK_H
#define GT_LOCK_H

struct db_lock {
	int fd;
};

/* Take the lock of database db_path for command what ("sweep", "prune").
 * Returns 0, or 1 when another process holds it (message printed: "DB is
 * being swept by pid N since T"), or -1 on an error (message printed). */
int db_lock_take(const char *db_path, const char *what, struct db_lock *out);
void db_lock_drop(struct db_lock *l);

#endif
