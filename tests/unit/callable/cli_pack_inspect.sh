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
# A name that reads as a LIST is a NAME after a LIST field, even an empty
# one; alone it stays the LIST.
"$simpler" pack -o "$tmp/listlike.callable" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --sig in --kernel "3:AIV:$dir/callable_fixture_kernel1.so::in" \
  --kernel "4:AIV:$dir/callable_fixture_kernel2.so:out:inout" --kernel "6:AIC:$dir/callable_fixture_kernel2.so:out" \
  >/dev/null || fail "pack with list-like names"
"$simpler" inspect "$tmp/listlike.callable" >"$tmp/listlike" || fail "inspect list-like names"
grep -q '^  in  func_id 3  AIV .*signature $' "$tmp/listlike" || fail "name 'in' after an empty LIST"
grep -q '^  inout  func_id 4  AIV .*signature out$' "$tmp/listlike" || fail "name 'inout' after the LIST out"
grep -q '^  callable_fixture_kernel2  func_id 6  AIC .*signature out$' "$tmp/listlike" || fail "a lone LIST"

# Packing by hand is deterministic.
for n in 1 2; do
  "$simpler" pack -o "$tmp/p$n.callable" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
    --sig inout,scalar --kernel "7:AIC:$dir/callable_fixture_kernel1.so:out" >/dev/null || fail "pack $n"
done
cmp -s "$tmp/p1.callable" "$tmp/p2.callable" || fail "packing is not deterministic"
"$simpler" inspect "$tmp/p1.callable" | grep -q 'func_id 7  AIC .*signature out$' || fail "packed kernel"

# Refusals. A refused library call prints "<code> <STATUS_NAME>: <reason>"
# (docs/cli.md), the reason naming the field.
expect_refusal() { # what needle command args...
  what=$1 needle=$2; shift 2
  if "$simpler" "$@" >/dev/null 2>"$tmp/err"; then fail "$what accepted"; fi
  grep -q -- "-[0-9]* PTO_RUNTIME_ERR_[A-Z_]*: [^(]*$needle" "$tmp/err" ||
    fail "$what: message '$(cat "$tmp/err")' lacks 'STATUS_NAME: ...$needle'"
}
head -c 100 "$tmp/p1.callable" >"$tmp/short.callable"
expect_refusal "a truncated image" "callable_size = 100: smaller than the 128-byte header" \
  inspect "$tmp/short.callable"
expect_refusal "a source file as an image" "callable image: magic = " inspect "$0"
expect_refusal "a missing file" "cannot open" inspect "$tmp/missing.callable"
expect_refusal "scalar before tensor" "desc.signature\[1\] = 1: a tensor after a scalar" \
  pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch --sig scalar,in
if "$simpler" pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "1024:AIC:$dir/callable_fixture_kernel1.so" 2>/dev/null; then fail "func_id 1024 packed"; fi
if "$simpler" pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "1:XYZ:$dir/callable_fixture_kernel1.so" 2>/dev/null; then fail "core type XYZ packed"; fi
expect_refusal "a bad entry name" 'desc.entry_name = "bad name": not a C identifier' \
  pack -o "$tmp/bad" --orchestration "$dir/callable_fixture_orch.so" --entry "bad name"
# Images whose binaries could not load are refused when packed, with a
# message naming the binary and the problem.
expect_pack_refused() { # what needle args...
  what=$1 needle=$2; shift 2
  if "$simpler" pack -o "$tmp/bad" "$@" 2>"$tmp/err"; then fail "$what packed"; fi
  grep -q -- "-[0-9]* PTO_RUNTIME_ERR_[A-Z_]*: [^(]*$needle" "$tmp/err" || fail "$what: message '$(cat "$tmp/err")' lacks '$needle'"
}
expect_pack_refused "a wrong --entry" "the orchestration does not export the function 'no_such_entry'" \
  --orchestration "$dir/callable_fixture_orch.so" --entry no_such_entry
expect_pack_refused "a kernel without kernel_entry" "child 0 (func_id 4) does not export the function 'kernel_entry'" \
  --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "4:AIV:$dir/callable_fixture_no_entry.so"
expect_pack_refused "a source file as the orchestration" "the orchestration: not an ELF file" \
  --orchestration "$0" --entry fixture_orch
head -c 3000 "$dir/callable_fixture_kernel2.so" >"$tmp/cut.so"
expect_pack_refused "a truncated kernel" "child 1 (func_id 8): truncated" \
  --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "7:AIC:$dir/callable_fixture_kernel1.so" --kernel "8:AIV:$tmp/cut.so"
[ ! -e "$tmp/bad" ] || fail "a refused pack wrote its output"

# inspect refuses an image with a broken binary the same way (built by
# hand: the container is valid, the kernel is cut short).
"$simpler" pack -o "$tmp/ok.callable" --orchestration "$dir/callable_fixture_orch.so" --entry fixture_orch \
  --kernel "7:AIC:$dir/callable_fixture_kernel1.so" >/dev/null || fail "pack ok"
size=$(wc -c <"$tmp/ok.callable")
if "$simpler" inspect "$tmp/ok.callable" >/dev/null 2>"$tmp/err"; then :; else fail "inspect of a good image"; fi
# Zero the kernel's ELF magic (the kernel binary is the last one).
kstart=$(( size - $(wc -c <"$dir/callable_fixture_kernel1.so") ))
printf '\000\000\000\000' | dd of="$tmp/ok.callable" bs=1 seek="$kstart" conv=notrunc 2>/dev/null
# Refused with exit 1 (docs/cli.md), not killed by a signal: a crash
# after the message was printed would otherwise pass for a refusal.
status=0
"$simpler" inspect "$tmp/ok.callable" >/dev/null 2>"$tmp/err" || status=$?
[ "$status" = 1 ] || fail "inspect of an image with a broken kernel exited $status (want 1): $(cat "$tmp/err")"
grep -q -- "-1005 PTO_RUNTIME_ERR_INVALID_ARGUMENT: [^(]*child 0 (func_id 7): not an ELF file" "$tmp/err" ||
  fail "inspect message '$(cat "$tmp/err")'"
echo "callable cli: ok"
