#!/bin/sh
# The install and subproject tests of tests/CMakeLists.txt: simpler as a
# user gets it, driven from outside the source tree.
#
#   check.sh setup BUILD STATE CMAKE  install BUILD into a fresh temporary
#                                     directory (staged, then moved: the
#                                     package must not care where it is);
#                                     STATE records that directory
#   check.sh cleanup STATE            remove it
#   check.sh find-package STATE CONSUMER CMAKE
#   check.sh pkg-config STATE CONSUMER
#   check.sh cli STATE
#   check.sh subproject CONSUMER SIMPLER_SOURCE CMAKE CTEST add_subdirectory|fetchcontent
#
# CONSUMER is tests/consumer (copied to the temporary directory first, so
# nothing can reach back into simpler's tree by a relative path).
set -eu
# Builds below are their own; no jobserver of a calling make.
unset MAKEFLAGS MFLAGS MAKELEVEL || true

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

prefix_of() {
    [ -s "$1" ] || fail "no installed prefix recorded in $1 (the install_temp_prefix test sets it up)"
    echo "$(cat "$1")/prefix"
}

consumer_copy() { # CONSUMER DEST
    mkdir -p "$2"
    cp "$1"/CMakeLists.txt "$1"/Makefile "$1"/*.c "$1"/*.h "$2"/
}

run_consumer() { # EXE IMAGE
    out=$("$1" "$2") || fail "$1 $2 exited $?: $out"
    echo "$out"
    echo "$out" | grep -q "program mode: 2 runs matched" || fail "$1: program mode did not report its runs"
    echo "$out" | grep -q "kernel mode: eager launch and 3 replays matched" || fail "$1: kernel mode did not report its replays"
}

cmd=$1
shift
case "$cmd" in
setup)
    build=$1 state=$2 cmake=$3
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/simpler-install.XXXXXX")
    "$cmake" --install "$build" --prefix "$tmp/stage" >"$tmp/install.log" || {
        cat "$tmp/install.log"
        fail "cmake --install $build"
    }
    mv "$tmp/stage" "$tmp/prefix"
    mkdir -p "$(dirname "$state")"
    echo "$tmp" >"$state"
    echo "installed into $tmp/stage, moved to $tmp/prefix"
    ;;
cleanup)
    state=$1
    if [ -s "$state" ]; then
        rm -rf "$(cat "$state")"
        rm -f "$state"
    fi
    ;;
find-package)
    prefix=$(prefix_of "$1") consumer=$2 cmake=$3
    work=$(dirname "$prefix")/find-package
    rm -rf "$work"
    consumer_copy "$consumer" "$work/src"
    "$cmake" -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 || {
        cat "$work/configure.log"
        fail "configuring the consumer against $prefix"
    }
    "$cmake" --build "$work/build" -j 2 || fail "building the consumer"
    # The packer was the installed one (no simpler target exists here).
    grep -rq "$prefix/bin/simpler" "$work/build/CMakeFiles" || fail "the image was not packed by $prefix/bin/simpler"
    run_consumer "$work/build/consumer_shared" "$work/build/consumer.callable"
    run_consumer "$work/build/consumer_static" "$work/build/consumer.callable"
    ;;
pkg-config)
    prefix=$(prefix_of "$1") consumer=$2
    work=$(dirname "$prefix")/pkg-config
    rm -rf "$work"
    consumer_copy "$consumer" "$work/src"
    mkdir -p "$work/build"
    flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs simpler) || fail "pkg-config --cflags --libs simpler"
    echo "pkg-config: $flags"
    make -C "$work/src" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" SIMPLER="$prefix/bin/simpler" O="$work/build" ||
        fail "building the consumer with make and pkg-config"
    LD_LIBRARY_PATH="$prefix/lib" run_consumer "$work/build/consumer" "$work/build/consumer.callable"
    ;;
cli)
    prefix=$(prefix_of "$1")
    work=$(dirname "$prefix")/cli
    rm -rf "$work"
    mkdir -p "$work/lonely/bin"
    cd "$work"
    # The installed program finds the installed example images.
    "$prefix/bin/simpler" run --replays 2 >run.txt 2>&1 || { cat run.txt; fail "installed simpler run"; }
    grep -q "every run matched" run.txt || { cat run.txt; fail "installed simpler run: no golden match"; }
    "$prefix/bin/simpler" run --mode program >program.txt 2>&1 || { cat program.txt; fail "installed simpler run --mode program"; }
    echo "installed simpler run: kernel and program mode matched the golden"
    # A copy with no examples anywhere names every path it tried.
    cp "$prefix/bin/simpler" lonely/bin/
    for mode in kernel program; do
        st=0
        lonely/bin/simpler run --mode $mode >lonely.txt 2>&1 || st=$?
        [ $st -eq 2 ] || { cat lonely.txt; fail "simpler run --mode $mode without images exited $st, not 2"; }
        for tried in "$work/lonely/share/simpler/examples/vector.callable" "$work/lonely/bin/examples/vector.callable"; do
            grep -qF "$tried" lonely.txt || { cat lonely.txt; fail "the error does not name $tried"; }
        done
    done
    echo "without images: exit 2, every path tried named: $(cat lonely.txt)"
    ;;
subproject)
    consumer=$1 source=$2 cmake=$3 ctest=$4 how=$5
    work=$(mktemp -d "${TMPDIR:-/tmp}/simpler-subproject.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    consumer_copy "$consumer" "$work/src"
    case "$how" in
    add_subdirectory) extra="" sub="$work/build/simpler" ;;
    fetchcontent) extra="-DCONSUMER_FETCHCONTENT=ON" sub="$work/build/_deps/simpler-build" ;;
    *) fail "unknown route $how" ;;
    esac
    # The parent asks for its own tests (BUILD_TESTING ON): simpler's
    # must still stay out.
    # Debug: the quickest build of simpler's library (what is tested
    # here is how it is found and built, not its speed).
    "$cmake" -S "$work/src" -B "$work/build" -DCONSUMER_SIMPLER_SOURCE="$source" $extra \
        -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON >"$work/configure.log" 2>&1 || {
        cat "$work/configure.log"
        fail "configuring the consumer with simpler by $how"
    }
    "$cmake" --build "$work/build" -j 2 >"$work/build.log" 2>&1 || {
        tail -n 60 "$work/build.log"
        fail "building the consumer with simpler by $how"
    }
    # simpler's outputs stay in its own binary directory.
    [ -f "$sub/libsimpler.so" ] || fail "no libsimpler.so in $sub"
    [ -x "$sub/simpler" ] || fail "no simpler program in $sub"
    for stray in libsimpler.so libsimpler.a tests bench examples callables/vector; do
        [ ! -e "$work/build/$stray" ] || fail "simpler wrote $stray into the parent's build root"
    done
    [ ! -e "$sub/tests" ] && [ ! -e "$sub/bench" ] || fail "simpler built its tests or benchmarks as a subproject"
    [ -f "$work/build/consumer.callable" ] || fail "the consumer's image is not in its own binary directory"
    n=$("$ctest" --test-dir "$work/build" -N | sed -n 's/^Total Tests: //p')
    [ "$n" = 2 ] || fail "the consumer's build registers $n tests, not its own 2"
    run_consumer "$work/build/consumer_shared" "$work/build/consumer.callable"
    run_consumer "$work/build/consumer_static" "$work/build/consumer.callable"
    ;;
*)
    fail "unknown command $cmd"
    ;;
esac
