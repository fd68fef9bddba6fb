/*
 * cmd_sweep.c: `gemmtab sweep`: parses its options, loads the search
 * space (with --shapes, --shard and --device-profile) and builds its
 * tasks, then hands them to the engine (tuner/sweep/sweep.h): a dry run,
 * or the sweep itself.
 */
#include "commands.h"
#include "options.h"
#include "seed.h"
#include "supervise.h"
#include "sweep.h"
#include "tasks.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest --deadline accepted: a day; any more is a typo. The
 * shortest: 1 s. A candidate's first eval on a worker loads its module
 * and validates it over several replays before any timing, and a fresh
 * worker creates its CUDA context first (a fraction of a second on an
 * H200); under 1 s the worker is killed before it can answer, and the
 * sweep only restarts workers. */
#define MAX_DEADLINE_S 86400
#define MIN_DEADLINE_S 1

static const char usage_text[] =
	"usage: gemmtab sweep --space FILE [options]\n"
	"  --space FILE      search space (YAML), e.g. search_spaces/quick.yaml\n"
	"  --db FILE         results database (created if absent) [gemmtab.db]\n"
	"  --device N        GPU to run on [0]\n"
	"  --devices LIST    GPUs to run on at once, all or a list (0,2-3): a worker\n"
	"                    each, handed the next point as it frees up\n"
	"  --family NAME     only this family of the space\n"
	"  --shapes FILE     also the shapes of FILE, a shapes fragment (such as\n"
	"                    gt_untuned_write's): new shapes added, a shape the space\n"
	"                    has given the fragment's Ms\n"
	"  --shard I/N       only share I of N of the space's shapes (by a hash of\n"
	"                    each shape, the same on every host), for N hosts\n"
	"  --dry-run         parse, enumerate and prune; print counts and an estimate; no GPU\n"
	"  --strict          with --dry-run: exit 1 when a shape gets no candidate\n"
	"  --device-profile FILE  the figures a dry run's constraints and estimate read\n"
	"                    (sm_count, smem_optin, ...; h200 or h100 names a built-in\n"
	"                    one) [h200]; a sweep reads its GPU's\n"
	"  --seed-from DB_OR_TABLE  a table moved to this GPU: screen at each anchor\n"
	"                    only the finalists of a database's retests or a table's\n"
	"                    entries there, with their grid neighbours, and the\n"
	"                    baseline; retest as usual; time the ranges on emit's\n"
	"                    M grid with held-out Ms (docs/hopper.md)\n"
	"  --no-retest       screen only\n"
	"  --retest-since T  retest again every finalist whose retest is older than T\n"
	"                    (UTC, YYYY-MM-DD[THH[:MM[:SS]]], or now), so that emit\n"
	"                    compares finalists measured on one machine\n"
	"  --search METHOD   dense (every anchor screened, every M of a range timed)\n"
	"                    or new (races, emit's M grid with held-out Ms) [dense]\n"
	"  --search-opts P   the new search's parts, a list of prune, early, race,\n"
	"                    grid, carry, cross, bridge, thin, or none [all]\n"
	"  --cache DIR       cubin cache [.cache/gemmtab]\n"
	"  --jobs N          compile processes [all CPUs]\n"
	"  --deadline S      seconds per candidate before its worker is killed [space's]\n"
	"  --time-limit T    start nothing after T (90s, 45m, 8h, 2d): every shape's\n"
	"                    anchors come first, then the ranges, then the cuBLASLt\n"
	"                    search's later steps, so a stopped sweep still emits\n"
	"                    (exit status 3: stopped; the same command resumes)\n";

/* The GPUs --devices names ("all", or a list such as 0,2-3) into
 * devs[] (*ndev of them); --device N (one) without it. A dry run
 * (dry_run) checks the list against the GPUs a worker sees where it sees
 * any, else only its form. Returns 0, or 2 after a usage error. */
static int pick_devices(const char *list, int device, int device_given, int dry_run,
			int *devs, int *ndev)
{
	if (!list) {
		*ndev = 1;
		devs[0] = device;
		return 0;
	}
	if (device_given)
		return usage_error("sweep", usage_text, "--device and --devices: give one");
	int count = worker_device_count();
	if (count < 0)
		return 2;
	if (dry_run && count == 0)
		count = OPT_MAX_DEVICE + 1;     /* no GPU here: the form alone */
	int want[OPT_MAX_DEVICE + 1] = { 0 };
	if (!strcmp(list, "all")) {
		for (int d = 0; d < count && d <= OPT_MAX_DEVICE; d++)
			want[d] = 1;
		if (!count)
			return usage_error("sweep", usage_text, "--devices all: no GPU is visible");
	} else {
		const char *p = list;
		for (;;) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;
			if (end == p || lo < 0)
				goto bad;
			if (*end == '-') {
				p = end + 1;
				hi = strtol(p, &end, 10);
				if (end == p || hi < lo)
					goto bad;
			}
			for (long d = lo; d <= hi; d++) {
				if (d >= count)
					return usage_error("sweep", usage_text, "--devices %s: there is no "
							   "GPU %ld (%d visible: 0..%d)", list, d,
							   count, count - 1);
				if (want[d]++)
					return usage_error("sweep", usage_text, "--devices %s: GPU %ld "
							   "is named twice", list, d);
			}
			if (!*end)
				break;
			if (*end != ',')
				goto bad;
			p = end + 1;
		}
	}
	*ndev = 0;
	for (int d = 0; d <= OPT_MAX_DEVICE; d++)
		if (want[d])
			devs[(*ndev)++] = d;
	return 0;
bad:
	return usage_error("sweep", usage_text, "--devices: '%s' is not all or a list of GPUs "
			   "such as 0,2-3", list);
}

/* --shard I/N into *i and *n. Returns 0, or 2 after a usage error. */
static int parse_shard(const char *shard, int *i, int *n)
{
	char *end, *end2 = NULL;
	*i = (int)strtol(shard, &end, 10);
	if (end != shard && *end == '/')
		*n = (int)strtol(end + 1, &end2, 10);
	if (end == shard || *end != '/' || end2 == end + 1 || *end2 || *i < 0 || *n < 1 ||
	    *n > 65536 || *i >= *n)
		return usage_error("sweep", usage_text, "--shard: '%s' is not I/N with 0 <= I "
				   "< N (0/4 .. 3/4)", shard);
	return 0;
}

/* What cmd_sweep parsed, besides the engine's options. */
struct sweep_args {
	const char *space, *shapes_file, *profile, *shard, *since, *limit, *devices, *seed_from;
	const char *search, *search_opts;
	int device, dry_run, no_retest, strict;
	double deadline;
};

/* The space the arguments name, with --shapes added, --shard applied and
 * --device-profile's figures, into *sp. Returns 0; 2 after an error
 * (message printed; nothing to free); -1 when the shard is empty
 * (nothing to sweep, which is no error for one task of many). */
static int load_space(const struct sweep_args *a, struct space *sp)
{
	int shard_i = 0, shard_n = 0;
	if (a->shard && parse_shard(a->shard, &shard_i, &shard_n))
		return 2;
	if (space_load(a->space, sp))
		return 2;
	if (a->shapes_file) {
		struct space frag;
		if (space_load_fragment(a->shapes_file, &frag))
			goto bad;
		int bad = space_add_shapes(sp, &frag);
		space_free(&frag);
		if (bad)
			goto bad;
	}
	if (shard_n && !sweep_keep_shard(sp, shard_i, shard_n)) {
		space_free(sp);
		return -1;
	}
	if (a->profile) {
		struct device_profile d;
		if (device_profile_load(a->profile, &d) || space_set_device(sp, &d))
			goto bad;
	}
	if (sp->ngrids == 0 && !sp->lt.top) {
		fprintf(stderr, "%s:%d:%d: no templates or cublaslt section: nothing to sweep (a "
			"space of shapes alone serves gemmtab bench and probe)\n", a->space,
			sp->top_line, sp->top_col);
		goto bad;
	}
	if (a->deadline > 0)
		sp->sweep.deadline_s = a->deadline;
	return 0;
bad:
	space_free(sp);
	return 2;
}

/* The engine's options from the parsed arguments (--retest-since "now"
 * into since_now). Returns 0, or 2 after a usage error. */
static int engine_options(const struct sweep_args *a, struct sweep_opts *o,
			  char *since_now, size_t len)
{
	char why[128];
	o->retest = !a->no_retest;
	if (sweep_search_parse(a->search, a->search_opts, &o->search, &o->search_parts, why,
			       sizeof(why)))
		return usage_error("sweep", usage_text, "%s", why);
	if (a->strict && !a->dry_run)
		return usage_error("sweep", usage_text, "--strict checks a plan: it needs --dry-run");
	if (a->seed_from && a->dry_run)
		return usage_error("sweep", usage_text, "--seed-from picks its candidates from "
				   "what the GPU names: drop --dry-run");
	if (a->limit && duration_parse(a->limit, &o->limit_s))
		return usage_error("sweep", usage_text, "--time-limit: '%s' is not a duration "
				   "(90, 90s, 45m, 8h or 2d)", a->limit);
	if (!a->since)
		return 0;
	if (a->no_retest)
		return usage_error("sweep", usage_text, "--retest-since needs retests: drop "
				   "--no-retest");
	if (!strcmp(a->since, "now")) {
		utc_now(since_now, len);
		o->retest_since = since_now;
	} else if (!utc_time_valid(a->since)) {
		return usage_error("sweep", usage_text, "--retest-since: '%s' is not a UTC "
				   "time YYYY-MM-DD[THH[:MM[:SS]]] or now", a->since);
	} else {
		o->retest_since = a->since;
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = { .device = -1 };
	struct sweep_opts o = { .db_path = "gemmtab.db" };
	struct space sp;
	struct tasklist tl;
	int devs[OPT_MAX_DEVICE + 1];
	char since_now[32];
	const struct opt opts[] = {
		OPT_STRING("space", &a.space, OPT_REQUIRED),
		OPT_STRING("device-profile", &a.profile, 0),
		OPT_STRING("db", &o.db_path, 0),
		OPT_INT("device", &a.device, 0, OPT_MAX_DEVICE),
		OPT_STRING("devices", &a.devices, 0),
		OPT_STRING("shard", &a.shard, 0),
		OPT_STRING("shapes", &a.shapes_file, 0),
		OPT_STRING("family", &o.family, 0),
		OPT_FLAG("dry-run", &a.dry_run),
		OPT_FLAG("strict", &a.strict),
		OPT_FLAG("no-retest", &a.no_retest),
		OPT_STRING("retest-since", &a.since, 0),
		OPT_STRING("seed-from", &a.seed_from, 0),
		OPT_STRING("search", &a.search, 0),
		OPT_STRING("search-opts", &a.search_opts, 0),
		OPT_STRING("cache", &o.jit.cache_dir, 0),
		OPT_INT("jobs", &o.jit.nproc, 0, OPT_MAX_JOBS),
		OPT_DOUBLE("deadline", &a.deadline, MIN_DEADLINE_S, MAX_DEADLINE_S),
		OPT_STRING("time-limit", &a.limit, 0),
		OPT_END(),
	};

	jit_options_default(&o.jit);
	int rc = parse_options("sweep", argc, argv, opts, usage_text);
	if (rc)
		return rc == PARSE_HELP ? 0 : rc;
	if ((rc = engine_options(&a, &o, since_now, sizeof(since_now))))
		return rc;
	/* a bad source is said before the space is enumerated */
	struct seed *seed = NULL;
	if (a.seed_from && seed_load(a.seed_from, &seed))
		return 2;
	o.seed = seed;
	o.space = a.space;
	if ((rc = load_space(&a, &sp))) {
		seed_free(seed);
		return rc < 0 ? 0 : rc;
	}
	if (tasks_build(&sp, o.family, &tl)) {
		space_free(&sp);
		seed_free(seed);
		return 2;   /* the space (or --family) asks for what cannot be built */
	}
	if (a.dry_run) {
		if (!(rc = pick_devices(a.devices, a.device < 0 ? 0 : a.device, a.device >= 0, 1,
					devs, &o.ndev)))
			rc = sweep_dry_run(&sp, &tl, &o, a.strict);
	} else if (worker_device_check("sweep")) {
		rc = 1;
	} else if (!(rc = pick_devices(a.devices, a.device < 0 ? 0 : a.device, a.device >= 0, 0,
				       devs, &o.ndev))) {
		o.devices = devs;
		rc = sweep_run(&sp, &tl, &o);
	}
	tasks_free(&tl);
	space_free(&sp);
	seed_free(seed);
	return rc;
}
