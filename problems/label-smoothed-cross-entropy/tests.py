"""Tests for label-smoothed-cross-entropy.

Values (and gradients, against finite differences with check_gradients) are checked on random
inputs of several sizes, with and without ignored targets, at extreme logits, and the inputs must
come back unchanged (check_call). One case forbids the
built-in cross-entropy (forbid_ops).
"""

import torch

from runner.testing import case, check_call, check_gradients, forbid_ops

NO_BUILTIN = "`F.cross_entropy` and `nn.CrossEntropyLoss` are not allowed (a hidden test detects any call)"
CHECKED = (
    "Hidden tests use $1 \\le N \\le 64$, $2 \\le C \\le 10$, $\\varepsilon \\in [0, 1]$, logits up to "
    "$10^4$ in magnitude, various `ignore_index` values, all-ignored batches, and check the gradient and "
    "that the inputs are unchanged."
)

RTOL = 1e-5
ATOL = 1e-6


def random_problem(seed, n, c, scale=1.0, ignore_fraction=0.0, ignore_index=-100):
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, c, generator=gen) * scale
    target = torch.randint(0, c, (n,), generator=gen)
    ignored = torch.rand(n, generator=gen) < ignore_fraction
    target[ignored] = ignore_index
    return logits, target


def described(out):
    return {"loss": out, "dtype": str(out.dtype), "shape": list(out.shape)}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 0.0, 0.0], [1.0, 3.0, 0.5], [-2.0, 1.0, 4.0]])
    target = torch.tensor([0, 1, -100, 2])
    return round(solution.label_smoothed_cross_entropy(logits, target, 0.1, -100).item(), 6)


@case(rtol=RTOL, atol=ATOL)
def random_sizes(solution):
    out = []
    for seed, (n, c) in enumerate([(1, 2), (5, 3), (16, 10), (64, 7)]):
        logits, target = random_problem(seed, n, c)
        out.append(described(solution.label_smoothed_cross_entropy(logits, target, 0.2)))
    return out


@case(rtol=RTOL, atol=ATOL)
def some_targets_ignored(solution):
    logits, target = random_problem(10, 32, 5, ignore_fraction=0.4)
    return described(solution.label_smoothed_cross_entropy(logits, target, 0.1))


@case(rtol=RTOL, atol=ATOL)
def custom_ignore_index(solution):
    logits, target = random_problem(11, 20, 6, ignore_fraction=0.3, ignore_index=-1)
    return described(solution.label_smoothed_cross_entropy(logits, target, 0.3, ignore_index=-1))


@case(rtol=RTOL, atol=ATOL)
def ignore_index_is_a_real_class_id(solution):
    # Ignoring class 0 (e.g. a padding token): rows with target 0 do not count.
    logits, target = random_problem(12, 24, 4)
    return described(solution.label_smoothed_cross_entropy(logits, target, 0.15, ignore_index=0))


@case(rtol=RTOL, atol=ATOL)
def no_smoothing_and_full_smoothing(solution):
    logits, target = random_problem(13, 12, 5, ignore_fraction=0.25)
    return [
        described(solution.label_smoothed_cross_entropy(logits, target, 0.0)),
        described(solution.label_smoothed_cross_entropy(logits, target, 1.0)),
    ]


@case(rtol=RTOL, atol=ATOL)
def huge_logits_stay_finite(solution):
    logits, target = random_problem(14, 10, 6, scale=1e4)
    return described(solution.label_smoothed_cross_entropy(logits, target, 0.1))


@case
def every_target_ignored_is_nan(solution):
    logits, _ = random_problem(15, 4, 3)
    target = torch.full((4,), -100)
    return described(solution.label_smoothed_cross_entropy(logits, target, 0.1))


@case(rtol=RTOL, atol=ATOL)
def gradient_flows_to_kept_rows_only(solution):
    """Analytic gradients against the reference's and finite differences (float64): ignored rows get 0."""
    logits, target = random_problem(16, 9, 4, ignore_fraction=0.3)
    return check_gradients(solution.label_smoothed_cross_entropy, logits, target, 0.2, constraint=CHECKED)


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    logits, target = random_problem(17, 8, 5, ignore_fraction=0.3)
    return check_call(
        solution.label_smoothed_cross_entropy, logits, target, 0.1, constraint=CHECKED, properties=()
    )


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-cross-entropy")
def no_builtin_cross_entropy(solution):
    """nn.CrossEntropyLoss calls F.cross_entropy, so one name covers both."""
    names = (
        "torch.nn.functional.cross_entropy",
        "torch.nn.functional.nll_loss",
        "aten.nll_loss_forward",
        "aten.nll_loss2d_forward",
    )
    with forbid_ops(dict.fromkeys(names, NO_BUILTIN)):
        logits, target = random_problem(18, 6, 4, ignore_fraction=0.2)
        return solution.label_smoothed_cross_entropy(logits, target, 0.1)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    logits, target = random_problem(19, 8, 5, ignore_fraction=0.3)
    before = (logits._version, target._version)
    solution.label_smoothed_cross_entropy(logits, target, 0.1)
    return {"writes": [logits._version - before[0], target._version - before[1]]}
