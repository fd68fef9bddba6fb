/*
 * tmpl_mma.h: what the two adapters of templates/mma_skinny.cuh share
 * (plan/tmpl_mma_skinny.c for mma_skinny, plan/tmpl_mma_hilo.c for the
 * router's hi/lo product): the block tile and its static legality.
 */
#ifndef GT_TMPL_MMA_H
#define GT_TMPL_MMA_H

#include <stddef.h>

#include "tmpl.h"

/* A block's tile: bm weight rows x bn tokens, bk of K per stage, on
 * warps warps with stages stages, K split split ways. */
struct mma_tile {
	long bm, bn, bk, warps, stages, split;
	long mma;       /* MMA_SYNC (0) or MMA_WGMMA (1) of mma_skinny.cuh */
	long wk;        /* warps splitting K first (mma.sync), or 0: the default
			 * layout (mma_warps_* of mma_skinny.cuh) */
};

/* The "mma" parameter's symbols, shared by both adapters. */
extern const char *const mma_instr_symbols[];
enum { MMA_INSTR_SYNC, MMA_INSTR_WGMMA };

/* The warp layout of mma_warps_m/n/k: wm warps along rows, wn along
 * tokens, wk splitting K. */
void mma_warp_layout(const struct mma_tile *t, long *wm, long *wn, long *wk);

/* Dynamic shared memory of mma_smem_bytes: the stage ring, or the FP32
 * epilogue tile if larger. */
long mma_tile_smem(const struct mma_tile *t);

/* mma_recv_bytes of mma_skinny.cuh: a cluster combine's receive slots,
 * after the rest of the block's shared memory; out_rows is bm (hi/lo:
 * bm/2). */
long mma_cluster_recv_bytes(long bn, long out_rows, long split);

/* NULL if the template takes the tile's sizes, else a short static
 * reason ("bm must be 32, 64 or 128"). */
const char *mma_tile_shape_check(const struct mma_tile *t);
/* NULL if a legal tile can run over a rows x k weight, else a short
 * static reason ("k not a multiple of split*bk"). */
const char *mma_tile_fit_check(const struct mma_tile *t, long rows, long k);

/* Append the zero-fill of an atomic plan, inside the captured call so
 * that every replay starts clean: a memset of the first bytes of target
 * (ARG_WS or ARG_Y), or with pdl the kernel mma_zero_f32 (the plan's
 * kernel zero_kernel) over them, which the next kernel may start under.
 * bytes is a multiple of 16. Returns -1 when the float4 count does not
 * fit mma_zero_f32's int. */
int mma_add_zero_step(struct launch_plan *out, enum arg_kind target, size_t bytes, int pdl,
		      int zero_kernel);

#endif
