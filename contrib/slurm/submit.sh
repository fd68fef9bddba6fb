#!/usr/bin/env bash
# contrib/slurm/submit.sh: a sweep of one search space over several GPU
# hosts of a Slurm cluster. It submits a job array, one task per host, each
# sweeping its share of the space's shapes (gemmtab sweep --shard) on
# every GPU of its host (--devices all), and a merge job that runs when
# every task has succeeded (afterok): it folds the shards' databases into
# one (gemmtab merge) and emits the dispatch table (gemmtab emit).
#
#   contrib/slurm/submit.sh        # with the settings below
#   HOSTS=8 SPACE=my.yaml contrib/slurm/submit.sh
#
# What lands in RESULTS_DIR: shard-I.db and shard-I.done per task (a task that
# stops early leaves its database without the .done, and the same submit
# resumes it), merged.db, table.h and table_kernels.cu, merge.txt (the
# merge's summary) and logs/. Judge a run by table.h: the merge job runs
# only when every task succeeded, and it writes table.h last.

# --- what a site sets (here, or in the environment) -------------------
PARTITION=${PARTITION:-gpu}          # the GPU hosts' partition
MERGE_PARTITION=${MERGE_PARTITION:-$PARTITION}  # the merge needs no GPU
GPUS_PER_NODE=${GPUS_PER_NODE:-8}    # asked of each host (--gres=gpu:N); 0: ask for none
HOSTS=${HOSTS:-4}                    # array tasks: one host and one shard each
SPACE=${SPACE:-search_spaces/h200.yaml}
RESULTS_DIR=${RESULTS_DIR:-$PWD/gemmtab-out} # shared storage every host can write
TIME=${TIME:-12:00:00}               # each task's Slurm time limit
SWEEP_LIMIT=${SWEEP_LIMIT:-690m}     # gemmtab's own stop, ahead of TIME
GEMMTAB=${GEMMTAB:-gemmtab}          # the gemmtab on the hosts (a path, or on PATH)
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}}  # node-local: SQLite's WAL does not work on NFS
CACHE=${CACHE:-}                     # a cubin cache the tasks share [one on SCRATCH each]
INCUMBENT=${INCUMBENT:-}             # emit --incumbent OLD.h, if a table exists
ARRAY=${ARRAY:-1-$HOSTS}             # task ids; any HOSTS consecutive ids do
SBATCH_ARGS=${SBATCH_ARGS:-}         # anything else a site needs (--account, ...)
# ----------------------------------------------------------------------
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "submit.sh: $*" >&2; exit 2; }
case $HOSTS in '' | *[!0-9]* | 0) die "HOSTS='$HOSTS' is not a positive count" ;; esac
case $GPUS_PER_NODE in '' | *[!0-9]*) die "GPUS_PER_NODE='$GPUS_PER_NODE' is not a count" ;; esac
[ -f "$SPACE" ] || die "SPACE: no such file: $SPACE"
command -v sbatch >/dev/null || die "sbatch is not on PATH"
SPACE=$(cd "$(dirname "$SPACE")" && pwd)/$(basename "$SPACE")
[ -z "$INCUMBENT" ] || INCUMBENT=$(cd "$(dirname "$INCUMBENT")" && pwd)/$(basename "$INCUMBENT")
mkdir -p "$RESULTS_DIR/logs"
RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)
# every shard sees the same space: check it here, where a mistake is cheap
"$GEMMTAB" sweep --space "$SPACE" --dry-run >/dev/null ||
	die "gemmtab sweep --space $SPACE --dry-run failed (above)"

export GEMMTAB SPACE RESULTS_DIR SCRATCH CACHE SWEEP_LIMIT INCUMBENT
export GEMMTAB_SHARDS=$HOSTS
gres=()
[ "$GPUS_PER_NODE" -eq 0 ] || gres=(--gres="gpu:$GPUS_PER_NODE" --exclusive)
# shellcheck disable=SC2086
array=$(sbatch --parsable --job-name=gemmtab-sweep --partition="$PARTITION" \
	--nodes=1 "${gres[@]}" --time="$TIME" --array="$ARRAY" \
	--output="$RESULTS_DIR/logs/shard-%a.out" --export=ALL $SBATCH_ARGS "$here/shard.sh")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --job-name=gemmtab-merge --partition="$MERGE_PARTITION" \
	--nodes=1 --dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--output="$RESULTS_DIR/logs/merge.out" --export=ALL $SBATCH_ARGS "$here/merge.sh")
merge=${merge%%;*}
echo "array $array ($HOSTS tasks, $ARRAY), merge $merge; results in $RESULTS_DIR"
