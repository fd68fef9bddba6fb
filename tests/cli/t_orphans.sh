# CLI: a worker dies with its supervisor. kill -9 of a sweep while its
# worker runs (the planted hang holds it: the supervisor would wait out
# the deadline) leaves no worker behind: PR_SET_PDEATHSIG kills it too.
. "$(dirname "$0")/lib.sh"
GEMMTAB=$PWD/build/tests/gemmtab   # it registers planted
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker

"$GEMMTAB" sweep --space tests/spaces/planted.yaml --db "$TMP/p.db" --no-retest \
	--deadline 60 --cache "$TMP/c" >"$TMP/sweep.out" 2>&1 &
sup=$!
worker=
for _ in $(seq 1 200); do
	worker=$(pgrep -P "$sup" -f fake_worker | head -n 1)
	[ -n "$worker" ] && break
	sleep 0.05
done
check "the sweep started a worker" test -n "$worker"
# (a planted fault kills its worker and the sweep starts another: the
# one to watch is the one running when the supervisor dies, in the hang)
sleep 3
worker=$(pgrep -P "$sup" -f fake_worker | head -n 1)
check "a worker is running before the kill (${worker:-none})" test -n "$worker"
kill -9 "$sup"
wait "$sup" 2>/dev/null
gone=0
for _ in $(seq 1 100); do
	kill -0 "$worker" 2>/dev/null || { gone=1; break; }
	sleep 0.05
done
check "the worker died with its supervisor" test "$gone" = 1
[ "$gone" = 1 ] || kill -9 "$worker" 2>/dev/null

finish
