/*
 * init_shapes.c: the dense projections one tensor-parallel rank of a
 * model runs, from its config (init.h), each with the number of layers
 * that run it; and what the routed experts the space leaves out weigh.
 *
 * Tensor parallelism follows the serving engines' (Megatron) layout: a
 * column-parallel layer (q, k, v, MLA's q_b and kv_b, gate and up, fc1,
 * the head) splits N over the ranks, a row-parallel one (o, down, fc2)
 * splits K, and MLA's low-rank down-projections (q_a, kv_a) and the
 * router are replicated. Sliding-window and global layers run the same
 * projections; dense and MoE layers are counted apart.
 */
#include "init.h"
#include "util.h"

#include <string.h>

static void add(struct init_plan *p, const char *family, const char *what, long n, long k,
		int count, int bias)
{
	if (count <= 0 || p->nproj == INIT_MAX_PROJ)
		return;
	p->proj[p->nproj++] = (struct init_proj){ family, what, n, k, 0, count, bias };
}

/* Weights of one layer's attention, in elements, on one rank. */
static void attention(const struct init_model *m, int tp, struct init_plan *p)
{
	const int L = (int)m->layers;
	if (!m->kv_lora_rank) {
		add(p, "qkv", "fused q, k, v (column-parallel: N split)",
		    (m->heads + 2 * m->kv_heads) / tp * m->head_dim, m->hidden, L, m->qkv_bias);
		add(p, "o_proj", "attention output (row-parallel: K split)", m->hidden,
		    m->heads / tp * m->head_dim, L, m->o_bias);
		return;
	}
	const long qk_dim = m->qk_nope + m->qk_rope;
	if (!m->q_lora_rank) {
		add(p, "q", "MLA's q (column-parallel)", m->heads / tp * qk_dim, m->hidden, L, 0);
	} else {
		add(p, "q_a", "MLA's q down-projection (replicated)", m->q_lora_rank, m->hidden, L,
		    m->qkv_bias);
		add(p, "q_b", "MLA's q up-projection (column-parallel)", m->heads / tp * qk_dim,
		    m->q_lora_rank, L, 0);
	}
	add(p, "kv_a", "MLA's kv down-projection with its rope part (replicated)",
	    m->kv_lora_rank + m->qk_rope, m->hidden, L, m->qkv_bias);
	add(p, "kv_b", "MLA's k (no rope) and v up-projection (column-parallel)",
	    m->heads / tp * (m->qk_nope + m->v_head_dim), m->kv_lora_rank, L, 0);
	add(p, "o_proj", "attention output (row-parallel: K split)", m->hidden,
	    m->heads / tp * m->v_head_dim, L, m->o_bias);
}

/* Elements of attention's weights in one layer of the whole model. */
static double attention_weights(const struct init_model *m)
{
	struct init_plan whole = { 0 };
	double sum = 0;
	attention(m, 1, &whole);
	for (int i = 0; i < whole.nproj; i++)
		sum += (double)whole.proj[i].n * whole.proj[i].k;
	return sum;
}

static void mlps(const struct init_model *m, int tp, int router_fp32, struct init_plan *p)
{
	const int dense = (int)(m->layers - m->moe_layers), moe = (int)m->moe_layers;
	if (m->gated) {
		add(p, "gate_up", "fused gate and up (column-parallel)", 2 * m->inter / tp, m->hidden,
		    dense, m->mlp_bias);
		add(p, "down", "down (row-parallel)", m->hidden, m->inter / tp, dense, m->mlp_bias);
	} else {
		add(p, "fc1", "fc1, the MLP's up-projection (column-parallel)", m->inter / tp,
		    m->hidden, dense, m->mlp_bias);
		add(p, "fc2", "fc2, the MLP's down-projection (row-parallel)", m->hidden,
		    m->inter / tp, dense, m->mlp_bias);
	}
	if (!m->experts)
		return;
	add(p, "router", "the MoE router (replicated on every rank)", m->experts, m->hidden, moe, 0);
	p->proj[p->nproj - 1].fp32 = router_fp32;
	if (m->shared_inter) {
		add(p, "shared_gate_up", "the shared experts' gate and up (column-parallel)",
		    2 * m->shared_inter / tp, m->hidden, moe, 0);
		add(p, "shared_down", "the shared experts' down (row-parallel)", m->hidden,
		    m->shared_inter / tp, moe, 0);
	}
	/* a MoE layer's weights, whole: attention, router, shared and routed experts */
	double routed = 3.0 * (double)m->experts * m->moe_inter * m->hidden;
	double layer = attention_weights(m) + (double)m->experts * m->hidden +
		       3.0 * m->shared_inter * m->hidden + (m->shared_gate ? m->hidden : 0) + routed;
	p->routed_share = routed / layer;
}

/* 0 when tp divides every size it splits; else -1 after an error naming it. */
static int check_tp(const struct init_model *m, int tp)
{
	if (m->heads % tp || m->kv_heads % tp)
		return error("--tp %d does not divide the %ld attention heads and %ld key-value "
			     "heads of %s: each rank must hold whole heads", tp, m->heads,
			     m->kv_heads, m->path);
	if (m->layers > m->moe_layers && m->inter % tp)
		return error("--tp %d does not divide the intermediate size %ld of %s", tp, m->inter,
			     m->path);
	if (m->experts && m->shared_inter % tp)
		return error("--tp %d does not divide the shared experts' intermediate size %ld "
			     "of %s", tp, m->shared_inter, m->path);
	return 0;
}

int init_shapes(const struct init_model *m, int tp, int router_fp32, struct init_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->tp = tp;
	if (check_tp(m, tp))
		return -1;
	attention(m, tp, p);
	mlps(m, tp, router_fp32, p);
	/* the vocabulary split over the ranks, padded to whole 16-byte rows */
	long vocab = (m->vocab + tp - 1) / tp;
	vocab = (vocab + 7) / 8 * 8;
	add(p, "lm_head", m->tied ? "the output head, tied to the embedding (column-parallel)"
		: "the output head (column-parallel)", vocab, m->hidden, 1, m->head_bias);
	return 0;
}

void init_summary(const struct init_model *m, const struct init_plan *p, const char *dtype)
{
	if (m->dtype[0])
		fprintf(stderr, "gemmtab init: %s: %s weights in the config; tuned in %s, the "
			"serving dtype (--dtype)\n", m->path, m->dtype, dtype);
	else
		fprintf(stderr, "gemmtab init: %s: the config names no dtype; tuned in %s, the "
			"serving dtype (--dtype)\n", m->path, dtype);
	if (m->experts)
		fprintf(stderr, "gemmtab init: left out: the routed experts, %ld in each of %ld of "
			"%ld layers, %.1f%% of such a layer's weight bytes: grouped GEMMs that "
			"gemmtab does not tune\n", m->experts, m->moe_layers, m->layers,
			100.0 * p->routed_share);
}
