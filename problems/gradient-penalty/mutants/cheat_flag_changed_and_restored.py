# rule: inputs-not-modified
# kind: cheat
# Makes the caller's `real` a leaf that requires gradients for a moment and puts the flag back
# before returning: the flag read afterwards is the caller's.
import torch
import torch.nn as nn


def gradient_penalty(
    critic: nn.Module, real: torch.Tensor, fake: torch.Tensor, alpha: torch.Tensor, lam: float
) -> dict:
    real.requires_grad_(True)  # the caller's tensor, made a leaf for a moment
    real.requires_grad_(False)
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
