"""nn.Module (placeholder until the module system lands)."""


class Module:
    """Base class of all modules."""
