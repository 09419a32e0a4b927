"""ctorch.utils.hooks: the handle a register_hook call returns."""


class RemovableHandle:
    """Removes the hook it was returned for; usable as a context manager."""

    next_id = 0

    def __init__(self, owner, hook_id):
        self._owner = owner
        self.id = hook_id

    def remove(self):
        if self._owner is not None:
            self._owner._remove_hook(self.id)
            self._owner = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
