"""Tests for residual-mlp-modulelist.

Parameters are filled by name from a seeded generator (so outputs do not depend on the order layers
were created in); the cases check the registered parameters, the outputs, that every parameter gets
a gradient, that an optimizer step moves every block, and the zero-block edge case.
"""

import torch

from runner.testing import case

RTOL = 1e-5
ATOL = 1e-6


def _fill(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)


def _describe(model, x):
    return {
        "is_module": isinstance(model, torch.nn.Module),
        "num_parameters": sum(p.numel() for p in model.parameters()),
        "parameter_names": [name for name, _ in model.named_parameters()],
        "shapes": [list(p.shape) for p in model.parameters()],
        "output": model(x),
    }


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    model = solution.build_residual_mlp(2, 3, 2)
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(0.1)
    out = _describe(model, torch.tensor([[1.0, 2.0]]))
    return {
        "num_parameters": out["num_parameters"],
        "parameter_names": out["parameter_names"],
        "output": out["output"].tolist(),
    }


@case(rtol=RTOL, atol=ATOL)
def random_weights(solution):
    model = solution.build_residual_mlp(4, 8, 3)
    _fill(model, 1)
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(11))
    return _describe(model, x)


@case(rtol=RTOL, atol=ATOL)
def ladder_of_depths(solution):
    out = []
    for depth in [1, 2, 5]:
        model = solution.build_residual_mlp(3, 6, depth)
        _fill(model, 20 + depth)
        out.append(_describe(model, torch.randn(2, 3, generator=torch.Generator().manual_seed(depth))))
    return out


@case(rtol=RTOL, atol=ATOL)
def zero_blocks_is_the_identity(solution):
    model = solution.build_residual_mlp(3, 4, 0)
    return _describe(model, torch.tensor([[1.0, -2.0, 3.0]]))


@case
def every_parameter_gets_a_gradient(solution):
    model = solution.build_residual_mlp(4, 5, 3)
    _fill(model, 2)
    model(torch.randn(6, 4, generator=torch.Generator().manual_seed(3))).pow(2).sum().backward()
    return {name: p.grad is not None and bool(p.grad.abs().sum() > 0) for name, p in model.named_parameters()}


@case(rtol=RTOL, atol=ATOL, rule="independent-registered-blocks")
def optimizer_step_moves_every_block(solution):
    model = solution.build_residual_mlp(3, 4, 3)
    _fill(model, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 3, generator=torch.Generator().manual_seed(5))
    model(x).pow(2).mean().backward()
    optimizer.step()
    return {name: p.detach().clone() for name, p in model.named_parameters()}


@case(rule="independent-registered-blocks")
def blocks_are_independent_modules(solution):
    model = solution.build_residual_mlp(2, 2, 3)
    blocks = list(model.blocks)
    return {
        "count": len(blocks),
        "distinct": len({id(b) for b in blocks}),
        "state_dict_keys": list(model.state_dict().keys()),
    }
