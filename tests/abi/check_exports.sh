#!/bin/sh
# Usage: check_exports.sh LIBRARY EXPECTED
# Fails when the dynamic symbols LIBRARY defines differ from EXPECTED.
set -eu
lib=$1 expected=$2
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u >"$actual"
if ! sort -u "$expected" | diff -u - "$actual"; then
  echo "exported symbols differ from $expected (- expected, + exported)" >&2
  exit 1
fi
echo "abi_exports: $(wc -l <"$actual") symbols match"
