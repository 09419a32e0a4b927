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
