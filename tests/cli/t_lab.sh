# CLI: the lab stays out of the product. The GPU-run scripts and the
# notebook live in lab/; make's tests run nothing there; no file outside
# lab/ speaks of the machinery the team borrows GPUs through (its words
# are spelled in pieces below, so that this file does not match itself);
# README.md links nothing in lab/.
. "$(dirname "$0")/lib.sh"

for f in device_h200.sh device_run.sh device_retune.sh ab_bench.sh ab_points.sh t_ab_points.sh notes.md README.md; do
	check "lab/$f exists" test -f "lab/$f"
done
for f in tools/device_h200.sh tools/device_run.sh tools/device_retune.sh tools/ab_bench.sh tools/ab_points.sh \
	tests/cli/t_ab_points.sh docs/notes.md; do
	check "$f is gone" test ! -e "$f"
done
# whole words: PTX's red.rel-ease is fine
l=lea o=OU
git grep -nwE "${l}ses?|${l}sed|le""nt|dev""ice ca""lls?|\\\$$o""T" -- ':!lab' >"$TMP/hits"
check "nothing outside lab/ speaks of borrowed GPU sessions" test ! -s "$TMP/hits"
sed 's/^/    /' "$TMP/hits" | head -n 10
check "README.md links nothing in lab/" bash -c "! grep -nE 'lab/|notes\\.md' README.md"
check "the Makefile names nothing in lab/" bash -c "! grep -n 'lab/' Makefile"
check "the test runner runs nothing in lab/" bash -c "! grep -n 'lab/' tests/run.sh"
finish
