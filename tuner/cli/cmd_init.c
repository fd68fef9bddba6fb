/*
 * cmd_init.c: `gemmtab init --model config.json`: parse the options, then
 * hand off to the init engine (tuner/space/init.h): read the config, derive
 * the projections of one tensor-parallel rank, write their search space.
 */
#include "commands.h"
#include "init.h"
#include "options.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: gemmtab init --model CONFIG [--tp N] [--max-m M] [--dtype bf16]\n"
	"                    [--router-dtype bf16|fp32] [--templates LIST] [--out FILE]\n"
	"  --model CONFIG    a Hugging Face config.json, or the model's folder holding one\n"
	"  --tp N            tensor-parallel ranks: column-parallel layers split N,\n"
	"                    row-parallel ones K [1]\n"
	"  --max-m M         the largest token count to tune, 1..65536 [256]\n"
	"  --dtype D         the dtype the model is served in, whatever the config's\n"
	"                    weights are: bf16, the one the library serves [bf16]\n"
	"  --router-dtype D  the MoE router's weights: bf16, or fp32 where the model\n"
	"                    keeps them in FP32 (the config does not say) [bf16]\n"
	"  --templates LIST  the template sections to write, from gemv, mma_skinny,\n"
	"                    blas_hilo, cublaslt [all of them]\n"
	"  --out FILE        write the space there [stdout]\n";

int cmd_init(int argc, char **argv)
{
	struct init_opts o = { NULL, 1, 256, "bf16", 0, NULL };
	const char *out_path = NULL, *router = "bf16";
	const struct opt opts[] = {
		OPT_STRING("model", &o.model_arg, OPT_REQUIRED),
		OPT_INT("tp", &o.tp, 1, 1024),
		OPT_INT("max-m", &o.max_m, 1, 65536),
		OPT_STRING("dtype", &o.dtype, 0),
		OPT_STRING("router-dtype", &router, 0),
		OPT_STRING("templates", &o.templates, 0),
		OPT_STRING("out", &out_path, 0),
		OPT_END(),
	};
	int st = parse_options("init", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (strcmp(o.dtype, "bf16"))
		return usage_error("init", usage_text, "--dtype %s: the library serves bf16 "
				   "projections (and an fp32 router): serve the model in bf16",
				   o.dtype);
	if (strcmp(router, "bf16") && strcmp(router, "fp32"))
		return usage_error("init", usage_text, "--router-dtype: '%s' is neither bf16 nor fp32",
				   router);
	o.router_fp32 = !strcmp(router, "fp32");
	char bad[64];
	if (init_templates_unknown(o.templates, bad, sizeof(bad)))
		return usage_error("init", usage_text, "--templates: unknown '%s' (gemv, mma_skinny, "
				   "blas_hilo, cublaslt)", bad);

	struct init_model m;
	struct init_plan p;
	if (init_model_read(o.model_arg, &m) || init_shapes(&m, o.tp, o.router_fp32, &p))
		return 2;
	FILE *f = out_path ? fopen(out_path, "w") : stdout;
	if (!f)
		return error("--out %s: %s", out_path, strerror(errno)), 1;
	int bad_write = init_space_write(f, &m, &p, &o);
	if (out_path)
		bad_write |= fclose(f) != 0;
	if (bad_write)
		return error("%s: %s", out_path ? out_path : "stdout", strerror(errno)), 1;
	init_summary(&m, &p, o.dtype);
	if (out_path)
		fprintf(stderr, "gemmtab init: wrote %s: %d shapes, loads M = 1..%d\n", out_path,
			p.nproj, o.max_m);
	return 0;
}
