#!/bin/sh
# Usage: run_fuzz.sh BUILD_FUZZ_DIR JOBS LIBFUZZER_FLAGS...
# Runs every libFuzzer target of BUILD_FUZZ_DIR/fuzz, JOBS at a time,
# each from a copy of its committed seed corpus (tests/fuzz/corpus/<name>,
# copied into BUILD_FUZZ_DIR/corpus so new units stay in the build tree)
# with the given flags (-max_total_time=S or -runs=N). Each target's log
# is BUILD_FUZZ_DIR/<name>.log; the summary prints, per target, the
# executions, the coverage (libFuzzer's cov: edges) and the corpus size
# reached. A crash, leak or oracle failure prints the log's tail and the
# reproducer libFuzzer wrote, and fails the run.
set -eu
dir=$1 jobs=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
for f in "$dir"/fuzz/fuzz_*; do
  [ -x "$f" ] || continue
  n=$(basename "$f")
  mkdir -p "$dir/corpus/$n" "$dir/artifacts/$n"
  cp -r "$src/corpus/$n/." "$dir/corpus/$n/" 2>/dev/null || true
  echo "$n"
done >"$dir/fuzz_targets.txt"
# One target: its log and a status file; the artifacts (crash-*) land
# in artifacts/<name>/.
export dir
export FUZZ_FLAGS="$*"
xargs -P "$jobs" -I{} sh -c '
  n={}
  if "$dir/fuzz/$n" $FUZZ_FLAGS -max_len=131072 -print_final_stats=1 \
       -artifact_prefix="$dir/artifacts/$n/" "$dir/corpus/$n" >"$dir/$n.log" 2>&1; then
    echo ok >"$dir/$n.status"
  else
    echo failed >"$dir/$n.status"
  fi' <"$dir/fuzz_targets.txt"
failed=0
printf "%-26s %12s %8s %8s\n" target executions cov corpus
while read -r n; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$n.log" | tail -1)
  cov=$(grep -Eo "cov: [0-9]+" "$dir/$n.log" | tail -1 | cut -d' ' -f2)
  corp=$(grep -Eo "corp: [0-9]+" "$dir/$n.log" | tail -1 | cut -d' ' -f2)
  printf "%-26s %12s %8s %8s\n" "$n" "${runs:-?}" "${cov:-?}" "${corp:-?}"
  if [ "$(cat "$dir/$n.status")" != ok ]; then
    failed=1
    echo "---- $n failed; the log's tail:"
    tail -40 "$dir/$n.log"
    ls "$dir/artifacts/$n/" 2>/dev/null | sed "s|^|reproducer: $dir/artifacts/$n/|"
  fi
done <"$dir/fuzz_targets.txt"
exit $failed
