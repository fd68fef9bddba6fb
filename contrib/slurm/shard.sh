#!/usr/bin/env bash
# contrib/slurm/shard.sh: one task of submit.sh's job array. It sweeps share
# I of N of the space (I counted from the array's first task id, so
# --array=1-4 and 0-3 both work) on every GPU of this host, on node-local
# scratch, and copies the database to RESULTS_DIR when the sweep ends, whether
# it finished or not; shard-I.done says it finished. A task that finds
# its shard's database in RESULTS_DIR resumes it.
set -uo pipefail
: "${GEMMTAB:?} ${SPACE:?} ${RESULTS_DIR:?} ${SCRATCH:?} ${GEMMTAB_SHARDS:?}"
i=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))
n=$GEMMTAB_SHARDS
[ "$n" -eq "$SLURM_ARRAY_TASK_COUNT" ] ||
	echo "shard.sh: the array has $SLURM_ARRAY_TASK_COUNT tasks for $n shards" >&2
dir=$SCRATCH/gemmtab-$SLURM_ARRAY_JOB_ID-$i
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
db=$dir/shard.db
out=$RESULTS_DIR/shard-$i.db
rm -f "$RESULTS_DIR/shard-$i.done"
if [ -f "$out" ]; then
	echo "shard $i/$n: resuming $out"
	cp "$out" "$db" && { [ ! -f "$out-wal" ] || cp "$out-wal" "$db-wal"; } || exit 1
fi
echo "shard $i/$n on $(hostname), $(date -u +%FT%TZ)"
# Slurm's SIGTERM at the time limit ends the sweep; what it recorded stands
"$GEMMTAB" sweep --space "$SPACE" --db "$db" --shard "$i/$n" --devices all \
	--cache "${CACHE:-$dir/cache}" ${SWEEP_LIMIT:+--time-limit "$SWEEP_LIMIT"} &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM
wait $pid; rc=$?
while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
# copy out: the database closed (one file), or with its WAL if it died
if [ -f "$db" ]; then
	rm -f "$out.part" "$out.part-wal"
	cp "$db" "$out.part" && { [ ! -f "$db-wal" ] || cp "$db-wal" "$out.part-wal"; } || exit 1
	# a WAL beside a database is replayed into it: never leave a stale one
	rm -f "$out-wal"
	[ ! -f "$out.part-wal" ] || mv -f "$out.part-wal" "$out-wal"
	mv -f "$out.part" "$out"
fi
case $rc in
0) date -u +%FT%TZ >"$RESULTS_DIR/shard-$i.done"; echo "shard $i/$n: done" ;;
3) echo "shard $i/$n: the time limit stopped it; submit again to resume" ;;
*) echo "shard $i/$n: gemmtab sweep exited $rc" ;;
esac
exit $rc
