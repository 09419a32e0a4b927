"""Helpers shared by the differential tests: compare a ctorch result with
torch's (dtype, shape, strides, values) or their errors."""


def dt(t):
    """A tensor's dtype as torch prints it ("torch.int64")."""
    return repr(t.dtype)


def geometry(t):
    return (repr(t.dtype), tuple(t.shape), tuple(t.stride()))


def same_tensor(c, t):
    """ctorch tensor c equals torch tensor t: dtype, shape, strides, values."""
    assert geometry(c) == geometry(t)
    assert c.tolist() == t.tolist()


def error_of(fn):
    """(exception type name, message) raised by fn(), or None."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001 - any exception is the result
        return type(e).__name__, str(e)
    return None


def same_error(c_fn, t_fn, prefix=False):
    """Both raise, with the same exception type and message (or the ctorch
    message is a prefix of torch's, where torch adds build paths)."""
    c, t = error_of(c_fn), error_of(t_fn)
    assert c is not None and t is not None, (c, t)
    assert c[0] == t[0], (c, t)
    if prefix:
        assert t[1].startswith(c[1]), (c, t)
    else:
        assert c[1] == t[1], (c, t)


def two_hosts(tag, loopback=True):
    """Two "hosts" for cross-host tests: network namespaces a and b (names
    made from `tag` and the pid) joined by a veth pair, a at 10.<n>.<m>.1
    and b at .2, their loopback up unless loopback=False.  A generator for
    a pytest fixture: yields (ns_a, ns_b, ip_a, ip_b) and removes both
    namespaces after; skips where they cannot be made (not root, no
    iproute2)."""
    import os
    import shutil
    import subprocess

    import pytest
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2")
    pid = os.getpid()
    a, b = "ct%sa%d" % (tag, pid % 100000), "ct%sb%d" % (tag, pid % 100000)
    va, vb = "ct%sva%d" % (tag, pid % 10000), "ct%svb%d" % (tag, pid % 10000)
    # one subnet per tag and process, so files running at once never clash
    net = "10.%d.%d" % (200 + sum(map(ord, tag)) % 50, pid % 250 + 1)
    cmds = [["ip", "netns", "add", a], ["ip", "netns", "add", b],
            ["ip", "link", "add", va, "type", "veth", "peer", "name", vb],
            ["ip", "link", "set", va, "netns", a], ["ip", "link", "set", vb, "netns", b],
            ["ip", "-n", a, "addr", "add", net + ".1/24", "dev", va],
            ["ip", "-n", b, "addr", "add", net + ".2/24", "dev", vb],
            ["ip", "-n", a, "link", "set", va, "up"], ["ip", "-n", b, "link", "set", vb, "up"]]
    if loopback:
        cmds += [["ip", "-n", ns, "link", "set", "lo", "up"] for ns in (a, b)]
    try:
        for c in cmds:
            if subprocess.run(c, capture_output=True).returncode != 0:
                pytest.skip("cannot make network namespaces here")
        yield a, b, net + ".1", net + ".2"
    finally:
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


_ports_given = set()


def free_port():
    """A TCP port nothing listens on now, each handed out once per process.
    Taken below the kernel's ephemeral range: a port from bind(0) is one an
    outgoing connection (another test's client) may take before the caller
    listens on it, which made a launcher test fail with "Address already in
    use"."""
    import random
    import socket
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            top = int(f.read().split()[0]) - 1
    except (OSError, ValueError, IndexError):
        top = 32767
    for _ in range(500):
        port = random.randint(max(1024, top - 12000), top)
        if port in _ports_given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("", port))
            except OSError:
                continue
        _ports_given.add(port)
        return port
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


# what a rank must not inherit from the test's own environment
_RANK_ENV_DROP = ("PYTHONUNBUFFERED", "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                  "MASTER_PORT", "TORCHELASTIC_RUN_ID", "CTORCH_TORCH_NAMES")


def run_ranks(code, world_size, impl="ctorch", ranks=None, timeout=60, env=None,
              tmp_prefix="ctorch_ranks_"):
    """Run `code` in one process per rank of `ranks` (default: all), under
    env:// on a free port: `import torch` is ctorch (through bin/ctorchrun)
    or, with impl="torch", real PyTorch.  `env` adds variables; a value
    that is a callable gets the rank's scratch directory.  Returns
    [(returncode, stdout, stderr)] in launch order; ranks that hang past
    `timeout` are killed and fail the test with their output."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    import textwrap
    import time
    code = textwrap.dedent(code)
    ranks = list(range(world_size)) if ranks is None else ranks
    tmp = tempfile.mkdtemp(prefix=tmp_prefix)
    base = {k: v for k, v in os.environ.items() if k not in _RANK_ENV_DROP}
    base.update(WORLD_SIZE=str(world_size), MASTER_ADDR="127.0.0.1",
                MASTER_PORT=str(free_port()))
    for k, v in (env or {}).items():
        base[k] = v(tmp) if callable(v) else v
    if impl == "torch":
        base.pop("PYTHONPATH", None)
        cmd = [sys.executable, "-c", code]
    else:
        root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
        cmd = [os.path.join(root, "bin", "ctorchrun"), "-c", code]
    procs = [subprocess.Popen(cmd, env=dict(base, RANK=str(r)), cwd=tmp, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for r in ranks]
    results = []
    deadline = time.monotonic() + timeout
    try:
        for p in procs:
            try:
                out, err = p.communicate(timeout=max(deadline - time.monotonic(), 1))
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                out, err = p.communicate()
                raise AssertionError("ranks hung; rank output:\n" + out + err)
            results.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def read_pipes(fds, limit):
    """Read the pipes `fds` until each is closed or `limit` seconds pass.
    Returns ({fd: bytes read}, how many were still open)."""
    import os
    import selectors
    import time
    bufs = {fd: b"" for fd in fds}
    end = time.monotonic() + limit
    open_fds = len(fds)
    with selectors.DefaultSelector() as sel:
        for fd in fds:
            sel.register(fd, selectors.EVENT_READ)
        while open_fds and time.monotonic() < end:
            for key, _ in sel.select(timeout=max(0.0, end - time.monotonic())):
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    bufs[key.fd] += chunk
                else:
                    sel.unregister(key.fd)
                    open_fds -= 1
    return bufs, open_fds


# --- CUDA where no GPU is -------------------------------------------------------

def _cuda_state():
    import ctypes

    import ctorch
    built = ctorch._C._cuda_is_built()
    try:
        ctypes.CDLL("libcuda.so.1")
        driver = True
    except OSError:
        driver = False
    return built, driver


CUDA_BUILT, CUDA_DRIVER = _cuda_state()
NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an "
             "NVIDIA GPU and installed a driver from "
             "http://www.nvidia.com/Download/index.aspx")
# What asking for a CUDA device raises here: a build without the CUDA part
# answers as CPU-only PyTorch, one with it as a CUDA build of PyTorch on a
# machine with no driver.
NO_CUDA = (("RuntimeError", NO_DRIVER) if CUDA_BUILT
           else ("AssertionError", "Torch not compiled with CUDA enabled"))


def raises_no_cuda():
    """pytest.raises for NO_CUDA, the whole message."""
    import re

    import pytest
    exc = RuntimeError if CUDA_BUILT else AssertionError
    return pytest.raises(exc, match="^%s$" % re.escape(NO_CUDA[1]))


def no_gpu_here():
    """Skip where a CUDA driver is present: CUDA starts there, and these
    tests are about the answers given without it."""
    import pytest
    if CUDA_BUILT and CUDA_DRIVER:
        pytest.skip("a CUDA driver is present")
