/*
 * cmd_verify.c: `gemmtab verify`: parse, let the sweep stage's verify
 * engine (tuner/sweep/verify.c) time every entry of a table on this GPU
 * against the baseline, print each entry's verdict with its ratios, and
 * with --out write the table pruned to the entries that still win
 * (tuner/emit/tableprune.c).
 */
#include "commands.h"
#include "options.h"
#include "supervise.h"
#include "tableprune.h"
#include "util.h"
#include "verify.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: gemmtab verify --table T.h [--device N] [--pairs P] [--out T2.h]\n"
	"                      [--deadline S] [--cache DIR]\n"
	"  --table T.h   the dispatch table to time again on this GPU (a header gemmtab\n"
	"                emit wrote, its _kernels.cu beside it)\n"
	"  --device N    GPU [0]\n"
	"  --pairs P     paired repetitions per point [100, what emit requires]\n"
	"  --out T2.h    write T's table pruned to the entries that still win here\n"
	"                (and T2_kernels.cu beside it), this command on its first line\n"
	"  --deadline S  seconds per point before its worker is killed [60]\n"
	"  --cache DIR   the cubin cache [.cache/gemmtab]\n"
	"Each entry is timed paired against cuBLAS at its range's ends and one M\n"
	"inside: keep (faster at every point), slower, or unusable (does not compile,\n"
	"validate or run here). Exit status 1 when an entry is slower than the\n"
	"baseline by more than 3% at a point, or unusable. Run it after a driver,\n"
	"CUDA or cuBLAS update and on a new host (docs/hopper.md).\n";

static const char *const verdict_word[] = { "keep", "slower", "unusable" };

/* One entry's line: "entry 2: qkv, M 8..33: gemv PARAMS: slower: M 8
 * 0.750 [0.728, 0.773], ... (worst 0.750, loses by more than 3%)". */
static void print_entry(int i, const struct verify_entry *e)
{
	const struct emit_incumbent *inc = &e->inc;
	printf("entry %d: %s, M %d", i, inc->families, inc->m_lo);
	if (inc->m_hi > inc->m_lo)
		printf("..%d", inc->m_hi);
	printf(": %s %s: %s:", inc->cand.tmpl, inc->cand.params, verdict_word[e->verdict]);
	for (int j = 0; j < e->npoints; j++) {
		const struct verify_point *p = &e->pt[j];
		if (p->ok)
			printf("%s M %d %.3f [%.3f, %.3f]", j ? "," : "", p->m, p->ratio,
			       p->ratio_lo, p->ratio_hi);
		else
			printf("%s M %d %s", j ? "," : "", p->m, p->why[0] ? p->why : "not timed");
	}
	if (e->verdict == VERIFY_SLOWER)
		printf(" (worst %.3f%s)", e->worst,
		       e->worst < VERIFY_LOSS ? ", loses by more than 3%" : ", within 3%");
	putchar('\n');
}

int cmd_verify(int argc, char **argv)
{
	struct verify_options o = { .device = 0, .pairs = 100, .deadline_s = 60 };
	struct verify_result r = { 0 };
	const char *out = NULL;
	double deadline = -1;
	char *keep = NULL, *cmdline = NULL;
	const struct opt opts[] = {
		OPT_STRING("table", &o.table, OPT_REQUIRED),
		OPT_INT("device", &o.device, 0, 1023),
		OPT_INT("pairs", &o.pairs, 1, 4096),
		OPT_STRING("out", &out, 0),
		OPT_DOUBLE("deadline", &deadline, 1, 86400),
		OPT_STRING("cache", &o.jit.cache_dir, 0),
		OPT_END(),
	};
	jit_options_default(&o.jit);
	int st = parse_options("verify", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	size_t len = out ? strlen(out) : 0;
	if (out && (len < 3 || strcmp(out + len - 2, ".h") || out[len - 3] == '/'))
		return usage_error("verify", usage_text, "--out: '%s' is not a header path (NAME.h)",
				   out);
	if (out && !strcmp(out, o.table))
		return usage_error("verify", usage_text, "--out: '%s' is --table itself", out);
	if (deadline > 0)
		o.deadline_s = deadline;
	if (worker_device_check("verify"))
		return 1;
	if (verify_run(&o, &r))
		return 1;

	printf("table %s: tuned on %s (%d SMs), driver %s, CUDA %s, cuBLASLt %s\n", o.table,
	       r.tuned.gpu_name, r.tuned.sm_count, r.tuned.driver, r.tuned.cuda, r.tuned.cublaslt);
	printf("this GPU (device %d): %s (%d SMs), driver %s, CUDA %s, cuBLASLt %s; %d pairs a "
	       "point\n", o.device, r.gpu.gpu_name, r.gpu.sm_count, r.gpu.driver, r.gpu.cuda,
	       r.gpu.cublaslt, o.pairs);
	int count[3] = { 0 }, losers = 0;
	keep = xcalloc((size_t)r.n, 1);
	for (int i = 0; i < r.n; i++) {
		const struct verify_entry *e = &r.e[i];
		print_entry(i, e);
		count[e->verdict]++;
		losers += e->verdict == VERIFY_SLOWER && e->worst < VERIFY_LOSS;
		keep[i] = e->verdict == VERIFY_KEEP;
	}
	printf("verify: %d entries: %d keep, %d slower (%d by more than 3%%), %d unusable\n", r.n,
	       count[VERIFY_KEEP], count[VERIFY_SLOWER], losers, count[VERIFY_UNUSABLE]);
	int ret = losers || count[VERIFY_UNUSABLE] ? 1 : 0;
	if (out) {
		cmdline = options_command_line(argc, argv);
		int kept = table_file_prune(o.table, out, cmdline, keep, r.n);
		if (kept < 0)
			ret = 1;
		else
			fprintf(stderr, "gemmtab verify: wrote %s (%d of %d entries) and its "
				"_kernels.cu\n", out, kept, r.n);
	}
	free(cmdline);
	free(keep);
	verify_result_free(&r);
	return ret;
}
