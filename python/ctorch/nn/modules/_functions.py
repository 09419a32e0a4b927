"""Autograd Functions used by the module machinery."""
from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity on its inputs; its node is where a Module's full backward
    hooks attach (BackwardHookFunctionBackward)."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args
