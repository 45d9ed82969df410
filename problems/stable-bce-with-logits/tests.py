"""Tests for stable-bce-with-logits.

Huge logits of both signs, soft targets, pos_weight, every reduction, float64, the gradient
(check_gradients, past exp's range), a 1-D input, an empty batch and the inputs left alone
(check_call). The reference equals F.binary_cross_entropy_with_logits; one case forbids
every route to the built-in (forbid_ops).
"""

import torch

from runner.testing import case, check_call, check_gradients, forbid_ops

NO_BUILTIN = (
    "Do not use `F.binary_cross_entropy_with_logits`, `torch.binary_cross_entropy_with_logits` or "
    "`nn.BCEWithLogitsLoss`: a hidden test detects any call to them, whatever the route."
)
FINITE = (
    "Must be finite for logits of any magnitude (the hidden tests use |logits| up to several hundred), "
    "and its gradient must be finite too (the tests call `backward()` on your loss)."
)
NO_CHANGE = "Do not modify the inputs."

RTOL = 1e-5
ATOL = 1e-5


def example_args():
    logits = torch.tensor([[100.0, -100.0, 0.5], [-3.0, 2.0, -0.25]])
    targets = torch.tensor([[1.0, 1.0, 0.0], [0.0, 1.0, 0.5]])
    return logits, targets, torch.tensor([1.0, 2.0, 3.0])


def random_problem(seed, n=8, c=5, scale=4.0, soft=False):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, c, generator=g) * scale
    targets = torch.rand(n, c, generator=g) if soft else (torch.rand(n, c, generator=g) > 0.5).float()
    pos_weight = torch.rand(c, generator=g) * 4.0 + 0.1
    return logits, targets, pos_weight


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    logits, targets, pos_weight = example_args()
    return solution.stable_bce_with_logits(logits, targets, pos_weight=pos_weight, reduction="none")


@case(rtol=RTOL, atol=ATOL)
def default_reduction_is_mean(solution):
    logits, targets, _ = random_problem(1)
    return solution.stable_bce_with_logits(logits, targets)


@case(rtol=RTOL, atol=ATOL)
def every_reduction_with_pos_weight(solution):
    logits, targets, pos_weight = random_problem(2, soft=True)
    return {
        r: solution.stable_bce_with_logits(logits, targets, pos_weight=pos_weight, reduction=r)
        for r in ("none", "sum", "mean")
    }


@case(rtol=RTOL, atol=ATOL, rule="finite-for-any-logit", rule_by_value=True)
def huge_logits_both_signs(solution):
    logits, targets, pos_weight = random_problem(3, n=6, c=4, scale=300.0)
    return {
        "none": solution.stable_bce_with_logits(logits, targets, reduction="none"),
        "weighted_mean": solution.stable_bce_with_logits(logits, targets, pos_weight=pos_weight),
    }


@case(rtol=RTOL, atol=ATOL)
def batch_size_differs_from_element_count(solution):
    logits, targets, pos_weight = random_problem(4, n=3, c=7)
    return solution.stable_bce_with_logits(logits, targets, pos_weight=pos_weight, reduction="mean")


@case(rtol=1e-10, atol=1e-10)
def float64(solution):
    logits, targets, pos_weight = random_problem(5, scale=50.0, soft=True)
    return solution.stable_bce_with_logits(
        logits.double(), targets.double(), pos_weight=pos_weight.double(), reduction="none"
    )


@case(rtol=RTOL, atol=ATOL)
def one_dimensional_and_empty(solution):
    logits = torch.tensor([-80.0, -1.5, 0.25, 1.5, 80.0])
    targets = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0])
    empty = torch.zeros(0, 3)
    return {
        "vector": solution.stable_bce_with_logits(logits, targets, reduction="none"),
        "vector_sum": solution.stable_bce_with_logits(logits, targets, reduction="sum"),
        "empty_none": solution.stable_bce_with_logits(empty, empty, reduction="none"),
        "empty_sum": solution.stable_bce_with_logits(empty, empty, reduction="sum"),
    }


def _gradient_problem():
    logits, targets, pos_weight = random_problem(6, n=3, c=5, scale=200.0)
    # float64 overflows exp() past 709: a branch that evaluates exp(|x|) poisons the gradient with nan
    logits[0] = torch.tensor([800.0, -800.0, 750.0, -750.0, 3.0])
    logits = logits + 0.01  # keep away from exactly 0, where max(x, 0) has a kink
    return logits, targets.double(), pos_weight.double()


@case(rtol=RTOL, atol=ATOL, rule="finite-for-any-logit", rule_by_value=True)
def gradient_is_finite_and_right(solution):
    """Analytic gradients against the reference's and finite differences, with logits past exp's range."""
    logits, targets, _ = _gradient_problem()
    return check_gradients(
        lambda logits: solution.stable_bce_with_logits(logits, targets), logits, constraint=FINITE
    )


@case(rtol=RTOL, atol=ATOL)
def weighted_gradient_is_finite_and_right(solution):
    logits, targets, pos_weight = _gradient_problem()
    return check_gradients(
        lambda logits: solution.stable_bce_with_logits(
            logits, targets, pos_weight=pos_weight, reduction="sum"
        ),
        logits,
        constraint=FINITE,
    )


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    logits, targets, pos_weight = random_problem(7)
    return check_call(
        solution.stable_bce_with_logits,
        logits,
        targets,
        pos_weight,
        "none",
        constraint=NO_CHANGE,
        properties=(),
    )


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-bce")
def no_builtin_bce(solution):
    """nn.BCEWithLogitsLoss and F. reach the same aten operator, which every other route reaches too."""
    names = (
        "torch.nn.functional.binary_cross_entropy_with_logits",
        "torch.binary_cross_entropy_with_logits",
        "aten.binary_cross_entropy_with_logits",
        "torch.nn.functional.soft_margin_loss",
        "aten.soft_margin_loss",
    )
    with forbid_ops(dict.fromkeys(names, NO_BUILTIN)):
        logits, targets, pos_weight = random_problem(8)
        return solution.stable_bce_with_logits(logits, targets, pos_weight=pos_weight)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    logits, targets, pos_weight = random_problem(9)
    watched = [logits, targets, pos_weight]
    before = [t._version for t in watched]
    solution.stable_bce_with_logits(logits, targets, pos_weight=pos_weight, reduction="sum")
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
