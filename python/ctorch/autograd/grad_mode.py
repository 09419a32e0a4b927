"""Grad-mode context managers and decorators (torch.autograd.grad_mode)."""
import functools

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]


class _DecoratorContextManager:
    """A context manager that also decorates functions and generators."""

    def __call__(self, func):
        import inspect      # here, not at import: it costs ctorch's start-up
        if inspect.isclass(func):
            raise RuntimeError("Cannot decorate a class with a grad-mode context manager")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                g = func(*args, **kwargs)
                with self.clone():
                    resp = g.send(None)
                while True:
                    try:
                        with self.clone():
                            sent = yield resp
                    except GeneratorExit:
                        g.close()
                        raise
                    try:
                        with self.clone():
                            resp = g.send(sent)
                    except StopIteration as e:
                        return e.value
            return gen

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording in the block (or the decorated function)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording in the block (or the decorated function)."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off; takes effect at once, and as a context
    manager restores the previous mode on exit."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __call__(self, func):
        _C._set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """No gradient recording, as no_grad (tensors made inside are ordinary
    tensors in ctorch)."""

    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        # used as a bare decorator: @inference_mode
        return cls()(mode)

    def __enter__(self):
        self.prev_grad = _C.is_grad_enabled()
        self.prev = _C.is_inference_mode_enabled()
        _C._set_inference_mode(self.mode)
        if self.mode:
            _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_inference_mode(self.prev)
        _C._set_grad_enabled(self.prev_grad)

    def clone(self):
        return self.__class__(self.mode)
