# ctorch build.  `make` builds libctorch and the _C extension in place;
# `make demo` / `make test` are the README's two commands (they install the
# Debian packages they need first, see tools/setup-deps.sh).
PYTHON ?= /usr/bin/python3
BUILD ?= build
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wpointer-arith -Werror=implicit-function-declaration
CFLAGS ?= -O3 -g
CT_CFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -pthread -fwrapv -ffp-contract=off \
            $(WARN) -Iinclude -I. $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS = -lopenblas -lm -lpthread

LIB_SRCS = $(wildcard c10/*.c) $(wildcard aten/*.c) $(wildcard aten/cpu/*.c) \
           $(wildcard csrc/autograd/*.c) $(wildcard csrc/distributed/*.c)
# The "mpi" backend when OpenMPI's compiler wrapper is there (the test
# target installs it first, then builds in a sub-make that finds it).
MPICC ?= mpicc
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
ifneq ($(MPI_LIBS),)
LIB_SRCS += $(wildcard csrc/distributed/mpi/*.c)
LDLIBS += $(MPI_LIBS)
endif
LIB_OBJS = $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB = $(BUILD)/libctorch.so
# The CUDA part (include/ctorch/cuda.h), a library of its own loaded at run
# time only where a driver is: built when the CUDA toolkit is found (nvcc on
# PATH, else CUDA_HOME), or as CTORCH_CUDA=1/0 says.
CUDA_HOME ?= $(or $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda)
CTORCH_CUDA ?= $(if $(wildcard $(CUDA_HOME)/include/cuda_runtime.h),1,0)
ifeq ($(CTORCH_CUDA),1)
CUDA_LIB = $(BUILD)/libctorch_cuda.so
CUDA_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(wildcard c10/cuda/*.c) $(wildcard aten/cuda/*.c)) \
            $(patsubst %.cu,$(BUILD)/%.o,$(wildcard aten/cuda/*.cu))
endif
# The device kernels (aten/cuda/*.cu): machine code for sm_80 (A100) and
# sm_90 (H100) plus compute_90 PTX for later GPUs to compile at load time.
# No contraction of a * b + c into fma, as -ffp-contract=off on the CPU, so
# both give the same bits.
NVCC = $(CUDA_HOME)/bin/nvcc
NVCC_ARCH ?= -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_90,code=[sm_90,compute_90]
NVCCFLAGS ?= -O3
HEADERS = $(wildcard include/ctorch/*.h) $(wildcard c10/*.h) $(wildcard aten/*.h) \
          $(wildcard aten/cpu/*.h) $(wildcard csrc/autograd/*.h) \
          $(wildcard csrc/distributed/*.h) $(wildcard csrc/distributed/mpi/*.h) \
          $(wildcard c10/cuda/*.h)

.PHONY: all lib ext demo test test-c test-py test-asan bench clean deps

all: ext

lib: $(LIB) $(CUDA_LIB)

$(BUILD)/csrc/distributed/mpi/%.o: CT_CFLAGS += $(MPI_CFLAGS)

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CT_CFLAGS) -c $< -o $@

# sqrtf without its errno path, so the float32 Box-Muller loop vectorizes
$(BUILD)/aten/cpu/random_normal_f32.o: CT_CFLAGS += -fno-math-errno
# the activations vectorize: their selects (x > 0 ? x : x * slope) compute
# both sides, which -ftrapping-math forbids, and exp / log1p / tanh go to
# libmvec's vector forms, which need no errno; results do not change
$(BUILD)/aten/cpu/activation.o: CT_CFLAGS += -fno-math-errno -fno-trapping-math
# sqrt without its errno path, so the unary loops over it vectorize (the
# other functions of unary.c give the same results either way)
$(BUILD)/aten/cpu/unary.o: CT_CFLAGS += -fno-math-errno

$(LIB): $(LIB_OBJS)
	$(CC) -shared -o $@ $^ $(LDLIBS) $(EXTRA_LDFLAGS)

$(CUDA_OBJS): CT_CFLAGS += -I$(CUDA_HOME)/include
CUDA_HEADERS = $(wildcard aten/cuda/*.h) $(wildcard aten/cuda/*.cuh)
$(BUILD)/aten/cuda/%.o: aten/cuda/%.cu $(HEADERS) $(CUDA_HEADERS)
	@mkdir -p $(dir $@)
	@echo "  NVCC $<"
	@$(NVCC) -std=c++17 --fmad=false -Xcompiler -fPIC,-Wall,-Wextra -Iinclude -I. \
	  $(NVCC_ARCH) $(NVCCFLAGS) -c $< -o $@
$(BUILD)/c10/cuda/runtime.o: $(CUDA_HEADERS)
# tests/c/test_cuda_kernel_math.c checks kernel_math.h on the host
$(BUILD)/tests/c/runner: $(CUDA_HEADERS)
# libstdc++: nvcc's launch stubs initialize function-local statics (thread-safe
# guards) and carry C++ unwind data
$(CUDA_LIB): $(CUDA_OBJS) $(LIB)
	$(CC) -shared -o $@ $(CUDA_OBJS) -L$(BUILD) -lctorch -L$(CUDA_HOME)/lib64 -lcublas -lcudart \
	  -lstdc++ -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,--no-undefined $(EXTRA_LDFLAGS)

# The extension is built into $(PYDIR)/ctorch/ next to a copy of
# libctorch.so.  PYDIR is python/ itself by default (so `python/` works on
# sys.path without installation); the sanitizer build uses its own copy.
PYDIR ?= python
# build_ext rebuilds _C only for a newer .c file: a changed header (a struct
# _C reads) must drop the built extension so that it is compiled again
$(BUILD)/ext/.headers: $(HEADERS) $(wildcard csrc/python/*.h)
	rm -rf $(BUILD)/ext $(BUILD)/pylib/ctorch/_C*.so
	@mkdir -p $(dir $@) && touch $@

ext: $(LIB) $(CUDA_LIB) $(BUILD)/ext/.headers
	@if [ "$(PYDIR)" != python ]; then mkdir -p $(PYDIR) && cp -r python/ctorch $(PYDIR)/; fi
	CTORCH_LIB_DIR=$(abspath $(BUILD)) CC="$(CC)" \
	  CTORCH_EXTRA_CFLAGS="$(EXTRA_CFLAGS)" CTORCH_EXTRA_LDFLAGS="$(EXTRA_LDFLAGS)" \
	  $(PYTHON) setup.py -q build_ext --build-lib $(BUILD)/pylib --build-temp $(BUILD)/ext
	@# replace the shared objects by renaming, never by rewriting them in
	@# place: a running interpreter that has them mapped keeps its copy
	@for f in $(LIB) $(CUDA_LIB) $(BUILD)/pylib/ctorch/_C*.so; do \
	  cp $$f $(PYDIR)/ctorch/.$$(basename $$f).tmp && \
	  mv -f $(PYDIR)/ctorch/.$$(basename $$f).tmp $(PYDIR)/ctorch/$$(basename $$f); done

deps:
	sh tools/setup-deps.sh

# the C program, the Python tour, then distributed training: an unchanged
# PyTorch script on 2 processes through the torchrun-compatible launcher
demo: deps
	$(MAKE) all $(BUILD)/examples/c_demo
	$(BUILD)/examples/c_demo
	PYTHONPATH=python $(PYTHON) examples/demo.py
	CTORCH_PYTHON=$(PYTHON) bin/ctorchrun -m torch.distributed.run --standalone \
	  --nproc_per_node=2 examples/ddp_train.py --checkpoint $(BUILD)/ddp_checkpoint.pt

# an unchanged PyTorch training script run on ctorch (examples/train_mnist.py)
.PHONY: train-demo
train-demo: all
	CTORCH_PYTHON=$(PYTHON) bin/ctorchrun examples/train_mnist.py $(ARGS)

C_TESTS = $(wildcard tests/c/test_*.c)
# (test_cuda_kernel_math.c also checks aten/cuda/supports.c, which is in
# the CUDA parts, not in libctorch)
$(BUILD)/tests/c/runner: tests/c/runner.c $(C_TESTS) aten/cuda/supports.c \
                         $(wildcard tests/c/*.h) $(CUDA_HEADERS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CT_CFLAGS) -o $@ tests/c/runner.c $(C_TESTS) aten/cuda/supports.c \
	  -L$(BUILD) -lctorch \
	  -Wl,-rpath,$(abspath $(BUILD)) $(LDLIBS) $(EXTRA_LDFLAGS)

$(BUILD)/examples/c_demo: examples/c/demo.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CT_CFLAGS) -o $@ $< -L$(BUILD) -lctorch -Wl,-rpath,$(abspath $(BUILD)) \
	  $(LDLIBS) $(EXTRA_LDFLAGS)

# a pretend CUDA part over host memory (tests/fake_cuda/part.c), built on
# every machine so tests run libctorch's device paths without a GPU
FAKE_CUDA = $(BUILD)/tests/libctorch_cuda_fake.so
# (it says which kernels exist with the real part's aten/cuda/supports.c)
$(FAKE_CUDA): tests/fake_cuda/part.c aten/cuda/supports.c $(HEADERS) $(CUDA_HEADERS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CT_CFLAGS) -shared -o $@ tests/fake_cuda/part.c aten/cuda/supports.c \
	  -L$(BUILD) -lctorch $(EXTRA_LDFLAGS)

# a pretend NCCL over shared memory (tests/fake_nccl/nccl.c), for the nccl
# backend's tests on the pretend device
FAKE_NCCL = $(BUILD)/tests/libnccl_fake.so
$(FAKE_NCCL): tests/fake_nccl/nccl.c $(HEADERS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CT_CFLAGS) -shared -o $@ tests/fake_nccl/nccl.c -L$(BUILD) -lctorch \
	  $(EXTRA_LDFLAGS)

test-c: $(BUILD)/tests/c/runner $(BUILD)/examples/c_demo $(CUDA_LIB) $(FAKE_CUDA)
	$(BUILD)/tests/c/runner
	$(BUILD)/examples/c_demo > /dev/null

test-py: all $(FAKE_CUDA) $(FAKE_NCCL)
	PYTHONPATH=python $(PYTHON) -m pytest -q tests/py $(PYTEST_ARGS)

test: deps
	$(MAKE) all
	$(MAKE) test-c
	$(MAKE) test-py

# AddressSanitizer + UBSan: a separate build tree (build-asan/, with its own
# copy of the package); the extension is loaded by the system interpreter
# with the sanitizer runtimes preloaded.  Tests that start other
# interpreters (ctorchrun, pip) use the normal build, so it is built too.
ASAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
test-asan: deps
	$(MAKE) all
	$(MAKE) BUILD=build-asan PYDIR=build-asan/python EXTRA_CFLAGS="$(ASAN_FLAGS)" \
	  EXTRA_LDFLAGS="$(ASAN_FLAGS)" ext test-c build-asan/tests/libnccl_fake.so
	LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  CTORCH_TEST_PYDIR=build-asan/python PYTHONPATH=build-asan/python \
	  $(PYTHON) -m pytest -q tests/py -p no:cacheprovider $(PYTEST_ARGS)

bench: all
	PYTHONPATH=python $(PYTHON) benchmarks/run.py

clean:
	rm -rf build build-asan python/ctorch/_C*.so python/ctorch/libctorch.so
