/*
 * cmd_init.c: `gemmtab init --model config.json`: a search space for a
 * model's decode projections on one tensor-parallel rank, from its
 * Hugging Face config.json (read by libyaml: JSON is YAML). The space names
 * each projection as a shape, the loads and layer counts as its workload,
 * and the templates that serve bf16 projections of any N and K.
 */
#include "commands.h"
#include "options.h"
#include "util.h"
#include "ytree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: gemmtab init --model CONFIG.json [--tp N] [--max-m M] [--router-dtype bf16|fp32]\n"
	"                    [--templates LIST] [--out FILE]\n"
	"  --model FILE      a Hugging Face config.json\n"
	"  --tp N            tensor-parallel ranks: column-parallel layers split N,\n"
	"                    row-parallel ones K [1]\n"
	"  --max-m M         the largest token count to tune, 1..65536 [256]\n"
	"  --router-dtype D  the MoE router's weights: bf16, or fp32 where the model\n"
	"                    keeps them in FP32 (the config does not say) [bf16]\n"
	"  --templates LIST  the template sections to write, from gemv, mma_skinny,\n"
	"                    blas_hilo, cublaslt [all of them]\n"
	"  --out FILE        write the space there [stdout]\n";

/* The keys init reads, as one parsed config. */
struct model {
	long hidden, inter, heads, kv_heads, head_dim, vocab, layers;
	long experts, shared_inter;
	char dtype[32], type[64];
	int tied;
};

static const struct ynode *key(const struct ynode *map, const char *name)
{
	for (int i = 0; map && map->kind == K_MAP && i + 1 < map->nkids; i += 2)
		if (!strcmp(map->kids[i]->text, name))
			return map->kids[i + 1];
	return NULL;
}

/* An integer key; 0 when absent (or null). -1 after an error. */
static long int_key(const struct loader *L, const struct ynode *map, const char *name)
{
	const struct ynode *v = key(map, name);
	char *end;
	if (!v || (v->kind == K_SCALAR && (!strcmp(v->text, "null") || !*v->text ||
					     !strcmp(v->text, "0"))))
		return 0;       /* absent, null or 0: not there */
	if (v->kind != K_SCALAR)
		return yfail(L, v, "%s must be an integer", name);
	long x = strtol(v->text, &end, 10);
	if (*end || x <= 0 || x > INT_MAX)
		return yfail(L, v, "%s must be a positive integer, not '%s'", name, v->text);
	return x;
}

static int text_key(const struct ynode *map, const char *name, char *out, size_t len)
{
	const struct ynode *v = key(map, name);
	out[0] = '\0';
	if (v && v->kind == K_SCALAR)
		snprintf(out, len, "%s", v->text);
	return out[0] != '\0';
}

/* libyaml 0.2.5 refuses JSON's surrogate-pair escapes (\ud83d\ude00). */
static int has_surrogate_escape(const char *buf)
{
	for (const char *p = buf; (p = strstr(p, "\\u")); p += 2)
		if ((p[2] == 'd' || p[2] == 'D') && strchr("89abAB", p[3]))
			return 1;
	return 0;
}

static int read_model(const char *path, struct model *m)
{
	struct loader L = { path, NULL, 0 };
	char *buf = yread_file(&L, &L.len);
	struct ynode *root = NULL;
	int ret = -1;
	memset(m, 0, sizeof(*m));
	if (!buf)
		return -1;
	L.buf = buf;
	if (!(root = ybuild_tree(&L))) {
		if (has_surrogate_escape(buf))
			fprintf(stderr, "%s: it holds a JSON surrogate-pair escape (\\ud800..\\udfff), "
				"which libyaml 0.2.5 cannot read: write the character itself in "
				"UTF-8\n", path);
		goto out;
	}
	if (root->kind != K_MAP) {
		yfail(&L, root, "a config.json is a JSON object");
		goto out;
	}
	/* a multimodal config keeps the language model's keys under text_config */
	const struct ynode *c = key(root, "text_config") ? key(root, "text_config") : root;
	if ((m->hidden = int_key(&L, c, "hidden_size")) < 0 ||
	    (m->inter = int_key(&L, c, "intermediate_size")) < 0 ||
	    (m->heads = int_key(&L, c, "num_attention_heads")) < 0 ||
	    (m->kv_heads = int_key(&L, c, "num_key_value_heads")) < 0 ||
	    (m->head_dim = int_key(&L, c, "head_dim")) < 0 ||
	    (m->vocab = int_key(&L, c, "vocab_size")) < 0 ||
	    (m->layers = int_key(&L, c, "num_hidden_layers")) < 0 ||
	    (m->shared_inter = int_key(&L, c, "shared_expert_intermediate_size")) < 0)
		goto out;
	long e1 = int_key(&L, c, "num_local_experts"), e2 = int_key(&L, c, "num_experts"),
	     e3 = int_key(&L, c, "n_routed_experts");
	if (e1 < 0 || e2 < 0 || e3 < 0)
		goto out;
	m->experts = e1 ? e1 : e2 ? e2 : e3;
	if (!text_key(c, "torch_dtype", m->dtype, sizeof(m->dtype)))
		text_key(c, "dtype", m->dtype, sizeof(m->dtype));
	text_key(c, "model_type", m->type, sizeof(m->type));
	char tied[16];
	m->tied = text_key(c, "tie_word_embeddings", tied, sizeof(tied)) && !strcmp(tied, "true");
	static const char *const need[] = { "hidden_size", "num_attention_heads",
					    "num_hidden_layers", "vocab_size" };
	const long have[] = { m->hidden, m->heads, m->layers, m->vocab };
	for (size_t i = 0; i < ARRAY_SIZE(need); i++)
		if (!have[i]) {
			yfail(&L, c, "the config has no %s", need[i]);
			goto out;
		}
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (!m->head_dim)
		m->head_dim = m->hidden / m->heads;
	ret = 0;
out:
	ynode_free(root);
	free(buf);
	return ret;
}

struct proj {
	const char *family, *what;
	long n, k;
	int fp32, count;
};

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

static void write_templates(FILE *f, const char *list, int any_fp32)
{
	int gemv = template_on(list, "gemv"), mma = template_on(list, "mma_skinny"),
	    hilo = any_fp32 && template_on(list, "blas_hilo");
	if (gemv || mma || hilo)
		fprintf(f, "templates:\n");
	if (gemv)
		fprintf(f,
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
"      # at least one block per SM; a narrow shape (a router) the widest\n"
"      # split of single rows\n"
"      - \"n / rows * split >= sm_count || (n < sm_count && rows == 1 && split == 8)\"\n\n");
	if (mma)
		fprintf(f,
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
"      - \"n %% bm == 0\"\n"
"      - \"k %% (split * bk) == 0\"\n"
"      - \"split > 1 || combine == partials\"\n"
"      - \"pdl == 0 || (split > 1 && combine != cluster)\"\n"
"      # two blocks per SM (as search_spaces/h200.yaml's rule)\n"
"      - \"stages * (bm + bn) * bk * 2 + smem_reserved <= smem_sm / 2 + 2 * smem_reserved\"\n"
"      - \"k / (split * bk) >= stages\"\n"
"      - \"bn >= m && (bn < 2 * m || bn == 8)\"\n"
"      - \"split * (n / bm) >= sm_count - 12 && split * (n / bm) <= 8 * sm_count\"\n"
"      - \"mma == sync || (bk == 64 && (warps == bm / 16 || (warps == bm / 8 && bn >= 32)))\"\n"
"      - \"mma == wgmma || ((warps == 4 || (warps == 8 && bm == 128)) && bn <= 64)\"\n\n");
	if (hilo)
		fprintf(f,
"  # the FP32 router as two BF16 tensor-core GEMMs of its hi/lo split\n"
"  blas_hilo:\n"
"    params: {}\n"
"    constraints: [\"w_bytes == 4\"]\n\n");
}

int cmd_init(int argc, char **argv)
{
	const char *path = NULL, *out_path = NULL, *router = "bf16", *list = NULL;
	int tp = 1, max_m = 256;
	const struct opt opts[] = {
		OPT_STRING("model", &path, OPT_REQUIRED),
		OPT_INT("tp", &tp, 1, 1024),
		OPT_INT("max-m", &max_m, 1, 65536),
		OPT_STRING("router-dtype", &router, 0),
		OPT_STRING("templates", &list, 0),
		OPT_STRING("out", &out_path, 0),
		OPT_END(),
	};
	int st = parse_options("init", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (strcmp(router, "bf16") && strcmp(router, "fp32"))
		return error("--router-dtype: '%s' is neither bf16 nor fp32", router), 2;
	if (list) {
		static const char *const known[] = { "gemv", "mma_skinny", "blas_hilo", "cublaslt" };
		char *copy = xstrdup(list), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			size_t i = 0;
			while (i < ARRAY_SIZE(known) && strcmp(known[i], t))
				i++;
			if (i == ARRAY_SIZE(known)) {
				error("--templates: unknown '%s' (gemv, mma_skinny, blas_hilo, cublaslt)", t);
				free(copy);
				return 2;
			}
		}
		free(copy);
	}

	struct model m;
	if (read_model(path, &m))
		return 2;
	if (!strcmp(m.dtype, "float16"))
		return error("%s: torch_dtype float16: the library serves bf16 projections (and an "
			     "fp32 router), not fp16; tune a bf16 checkpoint of the model", path), 2;
	if (m.dtype[0] && strcmp(m.dtype, "bfloat16"))
		return error("%s: torch_dtype %s: the library serves bf16 projections; convert the "
			     "checkpoint to bfloat16", path, m.dtype), 2;
	if (m.heads % tp || m.kv_heads % tp)
		return error("--tp %d does not divide the %ld attention heads and %ld key-value "
			     "heads of %s: each rank must hold whole heads", tp, m.heads, m.kv_heads,
			     path), 2;
	if (m.inter % tp || m.shared_inter % tp)
		return error("--tp %d does not divide the intermediate size %ld%s of %s", tp,
			     m.inter ? m.inter : m.shared_inter,
			     m.shared_inter ? " (or the shared expert's)" : "", path), 2;

	struct proj p[8];
	int np = 0;
	const int L = (int)m.layers;
	p[np++] = (struct proj){ "qkv", "fused q, k, v (column-parallel: N split)",
				 (m.heads + 2 * m.kv_heads) / tp * m.head_dim, m.hidden, 0, L };
	p[np++] = (struct proj){ "o_proj", "attention output (row-parallel: K split)",
				 m.hidden, m.heads / tp * m.head_dim, 0, L };
	if (!m.experts && m.inter) {
		p[np++] = (struct proj){ "gate_up", "fused gate and up (column-parallel)",
					 2 * m.inter / tp, m.hidden, 0, L };
		p[np++] = (struct proj){ "down", "down (row-parallel)", m.hidden, m.inter / tp, 0, L };
	}
	if (m.experts)
		p[np++] = (struct proj){ "router", "the MoE router (replicated on every rank)",
					 m.experts, m.hidden, !strcmp(router, "fp32"), L };
	if (m.experts && m.shared_inter) {
		p[np++] = (struct proj){ "shared_gate_up", "the shared expert's gate and up",
					 2 * m.shared_inter / tp, m.hidden, 0, L };
		p[np++] = (struct proj){ "shared_down", "the shared expert's down", m.hidden,
					 m.shared_inter / tp, 0, L };
	}
	/* the vocabulary split over the ranks, padded to whole 16-byte rows */
	long vocab = (m.vocab + tp - 1) / tp;
	vocab = (vocab + 7) / 8 * 8;
	p[np++] = (struct proj){ "lm_head", "the output head (column-parallel)", vocab, m.hidden,
				 0, 1 };

	int ms[32], nms = 0;
	for (int x = 1; x < max_m && nms < 31; x *= 2)
		ms[nms++] = x;
	ms[nms++] = max_m;
	int any_fp32 = 0;
	for (int i = 0; i < np; i++)
		any_fp32 |= p[i].fp32;

	FILE *f = out_path ? fopen(out_path, "w") : stdout;
	if (!f)
		return error("--out %s: %s", out_path, strerror(errno)), 1;
	fprintf(f, "# gemmtab init --model %s --tp %d --max-m %d --router-dtype %s\n", path, tp,
		max_m, router);
	fprintf(f, "# The decode projections of %s (%ld layers, hidden %ld, %ld heads of %ld, %ld "
		"key-value heads%s) on one of %d tensor-parallel ranks.\n",
		m.type[0] ? m.type : "the model", m.layers, m.hidden, m.heads, m.head_dim,
		m.kv_heads, m.experts ? ", a mixture of experts" : "", tp);
	fprintf(f, "# Left to the caller: biases (the library computes X W^T; add a bias "
		"after), the\n# attention itself, and the routed experts, which are grouped GEMMs "
		"that gemmtab\n# does not tune.%s\n", m.tied ? " The head shares the embedding's "
		"weights (tie_word_embeddings)." : "");
	if (m.experts && m.shared_inter)
		fprintf(f, "# The shared expert's gate (N = 1) is left out: too narrow to tune.\n");
	fprintf(f, "\n# screened at M = 1, 2, 4, ... (each range's anchors); each anchor's best "
		"3\n# retests then timed at every M between the anchors beside it\n"
		"sweep:\n  screen_pairs: 10\n  retest_pairs: 100\n  retest_top: 3\n"
		"  deadline_s: 20\n  range_top: 3\n  range_pairs: 100\n\n");
	fprintf(f, "# what report and bench score: every load runs each projection once per "
		"layer\nworkload:\n  loads: [");
	for (int i = 0; i < nms; i++)
		fprintf(f, "%s%d", i ? ", " : "", ms[i]);
	fprintf(f, "]\n  shapes:\n");
	for (int i = 0; i < np; i++)
		fprintf(f, "    - {family: %s, count: %d}\n", p[i].family, p[i].count);
	fprintf(f, "\nshapes:\n");
	for (int i = 0; i < np; i++) {
		fprintf(f, "  # %s\n", p[i].what);
		if (p[i].n % 8 || p[i].k % 8)
			fprintf(f, "  # (N or K is not a multiple of 8: no template takes it; the "
				"library runs cuBLAS)\n");
		fprintf(f, "  - {family: %s, n: %ld, k: %ld, w: %s, x: bf16, y: %s, tol: %s,\n"
			"     m: ", p[i].family, p[i].n, p[i].k, p[i].fp32 ? "fp32" : "bf16",
			p[i].fp32 ? "fp32" : "bf16", p[i].fp32 ? "1e-4" : "1e-2");
		if (max_m > 1)
			fprintf(f, "1..%d}\n", max_m);
		else
			fprintf(f, "[1]}\n");
	}
	fprintf(f, "\n");
	if (template_on(list, "cublaslt"))
		fprintf(f, "# cuBLASLt's own algorithms at every bf16 shape and tuned M, named by "
			"its\n# heuristic on the GPU\ncublaslt:\n  orient: [t, row, n]\n  top: 8\n"
			"  splitk: [1, 2, 4, 8]\n\n");
	write_templates(f, list, any_fp32);
	int bad = fflush(f) || ferror(f);
	if (out_path)
		bad |= fclose(f) != 0;
	if (bad)
		return error("%s: %s", out_path ? out_path : "stdout", strerror(errno)), 1;
	if (out_path)
		fprintf(stderr, "gemmtab init: wrote %s: %d shapes, loads M = 1..%d\n", out_path, np,
			max_m);
	return 0;
}
