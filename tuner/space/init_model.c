/*
 * init_model.c: a Hugging Face config.json read into struct init_model
 * (init.h). libyaml reads it (JSON is YAML); a multimodal config's text
 * model is its text_config.
 *
 * Every key the reader looks at is marked; after reading, each key of the
 * text model that is neither marked nor known to leave every projection's
 * shape alone (harmless[] below) is warned about, once, at its line: such
 * a key (quantization_config, num_nextn_predict_layers, a layer pattern
 * of a family init does not know) may change a shape the space gets
 * wrong, so the user is told to check it.
 */
#include "init.h"
#include "util.h"
#include "ytree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_USED 64

struct reader {
	struct loader L;
	const struct ynode *root, *c;   /* the file, and the text model's keys */
	const char *used[MAX_USED];
	int nused;
};

/* Keys that change no projection's shape: token ids, norms, dropout,
 * position encodings (rope acts on the heads, not on the weights),
 * attention windows and soft caps, routing policy (top-k, scoring, loss),
 * and bookkeeping. Anything else init does not read is warned about. */
static const char *const harmless[] = {
	"_name_or_path", "architectures", "auto_map", "transformers_version", "use_cache",
	"bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id",
	"initializer_range", "hidden_act", "hidden_activation",
	"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps",
	"attention_dropout", "embd_pdrop", "resid_pdrop", "attn_pdrop", "hidden_dropout",
	"max_position_embeddings", "original_max_position_embeddings",
	"rope_theta", "rope_scaling", "rope_parameters", "rope_interleave",
	"partial_rotary_factor", "rotary_pct", "rotary_emb_base", "use_mrope",
	"sliding_window", "sliding_window_size", "sliding_window_pattern",
	"use_sliding_window", "max_window_layers", "layer_types", "cache_implementation",
	"attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar",
	"qk_layernorm", "use_qk_norm", "norm_type", "norm_epsilon",
	"embedding_dropout", "residual_dropout",
	"num_experts_per_tok", "router_aux_loss_coef", "router_jitter_noise",
	"output_router_logits", "aux_loss_alpha", "seq_aux", "norm_topk_prob",
	"routed_scaling_factor", "scoring_func", "topk_method", "n_group", "topk_group",
	"ep_size",
	/* HF's eager forward may slice a projection over pretraining_tp
	 * matmuls; the weights, and a serving engine's GEMM, stay whole */
	"pretraining_tp",
	"text_config",
};

/* model_types whose layers init derives (the others are read as a
 * Llama-like decoder, with a warning); the first two are not gated. */
static const char *const known_types[] = {
	"phi", "starcoder2",
	"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
	"gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3",
};
#define NOT_GATED 2

static int in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* The value of key name in map, or NULL; marks name read. */
static const struct ynode *get(struct reader *r, const struct ynode *map, const char *name)
{
	if (r->nused < MAX_USED && !in_list(r->used, (size_t)r->nused, name))
		r->used[r->nused++] = name;
	for (int i = 0; map && map->kind == K_MAP && i + 1 < map->nkids; i += 2)
		if (!strcmp(map->kids[i]->text, name))
			return map->kids[i + 1];
	return NULL;
}

static int is_null(const struct ynode *v)
{
	return v->kind == K_SCALAR && v->style == Y_PLAIN && (!strcmp(v->text, "null") || !*v->text);
}

/* A size: 0 when absent, null or 0; -1 after an error. */
static long int_key(struct reader *r, const char *name)
{
	const struct ynode *v = get(r, r->c, name);
	char *end;
	if (!v || is_null(v) || (v->kind == K_SCALAR && !strcmp(v->text, "0")))
		return 0;
	if (v->kind != K_SCALAR)
		return yfail(&r->L, v, "%s must be an integer", name);
	long x = strtol(v->text, &end, 10);
	if (*end || x <= 0 || x > INT_MAX)
		return yfail(&r->L, v, "%s must be a positive integer, not '%s'", name, v->text);
	return x;
}

/* A flag: 1 true, 0 false, dflt when absent or null; -1 after an error. */
static int bool_key(struct reader *r, const char *name, int dflt)
{
	const struct ynode *v = get(r, r->c, name);
	if (!v || is_null(v))
		return dflt;
	if (v->kind == K_SCALAR && !strcmp(v->text, "true"))
		return 1;
	if (v->kind == K_SCALAR && !strcmp(v->text, "false"))
		return 0;
	return yfail(&r->L, v, "%s must be true or false", name);
}

static void text_key(struct reader *r, const struct ynode *map, const char *name, char *out,
		     size_t len)
{
	const struct ynode *v = get(r, map, name);
	if (!*out && v && v->kind == K_SCALAR && !is_null(v))
		snprintf(out, len, "%s", v->text);
}

/* Whether layer i has routed experts: DeepSeek's first_k_dense_replace
 * and moe_layer_freq, Qwen's decoder_sparse_step and mlp_only_layers
 * (each key's absence leaves every layer a MoE one). */
static long count_moe_layers(struct reader *r, const struct init_model *m)
{
	long first = int_key(r, "first_k_dense_replace"), freq = int_key(r, "moe_layer_freq"),
	     step = int_key(r, "decoder_sparse_step");
	const struct ynode *only = get(r, r->c, "mlp_only_layers");
	if (first < 0 || freq < 0 || step < 0)
		return -1;
	if (only && !is_null(only) && only->kind != K_LIST)
		return yfail(&r->L, only, "mlp_only_layers must be a list of layer numbers");
	long n = 0;
	for (long i = 0; i < m->layers; i++) {
		int moe = i >= first && i % (freq ? freq : 1) == 0 && (i + 1) % (step ? step : 1) == 0;
		for (int j = 0; moe && only && only->kind == K_LIST && j < only->nkids; j++)
			moe = only->kids[j]->kind != K_SCALAR || strtol(only->kids[j]->text, NULL, 10) != i;
		n += moe;
	}
	return n;
}

/* MLA (DeepSeek-V2/V3) and the mixture of experts. */
static int read_mla_moe(struct reader *r, struct init_model *m)
{
	if ((m->q_lora_rank = int_key(r, "q_lora_rank")) < 0 ||
	    (m->kv_lora_rank = int_key(r, "kv_lora_rank")) < 0 ||
	    (m->qk_nope = int_key(r, "qk_nope_head_dim")) < 0 ||
	    (m->qk_rope = int_key(r, "qk_rope_head_dim")) < 0 ||
	    (m->v_head_dim = int_key(r, "v_head_dim")) < 0)
		return -1;
	if (m->kv_lora_rank && !(m->qk_nope && m->qk_rope && m->v_head_dim))
		return yfail(&r->L, r->c, "an MLA config (kv_lora_rank) needs qk_nope_head_dim, "
			     "qk_rope_head_dim and v_head_dim");
	long e1 = int_key(r, "num_local_experts"), e2 = int_key(r, "num_experts"),
	     e3 = int_key(r, "n_routed_experts"), shared_n = int_key(r, "n_shared_experts");
	if (e1 < 0 || e2 < 0 || e3 < 0 || shared_n < 0 ||
	    (m->moe_inter = int_key(r, "moe_intermediate_size")) < 0 ||
	    (m->shared_inter = int_key(r, "shared_expert_intermediate_size")) < 0)
		return -1;
	m->experts = e1 ? e1 : e2 ? e2 : e3;
	if (!m->moe_inter)
		m->moe_inter = m->inter;    /* Mixtral: intermediate_size is the expert's */
	m->shared_gate = m->shared_inter > 0;
	if (!m->shared_inter)
		m->shared_inter = shared_n * m->moe_inter;
	if (!m->experts)
		return 0;
	if ((m->moe_layers = count_moe_layers(r, m)) < 0)
		return -1;
	if (!m->moe_inter)
		return yfail(&r->L, r->c, "a mixture of experts needs moe_intermediate_size "
			     "or intermediate_size");
	return 0;
}

/* Biases, per family: a key where the family has one, else its fixed rule. */
static int read_biases(struct reader *r, struct init_model *m)
{
	int phi = !strcmp(m->type, "phi"), qwen2 = !strncmp(m->type, "qwen2", 5);
	int attn = bool_key(r, "attention_bias", 0), mlp = bool_key(r, "mlp_bias", 0),
	    all = bool_key(r, "use_bias", !strcmp(m->type, "starcoder2"));
	if (attn < 0 || mlp < 0 || all < 0)
		return -1;
	m->qkv_bias = attn || all || phi || qwen2;     /* Qwen2's q, k, v have one */
	m->o_bias = attn || all || phi;
	m->mlp_bias = mlp || all || phi;
	m->head_bias = phi;
	return 0;
}

static int read_sizes(struct reader *r, struct init_model *m)
{
	if ((m->hidden = int_key(r, "hidden_size")) < 0 ||
	    (m->inter = int_key(r, "intermediate_size")) < 0 ||
	    (m->heads = int_key(r, "num_attention_heads")) < 0 ||
	    (m->kv_heads = int_key(r, "num_key_value_heads")) < 0 ||
	    (m->head_dim = int_key(r, "head_dim")) < 0 ||
	    (m->vocab = int_key(r, "vocab_size")) < 0 ||
	    (m->layers = int_key(r, "num_hidden_layers")) < 0)
		return -1;
	static const char *const need[] = { "hidden_size", "num_attention_heads",
					    "num_hidden_layers", "vocab_size" };
	const long have[] = { m->hidden, m->heads, m->layers, m->vocab };
	for (size_t i = 0; i < ARRAY_SIZE(need); i++)
		if (!have[i])
			return yfail(&r->L, r->c, "the config has no %s", need[i]);
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (!m->head_dim && m->hidden % m->heads)
		return yfail(&r->L, r->c, "hidden_size %ld is not a multiple of num_attention_heads "
			     "%ld, and the config has no head_dim", m->hidden, m->heads);
	if (!m->head_dim)
		m->head_dim = m->hidden / m->heads;
	return 0;
}

/* Forget that names were read: keys whose layer kind the model lacks
 * (a shared expert without routed ones, MLA's sizes without its kv
 * rank) change no shape init derives, so they are warned about. */
static void unmark(struct reader *r, const char *const *names, size_t n)
{
	for (int i = 0; i < r->nused; i++)
		if (in_list(names, n, r->used[i]))
			r->used[i--] = r->used[--r->nused];
}

/* Warn once about each key of the text model that init neither read nor
 * knows to be harmless, unless its value is null, false, 0 or empty. */
static void warn_unread(struct reader *r)
{
	const struct ynode *c = r->c;
	for (int i = 0; i + 1 < c->nkids; i += 2) {
		const char *k = c->kids[i]->text;
		const struct ynode *v = c->kids[i + 1];
		if (in_list(r->used, (size_t)r->nused, k) || in_list(harmless, ARRAY_SIZE(harmless), k))
			continue;
		if (is_null(v) || (v->kind == K_SCALAR && (!strcmp(v->text, "false") ||
							   !strcmp(v->text, "0"))) ||
		    (v->kind != K_SCALAR && v->nkids == 0))
			continue;
		char shown[SHOWN_MAX];
		yfail(&r->L, c->kids[i], "warning: init does not read '%s', which may change a "
		      "shape: check the space's shapes against the model", yshown(k, shown));
	}
}

/* Unmark the keys read that shaped nothing: those of a layer kind the
 * model lacks, and a StarCoder2 mlp_type other than "default" (c_fc and
 * c_proj, the one MLP init knows there). */
static void forget_unused(struct reader *r, const struct init_model *m)
{
	static const char *const moe_keys[] = {
		"first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers",
		"moe_intermediate_size", "shared_expert_intermediate_size", "n_shared_experts",
	};
	static const char *const mla_keys[] = {
		"q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
	};
	static const char *const mlp_type_key[] = { "mlp_type" };
	char mlp_type[32] = "";
	if (!m->experts)
		unmark(r, moe_keys, ARRAY_SIZE(moe_keys));
	if (!m->kv_lora_rank)
		unmark(r, mla_keys, ARRAY_SIZE(mla_keys));
	text_key(r, r->c, "mlp_type", mlp_type, sizeof(mlp_type));
	if (*mlp_type && strcmp(mlp_type, "default"))
		unmark(r, mlp_type_key, 1);
}

static int read_config(struct reader *r, struct init_model *m)
{
	if (r->root->kind != K_MAP)
		return yfail(&r->L, r->root, "a config.json is a JSON object");
	const struct ynode *text = get(r, r->root, "text_config");
	r->c = text && text->kind == K_MAP ? text : r->root;
	text_key(r, r->c, "model_type", m->type, sizeof(m->type));
	/* the dtype beside the text model's keys, or at the top */
	text_key(r, r->c, "torch_dtype", m->dtype, sizeof(m->dtype));
	text_key(r, r->c, "dtype", m->dtype, sizeof(m->dtype));
	text_key(r, r->root, "torch_dtype", m->dtype, sizeof(m->dtype));
	text_key(r, r->root, "dtype", m->dtype, sizeof(m->dtype));
	m->known_type = in_list(known_types, ARRAY_SIZE(known_types), m->type);
	m->gated = !in_list(known_types, NOT_GATED, m->type);
	int gemma = !strncmp(m->type, "gemma", 5);
	if (read_sizes(r, m) || read_mla_moe(r, m) || read_biases(r, m) ||
	    (m->tied = bool_key(r, "tie_word_embeddings", gemma)) < 0)
		return -1;
	if (m->layers - m->moe_layers > 0 && !m->inter)
		return yfail(&r->L, r->c, "the config has no intermediate_size");
	forget_unused(r, m);
	if (!m->known_type) {
		char shown[SHOWN_MAX];
		const struct ynode *t = get(r, r->c, "model_type");
		if (t)
			yfail(&r->L, t, "warning: model_type '%s' is not one init knows: its "
			      "shapes are those of a Llama-like decoder", yshown(m->type, shown));
		else
			yfail(&r->L, r->c, "warning: the config names no model_type: its shapes "
			      "are those of a Llama-like decoder");
	}
	warn_unread(r);
	return 0;
}

/* libyaml 0.2.5 refuses JSON's surrogate-pair escapes (\ud83d\ude00). */
static int has_surrogate_escape(const char *buf)
{
	for (const char *p = buf; (p = strstr(p, "\\u")); p += 2)
		if ((p[2] == 'd' || p[2] == 'D') && strchr("89abAB", p[3]))
			return 1;
	return 0;
}

int init_model_read(const char *path, struct init_model *m)
{
	struct reader r = { { m->path, NULL, 0 }, NULL, NULL, { NULL }, 0 };
	struct stat st;
	char *buf;
	int ret = -1;
	memset(m, 0, sizeof(*m));
	/* a model's folder holds its config.json */
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		snprintf(m->path, sizeof(m->path), "%s%sconfig.json", path,
			 path[strlen(path) - 1] == '/' ? "" : "/");
	else
		snprintf(m->path, sizeof(m->path), "%s", path);
	/* a missing file has no line to point at */
	if (stat(m->path, &st))
		return fprintf(stderr, "%s: cannot open: %s\n", m->path, strerror(errno)), -1;
	if (!(buf = yread_file(&r.L, &r.L.len)))
		return -1;
	r.L.buf = buf;
	if (!(r.root = ybuild_tree(&r.L))) {
		if (has_surrogate_escape(buf))
			fprintf(stderr, "%s: it holds a JSON surrogate-pair escape (\\ud800..\\udfff), "
				"which libyaml 0.2.5 cannot read: write the character itself in "
				"UTF-8\n", m->path);
		goto out;
	}
	ret = read_config(&r, m);
out:
	ynode_free((struct ynode *)r.root);
	free(buf);
	return ret;
}
