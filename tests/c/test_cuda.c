/* tests/c/test_cuda.c -- CUDA where no GPU is: the loader's answers, and
 * the CUDA part itself (when built) mapping the runtime's "no driver" to
 * PyTorch's message.  On a machine with a driver these checks are skipped
 * (the GPU tests of tests/py/test_cuda.py cover it there). */
#include "tests/c/test.h"

#include <ctorch/cuda.h>

#include <dlfcn.h>

#include "c10/cuda/backend.h"

#define NO_DRIVER                                                             \
    "Found no NVIDIA driver on your system. Please check that you have an "  \
    "NVIDIA GPU and installed a driver from "                                \
    "http://www.nvidia.com/Download/index.aspx"

static bool
have_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h != NULL) {
        dlclose(h);
    }
    return h != NULL;
}

TEST_IMPL(cuda_without_gpu)
{
    if (have_driver()) {
        return;
    }
    const char *want = ct_cuda_is_built() ? NO_DRIVER : "Torch not compiled with CUDA enabled";
    CT_ASSERT_EQ_INT(ct_cuda_device_count(), 0);
    CT_ASSERT_EQ_INT(ct_cuda_init(), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, want);
    int dev = 7;
    CT_ASSERT_EQ_INT(ct_cuda_current_device(&dev), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, want);
    CT_ASSERT_EQ_INT(dev, 7);
    CT_ASSERT_TRUE(ct_cuda_malloc(0, NULL, 16) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, want);
    void *ev = NULL;
    CT_ASSERT_EQ_INT(ct_cuda_event_new(0, true, false, &ev), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, want);
    CT_ASSERT_EQ_INT(ct_cuda_empty_cache(), -1);           /* the same answer again */
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, want);
}

/* The part loads (its CUDA runtime resolves) and turns the runtime's
 * missing driver into PyTorch's text. */
TEST_IMPL(cuda_part_without_driver)
{
    if (have_driver() || !ct_cuda_is_built()) {
        return;
    }
    char path[4200];
    CT_ASSERT_TRUE(ct__cuda_part_path(path, sizeof path));
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CT_ASSERT_TRUE(h != NULL);
    const ct_cuda_backend *(*get)(void) =
        (const ct_cuda_backend *(*)(void))dlsym(h, "ct_cuda_backend_get");
    CT_ASSERT_TRUE(get != NULL);
    const ct_cuda_backend *b = get();
    CT_ASSERT_EQ_INT(b->abi, CT_CUDA_ABI);
    int n = 5;
    CT_ASSERT_EQ_INT(b->device_count(&n), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, NO_DRIVER);
    CT_ASSERT_EQ_INT(b->set_device(0), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, NO_DRIVER);
    CT_ASSERT_TRUE(b->malloc(0, NULL, 64) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, NO_DRIVER);
}
