#!/bin/sh
# Usage: check_struct_pins.sh SOURCE_DIR
# Every public struct (include/simpler/*.h) has its size and the offset of
# each of its fields pinned by the ABI suites: the pin files must name
# sizeof(TYPE) and offsetof(TYPE, field) (or PIN(TYPE, field, ...) /
# SIMDEV_PIN(TYPE, field, ...)) for every field. Fails naming what is
# not pinned. It reads the headers as the project writes them: the brace
# on the struct's line, flat structs (a nested union's members would be
# taken for the outer struct's), bitfields skipped.
set -eu
src=$1
pinned=$(for f in "$src/tests/unit/abi/test_abi_layout.c" "$src/tests/unit/simdev/test_simdev_abi_layout.c" \
  "$src/tests/support/simdev_abi_pins.h"; do cat "$f" || exit 2; done | tr -d ' \t\n') || exit 2
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
      line = $0;
      # Comments, also those spanning lines, are not fields.
      if (incomment) {
        if (index(line, "*/") == 0) next;
        line = substr(line, index(line, "*/") + 2); incomment = 0;
      }
      while ((a = index(line, "/*")) > 0) {
        rest = substr(line, a + 2); b = index(rest, "*/");
        if (b == 0) { line = substr(line, 1, a - 1); incomment = 1; break }
        line = substr(line, 1, a - 1) substr(rest, b + 2);
      }
      sub(/\/\/.*$/, "", line);
      if (line ~ /:[ \t]*[0-9]+[ \t]*;/) next; # a bitfield: offsetof cannot name it
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
    case $pinned in *"sizeof($type)"* | *"sizeof(struct$type)"*) ;; *) echo "$type: size not pinned" >>"$missing" ;; esac
  else
    case $pinned in
      *"offsetof($type,$field)"* | *"offsetof(struct$type,$field)"* | *"PIN($type,$field,"*) ;;
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
