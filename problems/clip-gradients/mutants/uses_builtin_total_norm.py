# rule: no-builtin-clipping
import torch
from torch.nn.utils import clip_grads_with_norm_, get_total_norm


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return torch.tensor(0.0)
    total = get_total_norm([p.grad for p in params])
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_value(parameters, clip_value: float) -> None:
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
