# CLI: `make tune` on a machine without a GPU stops at once with a message.
. "$(dirname "$0")/lib.sh"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "ok - skipped: this machine has a GPU, the no-GPU path cannot be checked here"
	finish
fi
start=$SECONDS
expect_exit "tune without a GPU: exit 1" 1 bash tools/tune.sh
expect_line "the message says why" "$TMP/err" \
	"make tune: no NVIDIA GPU on this machine (nvidia-smi lists none); run it on an H200"
check "it stopped at once" test $((SECONDS - start)) -lt 5
finish
