#!/usr/bin/env bash
# lab/ab_points.sh A.md B.md: two `gemmtab bench --format md` reports
# (lab/ab_bench.sh's a_N.md and b_N.md, say) point by point: for each
# family and M both measured, the library's time in each, their ratio
# (a over b), and whether both ran the same kernel (the same template and
# parameters, or both the baseline's own call) or each its own. Then the
# median ratio over the same-kernel points: where two tables dispatch
# alike, a ratio away from 1 is the process or the machine, not the
# table.
#
#   bash lab/ab_points.sh docs/runs/run177/a_1.md docs/runs/run177/b_1.md
set -eu
[ $# -eq 2 ] || { echo "usage: lab/ab_points.sh A.md B.md" >&2; exit 2; }
for f in "$1" "$2"; do
	[ -r "$f" ] || { echo "lab/ab_points.sh: cannot read $f" >&2; exit 1; }
done

# "family:M", lib_us and the kernel of each per-point row (second cell a
# number, last cell a dispatch) that passed its FP64 check with a
# positive time, sorted by that key as join wants it
points() {
	awk -F'|' '
	NF > 10 && $3 ~ /^ *[0-9]+ *$/ && $(NF - 1) ~ /m=[0-9]+: / && $(NF - 2) ~ /^ *ok/ &&
	$5 ~ /^ *[0-9]*\.?[0-9]+ *$/ && $5 + 0 > 0 {
		fam = $2; m = $3; lib = $5; d = $(NF - 1)
		gsub(/ /, "", fam); gsub(/ /, "", m); gsub(/ /, "", lib)
		if (d ~ /: baseline /)
			k = "baseline"
		else {
			sub(/.*: entry [0-9]+ \(/, "", d)
			sub(/, m [0-9]+-[0-9]+, .*/, "", d)
			k = d
		}
		gsub(/ /, "_", k)
		print fam ":" m, lib, k
	}' "$1" | LC_ALL=C sort -k1,1
}

# a report no row of which parses is a format this script does not know:
# an error, not a table of nothing
T=$(mktemp -d "${TMPDIR:-/tmp}/ab_points.XXXXXX")
trap 'rm -rf "$T"' EXIT
points "$1" >"$T/a"
points "$2" >"$T/b"
for f in "$1:a" "$2:b"; do
	if [ ! -s "$T/${f##*:}" ]; then
		echo "lab/ab_points.sh: no row of ${f%:*} reads as a bench report's point" >&2
		exit 1
	fi
done
LC_ALL=C join -j1 "$T/a" "$T/b" |
awk -v a="$1" -v b="$2" '
{
	split($1, fm, ":")
	r = $2 / $4
	same = $3 == $5
	printf "%-15s %4d  a %7.2f  b %7.2f  a/b %.3f  %s  %s\n", fm[1], fm[2], $2, $4, r,
	       same ? "same" : "own ", same ? $3 : $3 " | " $5
	if (same)
		rs[++n] = r
}
END {
	if (!n) {
		print "no point runs the same kernel in both"
		exit
	}
	# the median of the same-kernel ratios (insertion sort: a few dozen)
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && rs[j - 1] > rs[j]; j--) {
			t = rs[j]; rs[j] = rs[j - 1]; rs[j - 1] = t
		}
	med = n % 2 ? rs[(n + 1) / 2] : (rs[n / 2] + rs[n / 2 + 1]) / 2
	printf "same kernel at %d points: median a/b %.3f (%s against %s)\n", n, med, a, b
}'
