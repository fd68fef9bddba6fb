# CLI: sweep --dry-run parses, enumerates and prunes without a GPU, prints
# per-(family, m) counts (candidates it runs, pruned apart), an estimate
# (0 for a space where nothing runs), per shape the templates with
# candidates and why the others have none (--strict fails where one of a
# shape's dtypes has none), and writes no database; over a database of an
# earlier sweep it says how many screens that holds.
# the tests' gemmtab: it also registers the test-only template planted
# (tests/spaces/planted.yaml loads only there)
GEMMTAB=${GEMMTAB:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/gemmtab}
. "$(dirname "$0")/lib.sh"

for space in search_spaces/tiny.yaml search_spaces/quick.yaml search_spaces/h200.yaml; do
	expect_exit "dry run of $space: exit 0" 0 "$GEMMTAB" sweep --space "$space" --dry-run --db "$TMP/x.db"
	check "$space: a count per family and m" grep -qE '^[a-z_0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$TMP/out"
	check "$space: total line" grep -qE '^total: [0-9]+ candidates' "$TMP/out"
	check "$space: estimate line" grep -qE '^estimate: compile [0-9]+ s' "$TMP/out"
	check "$space: no database written" test ! -e "$TMP/x.db"
done
# the total equals the sum of the per-row counts, candidates and pruned
for space in tiny quick; do
	expect_exit "dry run of $space.yaml again: exit 0" 0 "$GEMMTAB" sweep --space search_spaces/$space.yaml --dry-run
	cp "$TMP/out" "$TMP/q"
	sum=$(awk 'NF == 4 && $2 ~ /^[0-9]+$/ { s += $3 + $4 } END { print s }' "$TMP/q")
	total=$(sed -n 's/^total: \([0-9]*\) candidates.*/\1/p' "$TMP/q")
	check "$space: total $total equals the per-row sum $sum" test -n "$total" -a "$sum" = "$total"
	cp "$TMP/q" "$TMP/$space.q"
done
check "quick: every family present" bash -c "for f in qkv oproj pooler unpooler unpooler_slice router; do grep -q \"^\$f \" '$TMP/q' || exit 1; done"
cp "$TMP/tiny.q" "$TMP/q"
# the candidates column is what the sweep runs: tiny's router prunes 2 of 8
# gemv candidates at m 1 (4 of 16 in all), and the column says 6
check "tiny: the router's candidates column leaves its pruned out" grep -qE '^t_router +1 +6 +2$' "$TMP/q"
check "tiny: so the columns sum to the screens the estimate counts" \
	grep -q "^estimate: .*GPU [0-9]* s ($(awk 'NF == 4 && $2 ~ /^[0-9]+$/ { s += $3 } END { print s }' "$TMP/q") screens" "$TMP/q"
# per shape, which templates get candidates there, and why the others not
check "tiny: the templates at each shape" grep -qx 'templates at t_bf16 (n 256, k 1024): gemv 14; mma_skinny 56; mma_frag 4' "$TMP/q"
check "tiny: a template not of a shape's dtypes says so" grep -qx 'templates at t_router (n 64, k 1024): gemv 14; mma_skinny none (not its dtypes); mma_frag none (not its dtypes)' "$TMP/q"
expect_exit "tiny --strict: exit 0 (every template has candidates where it takes the dtypes)" 0 \
	"$GEMMTAB" sweep --space search_spaces/tiny.yaml --dry-run --strict
# a template that takes a shape's dtypes and gets no candidate there fails
# --strict, though the shape has others; the line says why
{ cat search_spaces/tiny.yaml; echo '      - "k % 3 == 0"'; } >"$TMP/nofrag.yaml"   # mma_frag's last
expect_exit "mma_frag ruled out at both shapes, --strict: exit 1" 1 "$GEMMTAB" sweep --space "$TMP/nofrag.yaml" --dry-run --strict
check "the line names the constraint that rules it out" grep -q "^templates at t_bf16 (n 256, k 1024): gemv 14; mma_skinny 56; mma_frag NONE: mma_frag ([0-9]* points): '.*k % 3 == 0' rejects" "$TMP/out"
check "--strict says how many" grep -qx "gemmtab sweep: --strict: 0 shapes get no candidate; 1 times a template gets none at a shape of its dtypes (the lines 'templates at' say why)" "$TMP/err"
expect_exit "without --strict: exit 0" 0 "$GEMMTAB" sweep --space "$TMP/nofrag.yaml" --dry-run
# a space where nothing runs estimates nothing: no screens, no retests, no
# ranges (the ranges' finalists and baselines come from candidates)
printf 'shapes:\n  - {family: q, n: 4096, k: 4096, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: 1..512, anchors: [1, 8, 64, 256]}\ntemplates:\n  gemv:\n    params: {warps: [4], rows: [1], tokens: [1], unroll: [1], split: [1], cache: [default]}\n    constraints: ["n > 100000"]\n' >"$TMP/empty.yaml"
expect_exit "an empty space: exit 0" 0 "$GEMMTAB" sweep --space "$TMP/empty.yaml" --dry-run
expect_line "it estimates 0" "$TMP/out" "estimate: compile 0 s at 100/s; GPU 0 s (0 screens of 10 pairs, up to 0 retests of 100 pairs; in a database of earlier runs, up to as many again to compare each M within this run)"
# a misspelled family is an error, with or without a cublaslt section
expect_exit "--family qvk on h200.yaml: exit 2 (bad input)" 2 "$GEMMTAB" sweep --space search_spaces/h200.yaml --family qvk --dry-run
check "--family qvk: the error names the family and the space" \
	grep -q -- "--family qvk: no such family in search_spaces/h200.yaml" "$TMP/err"
# a space of shapes alone (what bench and probe read) has nothing to sweep
expect_exit "sweep of a shapes-only space: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/diag_samecall.yaml --dry-run --db "$TMP/y.db"
check "shapes-only: the error names the file, the top level's LINE:COL and the missing section" \
	grep -q "tests/spaces/diag_samecall.yaml:5:1: no templates or cublaslt section: nothing to sweep" "$TMP/err"
check "shapes-only: no database written" test ! -e "$TMP/y.db"
# every space the tests and diagnostics name loads: a dry run of it, or
# for a space of shapes alone the error that says so (so a space no CPU
# test sweeps cannot rot until a GPU run reads it)
bad=
for space in tests/spaces/*.yaml; do
	"$GEMMTAB" sweep --space "$space" --dry-run >"$TMP/d.out" 2>"$TMP/d.err"
	rc=$?
	if [ $rc = 0 ] && grep -qE '^total: [0-9]+ candidates' "$TMP/d.out"; then
		continue
	fi
	if [ $rc = 2 ] && grep -q "$space:[0-9]*:[0-9]*: no templates or cublaslt section: nothing to sweep" "$TMP/d.err"; then
		continue
	fi
	bad="$bad $space"
	sed 's/^/    /' "$TMP/d.err" | head -n 3
done
check "every tests/spaces/*.yaml loads ($(ls tests/spaces/*.yaml | wc -l) spaces)${bad:+: not$bad}" test -z "$bad"
# the device in the constraints, not in the numbers: search_spaces/ names
# sm_count, smem_optin, smem_sm, smem_reserved instead of the H200's
# figures, and the H200's built-in profile enumerates what the literals did
check "no H200 figure left in search_spaces/ constraints" bash -c \
	"! grep -nE '\"[^\"]*\\b(132|1056|528|2112|1024|227|116|120)\\b[^\"]*\"' search_spaces/*.yaml"
expect_exit "h200.yaml on the built-in H200 profile" 0 "$GEMMTAB" sweep --space search_spaces/h200.yaml --dry-run
expect_line "40,606 candidates, 11,267 instantiations, as with the literals" "$TMP/out" \
	"total: 40606 candidates (2072 pruned statically), 11267 instantiations to compile"
printf 'name: Half H200\nsm_count: 66\nsmem_optin: 232448\nsmem_sm: 233472\nsmem_reserved: 1024\nl2_bytes: 62914560\nmax_cluster: 8\n' >"$TMP/half.yaml"
expect_exit "--device-profile of 66 SMs" 0 "$GEMMTAB" sweep --space search_spaces/h200.yaml --dry-run --device-profile "$TMP/half.yaml"
check "enumerates for 66 SMs" grep -q "^total: 49102 candidates" "$TMP/out"
est_s() { sed -n 's/^estimate: compile [0-9]* s at [0-9]*\/s; GPU \([0-9]*\) s.*/\1/p' "$TMP/out" | head -n 1; }
expect_exit "--device-profile h100 (built in)" 0 "$GEMMTAB" sweep --space search_spaces/h200.yaml --dry-run --device-profile h100
check "the H100 enumerates the H200's 40,606 candidates (the same SMs)" grep -q "^total: 40606 candidates" "$TMP/out"
# Llama-3-8B's weights all outgrow both L2s: the H100's bandwidth prices
# its kernels, so its evals, slower
"$GEMMTAB" init --model tests/models/llama-3-8b.json --tp 1 --max-m 512 --out "$TMP/llama.yaml" 2>/dev/null
expect_exit "Llama-3-8B on the built-in H200 profile" 0 "$GEMMTAB" sweep --space "$TMP/llama.yaml" --dry-run --search new
h200_s=$(est_s)
expect_exit "and on the H100's" 0 "$GEMMTAB" sweep --space "$TMP/llama.yaml" --dry-run --search new --device-profile h100
check "is priced slower there (less bandwidth): $(est_s) s against ${h200_s:-none}" test "$(est_s)" -gt "${h200_s:-999999}"
expect_exit "--device-profile h300: exit 2" 2 "$GEMMTAB" sweep --space search_spaces/h200.yaml --dry-run --device-profile h300
check "names the built-in profiles" grep -q "^h300: neither a device profile file nor a built-in name (h200, h100)" "$TMP/err"
printf 'name: x\nsm_count: 66\n' >"$TMP/bad.yaml"
expect_exit "a profile missing a figure: exit 2" 2 "$GEMMTAB" sweep --space search_spaces/h200.yaml --dry-run --device-profile "$TMP/bad.yaml"
expect_line "at its LINE:COL" "$TMP/err" "$TMP/bad.yaml:1:1: a device profile lacks required key 'smem_optin'"

# a profile's figures also feed the check for a constraint undefined at
# every point; a sweep reads its GPU's instead, and says what that prunes
printf 'shapes:\n  - {family: q, n: 256, k: 1024, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1]}\ntemplates:\n  gemv:\n    params: {warps: [4], rows: [1], tokens: [1], unroll: [1], split: [1], cache: [default]}\n    constraints: ["%s"]\n' "k / (sm_count - 66) > 0" >"$TMP/undef66.yaml"
expect_exit "a constraint undefined only on the profile's device: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/undef66.yaml" --dry-run --device-profile "$TMP/half.yaml"
check "named at its LINE:COL" grep -q "^$TMP/undef66.yaml:6:19: constraint 'k / (sm_count - 66) > 0' of gemv is undefined" "$TMP/err"
sed 's|k / (sm_count - 66) > 0|sm_count == 66|' "$TMP/undef66.yaml" >"$TMP/only66.yaml"
expect_exit "a sweep on the fake GPU (132 SMs) of a space for 66" 0 env GEMMTAB_WORKER="$PWD/build/tests/fake_worker" \
	"$GEMMTAB" sweep --space "$TMP/only66.yaml" --device-profile "$TMP/half.yaml" --db "$TMP/66.db" --cache "$TMP/c66"
check "reads the GPU's figures, saying so" grep -q "^sweep: the constraints read Fake GPU's figures (132 SMs" "$TMP/err"
check "and what they prune to nothing" grep -q "^gemmtab sweep: on Fake GPU, q (n 256, k 1024) gets no candidate of a template at any M: gemv (1 points): 'sm_count == 66' rejects 1" "$TMP/err"

# over a database of an earlier sweep: how many screens it holds for this
# build's text, and the estimate of the rest; read only
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
expect_exit "sweep of fake.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/r.db" --cache "$TMP/cache"
db=$TMP/r.db
screens=$(q "SELECT count(*) FROM result WHERE phase = 'screen'")
planned=$("$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run 2>/dev/null |
	sed -n 's/^total: \([0-9]*\) candidates (\([0-9]*\) pruned.*/\1 \2/p' | awk '{ print $1 - $2 }')
sum_before=$(sha256sum "$TMP/r.db" | cut -d' ' -f1)
expect_exit "dry run over it: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/r.db" --dry-run
check "it holds all $planned screens ($screens rows), 0 to screen" \
	grep -q "^resume: $TMP/r.db (env 1: Fake GPU) holds $planned of the $planned screens for this build's template text; 0 to screen there" "$TMP/out"
check "the database is not written" test "$(sha256sum "$TMP/r.db" | cut -d' ' -f1)" = "$sum_before"
if command -v sqlite3 >/dev/null 2>&1; then
	cp "$TMP/r.db" "$TMP/v.db"
	sqlite3 "$TMP/r.db" "DELETE FROM result WHERE id IN (SELECT id FROM result WHERE phase = 'screen' ORDER BY id LIMIT 5)"
	expect_exit "dry run after 5 screens are deleted: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/r.db" --dry-run
	check "5 to screen, none unknown" grep -q "holds $((planned - 5)) of the $planned screens .*; 5 to screen there (0 of them unknown" "$TMP/out"
	# a variant serves each M of its (candidate, shape): the screens it keys
	lost=$(sqlite3 "$TMP/v.db" "SELECT count(*) FROM result r JOIN (SELECT candidate_id, shape_id FROM variant ORDER BY id LIMIT 3) v USING (candidate_id, shape_id) WHERE r.phase = 'screen'")
	sqlite3 "$TMP/v.db" "DELETE FROM variant WHERE id IN (SELECT id FROM variant ORDER BY id LIMIT 3)"
	expect_exit "3 variants deleted (another copy): exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/v.db" --dry-run
	check "their $lost screens count as to do, unknown" grep -q "; $lost to screen there ($lost of them unknown" "$TMP/out"
else
	skip "dry run after deleting screens" "no sqlite3 shell"
fi
expect_exit "a database path that does not exist: no resume line" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/none.db" --dry-run
check "none printed, none made" bash -c "! grep -q '^resume:' '$TMP/out' && test ! -e '$TMP/none.db'"
finish
