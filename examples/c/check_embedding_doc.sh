#!/bin/sh
# check_embedding_doc.sh SRC BUILD CC WORKDIR
#
# Keeps docs/embedding.md honest: the C program it prints between
# "<!-- begin: examples/c/embedding_minimal.c -->" and "<!-- end -->" must be
# examples/c/embedding_minimal.c byte for byte, and the shell commands it
# prints between "<!-- begin: build and run -->" and "<!-- end -->" are run
# as printed (in WORKDIR, with FUSER_SRC=SRC, FUSER_BUILD=BUILD and CC set,
# as the guide tells the reader to set them) and must build and run the
# program successfully.
set -eu
src=$1 build=$2 cc=$3 work=$4
doc=$src/docs/embedding.md

# The fenced block between a begin marker and the next end marker.
block() {
  awk -v begin="<!-- begin: $1 -->" '
    $0 == begin { inside = 1; next }
    inside && $0 == "<!-- end -->" { exit }
    inside && /^```/ { fence = !fence; next }
    inside && fence { print }
  ' "$doc"
}

rm -rf "$work"
mkdir -p "$work"
block examples/c/embedding_minimal.c > "$work/from_doc.c"
if ! cmp -s "$work/from_doc.c" "$src/examples/c/embedding_minimal.c"; then
  echo "docs/embedding.md does not print examples/c/embedding_minimal.c as it is:" >&2
  diff -u "$src/examples/c/embedding_minimal.c" "$work/from_doc.c" >&2 || true
  exit 1
fi
block "build and run" > "$work/build_and_run.sh"
if [ ! -s "$work/build_and_run.sh" ]; then
  echo "docs/embedding.md has no build-and-run block" >&2
  exit 1
fi
cp "$src/examples/c/embedding_minimal.c" "$work/"
cd "$work"
echo "running the commands docs/embedding.md prints:"
cat build_and_run.sh
FUSER_SRC=$src FUSER_BUILD=$build CC=$cc sh -ex build_and_run.sh
