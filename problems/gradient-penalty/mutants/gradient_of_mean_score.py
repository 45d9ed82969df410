import torch


def gradient_penalty(critic, real, fake, alpha, lam):
    x_hat = (alpha * real + (1 - alpha) * fake).detach().requires_grad_(True)
    # The gradient of the *mean* score: every sample's gradient is divided by N.
    (grads,) = torch.autograd.grad(critic(x_hat).mean(), x_hat, create_graph=True)
    norms = grads.flatten(start_dim=1).norm(dim=1)
    penalty = lam * ((norms - 1) ** 2).mean()
    penalty.backward()
    return {"penalty": penalty.item(), "grads": {name: p.grad for name, p in critic.named_parameters()}}
