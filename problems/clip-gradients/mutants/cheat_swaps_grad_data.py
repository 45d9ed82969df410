# rule: grad-in-place
# kind: cheat
# Keeps the Python object (`p.grad is` the old tensor) but swaps its storage behind it with
# `.data =` and `set_`: an identity check alone is fooled, a view taken before the call is not.
import torch


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.stack([p.grad.pow(2).sum() for p in params]).sum().sqrt()
        coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for p in params:
            p.grad.data = p.grad * coef
    return total


def clip_grad_value(parameters, clip_value: float) -> None:
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.set_(p.grad.clamp(-clip_value, clip_value))
