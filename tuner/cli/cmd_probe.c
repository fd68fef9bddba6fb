/*
 * cmd_probe.c: `gemmtab probe`, what this GPU is and what it can do under
 * the timing method: device and library versions, the replay overhead and
 * the practical streaming-read floor for each family's weight bytes.
 * Everything is printed and stored in the database's probe table, under
 * the database's lock (lock.h).
 */
#include "commands.h"
#include "db.h"
#include "lock.h"
#include "options.h"
#include "space.h"
#include "supervise.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* The most --pairs accepted: far more than a figure needs, so only a typo
 * is refused. */
#define MAX_PAIRS 100000

static const char usage_text[] =
	"usage: gemmtab probe [--db FILE] [--space FILE] [--device N] [--pairs N]\n"
	"  --db FILE      database to record into [gemmtab.db]\n"
	"  --space FILE   families whose weight bytes to measure [search_spaces/h200.yaml]\n"
	"  --device N     GPU [0]\n"
	"  --pairs N      timed repetitions per figure [50]\n";

static int probe_call(struct worker *w, const char *req, struct kv *r, const char *want)
{
	if (worker_call(w, req, 300, r, NULL) != CALL_OK)
		return error("probe: the worker gave no reply to '%.*s'", (int)strcspn(req, " \n"), req);
	if (strcmp(r->op, want)) {
		error("probe: %s", kv_get(r, "reason") ? kv_get(r, "reason") : r->op);
		kv_free(r);
		return -1;
	}
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	const char *db_path = "gemmtab.db", *space = "search_spaces/h200.yaml";
	int device = 0, pairs = 50, rc = 1;
	struct space sp;
	struct db *db = NULL;
	struct worker w = { 0 };
	struct env_info env;
	long long env_id;
	struct kv r;
	struct db_lock lock = { -1 };
	char req[512];
	const struct opt opts[] = {
		OPT_STRING("db", &db_path, 0),
		OPT_STRING("space", &space, 0),
		OPT_INT("device", &device, 0, OPT_MAX_DEVICE),
		OPT_INT("pairs", &pairs, 0, MAX_PAIRS),
		OPT_END(),
	};

	int st = parse_options("probe", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (space_load(space, &sp))
		return 2;
	if (worker_device_check("probe")) {
		space_free(&sp);
		return 1;
	}
	if (db_lock_take(db_path, "probe", &lock) || db_open(db_path, &db))
		goto out;
	if (worker_start(&w, device) || worker_env(&w, &env) || db_env_id(db, &env, &env_id))
		goto out;
	printf("device      %s (%s), %d SMs, L2 %lld bytes, SM clock %d MHz, memory clock %d MHz\n",
	       env.gpu_name, env.gpu_uuid, env.sm_count, env.l2_bytes, env.sm_clock_mhz,
	       env.mem_clock_mhz);
	printf("versions    driver %s, CUDA runtime %s, NVRTC %s, cuBLAS %s, cuBLASLt %s\n",
	       env.driver, env.cuda, env.nvrtc, env.cublas, env.cublaslt);

	snprintf(req, sizeof(req), "overhead pairs=%d\n", pairs);
	if (probe_call(&w, req, &r, "overhead"))
		goto out;
	double overhead = kv_get_double(&r, "us", -1);
	kv_free(&r);
	printf("overhead    %.2f us per graph replay (one empty kernel, flushed)\n", overhead);
	db_record_probe(db, env_id, "overhead", NULL, 0, overhead, NULL);

	printf("%-16s %12s %10s %10s  %s\n", "floor", "bytes", "us", "GB/s", "config");
	for (int i = 0; i < sp.nshapes; i++) {
		const struct shape *s = &sp.shapes[i];
		double bytes = (double)s->n * s->k * dtype_size(s->w);
		snprintf(req, sizeof(req), "floor family=%s bytes=%.0f pairs=%d\n", s->family, bytes,
			 pairs);
		if (probe_call(&w, req, &r, "floor"))
			goto out;
		double us = kv_get_double(&r, "us", -1);
		const char *config = kv_get(&r, "config");
		printf("%-16s %12.0f %10.2f %10.1f  %s\n", s->family, bytes, us,
		       kv_get_double(&r, "gbps", -1), config ? config : "");
		if (db_record_probe(db, env_id, "floor", s->family, bytes, us, config)) {
			kv_free(&r);
			goto out;
		}
		kv_free(&r);
	}
	rc = 0;
out:
	worker_stop(&w);
	db_close(db);
	db_lock_drop(&lock);
	space_free(&sp);
	return rc;
}
