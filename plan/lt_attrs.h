/*
 * lt_attrs.h: how a cuBLASLt algorithm is named in plans and databases,
 * with no cuBLASLt header: the orientation of the product and the
 * attributes in their stored order. The call itself is blas/lt_call.h.
 */
#ifndef GT_LT_ATTRS_H
#define GT_LT_ATTRS_H

/*
 * LT_ORIENT_T:   the baseline's own view (column-major): C[n, m] =
 *                op(A)[n, k] * X[k, m], A being W's k x n column-major
 *                view and op its transpose (TRANSA = T), so op(A) is W.
 * LT_ORIENT_ROW: row-major layouts (CUBLASLT_ORDER_ROW): D[m, n] =
 *                X[m, k] * W^T[k, n], X as A and W as B (TRANSB = T).
 * LT_ORIENT_N:   column-major like T, but A is W^T prepared once (K x N
 *                row-major, RELAYOUT_TRANSPOSE: an n x k column-major
 *                matrix), not transposed by the op (TRANSA = N).
 * Same product, same output layout; the library picks other kernels.
 */
enum lt_orient { LT_ORIENT_T = 0, LT_ORIENT_ROW = 1, LT_ORIENT_N = 2, LT_NORIENTS };

/* The attributes an algorithm is stored by, in this order (the values of
 * CUBLASLT_ALGO_CONFIG_ID, _TILE_ID, _STAGES_ID, _SPLITK_NUM,
 * _REDUCTION_SCHEME, _CTA_SWIZZLING, _CUSTOM_OPTION, _INNER_SHAPE_ID,
 * _CLUSTER_SHAPE_ID). */
#define LT_NATTRS 9
extern const char *const lt_attr_names[LT_NATTRS];

#endif
