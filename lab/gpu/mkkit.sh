#!/usr/bin/env bash
# lab/gpu/mkkit.sh (run here, after make): build/gpu/kit.tgz, what a
# device call needs to compile a table it has just emitted into gemmtab
# and libgemmtab without make (the device lacks the SQLite and libyaml
# headers and pkg-config): the tuner's and the runtime's objects, the
# static SQLite and libyaml, gt_cubin and gt_table_check, and
# build/gpu/relink.sh, make's own commands for TABLES=build/newtab/T.h
# (T = h100 or h200) with the static libraries' paths made local and
# the binary written as build/gpu/gemmtab-tab.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p build/gpu/static build/newtab
cp /usr/lib/x86_64-linux-gnu/libsqlite3.a /usr/lib/x86_64-linux-gnu/libyaml.a build/gpu/static/
for t in h100 h200; do
	cp runtime/tables/$t.h runtime/tables/${t}_kernels.cu build/newtab/
	touch build/newtab/$t.h build/newtab/${t}_kernels.cu
	{ echo '#!/usr/bin/env bash'; echo 'set -e'
	  make -n build/bin/gemmtab build/lib/libgemmtab.so TABLES=build/newtab/$t.h |
		grep -v '^echo ' |
		sed -e 's#/usr/lib/x86_64-linux-gnu/libsqlite3.a#build/gpu/static/libsqlite3.a#' \
		    -e 's#/usr/lib/x86_64-linux-gnu/libyaml.a#build/gpu/static/libyaml.a#' \
		    -e 's#-o build/bin/gemmtab #-o build/gpu/gemmtab-tab #'
	} >build/gpu/relink_$t.sh
done
git checkout -- runtime/tables 2>/dev/null || true
tar czf build/gpu/kit.tgz build/obj/*.o build/obj/rt/*.o build/tools/gt_cubin build/tools/gt_table_check \
	build/gpu/static build/gpu/relink_h100.sh build/gpu/relink_h200.sh
ls -la build/gpu/kit.tgz
