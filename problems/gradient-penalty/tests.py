"""Tests for gradient-penalty.

A linear critic (closed form), MLP critics with smooth and piecewise-linear activations under several
seeds, a convolutional critic on image-shaped inputs (per-sample norms over C, H, W), alpha at 0 and 1,
one-sample batches, and the inputs left untouched.
"""

import torch
import torch.nn as nn

from runner.testing import case, requires_grad_writes, writes_during

RTOL = 1e-4
ATOL = 1e-5


def _plain(out):
    grads = {k: None if v is None else v.tolist() for k, v in out["grads"].items()}
    return {"penalty": out["penalty"], "grads": grads}


def _mlp(seed, d, h, activation):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(d, h), activation, nn.Linear(h, h), activation, nn.Linear(h, 1))


def _data(seed, shape):
    g = torch.Generator().manual_seed(seed)
    real = torch.randn(*shape, generator=g)
    fake = torch.randn(*shape, generator=g) * 0.5 + 1.0
    alpha = torch.rand(shape[0], *([1] * (len(shape) - 1)), generator=g)
    return real, fake, alpha


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    critic = nn.Linear(2, 1)
    with torch.no_grad():
        critic.weight.copy_(torch.tensor([[3.0, 4.0]]))
        critic.bias.fill_(0.5)
    real = torch.tensor([[1.0, 2.0], [0.0, -1.0]])
    fake = torch.tensor([[0.0, 0.0], [2.0, 2.0]])
    alpha = torch.tensor([[0.25], [0.5]])
    return _plain(solution.gradient_penalty(critic, real, fake, alpha, 10.0))


@case(rtol=RTOL, atol=ATOL)
def tanh_critic_several_seeds(solution):
    out = []
    for seed in [1, 2, 3]:
        real, fake, alpha = _data(seed, (8, 4))
        out.append(solution.gradient_penalty(_mlp(seed, 4, 16, nn.Tanh()), real, fake, alpha, 10.0))
    return out


@case(rtol=RTOL, atol=ATOL)
def leaky_relu_critic(solution):
    real, fake, alpha = _data(4, (16, 6))
    return solution.gradient_penalty(_mlp(4, 6, 32, nn.LeakyReLU(0.2)), real, fake, alpha, 5.0)


@case(rtol=RTOL, atol=ATOL)
def softplus_critic_large_lambda(solution):
    real, fake, alpha = _data(5, (5, 3))
    return solution.gradient_penalty(_mlp(5, 3, 8, nn.Softplus()), real, fake, alpha, 100.0)


@case(rtol=RTOL, atol=ATOL)
def conv_critic_on_images(solution):
    torch.manual_seed(6)
    critic = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.Tanh(), nn.Flatten(), nn.Linear(4 * 5 * 5, 1))
    real, fake, alpha = _data(6, (3, 2, 5, 5))
    return solution.gradient_penalty(critic, real, fake, alpha, 10.0)


@case(rtol=RTOL, atol=ATOL)
def alpha_at_the_ends_and_one_sample(solution):
    out = []
    for a in [0.0, 1.0]:
        real, fake, _ = _data(7, (4, 3))
        alpha = torch.full((4, 1), a)
        out.append(solution.gradient_penalty(_mlp(7, 3, 8, nn.Tanh()), real, fake, alpha, 10.0))
    real, fake, alpha = _data(8, (1, 3))
    out.append(solution.gradient_penalty(_mlp(8, 3, 8, nn.Tanh()), real, fake, alpha, 10.0))
    return out


@case(rtol=RTOL, atol=ATOL)
def ladder_of_batch_sizes(solution):
    out = []
    for n in [2, 32, 128]:
        real, fake, alpha = _data(20 + n, (n, 5))
        out.append(solution.gradient_penalty(_mlp(20 + n, 5, 16, nn.Tanh()), real, fake, alpha, 10.0))
    return out


@case(rule="inputs-not-modified")
def inputs_untouched(solution):
    real, fake, alpha = _data(9, (4, 3))
    before = [real.clone(), fake.clone(), alpha.clone()]
    versions = [t._version for t in (real, fake, alpha)]  # modify-and-restore moves these
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    model = _mlp(9, 3, 8, nn.Tanh())
    # A flag set and cleared again reads as unchanged afterwards: every write of one is counted.
    with requires_grad_writes([real, fake, alpha]) as flag_writes:
        _, written = writes_during(lambda: solution.gradient_penalty(model, real, fake, alpha, 10.0), real, fake, alpha)
    return {
        "requires_grad_writes": flag_writes,
        "written_by_any_alias": written,
        "unchanged": all(torch.equal(a, b) for a, b in zip(before, [real, fake, alpha], strict=True)),
        "writes": [t._version - v for t, v in zip((real, fake, alpha), versions, strict=True)],
        "requires_grad": [t.requires_grad for t in (real, fake, alpha)],
    }
