"""Finite-difference checks of the analytic gradients (float64 inputs)."""
from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _differentiable_outputs(outs):
    return tuple(o for o in outs if o.requires_grad)


def _numerical_jacobian(fn, inputs, out_index, eps):
    """J[i][j][k]: d out[k] / d inputs[i][j], by central differences."""
    import ctorch
    jac = []
    for x in inputs:
        if not (isinstance(x, ctorch.Tensor) and x.requires_grad):
            jac.append(None)
            continue
        flat = x.detach().reshape(-1)
        cols = []
        for j in range(flat.numel()):
            orig = flat[j].item()
            with ctorch.no_grad():
                x.view(-1)[j] = orig - eps
                lo = _as_tuple(fn(*inputs))[out_index].detach().clone()
                x.view(-1)[j] = orig + eps
                hi = _as_tuple(fn(*inputs))[out_index].detach().clone()
                x.view(-1)[j] = orig
            cols.append(((hi - lo) / (2 * eps)).reshape(-1))
        jac.append(cols)
    return jac


def _analytic_jacobian(out, inputs):
    """Rows of d out / d inputs through the engine, one output element at a time."""
    import ctorch
    diff = [x for x in inputs if isinstance(x, ctorch.Tensor) and x.requires_grad]
    flat_n = out.numel()
    rows = []
    for k in range(flat_n):
        g = ctorch.zeros_like(out).reshape(-1)
        g[k] = 1
        gs = _C._run_backward((out,), (g.reshape(out.shape),), True, False, tuple(diff),
                              True, False)
        rows.append([None if r is None else r.reshape(-1) for r in gs])
    return diff, rows


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_sparse_nnz=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False):
    """Compare the gradients of func at inputs with central differences."""
    import ctorch
    inputs = _as_tuple(inputs)
    for x in inputs:
        if isinstance(x, ctorch.Tensor) and x.requires_grad and \
                x.dtype not in (ctorch.float64,):
            import warnings
            warnings.warn("Input #0 requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all "
                          "the inputs are not of double precision floating point or "
                          "complex. ")
            break
    n_out = len(_as_tuple(func(*inputs)))
    for oi in range(n_out):
        num = _numerical_jacobian(func, inputs, oi, eps)
        # a fresh graph: the perturbation above wrote into the inputs
        out = _as_tuple(func(*inputs))[oi]
        if not isinstance(out, ctorch.Tensor):
            continue
        if not out.requires_grad:
            # no history: right only if the output does not depend on the inputs
            for ii, cols in enumerate(num):
                for col in cols or ():
                    if col.abs().max().item() > atol:
                        msg = ("Jacobian mismatch for output %d with respect to input %d,\n"
                               "numerical:%r\nanalytical:0.0 (the output does not require "
                               "grad)\n" % (oi, ii, col.abs().max().item()))
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
            continue
        diff, rows = _analytic_jacobian(out, inputs)
        di = 0
        for ii, x in enumerate(inputs):
            if num[ii] is None:
                continue
            for j, col in enumerate(num[ii]):
                for k in range(out.numel()):
                    a = rows[k][di]
                    av = 0.0 if a is None else a[j].item()
                    nv = col[k].item()
                    if abs(av - nv) > atol + rtol * abs(nv):
                        msg = ("Jacobian mismatch for output %d with respect to input %d,\n"
                               "numerical:%r\nanalytical:%r\n" % (oi, ii, nv, av))
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
            di += 1
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True,
                  nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False):
    """gradcheck of the gradient of func (second derivatives)."""
    import ctorch
    inputs = _as_tuple(inputs)
    outs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        gen = ctorch.Generator() if hasattr(ctorch, "Generator") else None
        del gen
        grad_outputs = tuple(
            (ctorch.arange(o.numel(), dtype=o.dtype).reshape(o.shape) * 0.37 + 0.5)
            .requires_grad_(True) for o in outs if o.requires_grad)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_grads(*all_inputs):
        ins, gos = all_inputs[:n_in], all_inputs[n_in:]
        with ctorch.enable_grad():      # the finite differences run under no_grad
            o = _differentiable_outputs(_as_tuple(func(*ins)))
            diff = tuple(x for x in ins if isinstance(x, ctorch.Tensor) and x.requires_grad)
            gs = _C._run_backward(o, gos, True, True, diff, True, False)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
