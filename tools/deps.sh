#!/usr/bin/env bash
# tools/deps.sh: what the build needs besides the CUDA toolkit, installed
# when missing: pkg-config, libsqlite3-dev and libyaml-dev (and the sqlite3
# shell, which some tests use to age a database). The Makefile runs it as
# it parses, before it asks pkg-config, so that `make test` and `make tune`
# are the whole set-up on a fresh Debian or Ubuntu machine. As root it
# runs apt-get; otherwise it names the packages and the command and fails.
# Never on a PREBUILT=1 run (the GPU machine reaches no registry).
set -u
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
	pkg-config --exists sqlite3 || need+=(libsqlite3-dev)
	pkg-config --exists yaml-0.1 || need+=(libyaml-dev)
else
	need+=(libsqlite3-dev libyaml-dev)
fi
optional=()
command -v sqlite3 >/dev/null 2>&1 || optional+=(sqlite3)
[ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0
if [ ${#need[@]} -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
	exit 0   # only the optional shell is missing: the tests that need it skip
fi
all=("${need[@]}" "${optional[@]}")
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "gemmtab: installing ${all[*]} (apt-get)"
	if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${all[@]}" \
		>/dev/null; then
		exit 0
	fi
	[ ${#need[@]} -eq 0 ] && exit 0
	echo "gemmtab: apt-get could not install ${need[*]}" >&2
	exit 1
fi
echo "gemmtab: missing build dependencies: ${need[*]}; install them with:" \
	"sudo apt-get install -y ${all[*]}" >&2
exit 1
