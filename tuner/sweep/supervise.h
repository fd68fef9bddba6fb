/*
 * supervise.h: the supervisor's side of one worker process: start
 * `gemmtab worker` on a GPU with pipes to its stdin and stdout, send a
 * request (the problem fields built here) and wait for its reply under a
 * deadline, and kill and restart the worker when it hangs or dies. The supervisor is the only process that
 * writes the database; workers only measure.
 */
#ifndef GT_SUPERVISE_H
#define GT_SUPERVISE_H

#include <sys/types.h>

#include "proto.h"

struct worker {
	pid_t pid;
	int device;
	int to_fd, from_fd;      /* pipe ends: write requests, read replies */
	char *rbuf;              /* partial reply line */
	size_t rlen, rcap;
	int restarts;
};

enum call_result {
	CALL_OK = 0,             /* reply parsed into *reply */
	CALL_TIMEOUT,            /* deadline passed: worker killed */
	CALL_DIED,               /* worker exited or crashed without a reply */
	CALL_BADREPLY,           /* a line that does not parse */
};

/* Start a worker on device; returns 0 or -1 (message printed). */
int worker_start(struct worker *w, int device);
/* Before a command that needs a GPU (probe, sweep, bench) touches
 * anything: 0 when a CUDA device is visible (or GEMMTAB_WORKER names a
 * worker that needs none), else 1 after the one line "gemmtab CMD: no
 * CUDA device: REASON". */
int worker_device_check(const char *cmd);
/* How many GPUs a worker sees (it counts them: the supervisor starts no
 * CUDA), or -1 (message printed). */
int worker_device_count(void);
/* Ask the worker to quit, then reap it (SIGKILL after a grace period). */
void worker_stop(struct worker *w);
/* SIGKILL and reap; the worker is dead afterwards. */
void worker_kill(struct worker *w);
/* Send one request line (with '\n') and wait up to deadline_s for one
 * reply line. On CALL_TIMEOUT and CALL_DIED the worker has been killed and
 * reaped; call worker_start again before the next request. *exit_status
 * (may be NULL) gets the worker's wait status on CALL_DIED. */
enum call_result worker_call(struct worker *w, const char *request, double deadline_s,
			     struct kv *reply, int *exit_status);

struct shape;
/* Add the fields a worker reads one problem from: the shape (family, n,
 * k, w, x, y, tol) and m. */
void kv_add_shape(struct kv_out *o, const struct shape *s, int m);

struct env_info;
/* Ask the worker for its environment and fill *e (source_hash empty:
 * template code is keyed per candidate).
 * Returns 0 or -1 (message printed). */
int worker_env(struct worker *w, struct env_info *e);

#endif
