/*
 * test_worker_proto.c: `gemmtab worker` end to end through its pipe
 * protocol on an H200. It links cmd_worker with a registry of its own (one
 * template, "probe", whose kernels come from tests/gpu/test_kernels.cu),
 * runs the worker in a child process on pipes, and checks each reply: a
 * right candidate is timed, a wrong one fails, static limits prune, a
 * missing cubin is a launch error, a malformed request an error, an
 * lt_algos with seeds_only=1 varies its seeds alone, and an illegal
 * address a fault that ends the worker with exit status 3.
 *
 * Usage: test_worker_proto TEST_KERNELS.cubin
 */
#include "check.h"
#include "commands.h"
#include "gpu.h"
#include "jit.h"
#include "proto.h"
#include "tmpl.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- the test registry: one template over the test kernels --- */

enum { V_DENSE, V_FAULT };
static const char *const variants[] = { "dense", "fault", NULL };
static const struct tmpl_param probe_params[] = {
	{ "threads", 1, 4096, NULL },
	{ "variant", 0, 1, variants },
};

static const char *probe_check(const struct shape *s, const long *p)
{
	(void)s;
	return p[0] % 32 ? "threads not a multiple of 32" : NULL;
}

static int probe_kernels(const struct shape *s, const long *p, char names[][TMPL_NAME_MAX],
			 int max)
{
	(void)s;
	(void)max;
	snprintf(names[0], TMPL_NAME_MAX, "%s", p[1] == V_FAULT ? "fault" : "naive_bf16");
	return 1;
}

static int probe_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	memset(out, 0, sizeof(*out));
	struct launch_step *st = &out->steps[0];
	long outputs = (long)m * s->n;
	out->nsteps = 1;
	st->kind = STEP_KERNEL;
	st->grid[0] = (unsigned)((outputs + p[0] - 1) / p[0]);
	st->grid[1] = st->grid[2] = 1;
	st->block[0] = (unsigned)p[0];
	st->block[1] = st->block[2] = 1;
	if (p[1] == V_FAULT) {
		st->nargs = 2;
		st->args[0].kind = ARG_Y;
		st->args[1].kind = ARG_INT;
		return 0;
	}
	const enum arg_kind kinds[] = { ARG_W, ARG_X, ARG_Y, ARG_M, ARG_N, ARG_K };
	st->nargs = 6;
	for (int i = 0; i < 6; i++)
		st->args[i].kind = kinds[i];
	return 0;
}

static const struct tmpl probe_tmpl = {
	.stem = "probe", .source = "tests/gpu/test_kernels.cu", .params = probe_params,
	.nparams = 2, .check = probe_check, .kernels = probe_kernels, .plan = probe_plan,
};
/* Replaces plan/registry.c: the worker knows only the probe template
 * (tmpl.c's lookups walk this list). */
const struct tmpl *const tmpl_all[] = { &probe_tmpl, NULL };

const char *jit_nvrtc_version(void)
{
	return "test";
}

/* --- a worker on pipes --- */

struct worker {
	pid_t pid;
	FILE *in, *out;         /* its stdin (we write), its stdout (we read) */
};

static int start_worker(struct worker *w)
{
	int to[2], from[2];
	if (pipe(to) || pipe(from))
		return -1;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		char *argv[] = { "worker", "--device", "0", NULL };
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		exit(cmd_worker(3, argv));
	}
	close(to[0]);
	close(from[1]);
	w->in = fdopen(to[1], "w");
	w->out = fdopen(from[0], "r");
	return w->in && w->out ? 0 : -1;
}

/* Send one request and parse the reply into r (caller kv_frees).
 * Returns 0, or -1 when the worker closed its stdout instead. */
static int ask(struct worker *w, const char *request, struct kv *r)
{
	char *line = NULL;
	size_t cap = 0;
	fprintf(w->in, "%s\n", request);
	fflush(w->in);
	if (getline(&line, &cap, w->out) <= 0) {
		free(line);
		memset(r, 0, sizeof(*r));
		return -1;
	}
	fprintf(stderr, "  > %s  < %s", request, line);
	int rc = kv_parse(line, r);
	free(line);
	return rc;
}

/* Close the worker's stdin and return its exit status (-1 if killed). */
static int stop_worker(struct worker *w)
{
	int status;
	fclose(w->in);
	fclose(w->out);
	if (waitpid(w->pid, &status, 0) != w->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static const char *cubin;
static struct worker wk;

/* unpooler_slice's shape: 1024 x 4096, bf16. */
#define SLICE "family=unpooler_slice n=1024 k=4096 w=bf16 x=bf16 y=bf16 tol=1e-2"

static void eval(const char *id, const char *params, const char *kernel, const char *file,
		 struct kv *r)
{
	char req[1024];
	snprintf(req, sizeof(req),
		 "eval id=%s phase=screen pairs=10 seed=42 " SLICE " m=8 tmpl=probe %s "
		 "nk=1 cubin0=%s name0=%s", id, params, file, kernel);
	CHECK_INT(ask(&wk, req, r), 0);
}

TEST(env_reply)
{
	struct kv r;
	CHECK_INT(ask(&wk, "env", &r), 0);
	CHECK_STR(r.op, "env");
	CHECK(kv_get_long(&r, "sm_count", 0) > 0);
	CHECK(kv_get_long(&r, "l2_bytes", 0) > 0);
	CHECK(kv_get(&r, "gpu_uuid") && !strncmp(kv_get(&r, "gpu_uuid"), "GPU-", 4));
	CHECK_STR(kv_get(&r, "nvrtc"), "test");
	CHECK(kv_get(&r, "cublaslt") && strchr(kv_get(&r, "cublaslt"), '.'));
	kv_free(&r);
}

TEST(right_candidate_is_timed)
{
	struct kv r;
	eval("e1", "threads=128 variant=dense", "naive_bf16", cubin, &r);
	CHECK_STR(kv_get(&r, "id"), "e1");
	CHECK_STR(kv_get(&r, "status"), "ok");
	CHECK(kv_get_double(&r, "err_global", 1) < 5e-3);
	CHECK(kv_get_double(&r, "base_us", 0) > 1);
	CHECK(kv_get_double(&r, "cand_us", 0) > 1);
	CHECK(kv_get_double(&r, "ratio", 0) > 0);
	CHECK(kv_get_double(&r, "ratio_lo", 9) <= kv_get_double(&r, "ratio", 0));
	CHECK_INT(kv_get_long(&r, "pairs", 0), 10);
	CHECK(kv_get_long(&r, "regs", 0) > 0);
	CHECK_INT(kv_get_long(&r, "local_bytes", -1), 0);
	kv_free(&r);
}

TEST(wrong_candidate_fails_untimed)
{
	struct kv r;
	eval("e2", "threads=128 variant=dense", "skip_last_row", cubin, &r);
	CHECK_STR(kv_get(&r, "status"), "fail");
	CHECK(kv_get(&r, "reason") && strstr(kv_get(&r, "reason"), "nan"));
	CHECK(kv_get(&r, "base_us") == NULL);
	kv_free(&r);
}

TEST(static_limits_prune)
{
	struct kv r;
	eval("e3", "threads=48 variant=dense", "naive_bf16", cubin, &r);
	CHECK_STR(kv_get(&r, "status"), "pruned");
	CHECK_STR(kv_get(&r, "reason"), "threads not a multiple of 32");
	kv_free(&r);
	eval("e4", "threads=2048 variant=dense", "naive_bf16", cubin, &r);
	CHECK_STR(kv_get(&r, "status"), "pruned");
	CHECK(kv_get(&r, "reason") && strstr(kv_get(&r, "reason"), "threads"));
	kv_free(&r);
}

TEST(load_and_request_errors)
{
	struct kv r;
	eval("e5", "threads=128 variant=dense", "naive_bf16", "/nonexistent.cubin", &r);
	CHECK_STR(kv_get(&r, "status"), "launch_error");
	CHECK(kv_get(&r, "reason") && strstr(kv_get(&r, "reason"), "cannot read cubin"));
	kv_free(&r);
	CHECK_INT(ask(&wk, "eval id=e6 phase=screen pairs=10 seed=1 " SLICE
		       " tmpl=probe threads=128 variant=dense nk=1", &r), 0);
	CHECK_STR(r.op, "error");
	CHECK_STR(kv_get(&r, "reason"), "missing m");
	kv_free(&r);
	CHECK_INT(ask(&wk, "eval id=e7 phase=screen pairs=10 seed=1 " SLICE
		       " m=8 tmpl=probe threads=128 variant=sideways nk=1", &r), 0);
	CHECK_STR(r.op, "error");
	CHECK_STR(kv_get(&r, "reason"), "bad variant=sideways");
	kv_free(&r);
	CHECK_INT(ask(&wk, "frobnicate id=x", &r), 0);
	CHECK_STR(r.op, "error");
	kv_free(&r);
}

TEST(baseline_and_floor_replies)
{
	struct kv r;
	CHECK_INT(ask(&wk, "baseline id=b1 family=router n=256 k=8192 w=fp32 x=bf16 y=fp32 m=8 "
		       "pairs=10", &r), 0);
	CHECK_STR(r.op, "baseline");
	CHECK(kv_get_double(&r, "cublas_us", 0) > 1);
	CHECK(kv_get(&r, "lt_algo") && strlen(kv_get(&r, "lt_algo")) > 0);
	kv_free(&r);
	CHECK_INT(ask(&wk, "floor family=slice bytes=8388608 pairs=10", &r), 0);
	CHECK_STR(r.op, "floor");
	CHECK(kv_get_double(&r, "gbps", 0) > 1000);
	kv_free(&r);
	CHECK_INT(ask(&wk, "overhead pairs=20", &r), 0);
	CHECK(kv_get_double(&r, "us", 0) > 0.3);
	kv_free(&r);
}

/* 1 when algorithm record a differs from b at most in its last value (the
 * cluster shape: tuner/worker/lt.h's attribute order), else 0. */
static int cluster_variant(const char *a, size_t alen, const char *b)
{
	const char *ca = memrchr(a, ',', alen), *cb = strrchr(b, ',');
	return ca && cb && ca - a == cb - b && !strncmp(a, b, (size_t)(ca - a));
}

/* lt_algos with a seed, varied (cluster shapes) as a climb's first step
 * asks and as a later one does (seeds_only=1): the later names the same
 * two proposals and the seed first, then nothing but the seed's variants,
 * and fewer algorithms than the first; a seeds_only other than 0 or 1 is
 * refused. */
TEST(lt_algos_seeds_only)
{
	static const char point[] = "family=qkv n=2304 k=8192 w=bf16 x=bf16 y=bf16 m=128 "
				    "orient=0 max=2 vary=cluster";
	char req[2048], seed[128], head[3][128] = { "", "", "" };
	struct kv r;
	snprintf(req, sizeof(req), "lt_algos id=l1 %s", point);
	CHECK_INT(ask(&wk, req, &r), 0);
	CHECK_STR(r.op, "lt_algos");
	CHECK(kv_get_long(&r, "count", 0) > 2);
	/* the seed: the last algorithm named, a proposal's variant */
	const char *algos = kv_get(&r, "algos"), *tail = algos ? strrchr(algos, ';') : NULL;
	CHECK(tail != NULL);
	snprintf(seed, sizeof(seed), "%s", tail ? tail + 1 : "");
	kv_free(&r);

	snprintf(req, sizeof(req), "lt_algos id=l2 %s seeds=%s", point, seed);
	CHECK_INT(ask(&wk, req, &r), 0);
	const long all = kv_get_long(&r, "count", 0);
	algos = kv_get(&r, "algos");
	for (int i = 0; i < 3 && algos && *algos; i++) {
		size_t len = strcspn(algos, ";");
		snprintf(head[i], sizeof(head[i]), "%.*s", (int)len, algos);
		algos += len + (algos[len] == ';');
	}
	CHECK_STR(head[2], seed);
	kv_free(&r);
	snprintf(req, sizeof(req), "lt_algos id=l3 %s seeds=%s seeds_only=1", point, seed);
	CHECK_INT(ask(&wk, req, &r), 0);
	const long only = kv_get_long(&r, "count", 0);
	int i = 0, strays = 0;
	for (const char *p = kv_get(&r, "algos"); p && *p; i++) {
		size_t len = strcspn(p, ";");
		if (i < 3)
			CHECK(strlen(head[i]) == len && !strncmp(p, head[i], len));
		else
			strays += !cluster_variant(p, len, seed);
		p += len + (p[len] == ';');
	}
	kv_free(&r);
	fprintf(stderr, "  named %ld with the seed, %ld with seeds_only (%d not the seed's)\n", all,
		only, strays);
	/* fewer: run 241 named 18 and 10 (the second proposal's variants are
	 * what seeds_only leaves out) */
	CHECK(i == only && only >= 3 && only < all);
	CHECK_INT(strays, 0);

	snprintf(req, sizeof(req), "lt_algos id=l4 %s seeds=%s seeds_only=2", point, seed);
	CHECK_INT(ask(&wk, req, &r), 0);
	CHECK_STR(r.op, "error");
	CHECK(kv_get(&r, "reason") && !strcmp(kv_get(&r, "reason"), "bad seeds_only=2"));
	kv_free(&r);
}

TEST(fault_ends_the_worker)
{
	struct kv r;
	eval("e8", "threads=32 variant=fault", "fault", cubin, &r);
	CHECK_STR(kv_get(&r, "status"), "fault");
	CHECK(kv_get(&r, "reason") && strstr(kv_get(&r, "reason"), "cudaErrorIllegalAddress"));
	kv_free(&r);
	CHECK_INT(stop_worker(&wk), 3);
	wk.pid = 0;
}

TEST(quit_exits_cleanly)
{
	struct worker w;
	CHECK_INT(start_worker(&w), 0);
	fprintf(w.in, "quit\n");
	fflush(w.in);
	CHECK_INT(stop_worker(&w), 0);
}

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		T(env_reply), T(right_candidate_is_timed), T(wrong_candidate_fails_untimed),
		T(static_limits_prune), T(load_and_request_errors), T(baseline_and_floor_replies),
		T(lt_algos_seeds_only), T(fault_ends_the_worker), T(quit_exits_cleanly),
	};
	int passed = 0, failed = 0;
	if (argc != 2) {
		fprintf(stderr, "usage: %s TEST_KERNELS.cubin\n", argv[0]);
		return 2;
	}
	cubin = argv[1];
	signal(SIGPIPE, SIG_IGN);       /* a dead worker shows as a missing reply */
	if (start_worker(&wk))
		die("cannot start a worker");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		check_failed_ = 0;
		cases[i].fn();
		printf("%s - %s\n", check_failed_ ? "not ok" : "ok", cases[i].name);
		fflush(stdout);
		if (check_failed_)
			failed++;
		else
			passed++;
	}
	if (wk.pid)
		stop_worker(&wk);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
