# The two commands of the README. Everything else is a detail of these.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: run test build deps clean bench

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

clean:
	rm -rf $(BUILD_DIR)
