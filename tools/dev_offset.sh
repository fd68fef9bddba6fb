#!/usr/bin/env bash
# tools/dev_offset.sh: one device call (carry build/), session 10's tests
# of the bench's offset over the sweep (runs 126-128): the committed
# small-M entries (tests/spaces/diag_xcache.yaml) screened with 200 pairs
# by sweep workers with the diagnosis variable VAR (default
# GEMMTAB_DIAG_BALLAST_MB, run 132; GEMMTAB_DIAG_RT_PREPARE, run 139) set
# to each of VALUES in turn, ROUNDS times; then the same points through
# the bench (tests/spaces/diag_lines.yaml) with the first and last value.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
VAR=${VAR:-GEMMTAB_DIAG_BALLAST_MB}
VALUES=${VALUES:-0 16384 65536}
Q="SELECT s.family || r.m, round(r.cand_us, 2), round(r.base_us, 2) FROM result r JOIN shape s ON s.id = r.shape_id ORDER BY 1"
for i in $(seq 1 ${ROUNDS:-2}); do
	for v in $VALUES; do
		db=/tmp/o_${v}_$i.db
		rm -f $db
		env "$VAR=$v" $G sweep --space tests/spaces/diag_xcache.yaml --db $db \
			--no-retest >$OUT/sweep_${v}_$i.log 2>&1
		echo "$VAR=$v: $($G query --db $db --format csv "$Q" | tail -n +2 | tr '\n' ' ')" |
			tee -a $OUT/offset.txt
	done
done
for v in ${VALUES%% *} ${VALUES##* }; do
	echo "== bench, $VAR=$v" >>$OUT/bench.txt
	env "$VAR=$v" $G bench --space tests/spaces/diag_lines.yaml --pairs 200 \
		>>$OUT/bench.txt 2>&1
done
grep -E "^==|^(qkv|unpooler_slice|router) " $OUT/bench.txt
