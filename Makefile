# The two commands of the README: `make demo` (the main job) and `make test` (the whole suite).
# Both install what they need first (scripts/install-deps.sh is idempotent).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
JOBS ?= $(shell nproc)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_DIR ?= $(HOME)/.cache/ccache
# Three build trees (dev, asan with the fuzzers, tsan) and the Python build outgrow ccache's default 5 GB,
# which evicted objects between CI runs and made warm runs cold.
export CCACHE_MAXSIZE ?= 16G
# Lets the Python build (another build dir, same flags) reuse the dev build's objects.
export CCACHE_NOHASHDIR := 1

DEV := build/dev
PREFIX := $(CURDIR)/$(DEV)/prefix
CONSUMER_ENV := PKG_CONFIG_PATH=$(PREFIX)/lib/pkgconfig LD_LIBRARY_PATH=$(PREFIX)/lib

.PHONY: deps demo test build-dev cpp-tests system-tests install-dev consumers python-tests rust-tests go-tests k8s-surface-tests asan tsan release bench fuzz clean k8s-test k8s-testbed

deps:
	@bash scripts/install-deps.sh

demo: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target budcore_demo budcore_cli
	build/release/examples/cpp/budcore_demo examples

test: deps cpp-tests consumers python-tests rust-tests go-tests k8s-surface-tests
	@echo "make test: every suite passed"

build-dev:
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS)

# The C++ and C suites: the unit suites compiled and run once, in the ASan + UBSan tree (asan);
# the dev tree runs what needs an uninstrumented build (chaos runs of real processes, memory caps,
# header and symbol checks: BUDCORE_TEST_SCOPE=system).
cpp-tests: system-tests asan

system-tests: build-dev
	ctest --preset dev -j $(JOBS)

install-dev: build-dev
	cmake --install $(DEV) --prefix $(PREFIX) >/dev/null

# Downstream projects built against the *installed* library: CMake find_package and pkg-config.
consumers: install-dev
	cmake -S examples/cmake_consumer -B $(DEV)/cmake_consumer -G Ninja -DCMAKE_PREFIX_PATH=$(PREFIX) >/dev/null
	cmake --build $(DEV)/cmake_consumer
	$(CONSUMER_ENV) $(DEV)/cmake_consumer/cmake_consumer
	$(MAKE) -s -C examples/pkgconfig_consumer BUILD=$(CURDIR)/$(DEV)/pkgconfig_consumer $(CONSUMER_ENV)
	$(CONSUMER_ENV) $(DEV)/pkgconfig_consumer/pkgconfig_consumer

# `pip install .` of the package (debug flags and unity batches, like the dev build, so ccache
# serves its objects), into a private target dir so the test run leaves site-packages alone.
# Its build tree sits beside the dev tree, at the same depth: ccache keys on each source's path
# relative to the build tree (debug info names it), so a tree one level deeper would miss the
# cache for every object.
# The same compilers as the dev tree (scikit-build-core would pick g++ where CMake picked c++, and
# ccache keys on the compiler's name: every object would compile twice).
python-tests: build-dev
	python3 -m pip install --no-build-isolation -q --upgrade --target $(DEV)/pylib \
	  -C cmake.build-type=Debug -C build-dir=$(DEV)-python -C cmake.define.BUDCORE_UNITY_LIBRARY=ON \
	  -C cmake.define.CMAKE_C_COMPILER=$$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' $(DEV)/CMakeCache.txt) \
	  -C cmake.define.CMAKE_CXX_COMPILER=$$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' $(DEV)/CMakeCache.txt) .
	cd tests/python && PYTHONPATH=$(CURDIR)/$(DEV)/pylib BUDCORE_CLI=$(CURDIR)/$(DEV)/bin/budcore \
	  python3 -m pytest -q

# Rust and Go run their PostgreSQL variants on a server of their own (tests/backends/with_pg.sh).
WITH_PG := bash $(CURDIR)/tests/backends/with_pg.sh
rust-tests: install-dev
	cd rust && $(CONSUMER_ENV) CARGO_TARGET_DIR=$(CURDIR)/$(DEV)/cargo $(WITH_PG) $(CURDIR)/$(DEV)/pg_rust cargo test -q
	cd rust && $(CONSUMER_ENV) CARGO_TARGET_DIR=$(CURDIR)/$(DEV)/cargo cargo run -q -p budcore --example quickstart \
	  | grep -E '^job [0-9a-f-]+: completed$$'  # the README's quick start

go-tests: install-dev
	cd go/budcore && $(CONSUMER_ENV) $(WITH_PG) $(CURDIR)/$(DEV)/pg_go go test ./...
	cd examples/go/quickstart && $(CONSUMER_ENV) go run . | grep -E '^job [0-9a-f-]+: completed$$'  # the README's quick start

# Python, Rust and Go driving a platform on a real Kueue, with one test bed of their own
# (the C++ and C ones run in ctest with its fixture).
k8s-surface-tests: python-tests rust-tests go-tests
	$(CONSUMER_ENV) bash tests/k8s_surfaces.sh $(CURDIR)/$(DEV)

# ASan + UBSan (clang), every unit suite; the same tree builds the libFuzzer targets (make fuzz).
asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

# ThreadSanitizer on the suites that run threads (BUDCORE_TEST_SCOPE=concurrency).
tsan:
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS)

release:
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

# libFuzzer targets (clang, ASan + UBSan, in the asan tree), each run for FUZZ_SECONDS on a fresh
# corpus, FUZZ_JOBS at a time, on a 1 MiB stack with a memory cap (scripts/run-fuzzers.sh).
FUZZ_SECONDS ?= 30
FUZZ_JOBS ?= $(JOBS)
fuzz:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS) --target $$(cd tests/fuzz && ls *_fuzz.cpp | sed 's/\.cpp$$//' | tr '\n' ' ')
	bash scripts/run-fuzzers.sh build/asan $(FUZZ_SECONDS) $(FUZZ_JOBS)

# The Kubernetes backend against a real kube-apiserver + etcd + Kueue controller
# (scripts/k8s-testbed.sh; the first run on a machine builds them from their Go modules,
# ~15-25 min, cached under ~/.cache/budcore/k8s-testbed; later runs start in seconds).
# `make test` runs these too; BUDCORE_K8S_TESTS=0 skips them there.
k8s-test: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS) --target budcore_kubernetes_tests budcore_k8s_testbed_tests budcore_cli
	build/asan/tests/budcore_kubernetes_tests --gtest_brief=1
	ctest --preset asan -j $(JOBS) -L k8s

# Build the test bed's binaries only (CI can warm its cache with this).
k8s-testbed:
	bash scripts/k8s-testbed.sh build

bench: release
	for b in build/release/benchmarks/*_bench; do $$b --benchmark_min_time=0.2; done

clean:
	rm -rf build
