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
