import torch
import torch.nn as nn


def gradient_penalty(
    critic: nn.Module, real: torch.Tensor, fake: torch.Tensor, alpha: torch.Tensor, lam: float
) -> dict:
    """WGAN-GP: lam * mean over samples of (||grad_x critic(x_hat)||_2 - 1)^2.

    x_hat = alpha * real + (1 - alpha) * fake; real, fake: (N, ...); alpha: (N, 1, ..., 1).
    Call penalty.backward(), then return
    {"penalty": float, "grads": {name: param.grad for name, param in critic.named_parameters()}}.
    """
    # TODO: interpolate, differentiate the critic w.r.t. x_hat (keeping the graph), penalise the norms
    raise NotImplementedError("gradient_penalty is not implemented yet")
