#!/bin/sh
# Benchmark history lives in docs/performance.md, not in source comments:
# no file of src/ cites a measurement set of docs/performance.md ("set
# AX") or states a measured timing (an approximate or ranged figure in us
# or ns, an "N x slower/faster"). A comment says why the code is as it
# is and may point at a section of the docs; the figures and the sets
# that measured them stay in the docs. Prints each
# hit as FILE:LINE and exits 1 when there is one.
#   usage: check_bench_history.sh SOURCE_DIR
set -u
export LC_ALL=C
root=${1:?usage: check_bench_history.sh SOURCE_DIR}
cd "$root" || exit 2
# Assembled so this file does not match itself.
unit='(us|ns)\b'
pattern="\\b[Ss]ets? [A-Z]{1,2}\\b|~ ?[0-9][0-9.]* ?${unit}|[0-9][0-9.]*-[0-9][0-9.]* ?${unit}|[0-9][0-9.]*x (slower|faster)|~ ?[0-9][0-9.]* ?%"
if grep -rnE "$pattern" src --include='*.c' --include='*.h' 2>/dev/null; then
    echo "the lines above keep benchmark history in src/; move the figures to docs/performance.md"
    exit 1
fi
echo "src: no benchmark history in source comments"
