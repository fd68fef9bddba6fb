#!/usr/bin/env bash
# tools/dev_ballast.sh: one device call (carry build/), session 10's test
# of the bench's offset over the sweep (runs 126-128): the committed
# small-M entries (tests/spaces/diag_xcache.yaml) screened with 200 pairs
# by sweep workers holding 0 or more MiB of ballast
# (GEMMTAB_DIAG_BALLAST_MB), alternately, ROUNDS times; then the same
# points through the bench (tests/spaces/diag_lines.yaml), its worker with
# no ballast and with the most.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
SIZES=${SIZES:-0 16384 65536}
Q="SELECT s.family || r.m, round(r.cand_us, 2), round(r.base_us, 2) FROM result r JOIN shape s ON s.id = r.shape_id ORDER BY 1"
for i in $(seq 1 ${ROUNDS:-2}); do
	for mb in $SIZES; do
		db=/tmp/b_${mb}_$i.db
		rm -f $db
		GEMMTAB_DIAG_BALLAST_MB=$mb $G sweep --space tests/spaces/diag_xcache.yaml --db $db \
			--no-retest >$OUT/sweep_${mb}_$i.log 2>&1
		echo "ballast=$mb: $($G query --db $db --format csv "$Q" | tail -n +2 | tr '\n' ' ')" |
			tee -a $OUT/ballast.txt
	done
done
for mb in 0 ${SIZES##* }; do
	echo "== bench, ballast=$mb" >>$OUT/bench.txt
	GEMMTAB_DIAG_BALLAST_MB=$mb $G bench --space tests/spaces/diag_lines.yaml --pairs 200 \
		>>$OUT/bench.txt 2>&1
done
cat $OUT/bench.txt
