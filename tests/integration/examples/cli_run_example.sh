#!/bin/sh
# `simpler run --mode program EXAMPLE` end to end: every example passes
# its golden (the summary; --json for two of them), --trace writes a
# Chrome trace file, and the runner says FAILED (status 1) or refuses
# (status 2) when it must.
# usage: cli_run_example.sh SIMPLER OUT_DIR WRONG_KERNEL_IMAGE
set -u
simpler="$1"
out="$2"
wrong_kernel="$3"
mkdir -p "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { "$simpler" run --mode program "$@"; }

for ex in vector add_scalar paged_attention matmul_add; do
  run "$ex" --runs 2 >"$out/$ex.txt" || fail "$ex exited $?: $(cat "$out/$ex.txt")"
  grep -q "^  result              ok" "$out/$ex.txt" || fail "$ex summary: $(cat "$out/$ex.txt")"
  grep -q "^  runs                2 of 2" "$out/$ex.txt" || fail "$ex did not run 2 times"
done

for ex in vector paged_attention; do
  run "$ex" --json >"$out/$ex.json" || fail "$ex --json exited $?"
  grep -q "\"example\":\"$ex\"" "$out/$ex.json" || fail "$ex json names another example"
  grep -q '"result":"ok"' "$out/$ex.json" || fail "$ex json: $(cat "$out/$ex.json")"
done

# Fewer AICores change the schedule, not the result.
run matmul_add --cores 2 --runs 2 >"$out/cores.txt" || fail "--cores 2 exited $?: $(cat "$out/cores.txt")"
grep -q "^  cores               2 AICores" "$out/cores.txt" || fail "--cores 2 not reported"

# The default example is vector.
run >"$out/default.txt" || fail "default run exited $?"
grep -q "^simpler run: vector, program mode" "$out/default.txt" || fail "default example is not vector"

rm -f "$out/trace.json"
run vector --trace "$out/trace.json" >"$out/trace.txt" || fail "traced run exited $?: $(cat "$out/trace.txt")"
test -s "$out/trace.json" || fail "no trace file written"
grep -q traceEvents "$out/trace.json" || fail "trace file is not Chrome trace JSON"
test ! -e "$out/trace.json.trace.json" || fail "the runtime's trace file was left behind"

# Another example's image breaks the vector layout: the run must fail.
run vector --image "$(dirname "$simpler")/examples/add_scalar.callable" >"$out/wrong.txt" 2>&1
[ $? -eq 1 ] || fail "a wrong image did not fail the run"
grep -q "^  result              FAILED" "$out/wrong.txt" || fail "a wrong image did not print FAILED"

# A vector image whose multiply adds runs fine but misses the golden.
run vector --image "$wrong_kernel" --json >"$out/mismatch.json" 2>/dev/null
[ $? -eq 1 ] || fail "a wrong result did not fail the run"
grep -q '"result":"mismatch"' "$out/mismatch.json" || fail "a wrong result was not reported: $(cat "$out/mismatch.json")"
grep -q '"mismatches":16384' "$out/mismatch.json" || fail "the mismatch count is wrong: $(cat "$out/mismatch.json")"

run no_such_example >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown example was not refused"
"$simpler" run vector --image "$out/missing.callable" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--image without --mode program was not refused"
run vector --image "$out/missing.callable" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a missing image was not refused"
run vector --runs 0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--runs 0 was not refused"
run vector --cores x >/dev/null 2>&1
[ $? -eq 2 ] || fail "--cores x was not refused"
echo "ok"
