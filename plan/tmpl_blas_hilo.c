/*
 * tmpl_hilo.c: the router's high/low method as a tuner candidate. The FP32
 * weight is split once into hi = bf16(w) and lo = bf16(w - float(hi))
 * (RELAYOUT_HILO; docs/workload.md allows exactly this split), and a call is two
 * cuBLAS BF16 GEMMs accumulating in FP32: Y = X*hi^T, then Y += X*lo^T.
 * The activations stay bf16, so unlike the FP32 baseline nothing converts X,
 * and the products run on tensor cores. No kernel of ours: no template
 * file, nothing for NVRTC to compile; the tuner still validates it against
 * the FP64 reference and times it paired like any candidate.
 */
#include "tmpl.h"

#include <string.h>

/* Only the router's dtypes: fp32 weights and output, bf16 activations. */
static const char *hilo_check(const struct shape *s, const long *p)
{
	(void)p;
	if (s->w != DT_FP32 || s->x != DT_BF16 || s->y != DT_FP32)
		return "hi/lo needs fp32 w, bf16 x, fp32 y";
	return NULL;
}

static int hilo_kernels(const struct shape *s, const long *p,
			char names[][TMPL_NAME_MAX], int max)
{
	(void)s;
	(void)p;
	(void)names;
	(void)max;
	return 0;
}

static int hilo_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	(void)p;
	if (m < 1)
		return -1;
	memset(out, 0, sizeof(*out));
	out->nsteps = 2;
	for (int i = 0; i < 2; i++) {
		struct launch_step *st = &out->steps[i];
		st->kind = STEP_GEMM_BF16;
		st->w_offset = (size_t)i * s->n * s->k;   /* hi, then lo */
		st->beta = i;                             /* the second adds */
	}
	return 0;
}

static struct relayout hilo_relayout(const long *p)
{
	(void)p;
	return (struct relayout){ RELAYOUT_HILO, 0, 0 };
}

/* templates/hilo.cuh: the split the two GEMMs read */
static const char *const shared_files[] = { "templates/hilo.cuh", NULL };

const struct tmpl tmpl_hilo = {
	.stem = "blas_hilo",
	.source = NULL,
	.adapter = "plan/tmpl_blas_hilo.c",
	.shared = shared_files,
	.params = NULL,
	.nparams = 0,
	.relayout = hilo_relayout,
	.check = hilo_check,
	.kernels = hilo_kernels,
	.plan = hilo_plan,
};
