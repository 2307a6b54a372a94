# Thin wrapper over CMake presets. The two commands a new machine needs:
#   make demo   set up, build, and run the example adjoint under the strategy
#               `auto` picks, beside async and store-all in memory (time, memory)
#   make test   set up, build, and run the whole test suite (release + sanitizers,
#               and each fuzz target for a few seconds when clang is installed)
#   make fuzz   build the fuzz targets (clang) and run each for FUZZ_SECONDS (60)
JOBS ?= $(shell nproc)
CTEST_FLAGS ?= --output-on-failure -j $(JOBS)

.PHONY: all deps build demo test test-release test-asan test-fuzz fuzz fuzz-build install clean

all: build

deps:
	@bash scripts/install-deps.sh

build/release/CMakeCache.txt: | deps
	cmake --preset release

build: deps build/release/CMakeCache.txt
	cmake --build --preset release -j $(JOBS)

# The example adjoint (examples/README.md) under what `auto` picks for a
# host budget of 4 states and the disk tier, then --compare: async and
# store-all with every state in memory, run too, each with its time and the
# bytes it held.
demo: build
	./build/release/examples/example_reaction_diffusion --strategy auto --compare

test-release: build
	cd build/release && ctest $(CTEST_FLAGS)

build/asan/CMakeCache.txt: | deps
	cmake --preset asan

# abort_on_error: a leak must fail its test, and Criterion's runner and a
# test that passes on its output (PASS_REGULAR_EXPRESSION) both ignore
# LeakSanitizer's exit status; an abort they cannot ignore.
test-asan: deps build/asan/CMakeCache.txt
	cmake --build --preset asan -j $(JOBS)
	cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest $(CTEST_FLAGS) -LE slow

# The fuzz targets (fuzz/, docs/fuzzing.md) need clang's libFuzzer; without
# clang they are skipped, saying so.
FUZZ_SECONDS ?= 60
HAVE_CLANG := $(shell command -v clang >/dev/null 2>&1 && command -v clang++ >/dev/null 2>&1 && echo 1)
FUZZ_NAMES := config actions size rate options codec

build/fuzz/CMakeCache.txt: | deps
	cmake --preset fuzz

fuzz-build: deps build/fuzz/CMakeCache.txt
	cmake --build --preset fuzz -j $(JOBS)

ifeq ($(HAVE_CLANG),1)
test-fuzz: fuzz-build
	cd build/fuzz && ctest $(CTEST_FLAGS) -L fuzz

fuzz: fuzz-build
	@for t in $(FUZZ_NAMES); do \
	  bash scripts/fuzz.sh --seconds $(FUZZ_SECONDS) --quiet --work build/fuzz/work \
	    build/fuzz/fuzz/fuzz_$$t fuzz/corpus/$$t || exit 1; \
	done
else
test-fuzz fuzz:
	@echo "SKIP fuzz targets: no clang/clang++ (Debian: apt-get install clang); libFuzzer needs it"
endif

test: test-release test-asan test-fuzz

install: build
	cmake --install build/release $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf build
