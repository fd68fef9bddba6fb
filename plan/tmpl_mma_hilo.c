/*
 * tmpl_mma_hilo.c: the adapter of the router's hi/lo kernels in templates/
 * mma_skinny.cuh, the product on tensor cores in one kernel. The FP32
 * weight is split once into hi = bf16(w) and lo = bf16(w - float(hi))
 * (RELAYOUT_HILO: a 2N x K bf16 matrix, hi rows first); one mma_skinny
 * pass runs over all 2N rows, each block pairing the hi and lo rows of
 * bm/2 outputs so that it adds the two products before its partial sum
 * leaves it. The K slices then meet in one of two ways (combine):
 *   atomic:  a call zeroes the FP32 output and every block adds into it
 *            with FP32 atomics (mma_hilo_kernel). With pdl = 1 the zero-
 *            fill is the kernel mma_zero_f32 and the product is launched
 *            after it with programmatic dependent launch: it streams its
 *            weights while Y is zeroed and waits for the zero-fill only
 *            before its atomics (see the top of mma_skinny.cuh).
 *   cluster: the split blocks of one tile form a thread-block cluster and
 *            sum their partials over distributed shared memory, then store
 *            Y (mma_hilo_cluster_kernel): one kernel, nothing to zero. A
 *            cluster of more than 8 blocks (split 16) is non-portable; the
 *            launchers allow it.
 *   zblock:  atomics as above, but Y is zeroed inside the same kernel by
 *            one extra block that streams no weights (a first z slice of
 *            the grid); the others wait for its flag before their atomics,
 *            a counter (ARG_SYNC) every call leaves at 0
 *            (mma_hilo_zblock_kernel): one kernel, no zero-fill kernel.
 */
#include "tmpl.h"
#include "tmpl_mma.h"
#include "tmpl_plan.h"

#include <stdio.h>

enum { P_BM, P_BN, P_BK, P_WARPS, P_STAGES, P_SPLIT, P_CACHE, P_COMBINE, P_MMA, P_PDL, NPARAMS };

/* Same order as MMA_CACHE_* in mma_skinny.cuh. */
static const char *const cache_symbols[] = { "cg", "evict_first", NULL };
static const char *const combine_symbols[] = { "atomic", "cluster", "zblock", NULL };
enum { COMBINE_ATOMIC, COMBINE_CLUSTER, COMBINE_ZBLOCK };
/* mma_skinny.cuh's MMA_MAX_CLUSTER_NONPORTABLE: past 8 blocks a cluster
 * is not portable; the launchers allow it for every kernel they load. */
#define MAX_CLUSTER 16

static const struct tmpl_param params[NPARAMS] = {
	[P_BM]      = { "bm", 16, 256, NULL },
	[P_BN]      = { "bn", 8, 256, NULL },
	[P_BK]      = { "bk", 32, 128, NULL },
	[P_WARPS]   = { "warps", 2, 16, NULL },
	[P_STAGES]  = { "stages", 2, 6, NULL },
	[P_SPLIT]   = { "split", 1, 32, NULL },
	[P_CACHE]   = { "cache", 0, 1, cache_symbols },
	[P_COMBINE] = { "combine", 0, 2, combine_symbols },
	[P_MMA]     = { "mma", 0, 1, mma_instr_symbols },
	[P_PDL]     = { "pdl", 0, 1, NULL },
};

static struct mma_tile tile_of(const long *p)
{
	return (struct mma_tile){ p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES],
				  p[P_SPLIT], p[P_MMA], 0 };
}

static const char *hilo_check(const struct shape *s, const long *p)
{
	const char *bad = tmpl_params_in_range(params, NPARAMS, p);
	if (bad)
		return bad;
	if (s->w != DT_FP32 || s->x != DT_BF16 || s->y != DT_FP32)
		return "hi/lo needs fp32 w, bf16 x, fp32 y";
	const struct mma_tile t = tile_of(p);
	bad = mma_tile_shape_check(&t);
	if (bad)
		return bad;
	/* a block pairs the hi and lo rows of bm/2 outputs */
	if (s->n % (p[P_BM] / 2))
		return "n not a multiple of bm/2";
	if (p[P_COMBINE] == COMBINE_CLUSTER && (p[P_SPLIT] < 2 || p[P_SPLIT] > MAX_CLUSTER))
		return "a cluster combine needs split in [2, 16]";
	if (p[P_COMBINE] != COMBINE_ATOMIC && p[P_PDL])
		return "pdl needs a zero-fill to overlap (combine atomic)";
	if (p[P_COMBINE] == COMBINE_ZBLOCK && p[P_SPLIT] < 2)
		return "a zero-block combine needs split >= 2";
	if (p[P_COMBINE] == COMBINE_CLUSTER &&
	    mma_tile_smem(&t) + mma_cluster_recv_bytes(p[P_BN], p[P_BM] / 2, p[P_SPLIT]) >
	    HW_MAX_DYN_SMEM)
		return "shared memory exceeds 227 KiB";
	return mma_tile_fit_check(&t, 2L * s->n, s->k);
}

static int hilo_kernels(const struct shape *s, const long *p,
			char names[][TMPL_NAME_MAX], int max)
{
	(void)s;
	if (max < 1 + (int)p[P_PDL])
		return -1;
	static const char *const kernel_of[] = {
		[COMBINE_ATOMIC] = "mma_hilo_kernel",
		[COMBINE_CLUSTER] = "mma_hilo_cluster_kernel",
		[COMBINE_ZBLOCK] = "mma_hilo_zblock_kernel",
	};
	snprintf(names[0], TMPL_NAME_MAX, "%s<%ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld>",
		 kernel_of[p[P_COMBINE]],
		 p[P_BM], p[P_BN], p[P_BK], p[P_WARPS], p[P_STAGES], p[P_SPLIT], p[P_CACHE],
		 p[P_MMA]);
	if (p[P_PDL])
		snprintf(names[1], TMPL_NAME_MAX, "mma_zero_f32");
	return 1 + (int)p[P_PDL];
}

static int hilo_plan(const struct shape *s, const long *p, int m, struct launch_plan *out)
{
	if (m < 1 || hilo_check(s, p))
		return -1;
	*out = (struct launch_plan){ 0 };
	/* atomic: Y is the accumulator, zeroed inside the captured call;
	 * the cluster stores every element of Y */
	if (p[P_COMBINE] == COMBINE_ATOMIC &&
	    mma_add_zero_step(out, ARG_Y, (size_t)m * s->n * sizeof(float), (int)p[P_PDL], 1))
		return -1;

	struct launch_step *st = &out->steps[out->nsteps++];
	const struct mma_tile t = tile_of(p);
	st->kind = STEP_KERNEL;
	st->kernel = 0;
	st->pdl = (int)p[P_PDL];
	plan_dims(st->grid, (unsigned)((m + p[P_BN] - 1) / p[P_BN]), (unsigned)p[P_SPLIT],
		  (unsigned)(2L * s->n / p[P_BM]));
	plan_dims(st->block, (unsigned)(p[P_WARPS] * 32), 1, 1);
	st->smem = (unsigned)mma_tile_smem(&t);
	if (p[P_COMBINE] == COMBINE_CLUSTER)
		st->smem += (unsigned)mma_cluster_recv_bytes(p[P_BN], p[P_BM] / 2, p[P_SPLIT]);
	plan_arg(st, ARG_PREP, 0);
	plan_arg(st, ARG_X, 0);
	plan_arg(st, ARG_Y, 0);
	if (p[P_COMBINE] == COMBINE_ZBLOCK) {
		/* the zero block's slice first; its flag, and one more warp per
		 * block that watches it (mma_hilo_zblock_kernel) */
		st->grid[2]++;
		st->block[0] += 32;
		out->sync_bytes = sizeof(unsigned);
		plan_arg(st, ARG_SYNC, 0);
	}
	plan_arg(st, ARG_M, 0);
	plan_arg(st, ARG_N, 0);
	plan_arg(st, ARG_K, 0);
	return 0;
}

static struct relayout hilo_relayout(const long *p)
{
	(void)p;
	return (struct relayout){ RELAYOUT_HILO, 0, 0 };
}

/* The tile's legality, its shared memory and the zero-fill step come
 * from mma_skinny's adapter. */
/* templates/hilo.cuh: the hi/lo split the template's prepared W is */
static const char *const shared_files[] = { "plan/tmpl_mma_skinny.c", "plan/tmpl_mma.h",
					    "plan/tmpl_plan.h", "templates/hilo.cuh", NULL };

const struct tmpl tmpl_mma_hilo = {
	.stem = "mma_hilo",
	.source = "templates/mma_skinny.cuh",
	.adapter = "plan/tmpl_mma_hilo.c",
	.shared = shared_files,
	.params = params,
	.nparams = NPARAMS,
	.relayout = hilo_relayout,
	.check = hilo_check,
	.kernels = hilo_kernels,
	.plan = hilo_plan,
};
