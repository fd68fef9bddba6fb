# CLI: `make tune` (tools/tune.sh). On a machine without a GPU it stops at
# once with a message that names Hopper cards. With a GPU (here a stand-in
# nvidia-smi and a gemmtab that logs its arguments) it probes, sweeps and
# reports into build/tune.db, which git ignores, and never names the
# tracked db/quick.db.
. "$(dirname "$0")/lib.sh"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	skip "make tune without a GPU" "this machine has a GPU"
else
	start=$SECONDS
	expect_exit "tune without a GPU: exit 1" 1 bash tools/tune.sh
	expect_line "the message says why and names Hopper" "$TMP/err" \
		"make tune: no NVIDIA GPU on this machine (nvidia-smi lists none); run it on a Hopper GPU (H100, H200)"
	check "it stopped at once" test $((SECONDS - start)) -lt 5
fi

mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\n' >"$TMP/bin/nvidia-smi"
printf '#!/bin/sh\necho "$*" >>"%s/calls"\n' "$TMP" >"$TMP/bin/gemmtab"
chmod +x "$TMP/bin/nvidia-smi" "$TMP/bin/gemmtab"
PATH=$TMP/bin:$PATH GEMMTAB=$TMP/bin/gemmtab expect_exit "tune with a GPU: exit 0" 0 bash tools/tune.sh
cat >"$TMP/want" <<'W'
probe --db build/tune.db --space search_spaces/quick.yaml
sweep --space search_spaces/quick.yaml --db build/tune.db --device 0
report --db build/tune.db
W
test_cmp "it probes, sweeps and reports build/tune.db" "$TMP/want" "$TMP/calls"
check "build/tune.db is ignored by git" git check-ignore -q build/tune.db
check "the tracked db/quick.db is not named" bash -c "! grep -q 'db/quick.db' '$TMP/calls'"
finish
