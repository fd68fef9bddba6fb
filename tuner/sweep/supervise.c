/*
 * supervise.c: start, talk to, kill and reap a `gemmtab worker` process
 * (see supervise.h). A worker that passes its deadline is killed with
 * SIGKILL: the CUDA driver here never kills a hung kernel, so the only
 * way back to a usable GPU is to end the process that owns the context.
 */
#include "supervise.h"
#include "util.h"
#include "db.h"
#include "jit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: exec the worker program with its two arguments ("--device
 * N", or "--count"); _exit(127) where it cannot. GEMMTAB_WORKER names
 * another worker program speaking the same protocol: the CPU tests run
 * the whole supervisor against a fake one (tests/fake/fake_worker.c). */
static void exec_worker(const char *arg, const char *value)
{
	const char *exe = getenv("GEMMTAB_WORKER");
	if (exe && *exe)
		execl(exe, exe, "worker", arg, value, (char *)NULL);
	else
		execl("/proc/self/exe", "gemmtab", "worker", arg, value, (char *)NULL);
	fprintf(stderr, "gemmtab: error: exec worker: %s\n", strerror(errno));
	_exit(127);
}

int worker_start(struct worker *w, int device)
{
	int to[2], from[2];
	int restarts = w->restarts;

	memset(w, 0, sizeof(*w));
	w->restarts = restarts;
	w->device = device;
	w->pid = -1;
	if (pipe(to))
		return error("pipe: %s", strerror(errno));
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		return error("pipe: %s", strerror(errno));
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(to[0]); close(to[1]); close(from[0]); close(from[1]);
		return error("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char dev[16];
		/* the worker dies with its supervisor, even in a hung kernel
		 * (the signal survives exec); a supervisor gone before the
		 * prctl is seen by the parent check */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		snprintf(dev, sizeof(dev), "%d", device);
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]); close(to[1]); close(from[0]); close(from[1]);
		exec_worker("--device", dev);
	}
	close(to[0]);
	close(from[1]);
	/* the workers started after this one must not hold its pipes open */
	fcntl(to[1], F_SETFD, FD_CLOEXEC);
	fcntl(from[0], F_SETFD, FD_CLOEXEC);
	w->pid = pid;
	w->to_fd = to[1];
	w->from_fd = from[0];
	/* A dead worker must not kill the supervisor with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void worker_close(struct worker *w)
{
	if (w->to_fd > 0)
		close(w->to_fd);
	if (w->from_fd > 0)
		close(w->from_fd);
	w->to_fd = w->from_fd = -1;
	free(w->rbuf);
	w->rbuf = NULL;
	w->rlen = w->rcap = 0;
}

void worker_kill(struct worker *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
	w->pid = -1;
	worker_close(w);
}

void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	/* It may already be gone: a failed write is fine here. */
	ssize_t ignored = write(w->to_fd, "quit\n", 5);
	(void)ignored;
	close(w->to_fd);
	w->to_fd = -1;
	for (int i = 0; i < 100; i++) {   /* up to 5 s to exit cleanly */
		if (waitpid(w->pid, NULL, WNOHANG) == w->pid) {
			w->pid = -1;
			worker_close(w);
			return;
		}
		usleep(50000);
	}
	worker_kill(w);
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A complete line in rbuf? Move it out (without '\n') into a heap string. */
static char *take_line(struct worker *w)
{
	char *nl = w->rlen ? memchr(w->rbuf, '\n', w->rlen) : NULL;
	if (!nl)
		return NULL;
	size_t n = (size_t)(nl - w->rbuf);
	char *line = xmalloc(n + 1);
	memcpy(line, w->rbuf, n);
	line[n] = '\0';
	memmove(w->rbuf, nl + 1, w->rlen - n - 1);
	w->rlen -= n + 1;
	return line;
}

static enum call_result reap_dead(struct worker *w, int *exit_status)
{
	int st = 0;
	if (w->pid > 0 && waitpid(w->pid, &st, 0) == w->pid && exit_status)
		*exit_status = st;
	w->pid = -1;
	worker_close(w);
	return CALL_DIED;
}

enum call_result worker_call(struct worker *w, const char *request, double deadline_s,
			     struct kv *reply, int *exit_status)
{
	double end = now_seconds() + deadline_s;

	if (w->pid <= 0)
		return CALL_DIED;
	if (write_all(w->to_fd, request, strlen(request)))
		return reap_dead(w, exit_status);
	for (;;) {
		char *line = take_line(w);
		if (line) {
			int bad = kv_parse(line, reply);
			free(line);
			/* a worker whose context broke says status=fault, whatever
			 * the request, and exits (EXIT_FAULT): reap it here, so the
			 * next call starts a new one instead of writing to the dead */
			const char *st = bad ? NULL : kv_get(reply, "status");
			if (st && !strcmp(st, "fault"))
				reap_dead(w, exit_status);
			return bad ? CALL_BADREPLY : CALL_OK;
		}
		double left = end - now_seconds();
		if (left <= 0) {
			worker_kill(w);
			return CALL_TIMEOUT;
		}
		struct pollfd p = { .fd = w->from_fd, .events = POLLIN };
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;   /* timeout is handled at the top of the loop */
		if (w->rlen + 4096 > w->rcap) {
			w->rcap = w->rcap ? w->rcap * 2 : 16384;
			w->rbuf = xrealloc(w->rbuf, w->rcap);
		}
		ssize_t k = read(w->from_fd, w->rbuf + w->rlen, w->rcap - w->rlen);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return reap_dead(w, exit_status);
		w->rlen += (size_t)k;
	}
}

static void copy_field(char *dst, size_t n, const struct kv *m, const char *key)
{
	const char *v = kv_get(m, key);
	snprintf(dst, n, "%s", v ? v : "");
}

int worker_env(struct worker *w, struct env_info *e)
{
	struct kv r;
	enum call_result cr = worker_call(w, "env\n", 120, &r, NULL);
	if (cr != CALL_OK)
		return error("worker on device %d gave no environment (%s)", w->device,
			     cr == CALL_TIMEOUT ? "timeout" : cr == CALL_DIED ? "it died" : "bad reply");
	if (strcmp(r.op, "env")) {
		const char *why = kv_get(&r, "reason");
		error("worker: %s", why ? why : r.op);
		kv_free(&r);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	copy_field(e->gpu_name, sizeof(e->gpu_name), &r, "gpu_name");
	copy_field(e->gpu_uuid, sizeof(e->gpu_uuid), &r, "gpu_uuid");
	copy_field(e->driver, sizeof(e->driver), &r, "driver");
	copy_field(e->cuda, sizeof(e->cuda), &r, "cuda");
	copy_field(e->nvrtc, sizeof(e->nvrtc), &r, "nvrtc");
	copy_field(e->cublas, sizeof(e->cublas), &r, "cublas");
	copy_field(e->cublaslt, sizeof(e->cublaslt), &r, "cublaslt");
	e->sm_count = (int)kv_get_long(&r, "sm_count", 0);
	e->sm_clock_mhz = (int)kv_get_long(&r, "sm_clock_mhz", 0);
	e->mem_clock_mhz = (int)kv_get_long(&r, "mem_clock_mhz", 0);
	e->l2_bytes = kv_get_long(&r, "l2_bytes", 0);
	e->smem_optin = kv_get_long(&r, "smem_optin", 0);
	e->smem_sm = kv_get_long(&r, "smem_sm", 0);
	e->smem_reserved = kv_get_long(&r, "smem_reserved", 0);
	/* Template code is no longer part of the environment: each candidate
	 * carries its own template's hash (tmpl_source_hash), so editing one
	 * template does not make every other result stale. The field stays
	 * empty; databases written before hold the all-templates hash there. */
	e->source_hash[0] = '\0';
	kv_free(&r);
	return 0;
}

void kv_add_shape(struct kv_out *o, const struct shape *s, int m)
{
	kv_add(o, "family", s->family);
	kv_addf(o, "n", "%d", s->n);
	kv_addf(o, "k", "%d", s->k);
	kv_add(o, "w", dtype_name(s->w));
	kv_add(o, "x", dtype_name(s->x));
	kv_add(o, "y", dtype_name(s->y));
	kv_addf(o, "tol", "%g", s->tol);
	kv_addf(o, "m", "%d", m);
}

/* How many GPUs `gemmtab worker --count` sees, and in why (len bytes)
 * what it says when it sees none; -1 when it cannot be asked (message in
 * why). */
static int count_devices(char *why, size_t len)
{
	int p[2];
	snprintf(why, len, "cannot ask a worker");
	if (pipe(p))
		return error("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return error("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		exec_worker("--count", NULL);
	}
	close(p[1]);
	char buf[320] = "";
	size_t got = 0;
	ssize_t k;
	while (got < sizeof(buf) - 1 && (k = read(p[0], buf + got, sizeof(buf) - 1 - got)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		got += (size_t)k;
	}
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	close(p[0]);
	int st = 0, n = -1, at = 0;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || sscanf(buf, "devices %d%n", &n, &at) != 1 ||
	    n < 0) {
		snprintf(why, len, "`gemmtab worker --count` said '%.40s'", buf);
		return -1;
	}
	snprintf(why, len, "%s", buf[at] == ' ' ? buf + at + 1 : "the CUDA runtime sees none");
	return n;
}

int worker_device_count(void)
{
	char why[320];
	int n = count_devices(why, sizeof(why));
	return n < 0 ? error("cannot count the GPUs: %s", why) : n;
}

int worker_device_check(const char *cmd)
{
	char why[320];
	const char *fake = getenv("GEMMTAB_WORKER");
	if ((fake && *fake) || count_devices(why, sizeof(why)) > 0)
		return 0;
	fprintf(stderr, "gemmtab %s: no CUDA device: %s\n", cmd, why);
	return 1;
}
