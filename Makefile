# The two commands of the README. Everything else is a detail of these.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: run test build deps clean bench fuzz

deps:
	@bash scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@mkdir -p data
	@echo "docgate: get a token with:  $(BUILD_DIR)/docgate token --sub alice --roles author"
	@exec $(BUILD_DIR)/docgate serve

test: build
	@bash scripts/test.sh $(BUILD_DIR)

bench: build
	@bash bench/run.sh $(BUILD_DIR)

# libFuzzer targets (docs/testing.md "Fuzzing"), in a build directory of their own, with clang:
# FUZZ_SECONDS per target, FUZZ_TARGETS to pick some (e.g. FUZZ_TARGETS="chunker search").
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 --no-warn-unused-cli \
	  -DDOCGATE_FUZZ=ON -DBUILD_TESTING=OFF -DDOCGATE_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target docgate_fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" bash scripts/fuzz.sh $(FUZZ_BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
