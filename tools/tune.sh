#!/usr/bin/env bash
# tools/tune.sh: `make tune`: sweep search_spaces/quick.yaml on GPU 0 into
# db/quick.db (probe first), then print the report. Stops at once, with a
# message, on a machine without an NVIDIA GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "make tune: no NVIDIA GPU on this machine (nvidia-smi lists none); run it on an H200" >&2
	exit 1
fi
DB=${DB:-db/quick.db}
SPACE=${SPACE:-search_spaces/quick.yaml}
build/bin/gemmtab probe --db "$DB" --space "$SPACE"
build/bin/gemmtab sweep --space "$SPACE" --db "$DB" --device 0
build/bin/gemmtab report --db "$DB"
