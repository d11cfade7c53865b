#!/bin/sh
# The repository is self-contained: no file points at design documents
# kept outside it (a specification's sections, a conventions file, a
# sibling "shared" folder). Prints each hit as FILE:LINE and exits 1
# when there is one.
#   usage: check_docs.sh SOURCE_DIR
set -u
root=${1:?usage: check_docs.sh SOURCE_DIR}
cd "$root" || exit 2
# The patterns are assembled so this file does not match itself.
sect=$(printf '\302\247')
conv=CONVEN
pattern="SPEC ${sect}|SPEC\\.md|${conv}TIONS|\\.\\./shared/|${sect}[0-9]"
if grep -rnE "$pattern" README.md Makefile CMakeLists.txt docs include src tools bench examples cmake tests \
    --include='*.md' --include='*.c' --include='*.h' --include='*.sh' --include='*.py' --include='*.cmake' \
    --include='*.txt' --include='*.in' --include='Makefile' --include='*.map' 2>/dev/null; then
    echo "the lines above refer to documents outside the repository; state what they say in docs/ instead"
    exit 1
fi
echo "docs: every reference stays inside the repository"
