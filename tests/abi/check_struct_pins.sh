#!/bin/sh
# Usage: check_struct_pins.sh SOURCE_DIR
# Every public struct (include/simpler/*.h) has its size and the offset of
# each of its fields pinned by the ABI suites: the pin files must name
# sizeof(TYPE) and offsetof(TYPE, field) (or PIN(TYPE, field, ...) /
# SIMDEV_PIN(TYPE, field, ...)) for every field. Fails naming what is
# not pinned.
set -eu
src=$1
pins="$src/tests/unit/abi/test_abi_layout.c $src/tests/unit/simdev/test_simdev_abi_layout.c $src/tests/support/simdev_abi_pins.h"
pinned=$(cat $pins | tr -d ' \t\n')
missing=$(mktemp)
trap 'rm -f "$missing"' EXIT
fields=$(mktemp)
trap 'rm -f "$missing" "$fields"' EXIT
# TYPE FIELD lines: the structs' fields, one a line ("-" for the size).
for h in "$src"/include/simpler/*.h; do
  awk '
    function flush(name,   i) {
      print name " -";
      for (i = 1; i <= nf; i++) print name " " f[i];
      nf = 0;
    }
    /^(typedef )?struct (__attribute__\(\(.*\)\) )?[A-Za-z_0-9]* *\{/ {
      inside = 1; nf = 0; tag = "";
      if (match($0, /struct [A-Za-z_0-9]+ *\{/)) { tag = substr($0, RSTART + 7, RLENGTH - 7); sub(/ *\{$/, "", tag) }
      next;
    }
    inside {
      line = $0; sub(/\/\*.*$/, "", line); sub(/\/\/.*$/, "", line);
      if (line ~ /^\}/) {
        name = line; sub(/^\} */, "", name); sub(/ *;.*$/, "", name);
        if (name == "") { name = tag }
        inside = 0; flush(name); next;
      }
      if (match(line, /\(\*[A-Za-z_0-9]+\)/)) {
        f[++nf] = substr(line, RSTART + 2, RLENGTH - 3); next;
      }
      if (line ~ /\);[ \t]*$/ || line !~ /;[ \t]*$/) next;
      sub(/\[.*$/, "", line); sub(/;.*$/, "", line); sub(/[ \t]+$/, "", line);
      n = split(line, w, /[ \t*]+/);
      if (n >= 2) f[++nf] = w[n];
    }
  ' "$h" >>"$fields"
done
[ -s "$fields" ] || { echo "abi_struct_pins: no public struct found" >&2; exit 1; }
while read -r type field; do
  if [ "$field" = "-" ]; then
    case $pinned in *"sizeof($type)"*) ;; *) echo "$type: size not pinned" >>"$missing" ;; esac
  else
    case $pinned in
      *"offsetof($type,$field)"* | *"PIN($type,$field,"*) ;;
      *) echo "$type.$field: offset not pinned" >>"$missing" ;;
    esac
  fi
done <"$fields"
if [ -s "$missing" ]; then
  cat "$missing" >&2
  echo "abi_struct_pins: public struct layouts not pinned by the ABI suites (see above)" >&2
  exit 1
fi
echo "abi_struct_pins: every public struct's size and field offsets are pinned"
