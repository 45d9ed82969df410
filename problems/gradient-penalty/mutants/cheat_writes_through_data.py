# rule: inputs-not-modified
# kind: cheat
# Writes the caller's real samples through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch
import torch.nn as nn


def gradient_penalty(
    critic: nn.Module, real: torch.Tensor, fake: torch.Tensor, alpha: torch.Tensor, lam: float
) -> dict:
    real.data.mul_(2.0)
    real.data.mul_(0.5)
    x_hat = (alpha * real + (1 - alpha) * fake).detach().requires_grad_(True)
    scores = critic(x_hat)
    # Samples are independent, so the gradient of sum(scores) holds every sample's own gradient.
    # create_graph=True records this backward pass, making the penalty differentiable in the
    # critic's parameters.
    (grads,) = torch.autograd.grad(scores, x_hat, grad_outputs=torch.ones_like(scores), create_graph=True)
    norms = grads.flatten(start_dim=1).norm(dim=1)
    penalty = lam * ((norms - 1) ** 2).mean()
    penalty.backward()
    return {"penalty": penalty.item(), "grads": {name: p.grad for name, p in critic.named_parameters()}}
