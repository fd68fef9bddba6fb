# CLI: gemmtab init's shapes for each architecture family under
# tests/models, held at TP 1, 2 and 8 against shapes worked out here from
# each model's published sizes (a column-parallel layer splits N over the
# ranks, a row-parallel one K; MLA's q_a and kv_a and the router are
# replicated; the head's rows are the vocabulary's share padded to 8),
# with the number of layers that run each: Llama-3-8B, Mixtral-8x7B
# (routed experts left out), DeepSeek-V2-Lite (MLA, 2 shared experts, 1
# dense layer and 26 with experts), DeepSeek-V3 (q_a and q_b, 3 dense
# layers), Phi-2 (fc1/fc2, float16, biases), Gemma-2-9B (float32, head_dim
# 256, tied head), Qwen1.5-MoE-A2.7B (a gated shared expert), StarCoder2-7B
# (c_fc/c_proj, at TP 1, 2 and 4: its 4 kv heads split no further), and an
# odd config (K 3000 and 1000, head_dim 125).
. "$(dirname "$0")/lib.sh"

# family n k w count, one line per shape of the space FILE
got() {
	awk '/^    - \{family: [a-z0-9_]+, count: [0-9]+\}/ { gsub(/[{},]/, ""); c[$3] = $5 }
	     /^  - \{family: / { gsub(/[{},]/, ""); print $3, $5, $7, $9, c[$3] }' "$1"
}
# the head's rows: the vocabulary split tp ways, padded to 8
head_n() { echo $(( (($1 + $2 - 1) / $2 + 7) / 8 * 8 )); }

want_llama() {   # Llama-3-8B: hidden 4096, 32 heads of 128, 8 kv heads, 14336, 128256, 32 layers
	local t=$1
	echo "qkv $(( (32 / t + 2 * 8 / t) * 128 )) 4096 bf16 32"
	echo "o_proj 4096 $(( 32 / t * 128 )) bf16 32"
	echo "gate_up $(( 2 * 14336 / t )) 4096 bf16 32"
	echo "down 4096 $(( 14336 / t )) bf16 32"
	echo "lm_head $(head_n 128256 "$t") 4096 bf16 1"
}
want_mixtral() {   # hidden 4096, 32 heads of 128, 8 kv heads, 8 experts, 32000, 32 layers
	local t=$1
	echo "qkv $(( (32 / t + 2 * 8 / t) * 128 )) 4096 bf16 32"
	echo "o_proj 4096 $(( 32 / t * 128 )) bf16 32"
	echo "router 8 4096 bf16 32"
	echo "lm_head $(head_n 32000 "$t") 4096 bf16 1"
}
want_dsv2lite() {   # hidden 2048, 16 heads: q 128 + 64 rope, v 128; kv rank 512; 27 layers
	local t=$1
	echo "q $(( 16 / t * (128 + 64) )) 2048 bf16 27"
	echo "kv_a $(( 512 + 64 )) 2048 bf16 27"
	echo "kv_b $(( 16 / t * (128 + 128) )) 512 bf16 27"
	echo "o_proj 2048 $(( 16 / t * 128 )) bf16 27"
	echo "gate_up $(( 2 * 10944 / t )) 2048 bf16 1"          # the first layer is dense
	echo "down 2048 $(( 10944 / t )) bf16 1"
	echo "router 64 2048 bf16 26"
	echo "shared_gate_up $(( 2 * 2 * 1408 / t )) 2048 bf16 26"   # 2 shared experts of 1408
	echo "shared_down 2048 $(( 2 * 1408 / t )) bf16 26"
	echo "lm_head $(head_n 102400 "$t") 2048 bf16 1"
}
want_dsv3() {   # hidden 7168, 128 heads, q rank 1536, kv rank 512, 3 dense of 61 layers
	local t=$1
	echo "q_a 1536 7168 bf16 61"
	echo "q_b $(( 128 / t * (128 + 64) )) 1536 bf16 61"
	echo "kv_a $(( 512 + 64 )) 7168 bf16 61"
	echo "kv_b $(( 128 / t * (128 + 128) )) 512 bf16 61"
	echo "o_proj 7168 $(( 128 / t * 128 )) bf16 61"
	echo "gate_up $(( 2 * 18432 / t )) 7168 bf16 3"
	echo "down 7168 $(( 18432 / t )) bf16 3"
	echo "router 256 7168 bf16 58"
	echo "shared_gate_up $(( 2 * 2048 / t )) 7168 bf16 58"
	echo "shared_down 7168 $(( 2048 / t )) bf16 58"
	echo "lm_head $(head_n 129280 "$t") 7168 bf16 1"
}
want_phi2() {   # hidden 2560, 32 heads of 80 (MHA), fc1 10240 (no gate), 51200, 32 layers
	local t=$1
	echo "qkv $(( 3 * 32 / t * 80 )) 2560 bf16 32"
	echo "o_proj 2560 $(( 32 / t * 80 )) bf16 32"
	echo "fc1 $(( 10240 / t )) 2560 bf16 32"
	echo "fc2 2560 $(( 10240 / t )) bf16 32"
	echo "lm_head $(head_n 51200 "$t") 2560 bf16 1"
}
want_gemma2() {   # hidden 3584, 16 heads of 256 (explicit), 8 kv heads, 14336, 256000, 42 layers
	local t=$1
	echo "qkv $(( (16 / t + 2 * 8 / t) * 256 )) 3584 bf16 42"
	echo "o_proj 3584 $(( 16 / t * 256 )) bf16 42"
	echo "gate_up $(( 2 * 14336 / t )) 3584 bf16 42"
	echo "down 3584 $(( 14336 / t )) bf16 42"
	echo "lm_head $(head_n 256000 "$t") 3584 bf16 1"
}
want_qwenmoe() {   # hidden 2048, 16 heads of 128, 60 experts, a shared expert of 5632, 24 layers
	local t=$1
	echo "qkv $(( 3 * 16 / t * 128 )) 2048 bf16 24"
	echo "o_proj 2048 $(( 16 / t * 128 )) bf16 24"
	echo "router 60 2048 bf16 24"
	echo "shared_gate_up $(( 2 * 5632 / t )) 2048 bf16 24"
	echo "shared_down 2048 $(( 5632 / t )) bf16 24"
	echo "lm_head $(head_n 151936 "$t") 2048 bf16 1"
}
want_starcoder2() {   # hidden 4608, 36 heads of 128, 4 kv heads, c_fc 18432 (no gate), 49152, 32 layers
	local t=$1
	echo "qkv $(( (36 / t + 2 * 4 / t) * 128 )) 4608 bf16 32"
	echo "o_proj 4608 $(( 36 / t * 128 )) bf16 32"
	echo "fc1 $(( 18432 / t )) 4608 bf16 32"
	echo "fc2 4608 $(( 18432 / t )) bf16 32"
	echo "lm_head $(head_n 49152 "$t") 4608 bf16 1"
}
want_odd() {   # hidden 3000, 24 heads of 125, 8 kv heads, 1000, vocab 32001, 10 layers
	local t=$1
	echo "qkv $(( (24 / t + 2 * 8 / t) * 125 )) 3000 bf16 10"
	echo "o_proj 3000 $(( 24 / t * 125 )) bf16 10"
	echo "gate_up $(( 2 * 1000 / t )) 3000 bf16 10"
	echo "down 3000 $(( 1000 / t )) bf16 10"
	echo "lm_head $(head_n 32001 "$t") 3000 bf16 1"
}

for pair in llama-3-8b:llama mixtral-8x7b:mixtral deepseek-v2-lite:dsv2lite deepseek-v3:dsv3 \
	    phi-2:phi2 gemma-2-9b:gemma2 qwen1.5-moe-a2.7b:qwenmoe odd:odd starcoder2-7b:starcoder2; do
	model=${pair%%:*} fn=want_${pair#*:} tps="1 2 8"
	[ "$model" = starcoder2-7b ] && tps="1 2 4"   # 36 heads and 4 kv heads: no TP 8
	for tp in $tps; do
		expect_exit "$model --tp $tp: exit 0" 0 "$GEMMTAB" init --model "tests/models/$model.json" \
			--tp "$tp" --out "$TMP/$model-$tp.yaml"
		"$fn" "$tp" >"$TMP/want"
		got "$TMP/$model-$tp.yaml" >"$TMP/got"
		test_cmp "$model's shapes and layer counts at TP $tp" "$TMP/want" "$TMP/got"
	done
done
finish
