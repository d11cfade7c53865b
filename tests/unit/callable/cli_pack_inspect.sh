#!/bin/sh
# Usage: cli_pack_inspect.sh SIMPLER FIXTURE_DIR
# `simpler pack` builds images that `simpler inspect` reads back (text and
# JSON), packing is deterministic, and bad input is refused.
set -eu
simpler=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The image simpler_add_callable packed.
"$simpler" inspect "$dir/fixture.callable" >"$tmp/text" || fail "inspect of the CMake-built image"
grep -q '^entry: fixture_orch$' "$tmp/text" || fail "entry line"
grep -q '^signature (3 tensors, 1 scalars): in,in,out,scalar$' "$tmp/text" || fail "signature line"
grep -q 'func_id 5  AIV .*signature in,out$' "$tmp/text" || fail "kernel 5 line"
grep -q 'func_id 9  AIC ' "$tmp/text" || fail "kernel 9 line"
"$simpler" inspect "$dir/fixture.callable" --json >"$tmp/json" || fail "inspect --json"
grep -q '"entry":"fixture_orch"' "$tmp/json" || fail "json entry"
grep -q '"signature":\["in","in","out","scalar"\]' "$tmp/json" || fail "json signature"
grep -q '"func_id":5,"core_type":"AIV"' "$tmp/json" || fail "json kernel"

# Kernel names: simpler_add_callable passes each source's stem; pack
# takes an explicit NAME after the LIST, or the binary's stem by default.
grep -q '^  kernel_fixture  func_id 5  AIV' "$tmp/text" || fail "CMake kernel name"
grep -q '"name":"kernel_fixture","func_id":5' "$tmp/json" || fail "json kernel name"
"$simpler" pack -o "$tmp/named.callable" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --sig in --kernel "3:AIV:$dir/callable_fixture_kernel1.so:in:add_one" \
  --kernel "4:AIV:$dir/callable_fixture_kernel2.so" --kernel "6:AIC:$dir/callable_fixture_kernel2.so::mm" \
  >/dev/null || fail "pack with names"
"$simpler" inspect "$tmp/named.callable" >"$tmp/named" || fail "inspect named"
grep -q '^callable image: .* format version 2$' "$tmp/named" || fail "named image version"
grep -q '^  add_one  func_id 3  AIV .*signature in$' "$tmp/named" || fail "explicit name after LIST"
grep -q '^  callable_fixture_kernel2  func_id 4  AIV' "$tmp/named" || fail "default name is the stem"
grep -q '^  mm  func_id 6  AIC .*signature $' "$tmp/named" || fail "explicit name after an empty LIST"

# Packing by hand is deterministic.
for n in 1 2; do
  "$simpler" pack -o "$tmp/p$n.callable" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
    --sig inout,scalar --kernel "7:AIC:$dir/callable_fixture_kernel1.so:out" >/dev/null || fail "pack $n"
done
cmp -s "$tmp/p1.callable" "$tmp/p2.callable" || fail "packing is not deterministic"
"$simpler" inspect "$tmp/p1.callable" | grep -q 'func_id 7  AIC .*signature out$' || fail "packed kernel"

# Refusals.
head -c 100 "$tmp/p1.callable" >"$tmp/short.callable"
if "$simpler" inspect "$tmp/short.callable" 2>/dev/null; then fail "truncated image accepted"; fi
if "$simpler" inspect "$tmp/missing.callable" 2>/dev/null; then fail "missing file accepted"; fi
if "$simpler" pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --sig scalar,in 2>/dev/null; then fail "scalar before tensor packed"; fi
if "$simpler" pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "1024:AIC:$dir/callable_fixture_kernel1.so" 2>/dev/null; then fail "func_id 1024 packed"; fi
if "$simpler" pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "1:XYZ:$dir/callable_fixture_kernel1.so" 2>/dev/null; then fail "core type XYZ packed"; fi
if "$simpler" pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry "bad name" \
  2>/dev/null; then fail "bad entry name packed"; fi
[ ! -e "$tmp/bad" ] || fail "a refused pack wrote its output"
echo "callable cli: ok"
