# The two commands of the README. Everything else is a detail of these.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

# The sanitizer builds (docs/testing.md) live in their own directories, so `make test` never
# rebuilds because of them. -O1 with line tables: the sanitizers' own advice for useful stacks
# at a reasonable speed; NDEBUG is off, so every assert runs as well.
ASAN_BUILD_DIR ?= build-asan
TSAN_BUILD_DIR ?= build-tsan
FUZZ_BUILD_DIR ?= build-fuzz
SANITIZER_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
                  -DDOCGATE_BUILD_BENCH=OFF
# The concurrent parts, for ThreadSanitizer: the relay and the consumers, the lock gates (Redis
# with lease renewal, in-process), the connection pools, the HTTP server, the idempotency
# service and the end-to-end suites that race clients, instances and outages.
TSAN_TESTS ?= FairSemaphore|OpenAiEmbedder|DeadlineEmbedder|AHangingProvider|EmbeddingWorker|SemanticSearchTest.WhileTheIndexLoads|EmbeddingsProcessTest.AnOutage|EmbeddingsProcessTest.Shared|Relay|Consumer|Concurrent|Janitor|InProcess|LockGate|RedisLease|CircuitBreaker|ConnectionPool|PgServiceRace|PgOutbox|AmqpEventS|HttpServer|MetricsRegistry|IdempotencyService|PgOutage|AmqpTwoInstances|AmqpOutage|RaceTest|RedisGateTest|RedisSentinelTest|LoadShedding|GatedApiTest|IdempotencyTest|TwoInstances|FromTwoProcesses|SecondWriter|GracefulStop|KeepAlive|Garbage
# Only the executables those tests are in are built.
TSAN_TARGETS = docgate docgate_unit_tests docgate_integration_tests docgate_e2e_tests

# Every build tree compiles through ccache when it is installed (scripts/deps.sh installs it):
# CI's four trees share one cache, and a clone in another folder hits the cache of the last (the
# paths are made relative to the checkout, and the folder is not hashed). The cache is the user's
# (~/.cache/ccache), so it outlives the clone. CCACHE is looked up when a recipe runs, after its
# `deps`, so that the first build of a new machine uses the ccache deps.sh just installed.
CCACHE = $(shell command -v ccache 2>/dev/null)
LAUNCHER_FLAGS = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE) \
                 -DCMAKE_C_COMPILER_LAUNCHER=$(CCACHE))
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
export CCACHE_MAXSIZE ?= 20G

.PHONY: run test build deps clean bench test-asan test-tsan fuzz check

deps:
	@bash scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(LAUNCHER_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@mkdir -p data
	@echo "docgate: get a token with:  $(BUILD_DIR)/docgate token --sub alice --roles author"
	@exec $(BUILD_DIR)/docgate serve

# The dependency rule between the layers (docs/testing.md "Style and layers"): cheap, so `make test`
# runs it before building anything.
check:
	@bash scripts/check_layers.sh

test: check build
	@bash scripts/test.sh $(BUILD_DIR)

# The tests, built with AddressSanitizer and UndefinedBehaviorSanitizer: every unit, contract,
# property and integration test, and the end-to-end tests but those of ASAN_SKIP. These wait on
# processes, brokers and browsers or repeat one path a thousand times: under ASan they took a
# quarter of the stage's test time (169 of 702 s) for little code the other end-to-end tests do
# not run. They run in `make test`, the concurrent ones under TSan too (docs/testing.md).
ASAN_SKIP ?= ^browser\.|^e2e\.ClusterScript|ClusterStormTest|RelayCrashTest|ConsumersBrokerTest|AmqpOutageTest|OverAThousandApprovals|AThousandApprovedDocuments|ASentinelFailoverWhileClientsRace

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD_DIR) $(SANITIZER_FLAGS) $(LAUNCHER_FLAGS) \
	  -DDOCGATE_SANITIZE=address,undefined >/dev/null
	@cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	@echo "test-asan: not run under ASan (they run in make test): tests matching '$(ASAN_SKIP)'"
	@bash scripts/test.sh $(ASAN_BUILD_DIR) -E '$(ASAN_SKIP)'

# The concurrent parts (TSAN_TESTS), built with ThreadSanitizer.
test-tsan: deps
	@cmake -S . -B $(TSAN_BUILD_DIR) $(SANITIZER_FLAGS) $(LAUNCHER_FLAGS) \
	  -DDOCGATE_SANITIZE=thread >/dev/null
	@cmake --build $(TSAN_BUILD_DIR) -j $(JOBS) --target $(TSAN_TARGETS)
	@bash scripts/test.sh $(TSAN_BUILD_DIR) -R '$(TSAN_TESTS)'

bench: build
	@bash bench/run.sh $(BUILD_DIR)

# libFuzzer targets (docs/testing.md "Fuzzing"), in a build directory of their own, with clang:
# FUZZ_SECONDS per target, FUZZ_TARGETS to pick some (e.g. FUZZ_TARGETS="chunker search").
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 --no-warn-unused-cli \
	  -DDOCGATE_FUZZ=ON -DBUILD_TESTING=OFF -DDOCGATE_BUILD_BENCH=OFF $(LAUNCHER_FLAGS) >/dev/null
	@cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target docgate_fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" bash scripts/fuzz.sh $(FUZZ_BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(TSAN_BUILD_DIR) $(FUZZ_BUILD_DIR)
