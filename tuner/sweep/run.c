/*
 * run.c: the sweep's two entries (sweep.h). sweep_run takes the
 * database's lock, starts a worker per GPU, refits the tasks to the GPU's
 * own figures, asks cuBLASLt's heuristic, compiles, and runs the phases
 * (schedule.c), then the cuBLASLt climb's later steps, each seeded by
 * what the ones before recorded. A rerun skips what the database holds
 * already for the same environment.
 */
#include "engine.h"
#include "lock.h"
#include "seed.h"
#include "tasks.h"
#include "util.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sweep_dry_run(struct space *sp, struct tasklist *tl, const struct sweep_opts *o,
		  int strict)
{
	struct sweep sw = {
		.sp = sp, .tl = tl, .db_path = o->db_path, .retest = o->retest, .dry = 1,
		.search = o->search, .parts = o->search_parts, .jit = o->jit,
	};
	int empty = sweep_print_plan(&sw, o->family);
	int missing = sweep_print_coverage(&sw, o->family);
	if (strict && (empty || missing))
		fprintf(stderr, "gemmtab sweep: --strict: %d shapes get no candidate; %d times a "
			"template gets none at a shape of its dtypes (the lines 'templates at' "
			"say why)\n", empty, missing);
	if (sweep_print_resume(&sw, o->family))
		return 1;
	return strict && (empty || missing);
}

/* Start every GPU's worker and read its environment into *env (the
 * first GPU's) and sw->env_id: identical GPUs share one environment; the
 * rest of a host's are swept on their own. Returns 0 or -1 (message
 * printed). */
static int start_workers(struct sweep *sw, struct env_info *env)
{
	if (worker_start(&sw->devs[0].w, sw->devs[0].device) || worker_env(&sw->devs[0].w, env) ||
	    db_env_id(sw->db, env, &sw->env_id))
		return -1;
	for (int d = 1; d < sw->ndev; d++) {
		struct env_info e;
		long long id;
		if (worker_start(&sw->devs[d].w, sw->devs[d].device) ||
		    worker_env(&sw->devs[d].w, &e) || db_env_id(sw->db, &e, &id))
			return -1;
		if (id != sw->env_id)
			return error("sweep: GPU %d (%s) is not like GPU %d (%s): its environment "
				     "differs (GPU, clocks, driver or libraries); --devices takes "
				     "identical GPUs, so sweep it on its own", sw->devs[d].device,
				     e.gpu_name, sw->devs[0].device, env->gpu_name);
	}
	return 0;
}

/* The constraints' device figures are the GPU's: the tasks were built
 * with the profile's, for the checks before the worker ran; where the
 * two differ, build them again with the GPU's. Returns 0 or -1. */
static int fit_device(struct sweep *sw, const struct env_info *env, const char *family)
{
	struct space *sp = sw->sp;
	struct device_profile gpu = sp->dev;
	snprintf(gpu.name, sizeof(gpu.name), "%.63s", env->gpu_name);
	gpu.sm_count = env->sm_count > 0 ? env->sm_count : gpu.sm_count;
	gpu.l2_bytes = env->l2_bytes > 0 ? env->l2_bytes : gpu.l2_bytes;
	gpu.smem_optin = env->smem_optin > 0 ? env->smem_optin : gpu.smem_optin;
	gpu.smem_sm = env->smem_sm > 0 ? env->smem_sm : gpu.smem_sm;
	gpu.smem_reserved = env->smem_reserved > 0 ? env->smem_reserved : gpu.smem_reserved;
	if (gpu.sm_count == sp->dev.sm_count && gpu.l2_bytes == sp->dev.l2_bytes &&
	    gpu.smem_optin == sp->dev.smem_optin && gpu.smem_sm == sp->dev.smem_sm &&
	    gpu.smem_reserved == sp->dev.smem_reserved)
		return 0;
	fprintf(stderr, "sweep: the constraints read %s's figures (%ld SMs, %ld B a block, "
		"%ld B an SM), not %s's\n", gpu.name, gpu.sm_count, gpu.smem_optin,
		gpu.smem_sm, sp->dev.name);
	tasks_free(sw->tl);
	if (space_set_device(sp, &gpu) || tasks_build(sp, family, sw->tl))
		return -1;
	for (int si = 0; si < sp->nshapes && sp->ngrids; si++)
		if (!sweep_shape_runnable(sw, si) &&
		    (!family || !strcmp(family, sp->shapes[si].family)))
			sweep_say_no_candidate(sw, si, gpu.name);
	return 0;
}

/* The cuBLASLt search's first step, said. Returns 0 or -1. */
static int lt_first_step(struct sweep *sw, const char *family)
{
	const struct space *sp = sw->sp;
	int added = sweep_lt_step(sw, family, 1);
	if (added < 0)
		return -1;
	char seeded[64] = "";
	if (sp->lt.vary_seeds)
		snprintf(seeded, sizeof(seeded), "; %d seeds from the database varied too",
			 sw->lt_seeds);
	fprintf(stderr, "sweep: cuBLASLt's heuristic named %d blas_lt candidates "
		"(top %d per orientation%s%s)\n", added, sp->lt.top,
		lt_varies(&sp->lt) ? ", with the variants cuBLASLt takes" : "", seeded);
	return 0;
}

/* Say what is swept, on what. */
static void announce(const struct sweep *sw, const char *space, const struct env_info *env)
{
	if (sw->ndev > 1) {
		char list[512] = "";
		size_t used = 0;
		for (int d = 0; d < sw->ndev && used < sizeof(list); d++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
						 d ? "," : "", sw->devs[d].device);
		fprintf(stderr, "sweep: %s on %d x %s (%d SMs; GPUs %s), env %lld, %d candidates\n",
			space, sw->ndev, env->gpu_name, env->sm_count, list, sw->env_id, sw->tl->n);
	} else {
		fprintf(stderr, "sweep: %s on %s (%d SMs), env %lld, %d candidates\n", space,
			env->gpu_name, env->sm_count, sw->env_id, sw->tl->n);
	}
	if (sw->retest_since)
		fprintf(stderr, "sweep: finalists retested before %s are retested again (to "
			"resume, rerun with --retest-since %s)\n", sw->retest_since,
			sw->retest_since);
}

/* The ids of every task, its kernels compiled where the database does
 * not hold its screen, and what never reaches a GPU recorded. Returns 0
 * or -1. */
static int prepare_tasks(struct sweep *sw)
{
	sweep_load_ids(sw, 0);
	char *pending = xcalloc((size_t)sw->tl->n, 1);
	for (int i = 0; i < sw->tl->n; i++)
		pending[i] = !sw->done[i];
	int compiled = tasks_compile(sw->tl, &sw->jit, 0, pending);
	free(pending);
	if (compiled)
		return -1;
	sweep_resolve_ids(sw, 0);
	sweep_record_static(sw, 0);
	return 0;
}

/* The cuBLASLt search's later steps, each seeded by what the ones before
 * recorded, each screened, retested and ranged like the first. Returns 0,
 * or 1 when a step failed (the steps before stand). */
static int lt_later_steps(struct sweep *sw, const char *family)
{
	for (int step = 2; step <= sw->sp->lt.vary_steps && !sweep_time_up(sw); step++) {
		const int from = sw->tl->n;
		sw->lt_seeds = 0;
		progress_end();
		if (sweep_lt_step(sw, family, step) < 0) {
			fprintf(stderr, "sweep: cuBLASLt step %d of %d failed; the steps before "
				"are recorded\n", step, sw->sp->lt.vary_steps);
			return 1;
		}
		fprintf(stderr, "sweep: cuBLASLt step %d of %d: %d seeds named %d new blas_lt "
			"candidates\n", step, sw->sp->lt.vary_steps, sw->lt_seeds, sw->tl->n - from);
		if (sw->tl->n == from)
			break;
		sweep_load_ids(sw, from);
		sweep_resolve_ids(sw, from);
		sweep_record_static(sw, from);
		sweep_points(sw, family, from);
	}
	return 0;
}

/* The sweep with its workers running and its database open: everything
 * after the start. Returns sweep_run's status. */
static int sweep_all(struct sweep *sw, const struct sweep_opts *o, const struct env_info *env)
{
	sw->reached = xmalloc(sizeof(*sw->reached) * (size_t)(sw->sp->nshapes + 1) * 2 * MAX_MS);
	sw->nreached = xcalloc((size_t)sw->sp->nshapes + 1, sizeof(*sw->nreached));
	if (fit_device(sw, env, o->family))
		return 1;
	sweep_load_shape_ids(sw);
	if (sw->sp->lt.top && lt_first_step(sw, o->family))
		return 1;
	/* --seed-from: the source's finalists and their neighbours alone */
	if (o->seed && seed_keep(sw, o->seed, o->family))
		return 1;
	sw->seeded = o->seed != NULL;
	announce(sw, o->space, env);
	if (prepare_tasks(sw))
		return 1;
	sweep_points(sw, o->family, 0);
	/* a seeded sweep's blas_lt finalists are the source's climb's */
	int rc = o->seed ? 0 : lt_later_steps(sw, o->family);
	sweep_search_ranges(sw, o->family);
	progress_end();
	if (sw->stopped) {
		fprintf(stderr, "sweep: the time limit passed with %ld of up to %ld evals done; "
			"what is recorded stands (emit reads it), and the same command resumes\n",
			sw->evals_done, sw->evals_total);
		/* a script (contrib/slurm) tells an unfinished sweep by its status */
		if (rc == 0)
			rc = 3;
	}
	sweep_summary(sw);
	return rc;
}

int sweep_run(struct space *sp, struct tasklist *tl, const struct sweep_opts *o)
{
	struct sweep sw = {
		.sp = sp, .tl = tl, .jit = o->jit, .db_path = o->db_path, .retest = o->retest,
		.retest_since = o->retest_since, .ndev = o->ndev,
		.search = o->search, .parts = o->search_parts,
	};
	struct db_lock lock = { -1 };
	struct env_info env;
	int rc = 1;
	/* a file-size limit (ulimit -f) fails the write that passes it, with
	 * EFBIG, so it is reported like any write error, naming the file
	 * (SIGXFSZ's default would end the sweep without a word); the
	 * workers and compile processes inherit it */
	signal(SIGXFSZ, SIG_IGN);
	sw.started = now_seconds();
	sw.stop_at = o->limit_s > 0 ? sw.started + o->limit_s : 0;
	utc_now_ms(sw.run_id, sizeof(sw.run_id));
	sw.devs = xcalloc((size_t)o->ndev, sizeof(*sw.devs));
	for (int d = 0; d < o->ndev; d++)
		sw.devs[d].device = o->devices[d];
	sweep_dev = &sw.devs[0];
	sw.main_thread = pthread_self();
	pthread_cond_init(&sw.wake, NULL);
	/* one sweep (or prune) of a database at a time (lock.h) */
	if (db_lock_take(sw.db_path, "sweep", &lock))
		goto out;
	if (db_open(sw.db_path, &sw.db))
		goto out;
	pthread_mutex_lock(&sweep_lock);
	if (!start_workers(&sw, &env))
		rc = sweep_all(&sw, o, &env);
	for (int d = 0; d < sw.ndev; d++)
		worker_stop(&sw.devs[d].w);
	db_close(sw.db);
	pthread_mutex_unlock(&sweep_lock);
out:
	pthread_cond_destroy(&sw.wake);
	db_lock_drop(&lock);
	free(sw.shape_id);
	free(sw.devs);
	free(sw.reached);
	free(sw.nreached);
	free(sw.lt_sent);
	free(sw.cand_id);
	free(sw.done);
	free(sw.floor_us);
	return rc;
}
