"""The nn module classes; each family's file adds its names here."""
from .module import Module  # noqa: F401
