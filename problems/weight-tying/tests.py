"""Tests for weight-tying.

Parameters are filled by name (each distinct Parameter once), so an untied head keeps values of its
own; the cases check the logits, the single shared Parameter, gradient accumulation from both uses
(also against finite differences, check_gradients), that the tie survives an optimizer step,
.double() and a state_dict round trip.
"""

import torch
import torch.nn as nn

from runner.testing import case, check_gradients

ACCUMULATES = "autograd **accumulates** the gradients of both uses into its single `.grad`;"

RTOL = 1e-5
ATOL = 1e-6


def _fill(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)


def _tokens(seed, b, t, v):
    return torch.randint(0, v, (b, t), generator=torch.Generator().manual_seed(seed))


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    model = solution.build_tied_lm(4, 2)
    with torch.no_grad():
        model.embedding.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]]))
        model.proj.weight.copy_(torch.eye(2))
        model.proj.bias.zero_()
    logits = model(torch.tensor([[0, 2]]))
    return {
        "logits": logits.tolist(),
        "num_parameters": sum(p.numel() for p in model.parameters()),
        "parameter_names": [name for name, _ in model.named_parameters()],
        "shared": model.lm_head.weight is model.embedding.weight,
    }


@case(rtol=RTOL, atol=ATOL)
def random_logits(solution):
    model = solution.build_tied_lm(10, 4)
    _fill(model, 1)
    return model(_tokens(2, 3, 5, 10))


@case(rule="one-shared-parameter")
def one_parameter_counted_once(solution):
    model = solution.build_tied_lm(50, 8)
    return {
        "names": [name for name, _ in model.named_parameters()],
        "num_parameters": sum(p.numel() for p in model.parameters()),
        "shared": model.lm_head.weight is model.embedding.weight,
        "lm_head_has_bias": model.lm_head.bias is not None,
    }


@case(rtol=RTOL, atol=ATOL, rule="one-shared-parameter")
def gradient_accumulates_from_both_uses(solution):
    model = solution.build_tied_lm(6, 3)
    _fill(model, 3)
    tokens = _tokens(4, 2, 4, 6)
    targets = _tokens(5, 2, 4, 6)
    loss = nn.functional.cross_entropy(model(tokens).reshape(-1, 6), targets.reshape(-1))
    loss.backward()
    return {
        "loss": loss.item(),
        "embedding_grad": model.embedding.weight.grad,
        "lm_head_grad": model.lm_head.weight.grad,
        "proj_grad": model.proj.weight.grad,
    }


@case(rtol=RTOL, atol=ATOL)
def stays_tied_after_training(solution):
    model = solution.build_tied_lm(7, 4)
    _fill(model, 6)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for step in range(3):
        tokens, targets = _tokens(10 + step, 4, 3, 7), _tokens(20 + step, 4, 3, 7)
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(tokens).reshape(-1, 7), targets.reshape(-1)).backward()
        optimizer.step()
    return {
        "embedding": model.embedding.weight.detach().clone(),
        "lm_head": model.lm_head.weight.detach().clone(),
        "same_object": model.lm_head.weight is model.embedding.weight,
    }


@case(rtol=RTOL, atol=ATOL)
def state_dict_round_trip(solution):
    model = solution.build_tied_lm(5, 3)
    _fill(model, 7)
    fresh = solution.build_tied_lm(5, 3)
    fresh.load_state_dict(model.state_dict())
    return {
        "keys": list(model.state_dict().keys()),
        "logits": fresh(_tokens(8, 2, 3, 5)),
        "still_shared": fresh.lm_head.weight is fresh.embedding.weight,
    }


@case(rtol=1e-10, atol=1e-10)
def double_keeps_the_tie(solution):
    model = solution.build_tied_lm(5, 3)
    _fill(model, 9)
    model = model.double()
    with torch.no_grad():
        model.embedding.weight.mul_(2.0)
    return {"logits": model(_tokens(9, 1, 4, 5)), "shared": model.lm_head.weight is model.embedding.weight}


@case(rtol=RTOL, atol=ATOL)
def gradients_match_finite_differences(solution):
    """The model's parameters by name (a tied model has one matrix, not two) against the reference's
    and finite differences (float64): the shared matrix's derivative counts both of its uses."""
    model = solution.build_tied_lm(5, 3)
    _fill(model, 6)
    return check_gradients(model, _tokens(7, 2, 3, 5), names=["tokens"], constraint=ACCUMULATES)
