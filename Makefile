# fuser: the two commands.
#   make demo   build, then run the main job on examples/
#   make test   build, then run every test under ctest
# Both install what is missing (as root) or print the apt-get line to run.
# CI (.ci/run) then runs, each in its own build directory:
#   make sanitize   ASan+UBSan build of everything outside lib/, and its tests
#   make fuzz       each libFuzzer target for a bounded time (FUZZ_SECONDS)
# docs/reliability.md says what they cover and how long they take.

BUILD      ?= build
LLVM_DIR   ?= /usr/lib/llvm-22
PACKAGES   := llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools ninja-build ccache \
              cmake python3-numpy python3-torch
# libFuzzer: Debian's clang 22 and its compiler-rt (make fuzz only).
FUZZ_PACKAGES := clang-22 libclang-rt-22-dev
JOBS       ?= $(shell nproc)
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# Total seconds of `make fuzz`, split across the targets (fuzz/run.sh).
FUZZ_SECONDS ?= 60
# ctest arguments of `make sanitize`. examples/c/embedding-doc and
# oracle/gpu-pack build programs with plain cc (and the pack's harness loads
# libFuserCAPI.so into python) against the instrumented libraries, which
# ASan refuses (its runtime must come first). The oracle's sweeps (ctest
# label `sweep`: about 1,500 s of CPU) run in `make test`; under the
# sanitizers only oracle/inputs, oracle/planted-bugs, oracle/random-stats and
# oracle/ranks, which drive fuserc run's own code.
SANITIZE_TESTS ?= -E 'embedding-doc|large-tensor' -LE sweep
# lit tests left out of `make sanitize` (lit's LIT_FILTER_OUT): sweeps of
# schedules, launch shapes and ptxas over every example, whose hundreds of
# runs go through the same fuserc code as one (what they check is lib/,
# which the sanitizer build does not instrument). They are 475 s of lit's
# time in build/, and ASan's fuserc about doubles it (docs/reliability.md);
# CI took 50 minutes with them. `make test` runs them. Empty runs them
# all (lit reads an empty LIT_FILTER_OUT as a regex matching every test).
# lit/examples holds only two of them: --allow-empty-runs lets it pass
# empty rather than fail.
SANITIZE_LIT_FILTER_OUT ?= tools/fuserc/(schedule|colsums-bits|column-keys|reduction-keys)\.test|examples/(examples|norm-sizes)-ptxas\.test
# Paths relative to the source tree in ccache's keys: build-asan/ compiles
# lib/ with the same flags as build/, and so gets it from the cache.
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: all deps configure build test demo docs clean sanitize fuzz fuzz-deps oracle-sweep \
        fp8-exhaustive

all: build

deps:
	@./scripts/install-deps.sh $(PACKAGES)

$(BUILD)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

configure: $(BUILD)/build.ninja

build: deps configure
	ninja -C $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	@./scripts/demo.sh $(BUILD)

docs: build
	ninja -C $(BUILD) mlir-doc
	@echo "op and pass reference: $(BUILD)/docs/"

# The sanitizer build: the whole tree configured with FUSER_SANITIZE=ON,
# which instruments everything but lib/ (CMakeLists.txt), and every test but
# the valgrind ones (valgrind and ASan do not mix).
$(ASAN_BUILD)/build.ninja: | deps
	cmake -G Ninja -S . -B $(ASAN_BUILD) \
	  -DCMAKE_BUILD_TYPE=Release -DFUSER_SANITIZE=ON \
	  -DFUSER_VALGRIND=OFF \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

sanitize: build $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && UBSAN_OPTIONS=print_stacktrace=1 \
	  LIT_FILTER_OUT='$(or $(SANITIZE_LIT_FILTER_OUT),^$$)' LIT_OPTS=--allow-empty-runs \
	  ctest --output-on-failure -j $(JOBS) $(SANITIZE_TESTS)

fuzz-deps:
	@./scripts/install-deps.sh $(FUZZ_PACKAGES)

$(FUZZ_BUILD)/build.ninja: | fuzz-deps
	cmake -G Ninja -S fuzz -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_DIR)/bin/clang -DFUSER_BUILD_DIR=$(CURDIR)/$(BUILD)

fuzz: build $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) -j $(JOBS)
	./fuzz/run.sh $(BUILD) $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Sweeps too long for `make test` (about 10 minutes on 2 cores): layer_norm
# and rms_norm backward over every row length and row count of
# docs/schedulers.md's inner-outer section, against PyTorch autograd.
oracle-sweep: build
	/usr/bin/python3 test/oracle/run.py training-sweep --fuserc $(BUILD)/bin/fuserc

# fuser's f32 -> fp8 conversions on all 2^32 f32 inputs, both formats, with
# and without saturate, against PyTorch's algorithm, and the expansion of
# sm_89's conversion instruction against NVIDIA's model of it (docs/fp8.md;
# make test runs every 97th input; about 11 minutes).
fp8-exhaustive: build
	$(BUILD)/bin/fuser-fp8-conversions --exhaustive

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# make bench     compile latency (fuser vs NVRTC, in process) and the kernel
#                quality table (ptxas, traffic, H200 model vs eager PyTorch):
#                bench/results/compile.md and kernels.md; see bench/README.md
# make gpu-pack  the folder bench/gpu/run-all.sh needs on a GPU machine
#                without LLVM: $(BUILD)/gpu-pack (bundles, reference cases),
#                then its checks rehearsed here on the CPU emulator
#                (bench/gpu/dry-run.sh)
# make model-check  fuserc tune's cost model against the schedule variants a
#                GPU run timed (bench/results/variants*.md), no GPU needed:
#                bench/results/model-check.md (docs/tuning.md)
.PHONY: bench gpu-pack model-check
bench: configure
	ninja -C $(BUILD) fuserc fuser-opt FuserCAPI
	./bench/compile/run.sh $(BUILD) $(LLVM_DIR)
	/usr/bin/python3 bench/quality/kernels.py --build $(BUILD)

model-check: configure
	ninja -C $(BUILD) fuserc
	python3 bench/gpu/model_check.py --fuserc $(BUILD)/bin/fuserc --out bench/results/model-check.md

gpu-pack: configure
	ninja -C $(BUILD) fuserc FuserCAPI fuser_runtime fuser_fake_cuda
	python3 bench/gpu/pack.py --build $(BUILD) --out $(BUILD)/gpu-pack
	sh bench/gpu/dry-run.sh $(BUILD)/gpu-pack $(BUILD) $(LLVM_DIR)
