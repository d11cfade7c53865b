#!/bin/sh
# `simpler COMMAND EXAMPLE --mode MODE` (COMMAND: run or bench) must exit
# 0, which it does only when every run matched the golden, and say so.
# usage: cli_example.sh SIMPLER COMMAND EXAMPLE MODE
set -u
simpler=$1 command=$2 example=$3 mode=$4
out=$("$simpler" "$command" "$example" --mode "$mode" --runs 3 2>&1)
rc=$?
fail() { echo "FAIL: simpler $command $example --mode $mode: $*" >&2; echo "$out" >&2; exit 1; }
[ $rc -eq 0 ] || fail "exit status $rc"
case $command in
run)
  echo "$out" | grep -q "^simpler run: $example, $mode mode" || fail "the summary names another example or mode"
  echo "$out" | grep -q "^  runs                3 of 3" || fail "not 3 runs"
  echo "$out" | grep -q "^  golden              every run matched" || fail "the golden line is missing"
  ;;
bench)
  echo "$out" | grep -q "^simpler bench: $example, " || fail "the table names another example"
  rows=$(echo "$out" | grep -c "^$mode ")
  other=$(echo "$out" | grep -cE "^(kernel|program) " )
  [ "$rows" -ge 1 ] && [ "$rows" -eq "$other" ] || fail "rows of another mode, or none of $mode"
  ;;
esac
echo "ok: simpler $command $example --mode $mode"
