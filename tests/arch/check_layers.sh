#!/bin/sh
# The layering rule of docs/architecture.md, checked on the source tree:
# each folder of src/ includes only the folders below it (and the public
# headers), tools/ and bench/ include only the public headers and their
# own, and no file anywhere includes a .c file. Prints every violation
# as FILE:LINE: reason and exits 1 when there is one.
#   usage: check_layers.sh SOURCE_DIR
set -u
root=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$root" || exit 2

# What each folder of src/ may include besides itself and simpler/.
allowed() {
    case $1 in
    common) echo "" ;;
    simdev) echo "common" ;;
    platform) echo "common" ;;
    callable) echo "common" ;;
    graph) echo "common callable platform" ;;
    memory) echo "common platform" ;;
    device) echo "common platform callable graph" ;;
    trace) echo "common platform callable graph device" ;;
    context) echo "common platform callable graph memory device trace" ;;
    program) echo "common platform callable graph memory device trace context" ;;
    kernel) echo "common platform callable graph memory device trace context" ;;
    *) echo "?" ;;
    esac
}

status=0
fail() {
    echo "$1: $2"
    status=1
}

for dir in src/*/; do
    module=$(basename "$dir")
    ok=$(allowed "$module")
    if [ "$ok" = "?" ]; then
        fail "$dir" "folder has no layering rule (add it to tests/arch/check_layers.sh and docs/architecture.md)"
        continue
    fi
    # One awk per folder (not two seds per include: that took minutes
    # on a loaded machine).
    grep -rnoE '#include ("[a-z_]+/[^"]+"|<simpler/simdev\.h>)' "$dir" --include='*.[ch]' |
        awk -v module="$module" -v ok=" $ok " '{
            where = $0; sub(/:#include.*/, "", where)
            header = $0; sub(/.*#include ["<]/, "", header); sub(/[">].*/, "", header)
            target = header; sub(/\/.*/, "", target)
            if (header == "simpler/simdev.h" && module != "simdev" && module != "platform") {
                print where ": includes " header ": only src/simdev/ and src/platform/ know the device"
                next
            }
            if (target == "simpler" || target == module) next
            if (index(ok, " " target " ") == 0)
                print where ": src/" module "/ may not include " target "/ (" header ")"
        }'
done | grep . && status=1

# tools/ and bench/: the public headers and their own, nothing else.
if grep -rnE '#include "[^"]*/[^"]*"' tools bench --include='*.[ch]' | grep -vE '#include "simpler/[^"/]+"'; then
    echo "tools/ and bench/ include only include/simpler/ headers and their own (see above)"
    status=1
fi

# No file includes a .c file.
if grep -rnE '#include ["<][^">]+\.c[">]' src tools bench tests; then
    echo "a source file includes a .c file (see above)"
    status=1
fi

[ $status -eq 0 ] && echo "layering: every include follows docs/architecture.md"
exit $status
