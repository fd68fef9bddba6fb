/*
 * table.c: the one translation unit that includes the generated dispatch
 * table. runtime/runtime.mk passes its path as GT_TABLE_HEADER (the TABLE
 * make variable); its kernels are compiled from the matching
 * <name>_kernels.cu.
 */
#include "rt.h"

#ifndef GT_TABLE_HEADER
#error "GT_TABLE_HEADER must name the generated table, e.g. -DGT_TABLE_HEADER='\"tables/h200.h\"'"
#endif
#include GT_TABLE_HEADER

const struct gt_table *rt_table(void)
{
	return &gt_compiled_table;
}
