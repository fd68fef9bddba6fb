#!/usr/bin/env bash
# contrib/slurm/merge.sh: submit.sh's merge job, run after every array task
# succeeded. It merges the shards' databases on node-local scratch, emits
# the table, and copies merged.db, then the table, to RESULTS_DIR.
set -uo pipefail
: "${GEMMTAB:?} ${RESULTS_DIR:?} ${SCRATCH:?} ${GEMMTAB_SHARDS:?}"
n=$GEMMTAB_SHARDS
dir=$SCRATCH/gemmtab-merge-$SLURM_JOB_ID
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
inputs=()
for ((i = 0; i < n; i++)); do
	[ -f "$RESULTS_DIR/shard-$i.done" ] || { echo "merge.sh: shard $i of $n did not finish" >&2; exit 1; }
	# an empty share writes no database
	if [ -f "$RESULTS_DIR/shard-$i.db" ]; then
		cp "$RESULTS_DIR/shard-$i.db" "$dir/shard-$i.db" || exit 1
		inputs+=("$dir/shard-$i.db")
	fi
done
[ ${#inputs[@]} -gt 0 ] || { echo "merge.sh: no shard wrote a database" >&2; exit 1; }
"$GEMMTAB" merge --db "$dir/merged.db" "${inputs[@]}" >"$dir/merge.txt" || exit 1
"$GEMMTAB" emit --db "$dir/merged.db" --out "$dir/table.h" --cache "${CACHE:-$dir/cache}" \
	${INCUMBENT:+--incumbent "$INCUMBENT"} || exit 1
for f in merge.txt merged.db table_kernels.cu table.h; do
	cp "$dir/$f" "$RESULTS_DIR/$f.part" && mv -f "$RESULTS_DIR/$f.part" "$RESULTS_DIR/$f" || exit 1
done
cat "$dir/merge.txt"
echo "merged ${#inputs[@]} of $n shards into $RESULTS_DIR/merged.db; table $RESULTS_DIR/table.h"
