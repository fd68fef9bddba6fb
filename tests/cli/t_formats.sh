# CLI: the machine-read outputs. report, query and bench --format json are
# one document each that python3's json module parses, carrying the
# database, command and environment, with the same figures as the csv;
# --format csv is one tidy table (--section picks which) that sqlite3's
# .import reads back row for row; bad --section lists exit 2. The report
# reads the committed db/quick.db; bench runs on the fake worker.
. "$(dirname "$0")/lib.sh"
db=db/quick.db
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $2" "$1" 2>&1; }

expect_exit "report --format json: exit 0" 0 "$GEMMTAB" report --db "$db" --format json
cp "$TMP/out" "$TMP/r.json"
check "report's json parses (python3 -m json.tool)" python3 -m json.tool "$TMP/r.json" /dev/null
got=$(json "$TMP/r.json" 'print(d["database"], d["environment"]["gpu"], d["command"][1], len(d["loads"]))')
check "it names the database, the environment and the command ($got)" test "$got" = "$db NVIDIA H200 report 4"
expect_exit "report --format csv: exit 0" 0 "$GEMMTAB" report --db "$db" --format csv
cp "$TMP/out" "$TMP/fam.csv"
check "csv is one table: one header line, no blank line" \
	test "$(grep -c '^family,' "$TMP/fam.csv")" = 1 -a "$(grep -c '^$' "$TMP/fam.csv")" = 0
got=$(json "$TMP/r.json" 'print(len(d["families"]))')
check "csv and json hold the same rows ($got)" test "$(($(wc -l <"$TMP/fam.csv") - 1))" = "$got"
# json's figures are csv's: the same speedup per (family, M)
json "$TMP/r.json" 'print("\n".join("%s,%d,%.3f" % (r["family"], r["M"], r["speedup"]) for r in d["families"]))' >"$TMP/j.rows"
awk -F, 'NR > 1 { printf "%s,%d,%.3f\n", $1, $4, $9 }' "$TMP/fam.csv" >"$TMP/c.rows"
test_cmp "csv and json give the same speedup per family and M" "$TMP/c.rows" "$TMP/j.rows"
expect_exit "report --format csv --section loads: exit 0" 0 "$GEMMTAB" report --db "$db" --format csv --section loads
cp "$TMP/out" "$TMP/loads.csv"
expect_exit "report --format csv --section score: exit 0" 0 "$GEMMTAB" report --db "$db" --format csv --section score
cp "$TMP/out" "$TMP/score.csv"
score=$("$GEMMTAB" report --db "$db" --section score | sed -n 's/^score: \([0-9.]*\),.*/\1/p')
check "the score section's csv has text's score ($score)" bash -c "sed -n 2p '$TMP/score.csv' | grep -q '^$score,'"
got=$(json "$TMP/r.json" 'print("%.3f" % d["score"])')
check "and json's ($got)" test "$got" = "$score"
if command -v sqlite3 >/dev/null; then
	sqlite3 "$TMP/im.db" ".import --csv $TMP/fam.csv fam" ".import --csv $TMP/loads.csv loads" 2>"$TMP/im.err"
	check "sqlite3 .import reads both tables back" test -s "$TMP/im.db" -a ! -s "$TMP/im.err"
	got=$(sqlite3 "$TMP/im.db" "SELECT count(*) FROM fam")
	check "every family and M row ($got)" test "$got" = "$(($(wc -l <"$TMP/fam.csv") - 1))"
	got=$(sqlite3 "$TMP/im.db" "SELECT group_concat(M) FROM loads")
	check "the loads quick.db measured, by M ($got)" test "$got" = "1,8,16,32"
	got=$(sqlite3 "$TMP/im.db" "SELECT count(*) FROM fam WHERE template = 'cublas' AND params = ''")
	want=$(json "$TMP/r.json" 'print(sum(r["template"] == "cublas" and r["params"] is None for r in d["families"]))')
	check "columns by name: the points cuBLAS runs, without params ($got, json $want)" \
		test "$got" = "$want" -a "$got" -gt 0
	got=$(sqlite3 "$TMP/im.db" "SELECT count(*) FROM fam WHERE CAST(speedup AS REAL) > 1 AND template = 'cublas'")
	check "no point with a speedup runs cuBLAS" test "$got" = 0
else
	skip "sqlite3 .import of the csv" "no sqlite3 here"
fi
expect_exit "report --section bogus: exit 2" 2 "$GEMMTAB" report --db "$db" --section bogus
check "it names the list" grep -q "section: 'bogus' is not a list of families, loads and score" "$TMP/err"

expect_exit "query --format json: exit 0" 0 "$GEMMTAB" query --db "$db" --format json \
	"SELECT family, n, m, ratio FROM best WHERE ratio IS NOT NULL ORDER BY family, m LIMIT 3; SELECT NULL AS x"
cp "$TMP/out" "$TMP/q.json"
got=$(json "$TMP/q.json" 'r = d["results"]; print(len(r), len(r[0]["rows"]), type(r[0]["rows"][0]["n"]).__name__, type(r[0]["rows"][0]["ratio"]).__name__, r[1]["rows"][0]["x"], d["database"])')
check "query's json: one result per statement, typed as stored ($got)" test "$got" = "2 3 int float None $db"
expect_exit "query --format json of a write: exit 1, nothing on stdout" 1 "$GEMMTAB" query --db "$db" --format json "SELECT 1; DELETE FROM result"
check "(stdout empty)" test ! -s "$TMP/out"

sp=search_spaces/h200_loads.yaml
expect_exit "bench --format json: exit 0" 0 "$GEMMTAB" bench --space $sp --pairs 10 --format json
cp "$TMP/out" "$TMP/b.json"
check "bench's json parses" python3 -m json.tool "$TMP/b.json" /dev/null
got=$(json "$TMP/b.json" 'print(len(d["points"]), len(d["loads"]), d["failed"], d["space"], d["command"][1])')
check "it holds the points, the loads and the summary ($got)" test "$got" = "90 6 0 $sp bench"
expect_exit "bench --format csv: exit 0" 0 "$GEMMTAB" bench --space $sp --pairs 10 --format csv
check "bench csv: one table of 90 points" test "$(grep -c . "$TMP/out")" = 91 -a "$(head -c 12 "$TMP/out")" = "family,n,k,M"
expect_exit "bench --format csv --section score: exit 0" 0 "$GEMMTAB" bench --space $sp --pairs 10 --format csv --section score
got=$(json "$TMP/b.json" 'print("%.3f" % d["score"])')
check "bench's csv score is json's ($got)" bash -c "sed -n 2p '$TMP/out' | grep -q '^$got,'"
expect_exit "bench --section points,nope: exit 2" 2 "$GEMMTAB" bench --space $sp --section points,nope

# plots: SVG that an XML parser reads, deterministic, one series per family
svg_ok() { python3 -c "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == 'svg'" "$1"; }
expect_exit "report --plot: exit 0" 0 "$GEMMTAB" report --db "$db" --section score --plot "$TMP/r.svg"
check "report's plot is an SVG document" svg_ok "$TMP/r.svg"
"$GEMMTAB" report --db "$db" --section score --plot "$TMP/r2.svg" >/dev/null
check "the same database draws the same bytes" cmp -s "$TMP/r.svg" "$TMP/r2.svg"
for f in qkv oproj pooler unpooler router; do
	check "the report's plot names $f" grep -q ">$f<" "$TMP/r.svg"
done
expect_exit "bench --plot (the fake worker): exit 0" 0 "$GEMMTAB" bench --space $sp --pairs 10 --format md --out "$TMP/b.md" --plot "$TMP/b.svg"
check "bench's plot is an SVG document" svg_ok "$TMP/b.svg"
expect_exit "bench --from the saved md --plot: exit 0" 0 "$GEMMTAB" bench --from "$TMP/b.md" --plot "$TMP/b2.svg"
check "redrawn from the md, the points are the same (markers' figures)" \
	test "$(grep -o 'M=[0-9]*: speedup [0-9.]*' "$TMP/b.svg" | sort)" = "$(grep -o 'M=[0-9]*: speedup [0-9.]*' "$TMP/b2.svg" | sort)"
check "every one of the 90 points is drawn" test "$(grep -c '<title>[a-z_]*, M=[0-9]*: speedup' "$TMP/b2.svg")" = 90
expect_exit "bench --from the committed bench/h200.md: exit 0" 0 "$GEMMTAB" bench --from bench/h200.md --plot "$TMP/h.svg"
check "it is the committed bench/h200.svg" cmp -s "$TMP/h.svg" bench/h200.svg
expect_exit "bench --from without --plot: exit 2" 2 "$GEMMTAB" bench --from bench/h200.md
printf '# x\n\n| family | M | base_us | lib_us | speedup |\n|---|---:|---:|---:|---:|\n| qkv | one | 1 | 1 | 1 |\n' >"$TMP/bad.md"
expect_exit "bench --from a table with a bad M: exit 1" 1 "$GEMMTAB" bench --from "$TMP/bad.md" --plot "$TMP/x.svg"
check "the error names the file and line" grep -q "from $TMP/bad.md:5: M 'one' is not a number" "$TMP/err"
check "and no plot is written" test ! -e "$TMP/x.svg"
expect_exit "report --plot into a missing folder: exit 1" 1 "$GEMMTAB" report --db "$db" --section score --plot "$TMP/no/such/r.svg"
check "the error names --plot and the path" grep -q -- "--plot $TMP/no/such/r.svg: cannot write it" "$TMP/err"
finish
