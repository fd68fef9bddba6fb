/* tools/diag/cut_hooks.h: the push's two ends for one value of DIAG_CUT,
 * included (no guard) before each copy of build/diag/skinny_cut.cuh:
 * bit 16 hands the partial sums over through the L2 (ws, a region per
 * cluster) instead of the owner's shared memory, the cluster barrier
 * between the stores and the loads as before. */
#undef DIAG_G
#undef DIAG_PUSH
#undef DIAG_SLOT
#define DIAG_G                                                                                   \
	(reinterpret_cast<float4 *>(ws) +                                                        \
	 ((size_t)blockIdx.z * gridDim.x + blockIdx.x) * SPLIT * SPLIT * PER_RANK)
#if DIAG_CUT & 16
#define DIAG_PUSH(recv, slot, owner, v) (DIAG_G[(owner) * SPLIT * PER_RANK + (slot)] = (v))
#define DIAG_SLOT(slots, i) __ldcg(&DIAG_G[rank * SPLIT * PER_RANK + (i)])
#else
#define DIAG_PUSH(recv, slot, owner, v) mma_store_peer((recv) + (slot) * 16, owner, v)
#define DIAG_SLOT(slots, i) (slots)[i]
#endif
/* bit 32: each rank pushes to the owners in an order rotated by its rank
 * (owner rank + 1 first), so the ranks' stores do not all go to the same
 * two owners at once; the owners still add their slots in rank order */
#undef DIAG_ROT
#if DIAG_CUT & 32
#define DIAG_ROT(i) (((i) + (int)((rank + 1) % SPLIT) * PER_RANK) % UNITS)
#else
#define DIAG_ROT(i) (i)
#endif
