/*
 * lock.h: one writer of a database's contents at a time. Every writer
 * (sweep, probe, merge, prune, migrate) holds an exclusive flock(2) on the
 * database file itself for as long as it runs, so the lock is the file's
 * identity (its device and inode): a symlink or a hard link to the same
 * database meets the same lock. The kernel drops the lock when the holder
 * dies, kill -9 included, so it is never stale. Who holds it (command, pid,
 * start time) is written to REALPATH.lock beside the real file, and a
 * second taker is refused with that line.
 * flock(2) locks are apart from the POSIX locks SQLite takes, but closing
 * any descriptor of the file drops this process's POSIX locks on it: drop
 * the lock only after the database is closed.
 */
#ifndef GT_LOCK_H
#define GT_LOCK_H

struct db_lock {
	int fd;                 /* first: `struct db_lock l = { -1 }` is "not held" */
};

/* Take the lock of database db_path for command what ("sweep", "probe",
 * "merge", "prune", "migrate"), creating an empty file where none is (a
 * new database: SQLite takes an empty file as one). Returns 0, or 1 when
 * another process holds it (message printed: "DB is being swept by pid N
 * since T"), or -1 on an error (message printed). */
int db_lock_take(const char *db_path, const char *what, struct db_lock *out);
/* Drop it (after db_close: see above); a lock not held is a no-op. */
void db_lock_drop(struct db_lock *l);

#endif
