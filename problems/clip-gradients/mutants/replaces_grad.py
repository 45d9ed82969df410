# rule: grad-in-place
# Right values, but each gradient is a new tensor: a caller (or optimizer) holding the old one
# never sees the clipping.
import torch


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.stack([p.grad.pow(2).sum() for p in params]).sum().sqrt()
        coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for p in params:
            p.grad = p.grad * coef
    return total


def clip_grad_value(parameters, clip_value: float) -> None:
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad = p.grad.clamp(-clip_value, clip_value)
