"""torch.optim.Adam, as PyTorch 1.13 computes it (its single-tensor path,
op for op, so trajectories agree bit for bit)."""
import math

from .. import _C
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    r"""Implements Adam algorithm.

    Args:
        params (iterable): iterable of parameters to optimize or dicts defining
            parameter groups
        lr (float, optional): learning rate (default: 1e-3)
        betas (Tuple[float, float], optional): coefficients used for computing
            running averages of gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve
            numerical stability (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        amsgrad (boolean, optional): whether to use the AMSGrad variant of this
            algorithm (default: False)
        foreach (bool, optional): accepted for compatibility (default: None)
        maximize (bool, optional): maximize the params based on the objective,
            instead of minimizing (default: False)
        capturable (bool, optional): CUDA graph capture only (default: False)
        differentiable (bool, optional): whether autograd should occur through
            the optimizer step (default: False)
        fused (bool, optional): CUDA only (default: False)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False,
                 differentiable=False, fused=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        super(Adam, self).__init__(params, defaults)

        if fused:
            if differentiable:
                raise RuntimeError("`fused` cannot be `differentiable`")
            self._step_supports_amp_scaling = True
            # no CUDA: never all CUDA
            raise RuntimeError("FusedAdam requires all the params to be CUDA, floating point")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)
        state_values = list(self.state.values())
        step_is_tensor = (len(state_values) != 0) and isinstance(state_values[0]["step"],
                                                                 Tensor)
        if not step_is_tensor:
            for s in state_values:
                s["step"] = _C.tensor(float(s["step"]))

    @_use_grad_for_differentiable
    def step(self, closure=None, *, grad_scaler=None):
        """Performs a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        self._cuda_graph_capture_health_check()

        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad = []
            grads = []
            exp_avgs = []
            exp_avg_sqs = []
            max_exp_avg_sqs = []
            state_steps = []
            beta1, beta2 = group["betas"]

            for p in group["params"]:
                if p.grad is not None:
                    params_with_grad.append(p)
                    if p.grad.is_sparse:
                        raise RuntimeError("Adam does not support sparse gradients, please "
                                           "consider SparseAdam instead")
                    grads.append(p.grad)

                    state = self.state[p]
                    # Lazy state initialization
                    if len(state) == 0:
                        state["step"] = (
                            _C.zeros((1,), dtype=_C.float32)
                            if self.defaults["capturable"] or self.defaults["fused"]
                            else _C.tensor(0.)
                        )
                        # Exponential moving average of gradient values
                        state["exp_avg"] = _C.zeros_like(p)
                        # Exponential moving average of squared gradient values
                        state["exp_avg_sq"] = _C.zeros_like(p)
                        if group["amsgrad"]:
                            # Maintains max of all exp. moving avg. of sq. grad. values
                            state["max_exp_avg_sq"] = _C.zeros_like(p)

                    exp_avgs.append(state["exp_avg"])
                    exp_avg_sqs.append(state["exp_avg_sq"])

                    if group["amsgrad"]:
                        max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                    if group["differentiable"] and state["step"].requires_grad:
                        raise RuntimeError("`requires_grad` is not supported for `step` in "
                                           "differentiable mode")
                    state_steps.append(state["step"])

            adam(params_with_grad,
                 grads,
                 exp_avgs,
                 exp_avg_sqs,
                 max_exp_avg_sqs,
                 state_steps,
                 amsgrad=group["amsgrad"],
                 beta1=beta1,
                 beta2=beta2,
                 lr=group["lr"],
                 weight_decay=group["weight_decay"],
                 eps=group["eps"],
                 maximize=group["maximize"],
                 foreach=group["foreach"],
                 capturable=group["capturable"],
                 differentiable=group["differentiable"],
                 fused=group["fused"])

        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
         foreach=None, capturable=False, differentiable=False, fused=False,
         grad_scale=None, found_inf=None, *, amsgrad, beta1, beta2, lr, weight_decay,
         eps, maximize):
    r"""Functional API that performs Adam algorithm computation.

    See :class:`~torch.optim.Adam` for details.
    """
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list "
                           "of singleton tensors")
    assert grad_scale is None and found_inf is None

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]

        if capturable:
            assert param.is_cuda and step_t.is_cuda, \
                "If capturable=True, params and state_steps must be CUDA tensors."

        # update step
        step_t += 1

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        # Decay the first and second moment running average coefficient
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        if capturable or differentiable:
            step = step_t

            bias_correction1 = 1 - _C.pow(beta1, step)
            bias_correction2 = 1 - _C.pow(beta2, step)

            step_size = lr / bias_correction1
            step_size_neg = step_size.neg()

            bias_correction2_sqrt = bias_correction2.sqrt()

            if amsgrad:
                # Maintains the maximum of all 2nd moment running avg. till now
                if differentiable:
                    max_exp_avg_sqs_i = max_exp_avg_sqs[i].clone()
                else:
                    max_exp_avg_sqs_i = max_exp_avg_sqs[i]
                max_exp_avg_sqs[i].copy_(_C.maximum(max_exp_avg_sqs_i, exp_avg_sq))
                # Uses the max. for normalizing running avg. of gradient
                denom = (max_exp_avg_sqs[i].sqrt() /
                         (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
            else:
                denom = (exp_avg_sq.sqrt() /
                         (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)

            param.addcdiv_(exp_avg, denom)
        else:
            _bias_corrected_update(param, exp_avg, exp_avg_sq,
                                   max_exp_avg_sqs[i] if amsgrad else None,
                                   step_t.item(), beta1=beta1, beta2=beta2, lr=lr, eps=eps)


def _bias_corrected_update(param, exp_avg, exp_avg_sq, max_exp_avg_sq, step, *,
                           beta1, beta2, lr, eps):
    """Adam's and AdamW's parameter update from the moments at a Python-number step;
    max_exp_avg_sq (amsgrad) is None or kept as the running maximum of exp_avg_sq."""
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step

    step_size = lr / bias_correction1

    bias_correction2_sqrt = math.sqrt(bias_correction2)

    # torch's (sqrt() / c).add_(eps), with the division in place: the same
    # roundings, one temporary fewer
    if max_exp_avg_sq is not None:
        _C.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
        # Use the max. for normalizing running avg. of gradient
        denom = max_exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
    else:
        denom = exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)

    param.addcdiv_(exp_avg, denom, value=-step_size)
