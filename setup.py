"""Build of ctorch: libctorch.so (by make) and the _C extension.

`make` builds both in place.  `pip install .` runs this file, which first
builds libctorch with make, then compiles _C against it and ships both in
the ctorch package (_C finds libctorch next to itself through $ORIGIN).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def numpy_include():
    try:
        import numpy
    except ImportError:
        sys.exit("ctorch needs NumPy's headers to build (apt-get install python3-numpy)")
    return numpy.get_include()


class BuildExt(build_ext):
    def run(self):
        lib_dir = os.environ.get("CTORCH_LIB_DIR")
        if not lib_dir:
            lib_dir = os.path.join(ROOT, "build")
            # in parallel: the CUDA part's nvcc compiles take the longest
            jobs = "-j%d" % (os.cpu_count() or 1)
            subprocess.check_call(["make", "-C", ROOT, jobs, "lib"])
        for ext in self.extensions:
            ext.library_dirs.append(lib_dir)
        super().run()
        # ship libctorch next to _C (in place it is already copied by make)
        if not self.inplace:
            dest = os.path.join(self.build_lib, "ctorch")
            os.makedirs(dest, exist_ok=True)
            shutil.copy2(os.path.join(lib_dir, "libctorch.so"), dest)
            # the CUDA part, where the toolkit was found (loaded at run time)
            cuda = os.path.join(lib_dir, "libctorch_cuda.so")
            if os.path.exists(cuda):
                shutil.copy2(cuda, dest)


extra_cflags = os.environ.get("CTORCH_EXTRA_CFLAGS", "").split()
extra_ldflags = os.environ.get("CTORCH_EXTRA_LDFLAGS", "").split()

ext = Extension(
    "ctorch._C",
    sources=sorted(
        os.path.join("csrc", "python", f)
        for f in os.listdir(os.path.join(ROOT, "csrc", "python"))
        if f.endswith(".c")
    ),
    include_dirs=[os.path.join(ROOT, "include"), ROOT, numpy_include()],
    libraries=["ctorch"],
    runtime_library_dirs=["$ORIGIN"],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type", "-O2"] + extra_cflags,
    extra_link_args=extra_ldflags,
)

setup(
    name="ctorch",
    version="0.1.0",
    description="A PyTorch-compatible tensor library with a C engine",
    package_dir={"": "python"},
    packages=["ctorch", "ctorch.utils", "ctorch.autograd", "ctorch.nn", "ctorch.nn.modules",
              "ctorch.nn.utils", "ctorch.optim", "ctorch._shim.torch"],
    package_data={"ctorch": ["libctorch.so", "libctorch_cuda.so"]},
    ext_modules=[ext],
    cmdclass={"build_ext": BuildExt},
    scripts=["bin/ctorchrun"],
    python_requires=">=3.9",
)
