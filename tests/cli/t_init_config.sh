# CLI: what gemmtab init reads of a config.json and says about it: a
# warning, once and at its line, for each key that could change a shape
# and that init does not read (none for the published configs it knows);
# float16 and float32 configs tuned in the serving dtype (--dtype bf16),
# the config's own dtype reported, also where the key is nested; layers
# that alternate (dense and MoE) counted per kind; the routed experts'
# count and share of a MoE layer's weight bytes, worked out here; biases
# noted per shape; --model DIR reads DIR/config.json.
. "$(dirname "$0")/lib.sh"
M=tests/models
init_ok() {   # WHAT ARGS...: init to $TMP/s.yaml, exit 0
	local what=$1; shift
	expect_exit "$what: exit 0" 0 "$GEMMTAB" init "$@" --out "$TMP/s.yaml"
}

# published configs: no warning
for model in llama-3-8b qwen2.5-7b mixtral-8x7b deepseek-v2-lite phi-2 gemma-2-9b qwen1.5-moe-a2.7b odd starcoder2-7b; do
	init_ok "$model" --model "$M/$model.json"
	check "$model: no warning" bash -c "! grep -q warning '$TMP/err'"
done
# DeepSeek-V3 as shipped: its multi-token-prediction layer and fp8 weights
init_ok "deepseek-v3" --model "$M/deepseek-v3.json"
cat >"$TMP/want" <<'WANT'
tests/models/deepseek-v3.json:34:3: warning: init does not read 'num_nextn_predict_layers', which may change a shape: check the space's shapes against the model
tests/models/deepseek-v3.json:38:3: warning: init does not read 'quantization_config', which may change a shape: check the space's shapes against the model
WANT
grep warning "$TMP/err" >"$TMP/got"
test_cmp "deepseek-v3: its two unread shape-changing keys, at their lines" "$TMP/want" "$TMP/got"

# a Llama config with keys of other families (a shared expert with no routed
# ones, an MLA size with no kv rank among them): each warned once, at its
# line; harmless keys, and shape keys set to null or 0, are not
sed 's/^  "model_type": "llama",$/  "model_type": "llama",\n  "quantization_config": {"quant_method": "awq", "bits": 4},\n  "interleave_moe_layer_step": 2,\n  "intermediate_size_mlp": 16384,\n  "multi_query": true,\n  "num_nextn_predict_layers": 0,\n  "attention_chunk_size": null,\n  "n_shared_experts": 2,\n  "qk_rope_head_dim": 64,/' \
	"$M/llama-3-8b.json" >"$TMP/keys.json"
init_ok "a config with unread keys" --model "$TMP/keys.json"
for kv in quantization_config:12 interleave_moe_layer_step:13 intermediate_size_mlp:14 multi_query:15 \
	  n_shared_experts:18 qk_rope_head_dim:19; do
	check "warns about ${kv%%:*} once, at line ${kv#*:}" test "$(grep -c "warning: init does not read '${kv%%:*}'" "$TMP/err")" = 1 -a \
		"$(grep -c "^$TMP/keys.json:${kv#*:}:3: warning: init does not read '${kv%%:*}'" "$TMP/err")" = 1
done
check "and about nothing else (6 warnings)" test "$(grep -c warning "$TMP/err")" = 6
sed 's/"model_type": "llama"/"model_type": "falcon"/' "$M/llama-3-8b.json" >"$TMP/falcon.json"
init_ok "an unknown model_type" --model "$TMP/falcon.json"
check "says its shapes are a Llama-like decoder's" grep -q "^$TMP/falcon.json:[0-9]*:[0-9]*: warning: model_type 'falcon' is not one init knows: its shapes are those of a Llama-like decoder" "$TMP/err"
sed 's/"mlp_type": "default"/"mlp_type": "gated"/' "$M/starcoder2-7b.json" >"$TMP/sc2.json"
init_ok "StarCoder2 with an MLP kind init does not know" --model "$TMP/sc2.json"
check "warns about mlp_type, at its line" grep -q "^$TMP/sc2.json:15:3: warning: init does not read 'mlp_type'" "$TMP/err"
grep -v -e '"model_type"' -e '"torch_dtype"' "$M/llama-3-8b.json" >"$TMP/bare.json"
init_ok "a config with no model_type and no dtype" --model "$TMP/bare.json"
expect_line "says it names no model_type" "$TMP/err" "$TMP/bare.json:1:1: warning: the config names no model_type: its shapes are those of a Llama-like decoder"
expect_line "nor a dtype" "$TMP/err" "gemmtab init: $TMP/bare.json: the config names no dtype; tuned in bf16, the serving dtype (--dtype)"

# dtypes: the config's reported, the serving dtype tuned
init_ok "Gemma-2 as shipped (float32)" --model "$M/gemma-2-9b.json"
expect_line "reports the config's float32" "$TMP/err" "gemmtab init: $M/gemma-2-9b.json: float32 weights in the config; tuned in bf16, the serving dtype (--dtype)"
check "the space says both" bash -c "grep -q '^# The decode projections of gemma2 on one of 1 tensor-parallel ranks, in bf16$' '$TMP/s.yaml' &&
	grep -q \"^# (the config's weights: float32): 42 layers,$\" '$TMP/s.yaml'"
check "and tunes bf16 weights" bash -c "! grep -q 'w: fp32' '$TMP/s.yaml'"
init_ok "Phi-2 as shipped (float16)" --model "$M/phi-2.json" --dtype bf16
expect_line "reports the config's float16" "$TMP/err" "gemmtab init: $M/phi-2.json: float16 weights in the config; tuned in bf16, the serving dtype (--dtype)"
{ echo '{"torch_dtype": "float16", "model_type": "llava", "text_config":'; sed 's/"torch_dtype": "bfloat16",//' "$M/llama-3-8b.json"; echo '}'; } >"$TMP/nested.json"
init_ok "a multimodal config, its dtype at the top" --model "$TMP/nested.json"
expect_line "reports the nested config's float16" "$TMP/err" "gemmtab init: $TMP/nested.json: float16 weights in the config; tuned in bf16, the serving dtype (--dtype)"
check "with the text model's shapes" grep -q "family: qkv, n: 6144, k: 4096" "$TMP/s.yaml"
{ echo '{"model_type": "llava", "text_config":'; sed 's/"torch_dtype": "bfloat16"/"dtype": "float32"/' "$M/llama-3-8b.json"; echo '}'; } >"$TMP/nested2.json"
init_ok "a text_config with its own dtype key" --model "$TMP/nested2.json"
check "reports it" grep -q "nested2.json: float32 weights in the config" "$TMP/err"
expect_exit "--dtype fp16: exit 2" 2 "$GEMMTAB" init --model "$M/phi-2.json" --dtype fp16
check "says the library serves bf16" grep -qx "gemmtab init: --dtype fp16: the library serves bf16 projections (and an fp32 router): serve the model in bf16" "$TMP/err"

# routed experts: count and share of a MoE layer's weights (elements of
# attention, router, shared experts, routed experts), worked out here
share() { awk -v a="$1" -v r="$2" -v s="$3" -v e="$4" 'BEGIN { printf "%.1f", 100 * e / (a + r + s + e) }'; }
mixtral=$(share $(( (6144 + 4096) * 4096 )) $(( 8 * 4096 )) 0 $(( 3 * 8 * 14336 * 4096 )))
init_ok "Mixtral" --model "$M/mixtral-8x7b.json"
expect_line "says the routed experts' share ($mixtral%)" "$TMP/err" "gemmtab init: left out: the routed experts, 8 in each of 32 of 32 layers, $mixtral% of such a layer's weight bytes: grouped GEMMs that gemmtab does not tune"
check "and so does the space" grep -q "^# Not tuned: the routed experts, 8 in each of 32 layers, $mixtral% of such a layer's" "$TMP/s.yaml"
dsl=$(share $(( 3072 * 2048 + 576 * 2048 + 4096 * 512 + 2048 * 2048 )) $(( 64 * 2048 )) $(( 3 * 2816 * 2048 )) $(( 3 * 64 * 1408 * 2048 )))
init_ok "DeepSeek-V2-Lite" --model "$M/deepseek-v2-lite.json"
check "says its routed experts are in 26 of 27 layers, $dsl%" grep -q "the routed experts, 64 in each of 26 of 27 layers, $dsl% of such a layer's weight bytes" "$TMP/err"
check "and the space its layer kinds" grep -q "^# (the config's weights: bfloat16): 27 layers (1 dense, 26 with experts),$" "$TMP/s.yaml"

# alternating layers: Qwen's decoder_sparse_step 2 with layer 1 dense too:
# experts in layers 3, 5, ..., 23 (11), a dense MLP in the other 13
sed 's/"decoder_sparse_step": 1,/"decoder_sparse_step": 2, "mlp_only_layers": [1],/' "$M/qwen1.5-moe-a2.7b.json" >"$TMP/alt.json"
init_ok "dense and MoE layers alternating" --model "$TMP/alt.json"
for want in "gate_up, count: 13" "down, count: 13" "router, count: 11" "shared_gate_up, count: 11" "qkv, count: 24"; do
	check "$want" grep -q "^    - {family: $want}" "$TMP/s.yaml"
done
check "the dense layers' MLP is intermediate_size's" grep -q "family: gate_up, n: 11264, k: 2048" "$TMP/s.yaml"
# DeepSeek's moe_layer_freq 2 after the first dense layer: experts in 2, 4, ..., 26
sed 's/"moe_layer_freq": 1,/"moe_layer_freq": 2,/' "$M/deepseek-v2-lite.json" >"$TMP/freq.json"
init_ok "moe_layer_freq 2" --model "$TMP/freq.json"
check "13 MoE layers and 14 dense" bash -c "grep -q '^    - {family: router, count: 13}' '$TMP/s.yaml' && grep -q '^    - {family: gate_up, count: 14}' '$TMP/s.yaml'"

# biases and tied heads, noted in the space
biased() { awk '/^  # .*; a bias, added after$/ { b = 1; next } /^  - \{family: / { if (b) print $3; b = 0 }' "$1" | tr -d , | tr '\n' ' '; }
init_ok "Phi-2" --model "$M/phi-2.json"
check "Phi-2: every projection has a bias" test "$(biased "$TMP/s.yaml")" = "qkv o_proj fc1 fc2 lm_head "
init_ok "Qwen2.5-7B" --model "$M/qwen2.5-7b.json"
check "Qwen2.5-7B: q, k and v have one" test "$(biased "$TMP/s.yaml")" = "qkv "
init_ok "Llama-3-8B" --model "$M/llama-3-8b.json"
check "Llama-3-8B: none" test -z "$(biased "$TMP/s.yaml")"
init_ok "Gemma-2" --model "$M/gemma-2-9b.json"
check "Gemma-2's head is tied (its family's default)" grep -q "The head shares the embedding's weights" "$TMP/s.yaml"

# --model DIR
mkdir -p "$TMP/ds" "$TMP/empty"
cp "$M/deepseek-v2-lite.json" "$TMP/ds/config.json"
"$GEMMTAB" init --model "$M/deepseek-v2-lite.json" --tp 2 2>/dev/null | grep '^  - {family' >"$TMP/want"
for dir in "$TMP/ds" "$TMP/ds/"; do
	init_ok "--model $dir" --model "$dir" --tp 2
	grep '^  - {family' "$TMP/s.yaml" >"$TMP/got"
	test_cmp "--model $dir reads its config.json" "$TMP/want" "$TMP/got"
done
expect_exit "--model DIR without a config.json: exit 2" 2 "$GEMMTAB" init --model "$TMP/empty"
expect_line "names the file it looked for" "$TMP/err" "$TMP/empty/config.json: cannot open: No such file or directory"

# TP that splits a head or MLA's heads
expect_exit "DeepSeek-V2-Lite at TP 32: exit 2" 2 "$GEMMTAB" init --model "$M/deepseek-v2-lite.json" --tp 32
check "says each rank must hold whole heads" grep -q "\-\-tp 32 does not divide the 16 attention heads and 16 key-value heads" "$TMP/err"
expect_exit "Phi-2 at TP 3: exit 2" 2 "$GEMMTAB" init --model "$M/phi-2.json" --tp 3
finish
