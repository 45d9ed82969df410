"""Tests for hook-cleanup-context-manager.

The learner's context manager is used as a caller would: shapes recorded for every leaf, a layer
called twice, a body that raises, hooks that were there before (forward and pre-hooks), two managers
nested on one model, a model that is itself a leaf. After each block the hooks left on every module
are counted.
"""

import torch
import torch.nn as nn

from runner.testing import case, observe_hooks


def example_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 3), nn.Softmax(dim=-1)))


def hook_counts(model: nn.Module) -> dict[str, int]:
    """How many forward and forward-pre hooks each module holds right now."""
    return {
        name or "<root>": len(m._forward_hooks) + len(m._forward_pre_hooks)
        for name, m in model.named_modules()
    }


class TwoHeads(nn.Module):
    """Uses its shared layer twice; its `unused` head never runs."""

    def __init__(self) -> None:
        super().__init__()
        self.shared = nn.Linear(5, 5)
        self.act = nn.Tanh()
        self.out = nn.Linear(5, 2)
        self.unused = nn.Linear(5, 7)

    def forward(self, x):
        return self.out(self.act(self.shared(self.act(self.shared(x)))))


@case(public=True)
def example(solution):
    model = example_model()
    with solution.record_output_shapes(model) as shapes:
        model(torch.randn(2, 4))
    return shapes


@case
def every_leaf_and_nothing_left(solution):
    model = example_model()
    with solution.record_output_shapes(model) as shapes:
        model(torch.randn(5, 4))
        model(torch.randn(1, 4))
    return {"shapes": shapes, "hooks_after": hook_counts(model)}


@case
def layer_called_twice_and_unused_layer(solution):
    model = TwoHeads()
    with solution.record_output_shapes(model) as shapes:
        model(torch.randn(3, 5))
    return {"shapes": shapes, "hooks_after": hook_counts(model)}


@case
def conv_net_two_batch_sizes(solution):
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64, 3),
    )
    with solution.record_output_shapes(model) as shapes:
        model(torch.randn(2, 1, 8, 8))
        model(torch.randn(6, 1, 8, 8))
    return {"shapes": shapes, "hooks_after": hook_counts(model)}


@case(rule="remove-only-own-hooks")
def body_raises(solution):
    model = example_model()
    raised = None
    shapes = None
    try:
        with solution.record_output_shapes(model) as shapes:
            model(torch.randn(2, 4))
            model(torch.randn(2, 5))  # wrong width: the first Linear raises
    except RuntimeError as exc:
        raised = type(exc).__name__
    return {"raised": raised, "shapes": shapes, "hooks_after": hook_counts(model)}


@case
def error_from_the_body_itself(solution):
    model = example_model()
    raised = None
    try:
        with solution.record_output_shapes(model):
            model(torch.randn(2, 4))
            raise KeyError("stop")
    except KeyError as exc:
        raised = str(exc)
    return {"raised": raised, "hooks_after": hook_counts(model)}


@case(rule="remove-only-own-hooks")
def existing_hooks_untouched(solution):
    model = example_model()
    fired = {"forward": 0, "pre": 0}
    model[0].register_forward_hook(lambda m, i, o: fired.__setitem__("forward", fired["forward"] + 1))
    model.register_forward_pre_hook(lambda m, i: fired.__setitem__("pre", fired["pre"] + 1))
    before = hook_counts(model)
    with solution.record_output_shapes(model) as shapes:
        model(torch.randn(2, 4))
    model(torch.randn(2, 4))  # the caller's hooks still fire afterwards
    return {"shapes": shapes, "fired": dict(fired), "hooks_before": before, "hooks_after": hook_counts(model)}


@case(rule="remove-only-own-hooks")
def nested_managers(solution):
    model = example_model()
    with solution.record_output_shapes(model) as outer:
        with solution.record_output_shapes(model) as inner:
            model(torch.randn(2, 4))
        during = hook_counts(model)
        model(torch.randn(7, 4))  # only the outer manager is still recording
    return {"outer": outer, "inner": inner, "hooks_between": during, "hooks_after": hook_counts(model)}


@case
def model_is_a_leaf(solution):
    model = nn.Linear(2, 3)
    with solution.record_output_shapes(model) as shapes:
        model(torch.randn(4, 2))
    return {"shapes": shapes, "hooks_after": hook_counts(model)}


@case(rule="remove-only-own-hooks")
def forward_hooks_registered_and_removed(solution):
    model = example_model()
    with observe_hooks() as log:
        with solution.record_output_shapes(model):
            model(torch.randn(2, 4))
    return log.summary()
