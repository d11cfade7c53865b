# The README's two commands: `make run` and `make check`.
# Everything else here is a helper they call.
JOBS ?= 2
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMPLER_WERROR=ON
BUILD_PKGS := cmake gcc make libc6-dev
# bash for pipefail: a build piped through a filter still fails the target.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
TEST_PKGS := $(BUILD_PKGS) libcmocka-dev valgrind clang binutils pkgconf
# bench_graph runs oneTBB's flow graph beside simpler (C++).
BENCH_PKGS := $(TEST_PKGS) g++ libtbb-dev

.PHONY: all build build-tests run check deps-build deps-test deps-bench test valgrind asan tsan fuzz fuzz-build fuzz-long fuzz-seeds release bench clean

all: build

# Installs the Debian packages that are missing (only as root; otherwise
# it names them and goes on, and the build says what is absent).
define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "missing Debian packages (run as root to install):$$missing"; fi; \
	fi
endef

deps-build:
	$(call install_missing,$(BUILD_PKGS))

deps-test:
	$(call install_missing,$(TEST_PKGS))

deps-bench:
	$(call install_missing,$(BENCH_PKGS))

# What `make run` runs: the library, the CLI and the examples, no test
# or benchmark (BUILD_TESTING=OFF), so only the build packages are needed.
build: deps-build
	@cmake -S . -B build $(CMAKE_FLAGS) -DBUILD_TESTING=OFF >/dev/null
	@cmake --build build -j $(JOBS) -- --no-print-directory | { grep -v '^\[ *[0-9]*%\] Built target' || true; }

run: build
	./build/simpler run

# The same build tree with the tests (BUILD_TESTING=ON, which needs cmocka).
build-tests: deps-test
	cmake -S . -B build $(CMAKE_FLAGS) -DBUILD_TESTING=ON -DSIMPLER_VALGRIND=ON >/dev/null
	cmake --build build -j $(JOBS)

# The suites of the `build` tree, without and with valgrind.
CTEST_TEST := ctest --test-dir build -LE valgrind --output-on-failure --no-tests=error -j $(JOBS)
CTEST_VALGRIND := ctest --test-dir build -L valgrind --output-on-failure --no-tests=error -j $(JOBS)

test: build-tests
	$(CTEST_TEST)

valgrind: build-tests
	$(CTEST_VALGRIND)

# The sanitizer builds run every suite except the valgrind, ABI and
# install ones (an instrumented library cannot be linked by a plain
# consumer; tests/CMakeLists.txt registers no install test there).
# ASan + UBSan build the benchmarks' configuration (SIMPLER_VERIFY=OFF:
# no test-only hooks or validators), so `make check` tests that
# configuration, sanitized, without a tree of its own; the one suite
# that needs the hooks skips there and runs in `build` and under TSan.
asan: deps-test
	cmake -S . -B build-asan $(CMAKE_FLAGS) -DSIMPLER_VERIFY=OFF -DSIMPLER_SANITIZE=address,undefined -DBUILD_TESTING=ON >/dev/null
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-asan -LE 'valgrind|abi' --output-on-failure --no-tests=error -j $(JOBS)

tsan: deps-test
	cmake -S . -B build-tsan $(CMAKE_FLAGS) -DSIMPLER_SANITIZE=thread -DBUILD_TESTING=ON >/dev/null
	cmake --build build-tsan -j $(JOBS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir build-tsan -LE 'valgrind|abi' --output-on-failure --no-tests=error -j $(JOBS)

# Every libFuzzer target runs from its seed corpus (tests/fuzz/corpus,
# copied so new units stay in the build tree) for FUZZ_SECONDS each,
# JOBS targets at a time (tests/fuzz/run_fuzz.sh prints executions,
# coverage and corpus per target). The fuzz tree builds only the targets
# and the images they read (CMake target fuzz_targets), not the tests.
FUZZ_SECONDS ?= 25
fuzz-build: deps-test
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMPLER_FUZZ=ON -DSIMPLER_WERROR=ON -DBUILD_TESTING=ON >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets

fuzz: fuzz-build
	sh tests/fuzz/run_fuzz.sh build-fuzz $(JOBS) -max_total_time=$(FUZZ_SECONDS)

# 10^6 executions per target, printing the coverage each reached.
fuzz-long: fuzz-build
	sh tests/fuzz/run_fuzz.sh build-fuzz $(JOBS) -runs=1000000

# Regenerates the committed seed corpora from a built tree (with the
# tests: the test fixtures are seeds too).
fuzz-seeds: build-tests
	rm -rf tests/fuzz/corpus
	sh tests/fuzz/make_seeds.sh build tests/fuzz/corpus

# The benchmarks' configuration (no SIMPLER_VERIFY) unsanitized: it
# must build, and its tests pass (those that need the test-only hooks
# skip; the install tests already ran in `make test`). Not part of
# `make check`, whose ASan tree builds this configuration.
release: deps-test
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMPLER_VERIFY=OFF -DSIMPLER_WERROR=ON -DBUILD_TESTING=ON >/dev/null
	cmake --build build-bench -j $(JOBS)
	ctest --test-dir build-bench -LE 'valgrind|abi|install' --output-on-failure --no-tests=error -j $(JOBS)

# `build` is built once: valgrind runs its suites without a second
# (null) build pass, which alone costs a minute under load.
check: deps-test
	$(MAKE) test
	$(CTEST_VALGRIND)
	$(MAKE) asan
	$(MAKE) tsan
	$(MAKE) fuzz
	@echo "make check: all suites passed"

# Benchmarks build apart, without the test-only O(n) validators; they are
# built with the tests (BUILD_TESTING=ON), so they need the test packages,
# and bench_graph's oneTBB rows need g++ and libtbb-dev.
bench: deps-bench
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMPLER_VERIFY=OFF -DSIMPLER_WERROR=ON -DBUILD_TESTING=ON >/dev/null
	cmake --build build-bench -j $(JOBS)
	@for b in build-bench/bench/bench_*; do [ -x "$$b" ] && "$$b"; done

clean:
	rm -rf build build-asan build-tsan build-fuzz build-bench
