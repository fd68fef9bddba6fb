#!/usr/bin/env bash
# tools/dev_side.sh: one device call (carry build/), session 10: does work
# on a second stream once, at a worker's start (GEMMTAB_DIAG_SIDE_STREAM),
# move what the sweep and the probe read? The probe and the committed
# small-M entries (tests/spaces/diag_xcache.yaml, 200 pairs) without and
# with it, alternately; then how many kernel nodes each timed graph holds
# (GEMMTAB_GRAPH_DOT).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
Q="SELECT s.family || r.m, round(r.cand_us, 2), round(r.base_us, 2) FROM result r JOIN shape s ON s.id = r.shape_id ORDER BY 1"
P="SELECT family, round(us, 2) FROM probe WHERE what = 'floor' ORDER BY family"
for i in 1 2; do
	for v in 0 1; do
		db=/tmp/side_${v}_$i.db
		rm -f $db
		GEMMTAB_DIAG_SIDE_STREAM=$v $G probe --db $db >/dev/null 2>&1
		GEMMTAB_DIAG_SIDE_STREAM=$v $G sweep --space tests/spaces/diag_xcache.yaml --db $db \
			--no-retest >/dev/null 2>&1
		echo "side=$v: $($G query --db $db --format csv "$Q" | tail -n +2 | tr '\n' ' ')" |
			tee -a $OUT/side.txt
		echo "side=$v floors: $($G query --db $db --format csv "$P" | tail -n +2 | tr '\n' ' ')" |
			tee -a $OUT/side.txt
	done
done
rm -rf /tmp/dot && mkdir -p /tmp/dot
GEMMTAB_GRAPH_DOT=/tmp/dot/g $G sweep --space tests/spaces/diag_xcache.yaml --db /tmp/dot.db \
	--no-retest >/dev/null 2>&1
for f in /tmp/dot/*.dot; do
	echo "$(basename $f): kernel $(grep -c 'KERNEL' $f) memset $(grep -c 'MEMSET' $f) edges $(grep -c -- '->' $f) $(grep -o 'name[^\\]*' $f | head -3 | tr '\n' ' ' | cut -c1-200)"
done > $OUT/dot.txt
cp "$(ls /tmp/dot/*.dot | head -1)" $OUT/first.dot
sort -t: -k2 $OUT/dot.txt | uniq -c -f1 | head -40
