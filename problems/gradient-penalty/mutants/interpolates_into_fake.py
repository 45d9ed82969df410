# rule: inputs-not-modified
# Right penalty, but the interpolation is written into the caller's `fake`.
import torch
import torch.nn as nn


def gradient_penalty(
    critic: nn.Module, real: torch.Tensor, fake: torch.Tensor, alpha: torch.Tensor, lam: float
) -> dict:
    fake.mul_(1 - alpha).add_(alpha * real)
    x_hat = fake.detach().clone().requires_grad_(True)
    scores = critic(x_hat)
    # Samples are independent, so the gradient of sum(scores) holds every sample's own gradient.
    # create_graph=True records this backward pass, making the penalty differentiable in the
    # critic's parameters.
    (grads,) = torch.autograd.grad(scores, x_hat, grad_outputs=torch.ones_like(scores), create_graph=True)
    norms = grads.flatten(start_dim=1).norm(dim=1)
    penalty = lam * ((norms - 1) ** 2).mean()
    penalty.backward()
    return {"penalty": penalty.item(), "grads": {name: p.grad for name, p in critic.named_parameters()}}
