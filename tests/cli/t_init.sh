# CLI: gemmtab init writes a space from a model's config.json: the decode
# projections of one tensor-parallel rank (qkv, o_proj, gate_up, down,
# router, lm_head), pinned for three published configs (tests/models), a
# workload of one of each per layer, and templates whose dry run gives
# every shape candidates (Qwen2.5-7B's down at TP 4 has K = 4736 = 37 x
# 128). An fp16 checkpoint is tuned in bf16. Refused, saying why: a TP that splits heads,
# a JSON surrogate-pair escape (libyaml 0.2.5 cannot read one). With the
# fake worker, a model's space sweeps, emits, builds and reports its own
# per-load figures, score and all-M figure. (t_init_models.sh holds every
# architecture family's shapes at TP 1, 2 and 8; t_init_config.sh what init
# reads of a config and says about it.)
. "$(dirname "$0")/lib.sh"
shapes() { grep -oE '^  - \{family: [a-z_]+, n: [0-9]+, k: [0-9]+, w: [a-z0-9]+' "$1" | sed 's/^  - {//'; }
init() {   # NAME TP
	expect_exit "init $1 --tp $2: exit 0" 0 "$GEMMTAB" init --model "tests/models/$1.json" --tp "$2" --out "$TMP/$1.yaml"
	shapes "$TMP/$1.yaml" >"$TMP/$1.got"
}
init llama-3-8b 1
cat >"$TMP/want" <<'WANT'
family: qkv, n: 6144, k: 4096, w: bf16
family: o_proj, n: 4096, k: 4096, w: bf16
family: gate_up, n: 28672, k: 4096, w: bf16
family: down, n: 4096, k: 14336, w: bf16
family: lm_head, n: 128256, k: 4096, w: bf16
WANT
test_cmp "Llama-3-8B's shapes" "$TMP/want" "$TMP/llama-3-8b.got"
check "32 layers of each, the head once" bash -c \
	"grep -q '^    - {family: down, count: 32}' '$TMP/llama-3-8b.yaml' &&
	 grep -q '^    - {family: lm_head, count: 1}' '$TMP/llama-3-8b.yaml'"

init qwen2.5-7b 4
cat >"$TMP/want" <<'WANT'
family: qkv, n: 1152, k: 3584, w: bf16
family: o_proj, n: 3584, k: 896, w: bf16
family: gate_up, n: 9472, k: 3584, w: bf16
family: down, n: 3584, k: 4736, w: bf16
family: lm_head, n: 38016, k: 3584, w: bf16
WANT
test_cmp "Qwen2.5-7B's shapes at TP 4" "$TMP/want" "$TMP/qwen2.5-7b.got"

init mixtral-8x7b 1
cat >"$TMP/want" <<'WANT'
family: qkv, n: 6144, k: 4096, w: bf16
family: o_proj, n: 4096, k: 4096, w: bf16
family: router, n: 8, k: 4096, w: bf16
family: lm_head, n: 32000, k: 4096, w: bf16
WANT
test_cmp "Mixtral-8x7B's shapes (the routed experts left out)" "$TMP/want" "$TMP/mixtral-8x7b.got"
check "says what it leaves out" grep -q "^# Not tuned: the routed experts, 8 in each of 32 layers, [0-9.]*% of such a layer's" "$TMP/mixtral-8x7b.yaml"
expect_exit "--router-dtype fp32" 0 "$GEMMTAB" init --model tests/models/mixtral-8x7b.json --router-dtype fp32
check "an fp32 router, with its bound and the hi/lo template" bash -c \
	"grep -q 'family: router, n: 8, k: 4096, w: fp32, x: bf16, y: fp32, tol: 1e-4' '$TMP/out' && grep -q '^  blas_hilo:' '$TMP/out'"

check "its constraints name the device, not the H200's figures" bash -c \
	"grep -q 'sm_count' '$TMP/llama-3-8b.yaml' && ! grep -nE '\"[^\"]*\\b(132|1056|1024|116|120)\\b[^\"]*\"' '$TMP/llama-3-8b.yaml'"
expect_exit "a write error: exit 1" 1 "$GEMMTAB" init --model tests/models/llama-3-8b.json --out /dev/full

# every shape gets candidates in the dry run (MLA's kv_a of 576 rows and
# its router of 64 included)
init deepseek-v2-lite 1
init phi-2 1
for model in llama-3-8b qwen2.5-7b mixtral-8x7b deepseek-v2-lite phi-2; do
	expect_exit "dry run of $model: exit 0" 0 "$GEMMTAB" sweep --space "$TMP/$model.yaml" --dry-run
	awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { c[$1] += $3 } END { for (f in c) print f, c[f] }' "$TMP/out" | sort >"$TMP/counts"
	check "$model: every shape has candidates ($(tr '\n' ' ' <"$TMP/counts"))" \
		awk -v n="$(grep -c '^  - {family' "$TMP/$model.yaml")" '$2 > 0 { k++ } END { exit k != n }' "$TMP/counts"
	check "$model: and an estimate" grep -q '^estimate: compile' "$TMP/out"
done

# an fp16 checkpoint is tuned in the serving dtype, bf16
sed 's/"bfloat16"/"float16"/' tests/models/llama-3-8b.json >"$TMP/fp16.json"
expect_exit "an fp16 checkpoint: exit 0" 0 "$GEMMTAB" init --model "$TMP/fp16.json"
check "tuned in bf16, the config's float16 reported" bash -c \
	"grep -q 'family: qkv, n: 6144, k: 4096, w: bf16, x: bf16, y: bf16' '$TMP/out' && grep -q 'float16 weights in the config; tuned in bf16' '$TMP/err'"

# refusals
expect_exit "TP 3 of 32 heads: exit 2" 2 "$GEMMTAB" init --model tests/models/llama-3-8b.json --tp 3
check "says each rank must hold whole heads" grep -q "\-\-tp 3 does not divide the 32 attention heads and 8 key-value heads" "$TMP/err"
expect_exit "TP 8 of Qwen2.5-7B's 4 key-value heads: exit 2" 2 "$GEMMTAB" init --model tests/models/qwen2.5-7b.json --tp 8
sed 's/"model_type": "llama",/"model_type": "llama", "note": "\\ud83d\\ude00",/' tests/models/llama-3-8b.json >"$TMP/emoji.json"
expect_exit "a surrogate-pair escape: exit 2" 2 "$GEMMTAB" init --model "$TMP/emoji.json"
check "names the file and line, and why" bash -c "grep -q '^$TMP/emoji.json:[0-9]*:[0-9]*: ' '$TMP/err' && grep -q 'surrogate-pair escape' '$TMP/err'"
expect_exit "--router-dtype fp16: exit 2" 2 "$GEMMTAB" init --model tests/models/mixtral-8x7b.json --router-dtype fp16

# the pipeline with the fake worker, on a small gemv grid of Llama-3-8B
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
"$GEMMTAB" init --model tests/models/llama-3-8b.json --max-m 8 --templates gemv --out "$TMP/l.yaml" 2>/dev/null
sed -i -e 's/warps: \[2, 4, 8, 16\]/warps: [4, 8]/' -e 's/rows: \[1, 2, 4\]/rows: [1]/' \
	-e 's/unroll: \[1, 2, 4\]/unroll: [1]/' -e 's/cache: \[default, cg, nc_na, evict_first\]/cache: [default]/' "$TMP/l.yaml"
expect_exit "sweep of Llama-3-8B's space" 0 "$GEMMTAB" sweep --space "$TMP/l.yaml" --db "$TMP/l.db" --cache "$TMP/c"
expect_exit "emit" 0 "$GEMMTAB" emit --db "$TMP/l.db" --out "$TMP/l.h" --cache "$TMP/c"
expect_exit "make TABLE=" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory \
	TABLE="$TMP/l.h" BUILD="$TMP/build" runtime
expect_exit "report over the model's workload" 0 "$GEMMTAB" report --db "$TMP/l.db" --space "$TMP/l.yaml"
check "per-load figures for its 4 loads" test "$(awk '/^Per load/ { p = 1 } p && /^ *[1248] +5 +5 /' "$TMP/out" | wc -l)" = 4
check "a score of its 4 loads" grep -qE '^score: [0-9.]+, the geometric mean of the speedups of 4 of 4 loads \(M = 1, 2, 4, 8\)' "$TMP/out"
check "and the all-M figure over 1..8" grep -qE '^all-M: [0-9.]+, the geometric mean over M = 1\.\.8 ' "$TMP/out"
finish
