"""ctorch.utils.hooks: the handle a register_hook call returns, and the
machinery behind nn.Module's full backward hooks (torch.utils.hooks)."""
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "unserializable_hook", "BackwardHook"]


class RemovableHandle:
    """Removes the hook it was returned for; usable as a context manager.

    Two forms: RemovableHandle(hooks_dict), PyTorch's, for hooks kept in a
    Python dict (a Module's), where the handle takes the next id and remove()
    deletes that key; and RemovableHandle(owner, hook_id), for hooks kept in
    C (a tensor's or a node's), where remove() calls owner._remove_hook(id).
    """

    next_id = 0

    def __init__(self, owner, hook_id=None):
        if hook_id is None:
            self._owner = None
            self.hooks_dict_ref = weakref.ref(owner)
            self.id = RemovableHandle.next_id
            RemovableHandle.next_id += 1
        else:
            self._owner = owner
            self.hooks_dict_ref = None
            self.id = hook_id

    def remove(self):
        if self.hooks_dict_ref is not None:
            hooks_dict = self.hooks_dict_ref()
            if hooks_dict is not None and self.id in hooks_dict:
                del hooks_dict[self.id]
        elif self._owner is not None:
            self._owner._remove_hook(self.id)
            self._owner = None

    def __getstate__(self):
        if self.hooks_dict_ref is None:
            return (None, self.id)
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        self._owner = None
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def unserializable_hook(f):
    """Mark a function as an unserializable hook (no warning when saved)."""
    f.__torch_unserializable__ = True
    return f


class BackwardHook:
    """Runs a Module's full backward hooks: identity Functions wrap the
    inputs and the outputs of forward; the output node's hook records
    grad_output, the input node's hook calls the user hooks with
    (module, grad_input, grad_output) and may replace grad_input."""

    def __init__(self, module, user_hooks):
        self.user_hooks = user_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of "
                                       "grad_input, got {}, but expected {}"
                                       .format(len(out), len(res)))
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        from .. import Tensor, is_grad_enabled
        from ..nn.modules._functions import BackwardHookFunction
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if not isinstance(new_tensors, tuple):
            new_tensors = (new_tensors,)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no "
                               "input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if len(grad_fns) == 0:
            raise RuntimeError("Error while setting up backward hooks. Please open an "
                               "issue with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index,
                                                         grad_output, self.n_outputs)
                if self.input_tensors_index is None:
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and
                                                    all(el is None for el in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires "
                                "gradient should always return None or None for all "
                                "gradients.")
                    self.grad_outputs = None
            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res
