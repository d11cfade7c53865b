#!/bin/sh
# Usage: make_seeds.sh BUILD_DIR OUT_DIR
# Writes the seed corpus of every libFuzzer target in tests/fuzz/ into
# OUT_DIR/<target>/ from a built tree, so the seeds follow format
# changes: rerun it (and commit tests/fuzz/corpus) when a format moves.
#  - fuzz_callable_image: the real images the build packed (examples and
#    test fixtures);
#  - fuzz_graph_requirements: one seed per image (first byte) with the
#    argument counts its signature wants and small shapes;
#  - fuzz_loader: each mode with a few truncation and patch choices;
#  - fuzz_callable_build, fuzz_graph_image: a handful of short inputs.
set -eu
build=$1 out=$2
mkdir -p "$out/fuzz_callable_image" "$out/fuzz_graph_requirements" "$out/fuzz_loader" \
  "$out/fuzz_callable_build" "$out/fuzz_graph_image"
for img in "$build"/examples/*.callable "$build"/tests/fixtures/*/*.callable; do
  [ -f "$img" ] && cp "$img" "$out/fuzz_callable_image/$(basename "$img")"
done
# Image index (order of FUZZ_IMAGES), tensor count, scalar count, then
# per tensor shape, dtype, mangle; then scalars.
seed() { name=$1; shift; printf "$*" >"$out/$name"; }
seed fuzz_graph_requirements/vector '\000\003\000\020\001\000\020\001\000\020\001\000'
seed fuzz_graph_requirements/add_scalar '\001\002\001\020\001\000\020\001\000\002'
seed fuzz_graph_requirements/matmul_add '\002\004\000\010\001\000\010\001\000\010\001\000\010\001\000'
seed fuzz_graph_requirements/vadd '\003\003\002\020\001\000\020\001\000\020\001\000\002\000'
seed fuzz_graph_requirements/diamond '\004\002\000\020\001\000\020\001\000'
seed fuzz_loader/check_untouched '\000'
seed fuzz_loader/check_cut '\000\001\000'
seed fuzz_loader/load_untouched '\001\000\000'
seed fuzz_loader/load_cut '\001\001\000'
seed fuzz_loader/load_ehdr_patch '\001\000\000\001\022\001'
seed fuzz_callable_build/empty '\000\000\005\000\001'
seed fuzz_callable_build/two_kids '\003\001\001\000\002\000\001\000\002\000\001\001\000\000\020\000\002\000\001\001\002\000\020\000\005\000\001\000'
seed fuzz_graph_image/zero '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
