# fuser: the two commands.
#   make demo   build, then run the main job on examples/
#   make test   build, then run every test under ctest
# Both install what is missing (as root) or print the apt-get line to run.

BUILD      ?= build
LLVM_DIR   ?= /usr/lib/llvm-22
PACKAGES   := llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools ninja-build ccache \
              cmake python3-numpy python3-torch
JOBS       ?= $(shell nproc)

.PHONY: all deps configure build test demo docs clean

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

clean:
	rm -rf $(BUILD)

# make bench     compile latency (fuser vs NVRTC, in process) and the kernel
#                quality table (ptxas, traffic, H200 model vs eager PyTorch):
#                bench/results/compile.md and kernels.md; see bench/README.md
# make gpu-pack  the folder bench/gpu/run-all.sh needs on a GPU machine
#                without LLVM: $(BUILD)/gpu-pack (bundles, reference cases)
.PHONY: bench gpu-pack
bench: configure
	ninja -C $(BUILD) fuserc fuser-opt FuserCAPI
	./bench/compile/run.sh $(BUILD) $(LLVM_DIR)
	python3 bench/quality/kernels.py --build $(BUILD)

gpu-pack: configure
	ninja -C $(BUILD) fuserc
	python3 bench/gpu/pack.py --build $(BUILD) --out $(BUILD)/gpu-pack
