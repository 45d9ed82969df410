"""Tests for locate-first-nan.

Small models with fixed weights where NaN or Inf appears at a known place: NaN from sqrt of a
negative number, Inf from an overflowing Linear followed by NaN from a LayerNorm, a custom module
whose forward runs its layers in another order than they are defined, a container whose own
arithmetic divides 0 by 0, NaN already in the input, large finite values whose sum overflows.
"""

import torch
import torch.nn as nn

from runner.testing import case, observe_hooks


class Sqrt(nn.Module):
    def forward(self, x):
        return torch.sqrt(x)


def example_model() -> nn.Module:
    model = nn.Sequential(nn.Linear(2, 3), Sqrt(), nn.Linear(3, 1))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]))
        model[0].bias.zero_()
        model[2].weight.fill_(1.0)
        model[2].bias.zero_()
    return model


def example_input():
    return torch.tensor([[1.0, 4.0], [9.0, 16.0]])


def hooks_left(model):
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())


@case(public=True)
def example(solution):
    return solution.locate_first_nonfinite(example_model(), example_input())


@case
def all_finite_gives_none(solution):
    model = example_model()
    return solution.locate_first_nonfinite(model, torch.zeros(3, 2))


@case
def random_mlp_finite(solution):
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4))
    g = torch.Generator().manual_seed(3)
    return solution.locate_first_nonfinite(model, torch.randn(8, 6, generator=g))


@case
def inf_before_nan(solution):
    """An overflowing Linear gives inf; the LayerNorm after it turns inf into NaN."""
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))
    with torch.no_grad():
        model[0].weight.abs_()
        model[2].weight.abs_().mul_(1e30)  # positive weights: +inf, never inf - inf
    g = torch.Generator().manual_seed(4)
    return solution.locate_first_nonfinite(model, (torch.rand(5, 4, generator=g) + 1.0) * 1e10)


class Reordered(nn.Module):
    """Defines `late` before `early` but calls `early` first; both produce non-finite values."""

    def __init__(self) -> None:
        super().__init__()
        self.late = nn.Linear(3, 3)
        self.early = Sqrt()
        self.mid = nn.Linear(3, 3)

    def forward(self, x):
        return self.late(self.mid(self.early(x)))


@case
def execution_order_not_definition_order(solution):
    torch.manual_seed(5)
    return solution.locate_first_nonfinite(Reordered(), torch.tensor([[1.0, -2.0, 3.0]]))


class SumNormalise(nn.Module):
    """A container whose own arithmetic (not a child's) makes the Inf: division by a zero sum."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(2, 2, bias=False)

    def forward(self, x):
        h = self.proj(x)
        return h / h.sum(dim=-1, keepdim=True)


@case
def container_arithmetic(solution):
    model = nn.Sequential(nn.Linear(2, 2), SumNormalise(), nn.Linear(2, 1))
    with torch.no_grad():
        model[0].weight.copy_(torch.eye(2))
        model[0].bias.zero_()
        model[1].proj.weight.copy_(torch.tensor([[1.0, 0.0], [-1.0, 0.0]]))
    return solution.locate_first_nonfinite(model, torch.tensor([[2.0, 3.0], [1.0, 1.0]]))


@case
def nan_in_the_input(solution):
    torch.manual_seed(7)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    x = torch.tensor([[0.5, float("nan"), 1.0], [1.0, 2.0, 3.0]])
    return solution.locate_first_nonfinite(model, x)


@case
def large_finite_values_are_fine(solution):
    """Outputs near 1e38 are finite; only their sum overflows. The NaN comes later, from Sqrt."""
    model = nn.Sequential(nn.Linear(2, 4), nn.Identity(), nn.Linear(4, 2), Sqrt())
    with torch.no_grad():
        model[0].weight.fill_(1e38)
        model[0].bias.zero_()
        model[2].weight.copy_(torch.tensor([[1e-38, 0.0, 0.0, 0.0], [-1e-38, 0.0, 0.0, 0.0]]))
        model[2].bias.zero_()
    return solution.locate_first_nonfinite(model, torch.tensor([[1.0, 1.0], [0.5, 0.5]]))


@case
def reused_layer_second_call(solution):
    """The same Linear runs twice: finite the first time (~1e20), overflowing the second."""
    layer = nn.Linear(2, 2, bias=False)
    with torch.no_grad():
        layer.weight.fill_(1e20)
    model = nn.Sequential(nn.Tanh(), layer, layer, nn.Identity())
    return solution.locate_first_nonfinite(model, torch.tensor([[1.0, 2.0]]))


@case(rule="forward-hooks-removed")
def hooks_are_forward_and_removed(solution):
    model = example_model()
    with observe_hooks() as log:
        result = solution.locate_first_nonfinite(model, example_input())
    return {
        "result": result,
        "kinds": sorted(set(log.kinds())),
        "all_removed": log.all_removed(),
        "hooks_left": hooks_left(model),
    }


@case(rule="forward-hooks-removed")
def hooks_removed_when_forward_raises(solution):
    model = example_model()
    raised = None
    try:
        solution.locate_first_nonfinite(model, torch.ones(2, 5))  # wrong width: model[0] raises
    except RuntimeError as exc:
        raised = type(exc).__name__
    return {"raised": raised, "hooks_left": hooks_left(model)}
