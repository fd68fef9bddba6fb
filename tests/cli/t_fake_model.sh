# CLI: the fake worker's modelled GPU (FAKE_WORKER_MODEL; tests/fake/
# gpumodel.c) under a whole sweep of tests/spaces/model.yaml, its kernels
# "compiled" by tests/fake/fake_nvrtc.c: the profiles, the GPU seconds it
# accounts per request (FAKE_WORKER_GPU_LOG), figures that follow the
# model's truth with noise, and fake_truth's truth and regret.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
TRUTH=$PWD/build/tests/fake_truth
NVRTC=$PWD/build/tests/fake_nvrtc.so
space=tests/spaces/model.yaml
db=$TMP/model.db

# the profiles, and the hash mode without one
echo env >"$TMP/env"
FAKE_WORKER_MODEL=h100 expect_exit "the H100 profile: exit 0" 0 "$GEMMTAB_WORKER" worker <"$TMP/env"
check "its env names it, 132 SMs, 50 MiB of L2" grep -q \
	'^env gpu_name=NVIDIA%20H100%2080GB%20HBM3%20(modelled) .*sm_count=132 .*l2_bytes=52428800 ' "$TMP/out"
FAKE_WORKER_MODEL=a100 expect_exit "an unknown profile: exit 1" 1 "$GEMMTAB_WORKER" worker <"$TMP/env"
check "names it" grep -q 'FAKE_WORKER_MODEL=a100: not h200 or h100' "$TMP/err"
expect_exit "no profile: exit 0" 0 "$GEMMTAB_WORKER" worker <"$TMP/env"
check "the made-up figures' env" grep -q '^env gpu_name=Fake%20GPU ' "$TMP/out"

# a sweep on the modelled H200
LD_PRELOAD=$NVRTC FAKE_WORKER_MODEL=h200 FAKE_WORKER_GPU_LOG=$TMP/gpu.log expect_exit \
	"sweep on the model: exit 0" 0 "$GEMMTAB" sweep --space "$space" --db "$db" --cache "$TMP/cache"
check "the stand-in NVRTC compiled all 15 instantiations" \
	grep -q 'compiled 15 instantiations (0 from cache, 0 failed)' "$TMP/err"
check "each with a code key of its own (14 at the anchors)" test "$(q "SELECT count(DISTINCT code) \
	|| '/' || count(*) FROM candidate WHERE template IN ('gemv', 'mma_skinny')")" = 14/14
check "the environment is the model's" test "$(q "SELECT gpu_name FROM env")" = "NVIDIA H200 (modelled)"
check "one GPU log line per result recorded" \
	test "$(grep -c '^eval ' "$TMP/gpu.log")" = "$(q "SELECT count(*) FROM result")"
check "and per baseline" \
	test "$(grep -c '^baseline ' "$TMP/gpu.log")" = "$(q "SELECT count(*) FROM baseline")"
check "cuBLASLt's heuristic asked at 4 anchors, costing no GPU time" \
	test "$(awk '$1 == "lt_algos" && $5 == 0' "$TMP/gpu.log" | wc -l)" = 4
# every eval costs at least 1.233 ms + pairs x 0.148 ms (costmodel.h); in
# request order (one worker) each is 1.233 ms + 15.70 ms per GB of W's
# bf16 + its FP64 reference + pairs x (0.148 ms + 1.33 x the two
# kernels' times), which the recorded
# medians give within their noise; the reference is the naive kernel's
# 0.744 ms x N*K*M/1e9 below M = 6, from there on the DGEMM's 18 bytes
# per element of W and X and 8 per element of R at 0.93 x 4.8 TB/s plus
# 2 N*K*M flops at 60 TFLOP/s
check "no eval below its fixed cost" test "$(awk '$1 == "eval" && $5 < 1.233e-3 + $4 * 0.148e-3' \
	"$TMP/gpu.log" | wc -l)" = 0
q "SELECT m, pairs, base_us, cand_us FROM result ORDER BY id" | tr , ' ' >"$TMP/rows"
grep '^eval ' "$TMP/gpu.log" | paste -d ' ' - "$TMP/rows" >"$TMP/costs"
check "each eval's cost follows its kernels' times ($(wc -l <"$TMP/costs") evals)" awk '
	{ n = 2304; k = 8192; m = $6
	  ref = m < 6 ? 0.744e-3 * n * k * m / 1e9 : \
		(18 * (n * k + m * k) + 8 * m * n) / (0.93 * 4.8e12) + 2 * n * k * m / 60e12
	  want = 1.233e-3 + 15.70e-3 * 2 * n * k / 1e9 + ref + $7 * (0.148e-3 + 1.33 * ($8 + $9) * 1e-6)
	  if ($3 != $6 || $4 != $7 || $5 / want > 1.05 || $5 / want < 0.95) bad++ }
	END { exit !(NR > 100 && !bad) }' "$TMP/costs"
check "the figures are noisy: a screen and a retest of one candidate differ" \
	test "$(q "SELECT count(*) FROM result a JOIN result b ON a.candidate_id = b.candidate_id \
	AND a.m = b.m AND a.phase = 'screen' AND b.phase = 'retest' AND a.ratio <> b.ratio")" -gt 0

# the truth: 64 Ms; the sweep's best retest at 1 within 5% of it
expect_exit "fake_truth: exit 0" 0 "$TRUTH" --space "$space"
check "a line per M of 1..64" test "$(wc -l <"$TMP/out")" = 64
cp "$TMP/out" "$TMP/truth"
true1=$(awk '$2 == 1 { print $4 / $3 }' "$TMP/truth")
meas1=$(q "SELECT max(ratio) FROM result WHERE m = 1 AND phase = 'retest' AND pairs >= 100")
check "the best at 1 beats the baseline (${true1}x)" awk -v r="$true1" 'BEGIN { exit !(r > 1.1) }'
check "the sweep measured it within 5% ($meas1 against $true1)" \
	awk -v a="$meas1" -v b="$true1" 'BEGIN { exit !(a / b > 0.95 && a / b < 1.05) }'
expect_exit "fake_truth --model a100: exit 1" 1 "$TRUTH" --space "$space" --model a100
check "names it" grep -q -- '--model a100: not h200 or h100' "$TMP/err"

# the emitted table's regret: per M, its time over the truth's, and the
# summary line's figures from the same rows
LD_PRELOAD=$NVRTC expect_exit "emit: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/t.h" --cache "$TMP/cache"
expect_exit "fake_truth --table: exit 0" 0 "$TRUTH" --space "$space" --table "$TMP/t.h" --per-m
check "64 Ms and the summary" test "$(grep -c '^m=' "$TMP/out")/$(grep -c '^regret ' "$TMP/out")" = 64/1
check "the best is never slower than the baseline; each regret is table/best - 1" awk -F'[ =%]' \
	'/^m=/ { if ($6 > $8 + 1e-9 || $10 - 100 * ($4 / $6 - 1) > 0.01 || 100 * ($4 / $6 - 1) - $10 > 0.01) bad++ }
	END { exit bad > 0 }' "$TMP/out"
worst=$(awk -F'[ =%]' '/^m=/ && $10 > w { w = $10; m = $2 } END { print m }' "$TMP/out")
slower=$(awk -F'[ =%]' '/^m=/ && $4 > $8 * (1 + 1e-9)' "$TMP/out" | wc -l)
check "the summary's worst M ($worst) and slower count ($slower)" \
	grep -qE "^regret geo=[0-9.]+% max=[0-9.]+% at_m=$worst slower=$slower ms=64$" "$TMP/out"
finish
