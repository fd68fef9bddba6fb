/*
 * runtime_tables.c: the runtime's choice among two compiled-in tables,
 * emitted from fake sweeps on two GPU names (tests/cli/
 * t_runtime_tables.sh builds it: runtime/table.c once per table, as
 * runtime/runtime.mk does, and runtime/choose.c and dispatch.c without
 * CUDA). CARD_A, CARD_B name the cards, TABLE_A, TABLE_B their tables'
 * paths, CUBLASLT the version both were tuned with, N_LT and N_TEMPLATE
 * how many cuBLASLt and template entries table A holds for qkv.
 */
#include "check.h"
#include "rt.h"

#include <stdlib.h>
#include <string.h>

/* The tables' kernels are not needed to choose: empty lists per slot. */
const struct rt_cubin gt_table_cubins_1[] = { { 0, 0 } }, gt_table_cubins_2[] = { { 0, 0 } };
const struct rt_kernel_name gt_table_kernel_names_1[] = { { -1, 0 } },
			    gt_table_kernel_names_2[] = { { -1, 0 } };
const int gt_table_nkernels_1 = 64, gt_table_nkernels_2 = 64;

extern const struct rt_compiled rt_compiled_1, rt_compiled_2;
const struct rt_compiled *const rt_compiled_tables[] = { &rt_compiled_1, &rt_compiled_2, NULL };

/* A card as gt_context_create describes it: versions as tuned. */
static struct rt_env card(const char *name)
{
	struct rt_env e = { .sm_count = 132, .cc = 90 };
	snprintf(e.gpu_name, sizeof(e.gpu_name), "%s", name);
	snprintf(e.driver, sizeof(e.driver), "13.0");
	snprintf(e.cuda, sizeof(e.cuda), "13.0");
	snprintf(e.cublaslt, sizeof(e.cublaslt), "%s", CUBLASLT);
	return e;
}

TEST(each_card_picks_its_table)
{
	char desc[RT_DESC_MAX], want[RT_DESC_MAX];
	struct rt_env a = card(CARD_A), b = card(CARD_B);
	CHECK_INT(rt_table_pick(rt_compiled_tables, &a, desc, sizeof(desc)), 0);
	snprintf(want, sizeof(want), "table %s in use on %s (132 SMs): tuned on %s, 132 SMs",
		 TABLE_A, CARD_A, CARD_A);
	CHECK(!strncmp(desc, want, strlen(want)));
	snprintf(want, sizeof(want), "; table %s not chosen: tuned on %s, not this %s (",
		 TABLE_B, CARD_B, CARD_A);
	CHECK(strstr(desc, want) != NULL);
	printf("# %s: %s\n", CARD_A, desc);
	CHECK_INT(rt_table_pick(rt_compiled_tables, &b, desc, sizeof(desc)), 1);
	snprintf(want, sizeof(want), "table %s in use on %s (132 SMs)", TABLE_B, CARD_B);
	CHECK(!strncmp(desc, want, strlen(want)));
	printf("# %s: %s\n", CARD_B, desc);
}

TEST(a_third_card_gets_none_and_the_reasons)
{
	char desc[RT_DESC_MAX], want[RT_DESC_MAX];
	struct rt_env c = card("Fake L40S");
	CHECK_INT(rt_table_pick(rt_compiled_tables, &c, desc, sizeof(desc)), -1);
	CHECK(!strncmp(desc, "no table for Fake L40S (132 SMs, compute capability 9.0): every "
		       "M runs the cuBLAS baseline; ", 92));
	snprintf(want, sizeof(want), "table %s not chosen: tuned on %s, not this Fake L40S",
		 TABLE_A, CARD_A);
	CHECK(strstr(desc, want) != NULL);
	snprintf(want, sizeof(want), "table %s not chosen: tuned on %s, not this Fake L40S",
		 TABLE_B, CARD_B);
	CHECK(strstr(desc, want) != NULL);
	printf("# Fake L40S: %s\n", desc);
}

/* Table A's qkv routes, checked against env; the usable template and
 * cuBLASLt routes counted, the reasons of the others printed. */
static void routes_under(const struct rt_env *env, int *templates, int *lts, int *lts_off)
{
	struct shape s;
	struct rt_route *r = NULL;
	char line[1024];
	rt_shape_init(&s, 2304, 8192, GT_BF16, GT_BF16, GT_BF16);
	int n = rt_routes_collect(rt_compiled_1.table, &s, gt_table_nkernels_1, &r);
	*templates = *lts = *lts_off = 0;
	for (int i = 0; i < n; i++) {
		rt_route_env_check(&r[i], rt_compiled_1.table, env);
		if (r[i].lt && r[i].usable)
			++*lts;
		else if (r[i].lt)
			++*lts_off;
		else if (r[i].usable)
			++*templates;
		rt_explain(&s, &r[i], r[i].e->m_lo, 0, 0, line, sizeof(line));
		printf("# %s\n", line);
		if (r[i].lt && !r[i].usable) {
			char want[256];
			snprintf(want, sizeof(want), "entry %d (blas_lt orient=t,", r[i].index);
			CHECK(strstr(line, want) != NULL);
			snprintf(want, sizeof(want), "not used: a cuBLASLt algorithm chosen under "
				 "cuBLASLt %s, this process runs cuBLASLt 99.0.0", CUBLASLT);
			CHECK(strstr(line, want) != NULL);
		}
	}
	free(r);
}

TEST(a_driver_and_cuda_change_keeps_every_entry)
{
	struct rt_env a = card(CARD_A);
	int templates, lts, off;
	snprintf(a.driver, sizeof(a.driver), "99.0");
	snprintf(a.cuda, sizeof(a.cuda), "99.0");
	CHECK_INT(rt_table_pick(rt_compiled_tables, &a, NULL, 0), 0);
	routes_under(&a, &templates, &lts, &off);
	CHECK_INT(templates, N_TEMPLATE);
	CHECK_INT(lts, N_LT);
	CHECK_INT(off, 0);
}

TEST(a_cublaslt_change_turns_off_the_cublaslt_entries_alone)
{
	struct rt_env a = card(CARD_A);
	int templates, lts, off;
	snprintf(a.cublaslt, sizeof(a.cublaslt), "99.0.0");
	CHECK_INT(rt_table_pick(rt_compiled_tables, &a, NULL, 0), 0);
	routes_under(&a, &templates, &lts, &off);
	CHECK_INT(templates, N_TEMPLATE);
	CHECK_INT(lts, 0);
	CHECK_INT(off, N_LT);
}

TESTS(T(each_card_picks_its_table), T(a_third_card_gets_none_and_the_reasons),
      T(a_driver_and_cuda_change_keeps_every_entry),
      T(a_cublaslt_change_turns_off_the_cublaslt_entries_alone))
