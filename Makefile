# Thin wrapper over CMake presets. The two commands a new machine needs:
#   make demo   set up, build, and run the main job on the default configuration
#   make test   set up, build, and run the whole test suite (release + sanitizers)
JOBS ?= $(shell nproc)
CTEST_FLAGS ?= --output-on-failure -j $(JOBS)

.PHONY: all deps build demo test test-release test-asan install clean

all: build

deps:
	@bash scripts/install-deps.sh

build/release/CMakeCache.txt: | deps
	cmake --preset release

build: deps build/release/CMakeCache.txt
	cmake --build --preset release -j $(JOBS)

demo: build
	./build/release/examples/example_reaction_diffusion

test-release: build
	cd build/release && ctest $(CTEST_FLAGS)

build/asan/CMakeCache.txt: | deps
	cmake --preset asan

test-asan: deps build/asan/CMakeCache.txt
	cmake --build --preset asan -j $(JOBS)
	cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest $(CTEST_FLAGS) -LE slow

test: test-release test-asan

install: build
	cmake --install build/release $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf build
