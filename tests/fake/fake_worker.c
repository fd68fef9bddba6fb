/*
 * fake_worker.c: a stand-in for `gemmtab worker` that speaks its pipe
 * protocol (tuner/sweep/proto.h) without a GPU, so the CPU tests can drive the
 * whole supervisor: enumeration, compilation, requests, recording,
 * retests, resume, restarts. The sweep runs it when GEMMTAB_WORKER names
 * it. Its figures are made up but deterministic: a candidate's median
 * ratio is a function of its parameters, so finalists and tables are
 * reproducible. The planted template behaves as on a GPU: mode=fault
 * replies status=fault and exits 3, mode=hang never replies. With
 * FAKE_WORKER_BASELINE_FAULT=FAMILY a baseline request for that family
 * breaks the "context" the same way, outside any candidate: an error
 * reply with status=fault, then exit 3 (worker_reply_cuda_error).
 * FAKE_WORKER_DIE_ON kills it in an eval from outside (dies_here).
 * It presents FAKE_WORKER_DEVICES GPUs (1 by default; `worker --count`
 * says so, and --device past them exits 2), all alike: the device is no
 * part of any figure. FAKE_WORKER_FAULT_DEVICE=D with
 * FAKE_WORKER_FAULT_ONCE=FILE plants one fault on GPU D: its first eval
 * after FILE is gone replies status=fault and exits 3, and FILE is made.
 * FAKE_WORKER_EVAL_US sleeps that long in each eval (the supervisor
 * benchmark's fixed time per evaluation). FAKE_WORKER_GPU_NAME names the
 * GPU its env reports ("Fake GPU" by default). FAKE_WORKER_SLOWER=SUBSTR
 * halves the ratio of every eval whose candidate key contains SUBSTR (a
 * table entry that no longer wins: gemmtab verify).
 *
 * FAKE_WORKER_MODEL=h200 or h100 replaces the made-up figures with a
 * modelled GPU (model_mode.c, gpumodel.h): env, evals, baselines, the
 * probes and cuBLASLt's algorithms follow each candidate's time curve,
 * and FAKE_WORKER_GPU_LOG=FILE gets the GPU seconds of every request, a
 * line "op family m pairs seconds" each.
 * gemmtab bench's rt requests keep the made-up figures.
 */
#include "model_mode.h"
#include "proto.h"
#include "tmpl.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void reply_env(void)
{
	struct kv_out o;
	kv_begin(&o, "env");
	const char *name = getenv("FAKE_WORKER_GPU_NAME");
	kv_add(&o, "gpu_name", name && *name ? name : "Fake GPU");
	kv_add(&o, "gpu_uuid", "GPU-fake");
	kv_add(&o, "sm_count", "132");
	kv_add(&o, "sm_clock_mhz", "1980");
	kv_add(&o, "mem_clock_mhz", "3201");
	kv_add(&o, "l2_bytes", "62914560");
	kv_add(&o, "driver", "13.0");
	kv_add(&o, "cuda", "13.0");
	kv_add(&o, "nvrtc", "13.0");
	kv_add(&o, "cublas", "13.1.0");
	kv_add(&o, "cublaslt", "13.1.0");
	kv_send(&o, stdout);
}

/* A made-up median ratio in [0.8, 1.79] from every field but id, seed,
 * phase, pairs, round, cubin* and floor_*: the same candidate at the same
 * M gets the same figure (the seeds' variants below excepted). */
static double fake_ratio(const struct kv *r)
{
	uint64_t h = HASH_INIT;
	/* the seeds' variants (cluster ids of 1000 and up: reply_lt_algos) at
	 * M = 8 beat their seeds twice, so a climb takes two steps that find
	 * something (each variant a finalist, and the next step's seed), then
	 * one that finds a loser, then stops */
	const char *tmpl = kv_get(r, "tmpl");
	long cluster = kv_get_long(r, "cluster", 0);
	if (tmpl && !strcmp(tmpl, "blas_lt") && kv_get_long(r, "m", 0) == 8 && cluster >= 1000)
		return cluster < 3000 ? 2.0 + (double)(cluster / 1000) / 10 : 1.0;
	for (int i = 0; i < r->n; i++) {
		if (!strcmp(r->keys[i], "id") || !strcmp(r->keys[i], "seed") ||
		    !strcmp(r->keys[i], "phase") || !strcmp(r->keys[i], "pairs") ||
		    !strcmp(r->keys[i], "round") ||
		    !strncmp(r->keys[i], "cubin", 5) || !strncmp(r->keys[i], "floor_", 6))
			continue;
		h = hash_str(hash_str(h, r->keys[i]), r->vals[i]);
	}
	return 0.8 + (double)(h % 100) / 100.0;
}

/* Whether FAKE_WORKER_SLOWER names r's candidate: a substring of
 * "TMPL name=value,...", its parameters in the template's order. */
static int slowed(const struct kv *r)
{
	const char *on = getenv("FAKE_WORKER_SLOWER"), *tmpl = kv_get(r, "tmpl");
	const struct tmpl *t = tmpl ? tmpl_find(tmpl) : NULL;
	char key[1024];
	size_t used = 0;
	if (!on || !*on || !t)
		return 0;
	used += (size_t)snprintf(key, sizeof(key), "%s", tmpl);
	for (int i = 0; i < t->nparams && used < sizeof(key); i++) {
		const char *v = kv_get(r, t->params[i].name);
		used += (size_t)snprintf(key + used, sizeof(key) - used, "%c%s=%s", i ? ',' : ' ',
					 t->params[i].name, v ? v : "");
	}
	return strstr(key, on) != NULL;
}

/* status=ok and made-up figures: base_us as given, the candidate (or the
 * library) fake_ratio(r) times faster, the pairs asked for. A bench's
 * rounds (gemmtab bench --rounds) read the library 10% slower in round 1,
 * 10% faster in round 2 (mod 3) and as is in round 0, so the median of
 * three rounds is round 0's figure. Returns the candidate's time. */
static double add_ok_figures(struct kv_out *o, const struct kv *r, double base)
{
	static const double round_factor[3] = { 1.0, 0.9, 1.1 };
	double ratio = fake_ratio(r) * round_factor[kv_get_long(r, "round", 0) % 3] *
		       (slowed(r) ? 0.5 : 1.0);
	kv_add(o, "status", "ok");
	kv_add(o, "err_global", "0.001");
	kv_add(o, "err_row", "0.002");
	kv_addf(o, "base_us", "%.4f", base);
	kv_addf(o, "cand_us", "%.4f", base / ratio);
	kv_addf(o, "ratio", "%.5f", ratio);
	kv_addf(o, "ratio_lo", "%.5f", ratio * 0.97);
	kv_addf(o, "ratio_hi", "%.5f", ratio * 1.03);
	kv_addf(o, "pairs", "%ld", kv_get_long(r, "pairs", 1));
	return base / ratio;
}

/* The fake probe's floor of a family's bytes: 4 TB/s for a six-letter
 * family (the router), 1% more per letter beyond, so that families of
 * equal bytes get different floors and a test can tell them apart. */
static double fake_floor_us(const char *family, double bytes)
{
	return bytes / (4.0e12 * (1 + 0.01 * ((double)strlen(family ? family : "") - 6))) * 1e6;
}

/* gemmtab sweep's cuBLASLt search: for orientation 0 (t), min(max, 3)
 * made-up algorithms whose attributes follow from m, then (with a splitk
 * list) each again at every listed split-K count it does not have, as the
 * worker's lt_vary names them (reduction 0 at 1, else 2), and (with any
 * vary list) each at 150 made-up cluster ids, 100 and up: a reply longer
 * than a kv_out holds, sent as the worker sends it; with seeds, each seed
 * and a variant of it (its cluster id plus 1000); with seeds_only=1 the
 * proposals without their variants; for orientation 1 (row) no algorithm,
 * or with FAKE_WORKER_LT_MALFORMED set one record a value short, which the
 * supervisor must refuse. FAKE_WORKER_LT_TRUNCATED set: every reply
 * without seeds_only says truncated=1. */
static void reply_lt_algos(const struct kv *r)
{
	struct kv_out o;
	long m = kv_get_long(r, "m", 1), max = kv_get_long(r, "max", 1);
	const int seeds_only = kv_get_long(r, "seeds_only", 0) == 1;
	const char *splitk = seeds_only ? NULL : kv_get(r, "splitk");
	static char text[65536];
	size_t used = 0;
	int count = 0;
	text[0] = '\0';
#define ADD(...)                                                                        \
	do {                                                                            \
		if (used < sizeof(text))                                                \
			used += (size_t)snprintf(text + used, sizeof(text) - used, __VA_ARGS__); \
	} while (0)
	if (kv_get_long(r, "orient", 0) == 1) {
		if (getenv("FAKE_WORKER_LT_MALFORMED")) {
			ADD("66,13,35,3,2,0,1,0");
			count = 1;
		}
	} else {
		for (long i = 0; i < max && i < 3; i++, count++)
			ADD("%s66,%ld,35,%ld,2,0,1,0,%ld", i ? ";" : "", 10 + i, 1 + m % 3, i);
		for (long i = 0; i < max && i < 3; i++)
			for (const char *p = splitk; p && *p;) {
				char *end;
				long s = strtol(p, &end, 10);
				p = *end ? end + 1 : end;
				if (s == 1 + m % 3)
					continue;
				ADD(";66,%ld,35,%ld,%d,0,1,0,%ld", 10 + i, s, s == 1 ? 0 : 2, i);
				count++;
			}
		for (long i = 0; !seeds_only && kv_get(r, "vary") && i < max && i < 3; i++)
			for (long c = 100; c < 250; c++, count++)
				ADD(";66,%ld,35,%ld,2,0,1,0,%ld", 10 + i, 1 + m % 3, c);
		for (const char *p = kv_get(r, "seeds"); p && *p;) {
			long a[9];
			if (lt_attrs_read(&p, a, 9))
				break;
			for (int v = 0; v < 2; v++, count++)
				ADD(";%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld", a[0], a[1], a[2], a[3], a[4],
				    a[5], a[6], a[7], a[8] + 1000 * v);
		}
	}
#undef ADD
	kv_begin(&o, "lt_algos");
	kv_add(&o, "id", kv_get(r, "id"));
	kv_addf(&o, "count", "%d", count);
	if (getenv("FAKE_WORKER_LT_TRUNCATED") && !seeds_only)
		kv_add(&o, "truncated", "1");
	if (kv_send_tail(&o, "algos", text, stdout))
		die("fake worker: cannot write its lt_algos reply");
}

/* FAKE_WORKER_DIE_ON=SUBSTR: an eval whose candidate key (tmpl and the
 * params, "k=v" joined by ',') contains SUBSTR ends this worker with
 * SIGKILL, as an outside kill would; with FAKE_WORKER_DIE_ONCE=FILE only
 * while FILE does not exist (the first such eval creates it). */
static int dies_here(const struct kv *r)
{
	const char *on = getenv("FAKE_WORKER_DIE_ON"), *once = getenv("FAKE_WORKER_DIE_ONCE");
	char key[1024];
	size_t used = 0;
	if (!on || !*on)
		return 0;
	const char *tmpl = kv_get(r, "tmpl");
	const struct tmpl *t = tmpl ? tmpl_find(tmpl) : NULL;
	if (!t)
		return 0;
	used += (size_t)snprintf(key, sizeof(key), "%s", tmpl);
	for (int i = 0; i < t->nparams && used < sizeof(key); i++) {
		const char *v = kv_get(r, t->params[i].name);
		used += (size_t)snprintf(key + used, sizeof(key) - used, "%c%s=%s", i ? ',' : ' ',
					 t->params[i].name, v ? v : "");
	}
	if (!strstr(key, on))
		return 0;
	if (once && *once) {
		if (access(once, F_OK) == 0)
			return 0;
		FILE *f = fopen(once, "w");
		if (f)
			fclose(f);
	}
	return 1;
}

static int device = 0;

/* Whether this eval is the planted fault of FAKE_WORKER_FAULT_DEVICE. */
static int planted_device_fault(void)
{
	const char *d = getenv("FAKE_WORKER_FAULT_DEVICE");
	const char *once = getenv("FAKE_WORKER_FAULT_ONCE");
	if (!d || !once || atoi(d) != device || access(once, F_OK) == 0)
		return 0;
	FILE *f = fopen(once, "w");
	if (f)
		fclose(f);
	return 1;
}

static int model;       /* FAKE_WORKER_MODEL names a profile */

static void reply_eval(const struct kv *r)
{
	const char *id = kv_get(r, "id"), *tmpl = kv_get(r, "tmpl");
	const char *mode = kv_get(r, "mode");
	struct kv_out o;

	if (tmpl && !strcmp(tmpl, "planted") && mode && !strcmp(mode, "hang"))
		for (;;)
			pause();
	if (dies_here(r))
		raise(SIGKILL);
	kv_begin(&o, "result");
	kv_add(&o, "id", id);
	if ((tmpl && !strcmp(tmpl, "planted") && mode && !strcmp(mode, "fault")) ||
	    planted_device_fault()) {
		kv_add(&o, "status", "fault");
		kv_add(&o, "reason", "fake: illegal address");
		kv_send(&o, stdout);
		exit(3);
	}
	if (!model)
		add_ok_figures(&o, r, 10.0);
	else if (model_eval_figures(r, &o)) {
		kv_add(&o, "status", "launch_error");
		kv_add(&o, "reason", "fake worker: no model of this candidate");
	}
	kv_add(&o, "regs", "40");
	kv_add(&o, "local_bytes", "0");
	kv_add(&o, "smem", "0");
	/* one wave below M = 8, two from there: what the sweep records */
	kv_add(&o, "waves", kv_get_long(r, "m", 1) >= 8 ? "2" : "1");
	kv_send(&o, stdout);
}

int main(int argc, char **argv)
{
	char *line = NULL;
	size_t cap = 0;
	const int ndev = getenv("FAKE_WORKER_DEVICES") ? atoi(getenv("FAKE_WORKER_DEVICES")) : 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count")) {
			printf("devices %d\n", ndev);
			return 0;
		}
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			device = atoi(argv[++i]);
	}
	if (device >= ndev) {
		fprintf(stderr, "fake_worker: no device %d (%d visible)\n", device, ndev);
		return 2;
	}
	const char *profile = getenv("FAKE_WORKER_MODEL");
	if (profile && *profile) {
		if (model_init(profile))
			die("fake worker: FAKE_WORKER_MODEL=%s: not h200 or h100, or "
			    "FAKE_WORKER_GPU_LOG cannot be opened", profile);
		model = 1;
	}
	const long eval_us = getenv("FAKE_WORKER_EVAL_US") ? atol(getenv("FAKE_WORKER_EVAL_US")) : 0;
	/* FAKE_WORKER_DELAY_MS slows each eval (tests that kill a sweep) */
	long delay_ms = getenv("FAKE_WORKER_DELAY_MS") ? atol(getenv("FAKE_WORKER_DELAY_MS")) : 0;
	const char *baseline_fault = getenv("FAKE_WORKER_BASELINE_FAULT");
	/* FAKE_WORKER_LOG=FILE: one line "op family m" per request (and
	 * "splitk=LIST", "vary=LIST", "seeds=LIST", "seeds_only=V" when it has
	 * them), appended */
	const char *log_path = getenv("FAKE_WORKER_LOG");

	while (getline(&line, &cap, stdin) > 0) {
		struct kv r;
		if (kv_parse(line, &r))
			continue;
		if (!strcmp(r.op, "quit")) {
			kv_free(&r);
			break;
		}
		FILE *log = log_path ? fopen(log_path, "a") : NULL;
		if (log) {
			fprintf(log, "%s %s %s%s%s%s%s%s%s%s%s\n", r.op,
				kv_get(&r, "family") ? kv_get(&r, "family") : "-",
				kv_get(&r, "m") ? kv_get(&r, "m") : "-",
				kv_get(&r, "splitk") ? " splitk=" : "",
				kv_get(&r, "splitk") ? kv_get(&r, "splitk") : "",
				kv_get(&r, "vary") ? " vary=" : "",
				kv_get(&r, "vary") ? kv_get(&r, "vary") : "",
				kv_get(&r, "seeds") ? " seeds=" : "",
				kv_get(&r, "seeds") ? kv_get(&r, "seeds") : "",
				kv_get(&r, "seeds_only") ? " seeds_only=" : "",
				kv_get(&r, "seeds_only") ? kv_get(&r, "seeds_only") : "");
			fclose(log);
		}
		struct kv_out o;
		const char *fam = kv_get(&r, "family");
		const int planted_baseline_fault = !strcmp(r.op, "baseline") && baseline_fault &&
						   fam && !strcmp(fam, baseline_fault);
		if (model && !planted_baseline_fault && model_reply(&r)) {
			/* answered by the modelled GPU */
		} else if (!strcmp(r.op, "env")) {
			reply_env();
		} else if (!strcmp(r.op, "lt_algos")) {
			reply_lt_algos(&r);
		} else if (!strcmp(r.op, "eval")) {
			if (delay_ms)
				usleep((useconds_t)delay_ms * 1000);
			if (eval_us)
				usleep((useconds_t)eval_us);
			reply_eval(&r);
		} else if (!strcmp(r.op, "rt")) {
			/* gemmtab bench: the library "timed" like a candidate */
			kv_begin(&o, "result");
			kv_add(&o, "id", kv_get(&r, "id"));
			const double lib = add_ok_figures(&o, &r, 5.0 + kv_get_long(&r, "m", 1) / 10.0);
			if (kv_get(&r, "floor_blocks")) {
				/* bench --paired: the probe's read of the weight
				 * bytes, timed here 2% slower than the probe's own
				 * floor (so the two columns differ) when asked in
				 * the fake probe's configuration (8 blocks per SM,
				 * unroll 4), 50% slower in any other; its batch
				 * reads the library 1% slower than the first. A
				 * bench's rounds scale the read by 1, 1.25 and 1.05
				 * (mod 3), so that over three rounds neither the
				 * read's median nor the fraction's (1, 1.125,
				 * 1.155 times round 0's, with the library's round
				 * factors) is round 0's */
				static const double paired_round[3] = { 1.0, 1.25, 1.05 };
				const char *w = kv_get(&r, "w");
				double bytes = (double)kv_get_long(&r, "n", 0) * kv_get_long(&r, "k", 0) *
					       (w && !strcmp(w, "fp32") ? 4 : 2);
				int as_probed = kv_get_long(&r, "floor_blocks", 0) == 8 &&
						kv_get_long(&r, "floor_unroll", 0) == 4;
				double fl = fake_floor_us(kv_get(&r, "family"), bytes) *
					    (as_probed ? 1.02 : 1.5) *
					    paired_round[kv_get_long(&r, "round", 0) % 3];
				double lib2 = lib * 1.01;
				kv_addf(&o, "floor_us", "%.4f", fl);
				kv_addf(&o, "floor_lib_us", "%.4f", lib2);
				kv_addf(&o, "floor_frac", "%.5f", fl / lib2);
				kv_addf(&o, "floor_frac_lo", "%.5f", fl / lib2 * 0.95);
				kv_addf(&o, "floor_frac_hi", "%.5f", fl / lib2 * 1.05);
			}
			/* gt_weight_explain's two forms: the made-up library
			 * "ran the baseline" where it is 0-10% slower, an
			 * entry everywhere else (10-20% slower included) */
			const double ratio = fake_ratio(&r);
			char ex[64];
			snprintf(ex, sizeof(ex), ratio >= 0.9 && ratio < 1.0
				 ? "m=%ld: baseline (fake dispatch)" : "m=%ld: entry 0 (fake dispatch)",
				 kv_get_long(&r, "m", 1));
			kv_add(&o, "explain", ex);
			kv_send(&o, stdout);
		} else if (planted_baseline_fault) {
			kv_begin(&o, "error");
			kv_add(&o, "id", kv_get(&r, "id"));
			kv_add(&o, "status", "fault");
			kv_add(&o, "reason", "fake worker: illegal address in the baseline");
			kv_send(&o, stdout);
			fflush(stdout);
			_exit(3);
		} else if (!strcmp(r.op, "baseline")) {
			kv_begin(&o, "baseline");
			kv_add(&o, "id", kv_get(&r, "id"));
			kv_add(&o, "cublas_us", "10.0");
			kv_add(&o, "cublaslt_us", "10.5");
			kv_add(&o, "ratio", "0.952");
			kv_add(&o, "lt_algo", "fake");
			kv_send(&o, stdout);
		} else if (!strcmp(r.op, "overhead")) {
			kv_begin(&o, "overhead");
			kv_add(&o, "us", "3.5");
			kv_send(&o, stdout);
		} else if (!strcmp(r.op, "floor")) {
			double bytes = kv_get_double(&r, "bytes", 0);
			const char *fam = kv_get(&r, "family");
			const double us = fake_floor_us(fam, bytes);
			kv_begin(&o, "floor");
			kv_add(&o, "family", fam);
			kv_addf(&o, "bytes", "%.0f", bytes);
			kv_addf(&o, "us", "%.4f", us);
			kv_addf(&o, "gbps", "%.0f", bytes / us * 1e-3);
			/* a configuration bench --paired can read, marked fake
			 * (FAKE_WORKER_FLOOR_CONFIG: another one) */
			const char *config = getenv("FAKE_WORKER_FLOOR_CONFIG");
			kv_add(&o, "config", config ? config
						    : "blocks_per_sm=8,threads=256,unroll=4,copies=4,fake");
			kv_send(&o, stdout);
		} else {
			kv_begin(&o, "error");
			kv_add(&o, "reason", "fake worker: unknown request");
			kv_send(&o, stdout);
		}
		kv_free(&r);
	}
	free(line);
	return 0;
}
