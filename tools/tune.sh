#!/usr/bin/env bash
# tools/tune.sh: `make tune`: probe, then sweep search_spaces/quick.yaml on
# GPU 0 of this machine (a Hopper card: H100, H200, GH200) into
# build/tune.db, an untracked database (DB=FILE names another; the tracked
# db/*.db are never written), then print its report. Stops at once, with
# a message, on a machine without an NVIDIA GPU. GEMMTAB names the
# gemmtab to run (build/bin/gemmtab).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "make tune: no NVIDIA GPU on this machine (nvidia-smi lists none); run it on a Hopper GPU (H100, H200)" >&2
	exit 1
fi
G=${GEMMTAB:-build/bin/gemmtab}
DB=${DB:-build/tune.db}
SPACE=${SPACE:-search_spaces/quick.yaml}
mkdir -p "$(dirname "$DB")"
"$G" probe --db "$DB" --space "$SPACE"
"$G" sweep --space "$SPACE" --db "$DB" --device 0
"$G" report --db "$DB"
