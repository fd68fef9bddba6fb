/*
 * jit.c: the NVRTC compile service (the only file that includes nvrtc.h).
 * Finds instantiations in the on-disk cubin cache, groups the rest into
 * deterministic batches (one NVRTC program, many name expressions), and
 * compiles the batches in forked child processes, because NVRTC serializes
 * inside one process. A child publishes its cubin and index entries by
 * atomic rename and reports one line per instantiation through a pipe; the
 * parent enforces the per-batch deadline and retries a batch that failed as
 * a whole one instantiation at a time, so one illegal candidate does not
 * fail its neighbours. A write to the cache that fails (a full disk, a
 * read-only folder) is the service's error, not its instantiations': the
 * service stops and the caller records nothing for them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* qsort_r, prctl */
#endif
#include "jit.h"
#include "sass.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <nvrtc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* 8 names per program: batching 4-16 cut the compile time per
 * instantiation about 3x against one per program (measured on a 16-core
 * host); past that, one slow or failing member delays more neighbours. */
#define DEFAULT_BATCH 8
#define MAX_BATCH 64
/* Bumped when the cache's file format or key changes. */
#define CACHE_FORMAT "gemmtab-jit-1"
/* Fixed NVRTC options after the architecture; part of every cache key. */
static const char *const fixed_flags[] = {
	"--std=c++17", "-default-device", "--ptxas-options=-v",
};

/* One distinct (source, name expression) to compile; items that repeat
 * a pair share its unit. */
struct unit {
	const char *source_name;
	const char *text;
	const char *name;
	char hash[17];          /* the instantiation's cache key */
	int nitems;
	int done;
	/* results */
	int ok;
	char batch[17];         /* cubin b/<batch>.cubin */
	char lowered[512];
	int regs, local_bytes, smem_bytes;
	char error[512];
};

/* A run of consecutive units of one source compiled as one program. */
struct batch {
	int first, count;
	char hash[17];
};

/* A child compiling one batch. */
struct child {
	pid_t pid;
	int fd;
	int batch;
	double started;
	char *out;
	size_t len, cap;
};

struct service {
	const struct jit_options *opts;
	char flags[JIT_FLAGS_MAX];
	const char *version;
	struct unit *units;
	int nunits;
	struct batch *batches;
	int nbatches, next_batch;
	struct child *children;
	int nchildren, maxchildren;
	char write_error[512];   /* the first failed write to the cache */
};

const char *jit_nvrtc_version(void)
{
	static char buf[32];
	int major = 0, minor = 0;
	if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
		return "unknown";
	snprintf(buf, sizeof(buf), "%d.%d", major, minor);
	return buf;
}

char *jit_flags(const struct jit_options *opts, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "--gpu-architecture=%s", opts->arch);
	for (size_t i = 0; i < ARRAY_SIZE(fixed_flags) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " %s", fixed_flags[i]);
	return buf;
}

/* Copy src into dst[len] on one line: newlines become " | ", tabs spaces. */
static void one_line(char *dst, size_t len, const char *src)
{
	size_t n = 0;
	for (; *src && n + 4 < len; src++) {
		if (*src == '\n') {
			if (src[1])
				n += (size_t)snprintf(dst + n, len - n, " | ");
		} else {
			dst[n++] = (*src == '\t' || *src == '\r') ? ' ' : *src;
		}
	}
	dst[n] = '\0';
}

/* The part of a compile log worth a message: from the first line naming
 * an error on. */
static const char *log_excerpt(const char *log)
{
	const char *e = strstr(log, "error");
	if (!e)
		e = strstr(log, "fatal");
	if (!e)
		return log;
	while (e > log && e[-1] != '\n')
		e--;
	return e;
}

static void hash_unit(struct service *sv, struct unit *u)
{
	uint64_t h = hash_str(HASH_INIT, CACHE_FORMAT);
	h = hash_str(h, u->text);
	h = hash_str(h, u->name);
	h = hash_str(h, sv->version);
	h = hash_str(h, sv->flags);
	hash_hex(h, u->hash);
}

static void hash_batch(struct service *sv, struct batch *b)
{
	uint64_t h = hash_str(HASH_INIT, CACHE_FORMAT);
	h = hash_str(h, sv->units[b->first].text);
	h = hash_str(h, sv->version);
	h = hash_str(h, sv->flags);
	for (int i = 0; i < b->count; i++)
		h = hash_str(h, sv->units[b->first + i].name);
	hash_hex(h, b->hash);
}

static void cubin_path(const struct jit_options *opts, const char *batch, char *out, size_t len)
{
	snprintf(out, len, "%s/b/%s.cubin", opts->cache_dir, batch);
}

/* Fill it from the cache entry i/<hash>. Returns 1 on a hit, 0 otherwise. */
static int cache_lookup(const struct jit_options *opts, const char *hash, struct jit_item *it)
{
	char *path = xasprintf("%s/i/%s", opts->cache_dir, hash);
	char *text = read_file(path, NULL);
	free(path);
	if (!text)
		return 0;
	char batch[17];
	int hit = sscanf(text, "%16s %511s %d %d %d", batch, it->lowered, &it->regs,
			 &it->local_bytes, &it->smem_bytes) == 5;
	free(text);
	if (!hit)
		return 0;
	cubin_path(opts, batch, it->cubin, sizeof(it->cubin));
	if (access(it->cubin, R_OK))
		return 0;
	it->ok = 1;
	it->cached = 1;
	return 1;
}

/* The decimal number that ends just before p in line, or -1. */
static int number_before(const char *line, const char *p)
{
	const char *s = p;
	while (s > line && s[-1] >= '0' && s[-1] <= '9')
		s--;
	return s < p ? atoi(s) : -1;
}

/*
 * Per-function figures from the ptxas -v part of an NVRTC log:
 *   ptxas info    : Function properties for <lowered>
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, ...
 *   ptxas info    : Used 54 registers, used 1 barriers, 128 bytes smem
 * Leaves -1 in what it cannot find; smem is 0 when registers were found
 * and no smem figure was printed.
 */
static void parse_ptxas(const char *log, const char *lowered, int *regs, int *local, int *smem)
{
	static const char entry[] = "Compiling entry function '";
	static const char props[] = "Function properties for ";
	size_t want = strlen(lowered);
	int current = 0;
	*regs = *local = *smem = -1;
	for (const char *line = log; line && *line; ) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *p;
		char buf[1024];
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if ((p = strstr(buf, entry))) {
			p += sizeof(entry) - 1;
			current = !strncmp(p, lowered, want) && p[want] == '\'';
		} else if ((p = strstr(buf, props))) {
			current = !strcmp(p + sizeof(props) - 1, lowered);
		} else if (current && (p = strstr(buf, " bytes stack frame"))) {
			*local = number_before(buf, p);
		} else if (current && (p = strstr(buf, "Used "))) {
			*regs = atoi(p + 5);
			p = strstr(buf, " bytes smem");
			*smem = p ? number_before(buf, p) : 0;
		}
		line = end ? end + 1 : NULL;
	}
}

/* Write one result line; messages are already one line. */
static void report(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int fd, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	for (ssize_t off = 0, w; off < n; off += w)
		if ((w = write(fd, line + off, (size_t)(n - off))) <= 0)
			return;
}

/* Fail every unit of the batch (or the batch as a whole) with NVRTC's
 * error string and the log excerpt. */
static void report_failure(const struct batch *b, int fd, const char *what,
			   nvrtcResult r, const char *log)
{
	char msg[512], flat[480];
	one_line(flat, sizeof(flat), log ? log_excerpt(log) : "");
	snprintf(msg, sizeof(msg), "%s: %s%s%s", what, nvrtcGetErrorString(r),
		 *flat ? ": " : "", flat);
	if (b->count > 1) {
		report(fd, "B\t%s\n", msg);
		return;
	}
	report(fd, "F\t%d\t%s\n", b->first, msg);
}

static char *program_log(nvrtcProgram prog)
{
	size_t size = 0;
	if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS)
		return xstrdup("");
	char *log = xcalloc(1, size + 1);
	if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
		log[0] = '\0';
	return log;
}

/* Publish the batch's cubin, then the index entry of each unit, and report
 * them. The cubin goes first so an entry never names a missing file. */
static void publish(struct service *sv, const struct batch *b, int fd, nvrtcProgram prog,
		    const char *log)
{
	const struct jit_options *opts = sv->opts;
	size_t size = 0;
	nvrtcResult r = nvrtcGetCUBINSize(prog, &size);
	char *cubin = NULL;
	if (r == NVRTC_SUCCESS) {
		cubin = xmalloc(size);
		r = nvrtcGetCUBIN(prog, cubin);
	}
	if (r != NVRTC_SUCCESS) {
		free(cubin);
		report_failure(b, fd, "nvrtcGetCUBIN", r, NULL);
		return;
	}
	char path[PATH_MAX];
	cubin_path(opts, b->hash, path, sizeof(path));
	if (write_file_atomic(path, cubin, size)) {
		report(fd, "W\tcannot write %s: %s\n", path, strerror(errno));
		free(cubin);
		return;
	}
	free(cubin);
	for (int i = 0; i < b->count; i++) {
		const struct unit *u = &sv->units[b->first + i];
		const char *lowered = NULL;
		r = nvrtcGetLoweredName(prog, u->name, &lowered);
		if (r != NVRTC_SUCCESS || !lowered || !*lowered) {
			report(fd, "F\t%d\tnvrtcGetLoweredName: %s\n", b->first + i,
			       nvrtcGetErrorString(r));
			continue;
		}
		int regs, local, smem;
		parse_ptxas(log, lowered, &regs, &local, &smem);
		char *entry = xasprintf("%s %s %d %d %d\n", b->hash, lowered, regs, local, smem);
		char *ipath = xasprintf("%s/i/%s", opts->cache_dir, u->hash);
		if (write_file_atomic(ipath, entry, strlen(entry)))
			report(fd, "W\tcannot write %s: %s\n", ipath, strerror(errno));
		else
			report(fd, "O\t%d\t%s\t%d\t%d\t%d\n", b->first + i, lowered, regs, local, smem);
		free(ipath);
		free(entry);
	}
}

/* In the child: compile batch b, publish, report to fd. */
static void compile_batch(struct service *sv, const struct batch *b, int fd)
{
	const struct jit_options *opts = sv->opts;
	const struct unit *first = &sv->units[b->first];
	nvrtcProgram prog;
	nvrtcResult r = nvrtcCreateProgram(&prog, first->text, first->source_name, 0, NULL, NULL);
	if (r != NVRTC_SUCCESS) {
		report_failure(b, fd, "nvrtcCreateProgram", r, NULL);
		return;
	}
	for (int i = 0; i < b->count; i++) {
		r = nvrtcAddNameExpression(prog, sv->units[b->first + i].name);
		if (r != NVRTC_SUCCESS) {
			report_failure(b, fd, "nvrtcAddNameExpression", r, NULL);
			goto cleanup;
		}
	}
	char arch[64], include[PATH_MAX + 3];
	snprintf(arch, sizeof(arch), "--gpu-architecture=%s", opts->arch);
	snprintf(include, sizeof(include), "-I%s", opts->cuda_include);
	const char *options[2 + ARRAY_SIZE(fixed_flags)] = { arch, include };
	for (size_t i = 0; i < ARRAY_SIZE(fixed_flags); i++)
		options[2 + i] = fixed_flags[i];
	r = nvrtcCompileProgram(prog, (int)ARRAY_SIZE(options), options);
	char *log = program_log(prog);
	if (r != NVRTC_SUCCESS)
		report_failure(b, fd, "nvrtcCompileProgram", r, log);
	else
		publish(sv, b, fd, prog, log);
	free(log);
cleanup:
	nvrtcDestroyProgram(&prog);
}

static int start_child(struct service *sv, int bi)
{
	int fds[2];
	if (pipe(fds))
		return error("cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return error("cannot fork a compile process: %s", strerror(errno));
	}
	if (pid == 0) {
		/* a compile outliving its tuner is wasted work */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		compile_batch(sv, &sv->batches[bi], fds[1]);
		_exit(0);
	}
	close(fds[1]);
	struct child *c = &sv->children[sv->nchildren++];
	*c = (struct child){ .pid = pid, .fd = fds[0], .batch = bi, .started = now_seconds() };
	return 0;
}

/* Apply one result line of a child to its unit. Returns 1 when the line
 * says the whole batch failed, else 0. */
static int apply_line(struct service *sv, const struct batch *b, char *line)
{
	char *f[6];
	int n = 0;
	for (char *p = line; n < 6; ) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (!strcmp(f[0], "B"))
		return 1;
	if (!strcmp(f[0], "W") && n >= 2) {
		/* the cache, not the candidate: the service stops (run_batches) */
		if (!sv->write_error[0])
			snprintf(sv->write_error, sizeof(sv->write_error), "%s", f[1]);
		return 0;
	}
	if (n < 3)
		return 0;
	int ui = atoi(f[1]);
	if (ui < b->first || ui >= b->first + b->count)
		return 0;
	struct unit *u = &sv->units[ui];
	if (!strcmp(f[0], "O") && n == 6) {
		u->ok = 1;
		memcpy(u->batch, b->hash, sizeof(u->batch));
		snprintf(u->lowered, sizeof(u->lowered), "%s", f[2]);
		u->regs = atoi(f[3]);
		u->local_bytes = atoi(f[4]);
		u->smem_bytes = atoi(f[5]);
	} else {
		snprintf(u->error, sizeof(u->error), "%s", f[2]);
	}
	u->done = 1;
	return 0;
}

/* Split a batch that failed as a whole into batches of one. */
static void requeue_singly(struct service *sv, const struct batch *b)
{
	for (int i = 0; i < b->count; i++) {
		struct batch *s = &sv->batches[sv->nbatches++];
		s->first = b->first + i;
		s->count = 1;
		hash_batch(sv, s);
	}
}

/* Reap child ci (its pipe is at EOF, or it was killed for why). Returns
 * the number of items its batch resolved. */
static int finish_child(struct service *sv, int ci, const char *why)
{
	struct child *c = &sv->children[ci];
	struct batch b = sv->batches[c->batch];
	int status = 0, whole = 0, resolved = 0;
	if (why)
		kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	close(c->fd);
	if (!why) {
		c->out = xrealloc(c->out, c->len + 1);
		c->out[c->len] = '\0';
		for (char *line = c->out, *nl; *line; line = nl + 1) {
			if (!(nl = strchr(line, '\n')))
				break;   /* a torn last line: its unit fails below */
			*nl = '\0';
			whole |= apply_line(sv, &b, line);
		}
	}
	if (whole) {
		requeue_singly(sv, &b);
	} else {
		char died[128];
		if (!why) {
			if (WIFSIGNALED(status))
				snprintf(died, sizeof(died), "compile process killed by signal %d",
					 WTERMSIG(status));
			else
				snprintf(died, sizeof(died), "compile process exited with status %d",
					 WEXITSTATUS(status));
			why = died;
		}
		for (int i = 0; i < b.count; i++) {
			struct unit *u = &sv->units[b.first + i];
			if (!u->done) {
				snprintf(u->error, sizeof(u->error), "%s", why);
				u->done = 1;
			}
			resolved += u->nitems;
		}
	}
	free(c->out);
	sv->children[ci] = sv->children[--sv->nchildren];
	return resolved;
}

/* Read what child ci wrote. Returns 1 at EOF. */
static int drain_child(struct child *c)
{
	for (;;) {
		if (c->cap - c->len < 4096)
			c->out = xrealloc(c->out, c->cap = c->cap * 2 + 4096);
		ssize_t got = read(c->fd, c->out + c->len, c->cap - c->len - 1);
		if (got > 0) {
			c->len += (size_t)got;
			return 0;
		}
		if (got == 0)
			return 1;
		if (errno != EINTR)
			return 1;
	}
}

/* Run every batch, at most maxchildren at a time. Returns 0, or -1 when
 * no child could be started. */
static int run_batches(struct service *sv, int *done, int total,
		       void (*progress)(void *, int, int), void *ctx)
{
	const double deadline = sv->opts->deadline_s;
	struct pollfd *pfd = xcalloc((size_t)sv->maxchildren, sizeof(*pfd));
	int ret = 0;
	while (sv->next_batch < sv->nbatches || sv->nchildren) {
		while (sv->nchildren < sv->maxchildren && sv->next_batch < sv->nbatches) {
			if (start_child(sv, sv->next_batch)) {
				ret = -1;
				goto cleanup;
			}
			sv->next_batch++;
		}
		int timeout = -1;
		double now = now_seconds();
		for (int i = 0; i < sv->nchildren; i++) {
			pfd[i] = (struct pollfd){ .fd = sv->children[i].fd, .events = POLLIN };
			if (deadline > 0) {
				double left = sv->children[i].started + deadline - now;
				int ms = left > 0 ? (int)(left * 1000) + 1 : 0;
				if (timeout < 0 || ms < timeout)
					timeout = ms;
			}
		}
		if (poll(pfd, (nfds_t)sv->nchildren, timeout) < 0 && errno != EINTR) {
			ret = error("poll: %s", strerror(errno));
			goto cleanup;
		}
		now = now_seconds();
		for (int i = sv->nchildren - 1; i >= 0; i--) {
			struct child *c = &sv->children[i];
			int finished = 0;
			const char *why = NULL;
			if (pfd[i].revents)
				finished = drain_child(c);
			char late[64];
			if (!finished && deadline > 0 && now - c->started >= deadline) {
				finished = 1;
				snprintf(late, sizeof(late), "compile deadline passed (%g s)", deadline);
				why = late;
			}
			if (!finished)
				continue;
			*done += finish_child(sv, i, why);
			if (sv->write_error[0]) {
				ret = error("the kernel cache cannot be written (%s): the command "
					    "stops with nothing recorded for it; free the space or "
					    "give --cache another folder, then rerun", sv->write_error);
				goto cleanup;
			}
			if (progress)
				progress(ctx, *done, total);
		}
	}
cleanup:
	while (sv->nchildren)
		finish_child(sv, sv->nchildren - 1, "compile service stopped");
	free(pfd);
	return ret;
}

static int compare_items(const void *a, const void *b, void *arg)
{
	const struct jit_item *items = arg;
	const struct jit_item *x = &items[*(const int *)a], *y = &items[*(const int *)b];
	int c = strcmp(x->source_name, y->source_name);
	return c ? c : strcmp(x->name, y->name);
}

/* Units for the pending items (sorted, repeats merged), then batches of
 * at most batch consecutive units of one source. unit_of[i] gets item i's
 * unit. */
static void plan_batches(struct service *sv, struct jit_item *items, int *pending,
			 int npending, int *unit_of, int batch)
{
	qsort_r(pending, (size_t)npending, sizeof(*pending), compare_items, items);
	sv->units = xcalloc((size_t)npending, sizeof(*sv->units));
	for (int i = 0; i < npending; i++) {
		struct jit_item *it = &items[pending[i]];
		struct unit *last = sv->nunits ? &sv->units[sv->nunits - 1] : NULL;
		if (!last || strcmp(last->source_name, it->source_name) || strcmp(last->name, it->name)) {
			last = &sv->units[sv->nunits++];
			last->source_name = it->source_name;
			last->text = tmpl_source_text(it->source_name);
			last->name = it->name;
			hash_unit(sv, last);
		}
		last->nitems++;
		unit_of[pending[i]] = (int)(last - sv->units);
	}
	/* room for every unit twice: once in a batch, once retried alone */
	sv->batches = xcalloc((size_t)sv->nunits * 2 + 1, sizeof(*sv->batches));
	for (int u = 0; u < sv->nunits; ) {
		struct batch *b = &sv->batches[sv->nbatches++];
		b->first = u;
		b->count = 0;
		while (u < sv->nunits && b->count < batch &&
		       !strcmp(sv->units[u].source_name, sv->units[b->first].source_name)) {
			b->count++;
			u++;
		}
		hash_batch(sv, b);
	}
}

static void reset_item(struct jit_item *it)
{
	it->ok = 0;
	it->cached = 0;
	it->cubin[0] = '\0';
	it->lowered[0] = '\0';
	it->regs = it->local_bytes = it->smem_bytes = -1;
	it->error[0] = '\0';
	it->code[0] = '\0';
}

static void copy_result(const struct service *sv, const struct unit *u, struct jit_item *it)
{
	if (!u->ok) {
		snprintf(it->error, sizeof(it->error), "%s", u->error);
		return;
	}
	it->ok = 1;
	cubin_path(sv->opts, u->batch, it->cubin, sizeof(it->cubin));
	snprintf(it->lowered, sizeof(it->lowered), "%s", u->lowered);
	it->regs = u->regs;
	it->local_bytes = u->local_bytes;
	it->smem_bytes = u->smem_bytes;
}

static int prepare_cache(const struct jit_options *opts)
{
	char *b = xasprintf("%s/b", opts->cache_dir);
	char *i = xasprintf("%s/i", opts->cache_dir);
	int ret = 0;
	if (mkdir_p(b) || mkdir_p(i))
		ret = error("cannot create the cache under %s: %s", opts->cache_dir, strerror(errno));
	free(b);
	free(i);
	return ret;
}

int jit_compile_all(const struct jit_options *opts, struct jit_item *items, int n,
		    void (*progress)(void *ctx, int done, int total), void *ctx)
{
	if (!opts->cuda_include || !opts->arch || !opts->cache_dir)
		return error("jit options need cuda_include, arch and cache_dir");
	if (prepare_cache(opts))
		return -1;
	struct service sv = { .opts = opts, .version = jit_nvrtc_version() };
	jit_flags(opts, sv.flags, sizeof(sv.flags));
	int batch = opts->batch > 0 ? opts->batch : DEFAULT_BATCH;
	if (batch > MAX_BATCH)
		batch = MAX_BATCH;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	sv.maxchildren = opts->nproc > 0 ? opts->nproc : (online > 0 ? (int)online : 1);

	int *pending = xcalloc((size_t)n + 1, sizeof(int));
	int *unit_of = xcalloc((size_t)n + 1, sizeof(int));
	int npending = 0, done = 0, ret = 0;
	for (int i = 0; i < n; i++) {
		struct jit_item *it = &items[i];
		reset_item(it);
		const char *text = tmpl_source_text(it->source_name);
		if (!text) {
			snprintf(it->error, sizeof(it->error), "no embedded source %s", it->source_name);
			done++;
			continue;
		}
		struct unit probe = { .text = text, .name = it->name };
		hash_unit(&sv, &probe);
		if (cache_lookup(opts, probe.hash, it)) {
			done++;
			continue;
		}
		reset_item(it);   /* a partial or stale entry leaves nothing behind */
		pending[npending++] = i;
	}
	plan_batches(&sv, items, pending, npending, unit_of, batch);
	if (sv.maxchildren > sv.nbatches)
		sv.maxchildren = sv.nbatches ? sv.nbatches : 1;
	sv.children = xcalloc((size_t)sv.maxchildren, sizeof(*sv.children));
	if (run_batches(&sv, &done, n, progress, ctx))
		ret = -1;
	for (int u = 0; u < sv.nunits; u++)
		if (!sv.units[u].done)
			snprintf(sv.units[u].error, sizeof(sv.units[u].error),
				 "not compiled: the compile service stopped");
	for (int i = 0; i < npending; i++)
		copy_result(&sv, &sv.units[unit_of[pending[i]]], &items[pending[i]]);
	free(sv.children);
	free(sv.batches);
	free(sv.units);
	free(unit_of);
	free(pending);
	return ret;
}

void jit_options_default(struct jit_options *o)
{
	static char inc[4096];
	const char *home = getenv("CUDA_HOME");
	if (home && *home)
		snprintf(inc, sizeof(inc), "%s/include", home);
	else
		snprintf(inc, sizeof(inc), "%s", GT_DEFAULT_CUDA_INCLUDE);
	memset(o, 0, sizeof(*o));
	o->cuda_include = inc;
	o->arch = GT_DEFAULT_ARCH;
	o->cache_dir = ".cache/gemmtab";
	o->nproc = (int)sysconf(_SC_NPROCESSORS_ONLN);
	o->batch = 16;
	o->deadline_s = 120;
}

const char *jit_item_code(struct jit_item *it, char *why, size_t len)
{
	if (!it->ok) {
		snprintf(why, len, "%s did not compile", it->name);
		return NULL;
	}
	if (!it->code[0] && sass_kernel_hash(it->cubin, it->lowered, it->code, why, len)) {
		it->code[0] = '\0';
		return NULL;
	}
	return it->code;
}
