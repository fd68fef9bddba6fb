/*
 * init_space.c: the search space gemmtab init writes for a model's
 * projections (init.h): a header saying what it covers and leaves out,
 * the sweep settings, the workload (every projection once per layer that
 * runs it), the shapes, and templates whose constraints hold for any N
 * and K, with the rules search_spaces/h200.yaml keeps by hand where they
 * matter to every space (gemv's K share per split, no gemv past small M).
 */
#include "init.h"
#include "util.h"

#include <string.h>

static int template_on(const char *list, const char *name)
{
	if (!list)
		return 1;
	size_t len = strlen(name);
	for (const char *p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return 1;
	return 0;
}

const char *init_templates_unknown(const char *list, char *buf, size_t len)
{
	static const char *const known[] = { "gemv", "mma_skinny", "blas_hilo", "cublaslt" };
	for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',') {
		size_t n = strcspn(p, ","), i = 0;
		while (i < ARRAY_SIZE(known) && (strlen(known[i]) != n || strncmp(known[i], p, n)))
			i++;
		if (i == ARRAY_SIZE(known)) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return buf;
		}
	}
	return NULL;
}

static const char gemv_text[] =
"  # streaming GEMV for the fewest tokens (templates/gemv.cuh): any N, and K\n"
"  # in whole 16-byte rows (a tail kernel takes what the blocks do not divide)\n"
"  gemv:\n"
"    params:\n"
"      warps: [2, 4, 8, 16]\n"
"      rows: [1, 2, 4]\n"
"      tokens: [1, 2, 4, 8, 16]\n"
"      unroll: [1, 2, 4]\n"
"      split: [1, 2, 4, 8]\n"
"      cache: [default, cg, nc_na, evict_first]\n"
"    constraints:\n"
"      - \"rows * tokens <= 64\"\n"
"      - \"rows * unroll <= 16\"\n"
"      - \"tokens >= m || tokens == 16\"\n"
"      - \"tokens < 2 * m\"\n"
"      # each split's share of K holds one pass of the block at least\n"
"      # (warps * 32 threads x unroll 16-byte loads): the tail kernel reads\n"
"      # out of bounds on a shorter share (Llama-3-8B's qkv at split 8 and\n"
"      # warps 4 faulted), and search_spaces/h200.yaml asks whole passes\n"
"      - \"split == 1 || k / split >= warps * 32 * unroll * (16 / w_bytes)\"\n"
"      # at least one block per SM; a narrow shape (a router) single rows\n"
"      - \"n / rows * split >= sm_count || (n < sm_count && rows == 1)\"\n"
"      # past M = 32 a GEMV re-reads W at least M/16 times and cannot beat\n"
"      # a tensor-core GEMM: a small set that shows it (h200.yaml's rule)\n"
"      - \"m <= 32 || (split == 1 && cache == nc_na && unroll >= 2)\"\n\n";

static const char mma_skinny_text[] =
"  # tensor cores with split-K (templates/mma_skinny.cuh), M 2..128: K must\n"
"  # be whole bk tiles of every split\n"
"  mma_skinny:\n"
"    params:\n"
"      bm: [32, 64, 128]\n"
"      bn: [8, 16, 32, 64, 128]\n"
"      bk: [64, 128]\n"
"      warps: [4, 8, 16]\n"
"      stages: [4, 5, 6]\n"
"      split: [1, 2, 4, 8]\n"
"      cache: [cg]\n"
"      mma: [sync, wgmma]\n"
"      pdl: [0, 1]\n"
"      combine: [partials, atomic, cluster]\n"
"      layout: [rows]\n"
"      wk: [0]\n"
"    constraints:\n"
"      - \"w_bytes == 2 && x_bytes == 2 && y_bytes == 2\"\n"
"      - \"m >= 2 && m <= 128\"\n"
"      - \"n % bm == 0\"\n"
"      - \"k % (split * bk) == 0\"\n"
"      - \"split > 1 || combine == partials\"\n"
"      - \"pdl == 0 || (split > 1 && combine != cluster)\"\n"
"      # two blocks per SM (as search_spaces/h200.yaml's rule)\n"
"      - \"stages * (bm + bn) * bk * 2 + smem_reserved <= smem_sm / 2 + 2 * smem_reserved\"\n"
"      - \"k / (split * bk) >= stages\"\n"
"      - \"bn >= m && (bn < 2 * m || bn == 8)\"\n"
"      - \"split * (n / bm) >= sm_count - 12 && split * (n / bm) <= 8 * sm_count\"\n"
"      - \"mma == sync || (bk == 64 && (warps == bm / 16 || (warps == bm / 8 && bn >= 32)))\"\n"
"      - \"mma == wgmma || ((warps == 4 || (warps == 8 && bm == 128)) && bn <= 64)\"\n\n";

static const char blas_hilo_text[] =
"  # the FP32 router as two BF16 tensor-core GEMMs of its hi/lo split\n"
"  blas_hilo:\n"
"    params: {}\n"
"    constraints: [\"w_bytes == 4\"]\n\n";

static void write_templates(FILE *f, const char *list, int any_fp32)
{
	int gemv = template_on(list, "gemv"), mma = template_on(list, "mma_skinny"),
	    hilo = any_fp32 && template_on(list, "blas_hilo");
	if (template_on(list, "cublaslt"))
		fprintf(f, "# cuBLASLt's own algorithms at every bf16 shape and tuned M, named by "
			"its\n# heuristic on the GPU\ncublaslt:\n  orient: [t, row, n]\n  top: 8\n"
			"  splitk: [1, 2, 4, 8]\n\n");
	if (gemv || mma || hilo)
		fputs("templates:\n", f);
	if (gemv)
		fputs(gemv_text, f);
	if (mma)
		fputs(mma_skinny_text, f);
	if (hilo)
		fputs(blas_hilo_text, f);
}

/* The first lines: the command, the model, and what is left out. */
static void write_header(FILE *f, const struct init_model *m, const struct init_plan *p,
			 const struct init_opts *o)
{
	fprintf(f, "# gemmtab init --model %s --tp %d --max-m %d --dtype %s --router-dtype %s\n",
		o->model_arg, o->tp, o->max_m, o->dtype, o->router_fp32 ? "fp32" : "bf16");
	fprintf(f, "# The decode projections of %s on one of %d tensor-parallel ranks, in %s\n"
		"# (the config's weights: %s): %ld layers", m->type[0] ? m->type : "the model",
		p->tp, o->dtype, m->dtype[0] ? m->dtype : "not named", m->layers);
	if (m->experts)
		fprintf(f, " (%ld dense, %ld with experts)", m->layers - m->moe_layers, m->moe_layers);
	fprintf(f, ",\n# hidden %ld, %ld heads of %ld, ", m->hidden, m->heads,
		m->kv_lora_rank ? m->qk_nope + m->qk_rope : m->head_dim);
	if (m->kv_lora_rank)
		fprintf(f, "MLA with a kv rank of %ld.\n", m->kv_lora_rank);
	else
		fprintf(f, "%ld key-value heads.\n", m->kv_heads);
	fprintf(f, "# Left to the caller: biases (the library computes X W^T; add a bias after, "
		"where a\n# shape says so) and the attention itself.%s\n", m->tied ?
		" The head shares the embedding's weights (tie_word_embeddings)." : "");
	if (m->experts)
		fprintf(f, "# Not tuned: the routed experts, %ld in each of %ld layers, %.1f%% of "
			"such a layer's\n# weight bytes: grouped GEMMs that gemmtab does not tune.\n",
			m->experts, m->moe_layers, 100.0 * p->routed_share);
	if (m->experts && m->shared_gate)
		fprintf(f, "# The shared expert's gate (N = 1) is left out: too narrow to tune.\n");
}

static void write_shapes(FILE *f, const struct init_plan *p, int max_m)
{
	fprintf(f, "\nshapes:\n");
	for (int i = 0; i < p->nproj; i++) {
		const struct init_proj *q = &p->proj[i];
		fprintf(f, "  # %s%s\n", q->what, q->bias ? "; a bias, added after" : "");
		if (q->n % 8 || q->k % 8)
			fprintf(f, "  # (N or K is not a multiple of 8: no template takes it; the "
				"library runs cuBLAS)\n");
		fprintf(f, "  - {family: %s, n: %ld, k: %ld, w: %s, x: bf16, y: %s, tol: %s,\n"
			"     m: ", q->family, q->n, q->k, q->fp32 ? "fp32" : "bf16",
			q->fp32 ? "fp32" : "bf16", q->fp32 ? "1e-4" : "1e-2");
		if (max_m > 1)
			fprintf(f, "1..%d}\n", max_m);
		else
			fprintf(f, "[1]}\n");
	}
	fprintf(f, "\n");
}

int init_space_write(FILE *f, const struct init_model *m, const struct init_plan *p,
		     const struct init_opts *o)
{
	int any_fp32 = 0;
	for (int i = 0; i < p->nproj; i++)
		any_fp32 |= p->proj[i].fp32;
	write_header(f, m, p, o);
	fprintf(f, "\n# screened at M = 1, 2, 4, ... (each range's anchors); each anchor's best "
		"3\n# retests then timed at every M between the anchors beside it\n"
		"sweep:\n  screen_pairs: 10\n  retest_pairs: 100\n  retest_top: 3\n"
		"  deadline_s: 20\n  range_top: 3\n  range_pairs: 100\n\n");
	fprintf(f, "# what report and bench score: every load runs each projection once per "
		"layer\n# that has it\nworkload:\n  loads: [");
	int nloads = 0;
	for (int x = 1; x < o->max_m && nloads < 31; x *= 2, nloads++)
		fprintf(f, "%s%d", nloads ? ", " : "", x);
	fprintf(f, "%s%d]\n  shapes:\n", nloads ? ", " : "", o->max_m);
	for (int i = 0; i < p->nproj; i++)
		fprintf(f, "    - {family: %s, count: %d}\n", p->proj[i].family, p->proj[i].count);
	write_shapes(f, p, o->max_m);
	write_templates(f, o->templates, any_fp32);
	return fflush(f) || ferror(f) ? -1 : 0;
}
