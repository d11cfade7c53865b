#!/bin/sh
# docs/tutorial.md, step 5 "without CMake": compile the tutorial's three
# sources as shared objects, pack them with `simpler pack`, inspect the
# image and run the tutorial's host program on it.
# usage: tutorial_by_hand.sh CC SOURCE_DIR SIMPLER TUTORIAL_HOST OUT_DIR
set -eu
cc=$1 src=$2 simpler=$3 host=$4 out=$5
mkdir -p "$out"
cd "$src"
"$cc" -shared -fPIC -Iinclude -o "$out/orch.so" examples/tutorial/tutorial_orch.c
"$cc" -shared -fPIC -Iinclude -o "$out/mul.so" examples/tutorial/kernel_mul.c
"$cc" -shared -fPIC -Iinclude -o "$out/add.so" examples/tutorial/kernel_add.c
"$simpler" pack -o "$out/tutorial.callable" --orchestration "$out/orch.so" \
    --entry tutorial_orchestration --sig in,in,out \
    --kernel 0:AIV:"$out/mul.so":in,in,out --kernel 1:AIV:"$out/add.so":in,in,out
"$simpler" inspect "$out/tutorial.callable" | grep -q "^entry: tutorial_orchestration"
"$host" "$out/tutorial.callable"
