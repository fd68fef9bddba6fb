# CLI: contrib/slurm on a real single-node Slurm, started by this test with
# its config, state, spool and munge key under $TMP (never /etc/slurm or
# /var/spool) and stopped by the pids it started. submit.sh's job array
# sweeps tests/spaces/five.yaml in 3 shards on the fake worker's 2 GPUs,
# its merge job folds them, and the merged database and table must equal a
# single-host sweep's. A shard that fails leaves no merged database: the
# merge job is cancelled (--kill-on-invalid-dep). The run is judged by
# what lands in RESULTS_DIR, never by an exit code (sbatch --wait can exit 0
# when a task failed). Without Debian's slurmctld, slurmd, slurm-client and
# munge (.ci/run installs them) the checks are skipped, saying so.
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker FAKE_WORKER_DEVICES=2 FAKE_WORKER_EVAL_US=3000

missing=
for b in slurmctld slurmd sbatch squeue sinfo munged; do
	command -v $b >/dev/null || PATH=$PATH:/usr/sbin command -v $b >/dev/null || missing="$missing $b"
done
if [ -n "$missing" ]; then
	skip "a real single-node Slurm" "not installed (no$missing; .ci/run installs slurmctld slurmd slurm-client munge)"
	finish
fi
export PATH=$PATH:/usr/sbin
S=$TMP/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge" "$S/out" "$S/scratch"
pids=()
stop_daemons() {
	[ ${#pids[@]} -gt 0 ] || return 0
	kill "${pids[@]}" 2>/dev/null
	for _ in $(seq 50); do kill -0 "${pids[@]}" 2>/dev/null || break; sleep 0.1; done
	kill -9 "${pids[@]}" 2>/dev/null
	pids=()
}
trap 'stop_daemons; rm -rf "$TMP"' EXIT
logs() { for f in "$S"/*.log; do echo "    --- $f"; tail -n 15 "$f" | sed 's/^/    /'; done; }

# munge, with its own key and socket
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 700 "$S/munge"; chmod 400 "$S/munge/munge.key"
sock=$S/munge/munge.sock
munged --foreground --force --socket="$sock" --key-file="$S/munge/munge.key" \
	--pid-file="$S/munge/munged.pid" --log-file="$S/munged.log" \
	--seed-file="$S/munge/munged.seed" >/dev/null 2>&1 &
pids+=($!)

# two free TCP ports for the daemons
read -r p1 p2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
export SLURM_CONF=$S/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=gemmtabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
SlurmUser=$(id -un)
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
MinJobAge=5
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
slurmctld -D -c -f "$SLURM_CONF" >"$S/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >"$S/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 150); do
	state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.2
done
if [ "$state" != idle ]; then
	not_ok "the single-node Slurm came up (node state '${state}' after 30 s)"
	logs
	finish
fi
ok "a single-node Slurm is up: munged, slurmctld and slurmd under \$TMP (pids ${pids[*]})"

# wait_gone JOB...: until squeue lists none of them (120 s at most)
wait_gone() {
	local ids; ids=$(IFS=,; echo "$*")
	case ",$ids," in *,,* | *,0,*) return 1 ;; esac   # a job submit.sh did not name
	for _ in $(seq 600); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	return 1
}
rows() {   # a database's results, as one sorted set
	sqlite3 "$1" "SELECT s.family, c.template, c.params, r.m, r.phase, r.status, r.ratio,
		r.pairs FROM result r JOIN shape s ON s.id = r.shape_id
		JOIN candidate c ON c.id = r.candidate_id" | sort
}

# the single-host sweep the cluster's must equal; its cache warms the shards'
cache=$TMP/cache
expect_exit "a single-host sweep of five.yaml on both fake GPUs" 0 \
	"$GEMMTAB" sweep --space tests/spaces/five.yaml --db "$TMP/one.db" --devices all --cache "$cache"
expect_exit "its table" 0 "$GEMMTAB" emit --db "$TMP/one.db" --out "$TMP/one/table.h" --cache "$cache"

site() {   # the settings a site sets, for this machine
	env PARTITION=test GPUS_PER_NODE=0 HOSTS=3 SPACE=tests/spaces/five.yaml GEMMTAB=$GEMMTAB \
		SCRATCH=$S/scratch CACHE=$cache SWEEP_LIMIT=10m TIME=10:00 "$@"
}
out=$S/out/ok
expect_exit "submit.sh: an array of 3 (task ids 1-3) and a merge" 0 site RESULTS_DIR=$out contrib/slurm/submit.sh
check "... says both jobs" grep -qE '^array [0-9]+ \(3 tasks, 1-3\), merge [0-9]+; results in ' "$TMP/out"
read -r array merge < <(sed -n 's/^array \([0-9]*\) .*, merge \([0-9]*\);.*/\1 \2/p' "$TMP/out")
check "the array and the merge left the queue" wait_gone "${array:-0}" "${merge:-0}"
check "every shard finished: shard-0..2.done (ids 1-3 counted from the first)" \
	test -f "$out/shard-0.done" -a -f "$out/shard-1.done" -a -f "$out/shard-2.done"
check "no shard-3: the index is relative to SLURM_ARRAY_TASK_MIN" test ! -e "$out/shard-3.done"
check "the merge wrote merged.db and table.h" test -f "$out/merged.db" -a -f "$out/table.h"
if [ -f "$out/merged.db" ]; then
	rows "$TMP/one.db" >"$TMP/one.rows"
	rows "$out/merged.db" >"$TMP/merged.rows"
	check "rows recorded ($(wc -l <"$TMP/one.rows"))" test "$(wc -l <"$TMP/one.rows")" -gt 40
	test_cmp "the merged database holds the single-host sweep's results" "$TMP/one.rows" "$TMP/merged.rows"
	check "each shard ran on both GPUs of its host" test "$(sqlite3 "$out/merged.db" \
		"SELECT count(DISTINCT device) FROM result WHERE device IS NOT NULL")" = 2
fi
# the tables differ only where they name the emit command and its database
paths() { grep -v -e 'Generated by `gemmtab emit' -e '/\* generated_by \*/' -e '^ \* Tuned in environment' -e '/\* kernels_hash \*/' "$1"; }
if [ -f "$out/table.h" ]; then
	paths "$TMP/one/table.h" >"$TMP/one.h"; paths "$out/table.h" >"$TMP/cluster.h"
	test_cmp "the cluster's table is the single host's (but for the paths it names)" "$TMP/one.h" "$TMP/cluster.h"
	check "... and it has entries" grep -q '^static const struct gt_table gt_compiled_table' "$TMP/cluster.h"
	paths "$TMP/one/table_kernels.cu" >"$TMP/one.cu"; paths "$out/table_kernels.cu" >"$TMP/cluster.cu"
	test_cmp "... and its kernels file" "$TMP/one.cu" "$TMP/cluster.cu"
fi
check "the merge's summary is kept" test -s "$out/merge.txt"
check "the shards' logs name their share" grep -q '^shard 1/3 on ' "$out/logs/shard-2.out"
check "no scratch is left behind" test -z "$(ls -A "$S/scratch")"

# a shard that fails: the others' databases stay, the merge never runs
cat >"$TMP/flaky" <<FLAKY
#!/bin/sh
case " \$* " in *" --shard 1/3 "*) echo "planted failure" >&2; exit 1 ;; esac
exec "$GEMMTAB" "\$@"
FLAKY
chmod +x "$TMP/flaky"
out=$S/out/fail
expect_exit "submit.sh with task ids 0-2 and shard 1 failing" 0 \
	site RESULTS_DIR=$out ARRAY=0-2 GEMMTAB=$TMP/flaky contrib/slurm/submit.sh
read -r array merge < <(sed -n 's/^array \([0-9]*\) .*, merge \([0-9]*\);.*/\1 \2/p' "$TMP/out")
check "the array and the cancelled merge left the queue" wait_gone "${array:-0}" "${merge:-0}"
check "shards 0 and 2 finished, 1 did not" \
	test -f "$out/shard-0.done" -a ! -e "$out/shard-1.done" -a -f "$out/shard-2.done"
check "no merged database, no table" test ! -e "$out/merged.db" -a ! -e "$out/table.h"
check "the failed shard's log says why" grep -q 'planted failure' "$out/logs/shard-1.out"
check "the merge job never ran (no merge log)" test ! -e "$out/logs/merge.out"

# bad settings are refused before anything is submitted
expect_exit "HOSTS=0: exit 2" 2 site RESULTS_DIR=$S/out/bad HOSTS=0 contrib/slurm/submit.sh
check "... saying so" grep -q "HOSTS='0' is not a positive count" "$TMP/err"
expect_exit "a missing space: exit 2" 2 site RESULTS_DIR=$S/out/bad SPACE=$TMP/none.yaml contrib/slurm/submit.sh
check "... naming it" grep -q "SPACE: no such file: $TMP/none.yaml" "$TMP/err"

[ "$_fail" -eq 0 ] || logs
stop_daemons
check "the daemons this test started are gone" sh -c "! pgrep -F '$S/slurmd.pid' >/dev/null 2>&1"
finish
