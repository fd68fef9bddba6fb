/*
 * table.c: one compiled-in dispatch table, built once per table of the
 * TABLES make variable (runtime/runtime.mk): GT_TABLE_HEADER names the
 * generated header and GT_TABLE_SLOT its place in the list, which names
 * this table's entry rt_compiled_SLOT and the kernels tools/gt_cubin
 * compiled from the matching <name>_kernels.cu (their symbols renamed per
 * slot by the build).
 */
#include "rt.h"

#ifndef GT_TABLE_HEADER
#error "GT_TABLE_HEADER must name the generated table, e.g. -DGT_TABLE_HEADER='\"tables/h200.h\"'"
#endif
#ifndef GT_TABLE_SLOT
#error "GT_TABLE_SLOT must number the table in TABLES, e.g. -DGT_TABLE_SLOT=1"
#endif
#include GT_TABLE_HEADER

#define RT_CAT_(a, b) a##b
#define RT_CAT(a, b) RT_CAT_(a, b)

extern const struct rt_cubin RT_CAT(gt_table_cubins_, GT_TABLE_SLOT)[];
extern const struct rt_kernel_name RT_CAT(gt_table_kernel_names_, GT_TABLE_SLOT)[];
extern const int RT_CAT(gt_table_nkernels_, GT_TABLE_SLOT);

extern const struct rt_compiled RT_CAT(rt_compiled_, GT_TABLE_SLOT);
const struct rt_compiled RT_CAT(rt_compiled_, GT_TABLE_SLOT) = {
	GT_TABLE_HEADER,
	&gt_compiled_table,
	RT_CAT(gt_table_cubins_, GT_TABLE_SLOT),
	RT_CAT(gt_table_kernel_names_, GT_TABLE_SLOT),
	&RT_CAT(gt_table_nkernels_, GT_TABLE_SLOT),
};
