import torch


def gradient_penalty(critic, real, fake, alpha, lam):
    x_hat = (alpha * fake + (1 - alpha) * real).detach().requires_grad_(True)  # alpha weights the fake
    scores = critic(x_hat)
    (grads,) = torch.autograd.grad(scores, x_hat, grad_outputs=torch.ones_like(scores), create_graph=True)
    norms = grads.flatten(start_dim=1).norm(dim=1)
    penalty = lam * ((norms - 1) ** 2).mean()
    penalty.backward()
    return {"penalty": penalty.item(), "grads": {name: p.grad for name, p in critic.named_parameters()}}
