# CLI: `gemmtab bench` without a GPU, against tests/fake/fake_worker.c: the
# per-load sums and the score are recomputed here from the per-point
# table (unpooler_slice in place of unpooler at M <= 8), the md report's
# last line is the score, --out writes the same report, bad options exit 2.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
expect_exit "bench: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10
cp "$TMP/out" "$TMP/bench.txt"
# recompute each load from the points and compare with the load table
awk '
	/^Per family and M/ { sec = 1; next }
	/^Per load/ { sec = 2; next }
	sec == 1 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ { base[$1, $2] = $3; lib[$1, $2] = $4 }
	function off(a, b, tol) { return a - b > tol || b - a > tol }
	sec == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && NF >= 4 {
		m = $1; b = 0; l = 0
		n = split("qkv oproj pooler router", f, " ")
		f[++n] = m <= 8 ? "unpooler_slice" : "unpooler"
		for (i = 1; i <= n; i++) { b += base[f[i], m]; l += lib[f[i], m] }
		# the points are printed to 0.01 us: five of them may sum 0.03 off
		if (off(b, $2, 0.03) || off(l, $3, 0.03) || off(b / l, $4, 0.002)) {
			printf "load %d: table %s %s %s, recomputed %.2f %.2f %.3f\n", m, $2, $3, $4, b, l, b / l
			bad++
		}
		logs += log($2 / $3); loads++
	}
	/^score: / { score = $2 }
	END {
		if (loads != 6) { print "expected 6 loads, saw " loads; bad++ }
		if (off(exp(logs / loads), score, 0.002)) {
			printf "score %s, recomputed %.3f\n", score, exp(logs / loads); bad++
		}
		exit bad ? 1 : 0
	}' "$TMP/bench.txt" >"$TMP/recompute" 2>&1
check "per-load sums and the score recompute from the points" test $? -eq 0
sed 's/^/    /' "$TMP/recompute"
check "90 points, all correct" grep -qE '^90 points, 0 failed the FP64 check' "$TMP/bench.txt"
check "every point names its dispatch" bash -c "! grep -E '^[a-z_]+ +[0-9]+ ' '$TMP/bench.txt' | grep -vq 'fake dispatch'"
# the summary counts the slower points, and those of them where the
# library ran the baseline's own call (the fake's ratios in [0.9, 1):
# below 0.9 it names an entry)
slow=$(grep -cE '^[a-z_]+ +[0-9]+ .* ok, SLOWER' "$TMP/bench.txt")
same=$(grep -cE '^[a-z_]+ +[0-9]+ .* ok, SLOWER \(same call\)' "$TMP/bench.txt")
check "some made-up points are slower ($slow), some of them the baseline's call ($same)" \
	test "$same" -gt 0 -a "$slow" -gt "$same"
check "the summary says so" grep -qE "^90 points, 0 failed the FP64 check, $slow slower than the baseline by more than 3% \\($same of them running the baseline's own call\\)" "$TMP/bench.txt"

expect_exit "bench --format md --out: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --format md --out "$TMP/bench.md"
check "md's last line is the score" bash -c "tail -n 1 '$TMP/bench.md' | grep -qE '^score: [0-9]+\.[0-9]{3}$'"
check "md and text give the same score" test "$(tail -n 1 "$TMP/bench.md")" = "$(grep '^score: ' "$TMP/bench.txt")"
# --rounds 3: the fake reads round 1 10% slower and round 2 10% faster
# than round 0, so every median is round 0's figure: the same points as
# one round, a spread as wide as the three, the same score
expect_exit "bench --rounds 3: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --rounds 3
cp "$TMP/out" "$TMP/rounds.txt"
check "the header says each figure is a median of 3 rounds" \
	grep -q "10 pairs per point, each figure the median of 3 rounds" "$TMP/rounds.txt"
cols() { awk '/^Per family and M/ { s = 1; next } /^Per load/ { s = 0 } s && $2 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5 }' "$1"; }
cols "$TMP/bench.txt" >"$TMP/one.cols"
cols "$TMP/rounds.txt" >"$TMP/three.cols"
check "each median is round 0's figure (90 points)" \
	bash -c "test \$(wc -l <'$TMP/one.cols') = 90 && cmp -s '$TMP/one.cols' '$TMP/three.cols'"
lo1=$(awk '/^qkv +8 /{ split($6, a, /\.\./); print a[1] }' "$TMP/bench.txt")
lo3=$(awk '/^qkv +8 /{ split($6, a, /\.\./); print a[1] }' "$TMP/rounds.txt")
check "the spread covers all three rounds (qkv 8: low end $lo1 in one, $lo3 in three)" \
	awk -v a="$lo1" -v b="$lo3" 'BEGIN { exit !(b < a * 0.95) }'
check "the same score" test "$(grep '^score: ' "$TMP/rounds.txt")" = "$(grep '^score: ' "$TMP/bench.txt")"
# --rounds 2 --recheck 1: the first two rounds read each point at 0.95 of
# round 0 (the median of 1 and 0.9); a point then below 0.97 is measured
# in round 2 too (1.1), and its median of three is round 0's again. So
# the points slower after the recheck are one round's, and a point read
# at 0.95 x [0.97, 1.021) of the baseline was rechecked and cleared
expect_exit "bench --rounds 2 --recheck 1: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --rounds 2 --recheck 1
cp "$TMP/out" "$TMP/recheck.txt"
check "the header says what a recheck does" \
	grep -q "; a point slower than the baseline by more than 3% after them is measured 1 more round, and its figures are the medians of all 3" "$TMP/recheck.txt"
slow_re=$(grep -cE '^[a-z_]+ +[0-9]+ .* ok, SLOWER' "$TMP/recheck.txt")
again=$(grep -cE '^[a-z_]+ +[0-9]+ .* \(rechecked: [0-9.]+ over the first 2 rounds, 3 in all\)' "$TMP/recheck.txt")
cleared=$(grep -cE '^[a-z_]+ +[0-9]+ .* ok \(rechecked: ' "$TMP/recheck.txt")
check "as many slower points as one round ($slow_re, $slow)" test "$slow_re" = "$slow"
check "every one of them rechecked, and some cleared ($again rechecked, $cleared cleared)" \
	test "$again" = $((slow + cleared)) -a "$cleared" -gt 0
check "a rechecked point's figures are round 0's (the median of three)" bash -c \
	"cmp -s <(grep -E '^[a-z_]+ +[0-9]+ .*rechecked: ' '$TMP/recheck.txt' | awk '{ print \$1, \$2, \$3, \$4, \$5 }') \
	        <(grep -E '^[a-z_]+ +[0-9]+ .*rechecked: ' '$TMP/recheck.txt' | awk '{ print \$1, \$2 }' | grep -Fwf - '$TMP/one.cols')"
check "its check names the first reading, 0.95 of round 0's" awk '
	NR == FNR { r[$1 " " $2] = $5; next }
	/^[a-z_]+ +[0-9]+ .*rechecked: / { n++; match($0, /rechecked: [0-9.]+/); v = substr($0, RSTART + 11, RLENGTH - 11)
		if (v < 0.95 * r[$1 " " $2] - 0.0015 || v > 0.95 * r[$1 " " $2] + 0.0015) bad++ }
	END { exit !(n > 0 && !bad) }' "$TMP/one.cols" "$TMP/recheck.txt"
check "a point not rechecked is the median of two rounds" awk '
	NR == FNR { r[$1 " " $2] = $5; next }
	/^(Per family|Per load)/ { sec = /family/; next }
	sec && $2 ~ /^[0-9]+$/ && !/rechecked/ { n++; if ($5 < 0.95 * r[$1 " " $2] - 0.0015 || $5 > 0.95 * r[$1 " " $2] + 0.0015) bad++ }
	END { exit !(n > 0 && !bad) }' "$TMP/one.cols" "$TMP/recheck.txt"
check "the summary counts them" \
	grep -qE "^rechecked: $again points measured 1 more round, $cleared of them no longer slower by more than 3%$" "$TMP/recheck.txt"
expect_exit "bench --rounds 20 --recheck 13: exit 2" 2 "$GEMMTAB" bench --rounds 20 --recheck 13
check "it says the rounds are too many in all" grep -q -- "--rounds 20 and --recheck 13: at most 32 rounds in all" "$TMP/err"

# frac_check FILE [POINT LOAD LO HI]: every point's and load's floor_frac
# is the probed floor (per load the floors' sum) over lib_us; with the
# factors (over round 0's figures) the paired columns are checked too
frac_check() {
awk -v pf="${2:-}" -v lf="${3:-}" -v lof="${4:-}" -v hif="${5:-}" 'NR == FNR { fp[$1] = $2; next }
	/^Per family and M/ { sec = 1; next }
	/^Per load/ { sec = 2; next }
	# printed to 0.01: a fraction may be off by 0.005 plus the rounding
	# of lib_us (0.005 us) carried through it
	function off(a, b, lib) { t = 0.006 + 0.006 * b / lib; return a - b > t || b - a > t }
	sec == 1 && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9.]+$/ {
		pts++; f[$1, $2] = fp[$1]
		if (off(fp[$1] / $4, $7, $4)) { printf "%s %s: floor_frac %s, recomputed %.3f\n", $1, $2, $7, fp[$1] / $4; bad++ }
		if (pf == "")
			next
		# the fake reads 2% slower than its probe, the library 1% slower
		p0 = fp[$1] * 1.02 / ($4 * 1.01)
		if (off(p0 * pf, $8, $4)) { printf "%s %s: paired %s, recomputed %.3f\n", $1, $2, $8, p0 * pf; bad++ }
		if ($9 !~ /^[0-9]+\.[0-9][0-9]\.\.[0-9]+\.[0-9][0-9]$/) { printf "%s %s: paired spread %s\n", $1, $2, $9; bad++; next }
		split($9, sp, /\.\./)
		if (off(p0 * lof, sp[1], $4) || off(p0 * hif, sp[2], $4) || sp[1] > $8 || sp[2] < $8) {
			printf "%s %s: paired spread %s, recomputed %.2f..%.2f\n", $1, $2, $9, p0 * lof, p0 * hif; bad++
		}
	}
	sec == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && NF >= 5 {
		m = $1; fs = 0; n = split("qkv oproj pooler router", fam, " ")
		fam[++n] = m <= 8 ? "unpooler_slice" : "unpooler"
		for (i = 1; i <= n; i++) fs += f[fam[i], m]
		loads++
		if (off(fs / $3, $5, $3)) { printf "load %s: floor_frac %s, recomputed %.3f\n", m, $5, fs / $3; bad++ }
		r = fs * 1.02 * lf / ($3 * 1.01)
		if (pf != "" && off(r, $6, $3)) { printf "load %s: paired %s, recomputed %.3f\n", m, $6, r; bad++ }
	}
	END { if (pts != 90 || loads != 6) { print pts " points, " loads " loads"; bad++ }; exit bad ? 1 : 0 }' \
	"$TMP/floors" "$1" >"$TMP/recompute" 2>&1
}
# --floors DB: the fake probe's floors (4 TB/s) over each point's lib_us,
# and per load the floors' sum over lib_us's
expect_exit "probe (fake) for --floors: exit 0" 0 "$GEMMTAB" probe --db "$TMP/fl.db" --space search_spaces/h200_loads.yaml --pairs 5
awk '$5 ~ /,fake$/ { print $1, $3 }' "$TMP/out" >"$TMP/floors"
check "the probe named six floors" test "$(wc -l <"$TMP/floors")" = 6
expect_exit "bench --floors: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --floors "$TMP/fl.db"
cp "$TMP/out" "$TMP/floors.txt"
check "it says where the floors come from" grep -q "^floor_frac: the practical read floor of the family (gemmtab probe in $TMP/fl.db, env 1: " "$TMP/floors.txt"
frac_check "$TMP/floors.txt"
check "every point's and load's floor_frac is the probed floor over lib_us" test $? -eq 0
sed 's/^/    /' "$TMP/recompute"
check "the same score as without floors" test "$(grep '^score: ' "$TMP/floors.txt")" = "$(grep '^score: ' "$TMP/bench.txt")"
# the fake floors differ by family (1% a letter), so a swapped family shows
check "the probe's floors differ by family" test "$(awk '{ print $2 }' "$TMP/floors" | sort -u | wc -l)" = 6
# --paired: the worker also times the probe's read of the point's weight
# bytes (the probe's configuration) paired with the library; the fake
# reads it 2% slower than its probe's floor (50% in a configuration other
# than the probe's), and the library 1% slower in that batch. Over three
# rounds the fake scales the read by 1, 1.25, 1.05 and the library's time
# by 1, 1/0.9, 1/1.1: the point's paired figure is then the median
# fraction, 1.125 times round 0's; the load's the median reads (1.05
# times round 0's) over the median library times (round 0's); the spread
# from 0.95 times the least fraction to 1.05 times the largest (1 and
# 1.155 times round 0's).
expect_exit "bench --floors --paired: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --floors "$TMP/fl.db" --paired
cp "$TMP/out" "$TMP/paired.txt"
check "it says what the paired column is" grep -q "^paired: the same read of the point's weight bytes" "$TMP/paired.txt"
frac_check "$TMP/paired.txt" 1 1 0.95 1.05
check "every point's and load's paired column is the worker's read (the probe's configuration) over the library of its batch, its spread 0.95..1.05 of it, floor_frac as before" test $? -eq 0
sed 's/^/    /' "$TMP/recompute"
expect_exit "bench --floors --paired --rounds 3: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --floors "$TMP/fl.db" --paired --rounds 3
cp "$TMP/out" "$TMP/paired3.txt"
frac_check "$TMP/paired3.txt" 1.125 1.05 0.95 1.21275
check "over three rounds, a point's paired figure is the median fraction, a load's the median reads over the median library times, the spread over every round" test $? -eq 0
sed 's/^/    /' "$TMP/recompute"
expect_exit "bench --floors --paired --format md: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --floors "$TMP/fl.db" --paired --format md
check "the md report has the paired columns" grep -q '^| family | M | base_us | lib_us | speedup | spread | floor_frac | paired | paired_spread | err/tol |' "$TMP/out"
FAKE_WORKER_FLOOR_CONFIG=fake expect_exit "probe with a configuration bench cannot read: exit 0" 0 "$GEMMTAB" probe --db "$TMP/fl3.db" --space search_spaces/h200_loads.yaml --pairs 5
expect_exit "bench --paired over it: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --floors "$TMP/fl3.db" --paired
check "a warning names the family and its configuration" grep -q "qkv's floor has no read configuration gemmtab can time ('fake'); its paired column reads '-'" "$TMP/err"
check "its points read '-' in paired, a fraction in floor_frac" bash -c "awk '\$1 == \"qkv\" && \$2 ~ /^[0-9]+\$/ { n++; if (\$8 != \"-\" || \$7 !~ /^[0-9]+\\.[0-9][0-9]\$/) bad++ } END { exit !(n == 18 && !bad) }' '$TMP/out'"
check "the same score as without --paired" test "$(grep '^score: ' "$TMP/paired.txt")" = "$(grep '^score: ' "$TMP/bench.txt")"
# a floor probed for another space's family of the same name (other
# weight bytes) is not that shape's floor: '-', with a warning naming it
sed '0,/n: 2304/s//n: 6144/' search_spaces/h200_loads.yaml >"$TMP/qkv6144.yaml"
expect_exit "bench --floors of a space whose qkv has other bytes: exit 0" 0 "$GEMMTAB" bench --space "$TMP/qkv6144.yaml" --pairs 10 --floors "$TMP/fl.db"
check "a warning names the family and the shape" grep -q "qkv's floor was probed for weights of other bytes than $TMP/qkv6144.yaml's 6144 x 8192: its floor_frac reads '-'" "$TMP/err"
check "qkv's points read '-' in floor_frac, oproj's a fraction" bash -c "awk '\$1 == \"qkv\" && \$2 ~ /^[0-9]+\$/ { q++; if (\$7 != \"-\") bad++ } \$1 == \"oproj\" && \$2 ~ /^[0-9]+\$/ { o++; if (\$7 !~ /^[0-9]+\\.[0-9][0-9]\$/) bad++ } END { exit !(q > 0 && o > 0 && !bad) }' '$TMP/out'"
expect_exit "bench --paired without --floors: exit 2" 2 "$GEMMTAB" bench --paired
check "the error says --paired needs --floors" grep -q -- "--paired needs --floors" "$TMP/err"
# a probe of some families only: the others read '-', and so does every
# load that holds one of them
expect_exit "probe of fake.yaml's families only: exit 0" 0 "$GEMMTAB" probe --db "$TMP/fl2.db" --space tests/spaces/fake.yaml --pairs 5
expect_exit "bench --floors of a partial probe: exit 0" 0 "$GEMMTAB" bench --space search_spaces/h200_loads.yaml --pairs 10 --floors "$TMP/fl2.db"
check "a warning names a family without a floor" grep -q "no floor for pooler; its floor_frac reads '-'" "$TMP/err"
check "its points read '-'" bash -c "awk '\$1 == \"pooler\" && \$2 ~ /^[0-9]+\$/ { n++; if (\$7 != \"-\") bad++ } END { exit !(n == 18 && !bad) }' '$TMP/out'"
check "a probed family's points read a fraction" bash -c "awk '\$1 == \"qkv\" && \$2 == 8 { exit !(\$7 ~ /^[0-9]+\\.[0-9][0-9]\$/) }' '$TMP/out'"
check "every load reads '-'" bash -c "awk '/^Per load/ { s = 1; next } s && \$1 ~ /^[0-9]+\$/ && \$2 ~ /^[0-9.]+\$/ { n++; if (\$5 != \"-\") bad++ } END { exit !(n == 6 && !bad) }' '$TMP/out'"
expect_exit "bench --floors of no database: exit 2" 2 "$GEMMTAB" bench --floors "$TMP/none.db"
check "the error names it and the option" grep -q -- "--floors $TMP/none.db" "$TMP/err"
printf 'not a database at all, just text that is long enough to be a header\n' >"$TMP/text.db"
expect_exit "bench --floors of a text file: exit 2" 2 "$GEMMTAB" bench --floors "$TMP/text.db"
check "the error says it cannot read it" grep -q -- "--floors $TMP/text.db: not a database gemmtab can read" "$TMP/err"
expect_exit "bench --rounds 0: exit 2" 2 "$GEMMTAB" bench --rounds 0
expect_exit "bench --format xml: exit 2" 2 "$GEMMTAB" bench --format xml
expect_exit "bench --pairs 0: exit 2" 2 "$GEMMTAB" bench --pairs 0
expect_exit "bench --table of another table: exit 2" 2 "$GEMMTAB" bench --table runtime/tables/example.h
finish
