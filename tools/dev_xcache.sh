#!/usr/bin/env bash
# tools/dev_xcache.sh: one device call, session 9's A/B of the activation
# copies: the committed small-M entries (tests/spaces/diag_xcache.yaml)
# screened with 200 pairs, alternately with the template as it is (X by
# cp.async.cg, L2 only) and with X by cp.async.ca (through L1), ROUNDS
# times each; each its own database (a template edit is a new source
# hash). The template is restored at the end. Carry build/.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
T=templates/mma_skinny.cuh
cp $T /tmp/mma_skinny.cuh.orig
for i in $(seq 1 ${ROUNDS:-3}); do
	for v in cg ca; do
		cp /tmp/mma_skinny.cuh.orig $T
		[ $v = ca ] && sed -i 's/cp.async.cg.shared.global \[%0\], \[%1\], 16, %2;/cp.async.ca.shared.global [%0], [%1], 16, %2;/' $T
		db=$OUT/x_${v}_$i.db
		$G sweep --space tests/spaces/diag_xcache.yaml --db $db --no-retest --cache /tmp/xcache_$v >/dev/null 2>&1
		$G query --db $db "SELECT s.family, r.m, r.status, round(r.cand_us, 3), round(r.base_us, 3), round(r.ratio, 4), substr(c.params, 1, 60) FROM result r JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id ORDER BY 1, 2, 7" | sed "s/^/$v $i /" >>$OUT/xcache.txt
	done
done
cp /tmp/mma_skinny.cuh.orig $T
cat $OUT/xcache.txt
