#!/usr/bin/env bash
# cmake/HopsimGitCommit.cmake as the build runs it: "unknown" outside a git checkout (a source tarball, also one
# unpacked inside another repository), the commit inside one, "-dirty" when a tracked file changed, and the header
# left untouched while the value stays the same (so an unchanged tree recompiles nothing).
# Usage: git_commit_header.sh cmake/HopsimGitCommit.cmake [cmake]
set -euo pipefail
script=$1
cmake=${2:-cmake}
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
value() { sed -n 's/^#define HOPSIM_GIT_COMMIT "\(.*\)"$/\1/p' "$1"; }
record() { "$cmake" -DSOURCE_DIR="$1" -DOUTPUT="$2" -P "$script"; }

mkdir "$work/tarball"
record "$work/tarball" "$work/tarball.h"
[ "$(value "$work/tarball.h")" = unknown ] || fail "a tree outside git records $(value "$work/tarball.h")"

git init -q "$work/repo"
echo one > "$work/repo/file"
git -C "$work/repo" add file
git -C "$work/repo" -c user.name=test -c user.email=test@example.com commit -q -m one
head=$(git -C "$work/repo" rev-parse HEAD)
record "$work/repo" "$work/repo.h"
[ "$(value "$work/repo.h")" = "$head" ] || fail "clean tree: $(value "$work/repo.h"), expected $head"

touch -d '2000-01-01 00:00:00' "$work/repo.h"
record "$work/repo" "$work/repo.h"
[ "$(stat -c %Y "$work/repo.h")" = "$(date -d '2000-01-01 00:00:00' +%s)" ] || fail "an unchanged value rewrote the header"

echo two > "$work/repo/file"
record "$work/repo" "$work/repo.h"
[ "$(value "$work/repo.h")" = "$head-dirty" ] || fail "changed tree: $(value "$work/repo.h"), expected $head-dirty"

git -C "$work/repo" -c user.name=test -c user.email=test@example.com commit -q -am two
record "$work/repo" "$work/repo.h"
[ "$(value "$work/repo.h")" = "$(git -C "$work/repo" rev-parse HEAD)" ] || fail "a new commit was not recorded"

mkdir "$work/repo/unpacked"
record "$work/repo/unpacked" "$work/unpacked.h"
[ "$(value "$work/unpacked.h")" = unknown ] || fail "a tree inside another repository records $(value "$work/unpacked.h")"
echo "git commit header: unknown, commit, -dirty, new commit, untouched when unchanged"
