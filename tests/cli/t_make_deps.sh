# CLI: make after a source has moved (git mv): the dependency file an
# earlier build wrote names the old path, which make must not demand ("No
# rule to make target"). The Makefile drops such a .d with its object,
# says so, and builds the object from where its source is now.
. "$(dirname "$0")/lib.sh"

B=$TMP/build
mkdir -p "$B/obj"
# stats.c lived in tuner/worker/ before it moved to tuner/util/
printf '%s\n' "$B/obj/stats.o: tuner/worker/stats.c tuner/worker/stats.h \\" \
	' tuner/util/util.h' 'tuner/worker/stats.h:' 'tuner/util/util.h:' >"$B/obj/stats.d"
: >"$B/obj/stats.o"
# a .d whose source is where it names it stays
printf '%s\n' "$B/obj/util.o: tuner/util/util.c tuner/util/util.h" 'tuner/util/util.h:' >"$B/obj/util.d"
expect_exit "make -n of the moved source's object: exit 0" 0 make -s -n BUILD="$B" "$B/obj/stats.o"
check "it names the stale .d" grep -qx "make: $B/obj/stats.d named a source that is gone: rebuilding its object" "$TMP/out"
check "no 'No rule to make target'" bash -c "! grep -q 'No rule to make target' '$TMP/err'"
check "the object is built from tuner/util/stats.c" grep -q -- "-c -o $B/obj/stats.o tuner/util/stats.c" "$TMP/out"
check "the stale .d and its object are gone" test ! -e "$B/obj/stats.d" -a ! -e "$B/obj/stats.o"
check "the other .d stays" test -e "$B/obj/util.d"
check "and is not named" bash -c "! grep -q 'util.d named' '$TMP/out'"
finish
