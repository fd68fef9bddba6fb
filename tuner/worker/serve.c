/*
 * serve.c: the worker's request loop (worker_serve): one request per line
 * on stdin, one reply per line on stdout (proto.h), each handed to its
 * handler by op; diagnostics go to stderr. A CUDA error after which the
 * context is unusable is answered with status fault, and the worker then
 * exits with EXIT_FAULT so the supervisor starts a fresh one; anything
 * else is answered and the loop goes on.
 */
#include "worker.h"
#include "gpu.h"
#include "bench.h"
#include "launch.h"
#include "proto.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int worker_check_only;

static const struct {
	const char *op;
	void (*fn)(struct gpu *g, const struct kv *r);
} requests[] = {
	{ "env", worker_handle_env },
	{ "overhead", worker_handle_overhead },
	{ "floor", worker_handle_floor },
	{ "baseline", worker_handle_baseline },
	{ "lt_algos", worker_handle_lt_algos },
	{ "eval", worker_handle_eval },
	{ "rt", worker_handle_rt },
};

int worker_serve(int device)
{
	struct gpu g;
	char *line = NULL;
	size_t cap = 0;
	const char *only = getenv("GEMMTAB_CHECK_ONLY");
	worker_check_only = only && !strcmp(only, "1");
	if (gpu_open(&g, device))
		die("cannot open cuda device %d", device);
	/* the supervisor set PR_SET_PDEATHSIG before exec; a worker whose
	 * supervisor is gone all the same (started by hand, or re-parented)
	 * does no more work */
	pid_t parent = getppid();
	while (getline(&line, &cap, stdin) > 0) {
		struct kv req;
		if (getppid() != parent)
			break;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (kv_parse(line, &req)) {
			worker_reply_error(NULL, "malformed request");
			continue;
		}
		int quit = !strcmp(req.op, "quit"), known = quit;
		for (size_t i = 0; i < ARRAY_SIZE(requests) && !known; i++)
			if (!strcmp(req.op, requests[i].op)) {
				requests[i].fn(&g, &req);
				known = 1;
			}
		if (!known) {
			char reason[64];
			snprintf(reason, sizeof(reason), "unknown request '%.32s'", req.op);
			worker_reply_error(kv_get(&req, "id"), reason);
		}
		kv_free(&req);
		if (quit)
			break;
	}
	free(line);
	bench_free(g.bench);
	g.bench = NULL;
	gpu_modules_free(&g);
	gpu_close(&g);
	return 0;
}
