#!/bin/sh
# Usage: check_cxx.sh CXX INCLUDE_DIR — every public header compiles as C++.
set -eu
cxx=$1 inc=$2
for h in "$inc"/simpler/*.h; do
  printf '#include <simpler/%s>\nint main(void) { return 0; }\n' "$(basename "$h")" |
    "$cxx" -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$inc" - || {
      echo "$h does not compile as C++" >&2; exit 1; }
done
echo "abi_headers_cxx: all public headers compile as C++"
