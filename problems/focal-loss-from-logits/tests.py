"""Tests for focal-loss-from-logits.

Random logits of several shapes, gammas and alphas, every reduction, saturated logits (where a naive
sigmoid-then-log gives inf/nan), gradients against finite differences (check_gradients), and
input integrity (check_call, and the inputs' version counters).

Rules (statement.md): ``stable-from-logits`` (saturated logits: values, and float32 gradients for every
gamma of the statement), ``differentiable`` (check_gradients in float64, autograd in float32),
``inputs-not-modified``.
"""

import torch

from runner.testing import case, check_call, check_gradients

CHECKED = (
    "Hidden tests use 1-D to 3-D inputs, $\\gamma \\in \\{0, 0.5, 1, 2, 5\\}$, $\\alpha \\in$ "
    "`{None, 0.25, 0.75}`, every reduction, logits up to $\\pm 10^4$, all-negative targets, and check "
    "the gradient and that the inputs are unchanged."
)

RTOL = 1e-5
ATOL = 1e-6


def random_problem(seed, shape, scale=2.0, positive_rate=0.3):
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(shape, generator=gen) * scale
    targets = (torch.rand(shape, generator=gen) < positive_rate).float()
    return logits, targets


def described(out):
    return {"loss": out, "dtype": str(out.dtype), "shape": list(out.shape)}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    logits = torch.tensor([[3.0, -1.0, 0.5], [-2.0, 0.0, 4.0]])
    targets = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    return round(solution.focal_loss(logits, targets, 0.25, 2.0, "mean").item(), 6)


@case(rtol=RTOL, atol=ATOL)
def shapes_and_gammas(solution):
    out = []
    for seed, (shape, gamma) in enumerate([((7,), 0.0), ((4, 5), 0.5), ((2, 3, 4), 2.0), ((16, 8), 5.0)]):
        logits, targets = random_problem(seed, shape)
        out.append(described(solution.focal_loss(logits, targets, 0.25, gamma, "mean")))
    return out


@case(rtol=RTOL, atol=ATOL)
def no_alpha_weighting(solution):
    logits, targets = random_problem(10, (6, 6))
    return described(solution.focal_loss(logits, targets, None, 2.0, "mean"))


@case(rtol=RTOL, atol=ATOL)
def alpha_favouring_positives(solution):
    logits, targets = random_problem(11, (5, 9))
    return described(solution.focal_loss(logits, targets, 0.75, 1.0, "sum"))


@case(rtol=RTOL, atol=ATOL)
def reduction_none(solution):
    logits, targets = random_problem(12, (3, 4))
    return described(solution.focal_loss(logits, targets, 0.25, 2.0, "none"))


@case(rtol=RTOL, atol=ATOL, rule="stable-from-logits")
def saturated_logits_stay_finite(solution):
    logits = torch.tensor(
        [[200.0, -200.0, 1e4, -1e4], [200.0, -200.0, 1e4, -1e4], [90.0, -90.0, 30.0, -30.0]]
    )
    targets = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]])
    return [
        described(solution.focal_loss(logits, targets, 0.25, 2.0, "none")),
        described(solution.focal_loss(logits, targets, 0.25, 2.0, "mean")),
    ]


@case(rtol=RTOL, atol=ATOL)
def all_negatives(solution):
    logits, _ = random_problem(13, (10,))
    return described(solution.focal_loss(logits, torch.zeros(10), 0.25, 2.0, "mean"))


def _gradient_problem():
    logits, targets = random_problem(14, (4, 6))
    return logits, targets.double()


@case(rtol=RTOL, atol=ATOL, rule="differentiable")
def gradient(solution):
    """Analytic gradients against the reference's and finite differences (float64)."""
    logits, targets = _gradient_problem()
    return check_gradients(
        lambda logits: solution.focal_loss(logits, targets, 0.25, 2.0, "mean"), logits, constraint=CHECKED
    )


@case(rtol=RTOL, atol=ATOL, rule="differentiable")
def gradient_without_alpha_gamma_half(solution):
    logits, targets = _gradient_problem()
    return check_gradients(
        lambda logits: solution.focal_loss(logits, targets, None, 0.5, "mean"), logits, constraint=CHECKED
    )


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    logits, targets = random_problem(15, (3, 5))
    return check_call(
        solution.focal_loss, logits, targets, 0.25, 2.0, "sum", constraint=CHECKED, properties=()
    )


GAMMAS = (0.0, 0.5, 1.0, 2.0, 5.0)  # every gamma the statement names


def float32_gradient(solution, logits, targets, alpha, gamma):
    x = logits.clone().requires_grad_(True)
    loss = solution.focal_loss(x, targets, alpha, gamma, "sum")
    (grad,) = torch.autograd.grad(loss, x)
    return {"dtype": str(grad.dtype), "finite": bool(torch.isfinite(grad).all()), "grad": grad}


@case(rtol=1e-4, atol=1e-6, rule="stable-from-logits")
def saturated_gradients_every_gamma(solution):
    """Gradients (float32) at logits far beyond where sigmoid rounds to 0 or 1, for every gamma."""
    logits = torch.tensor([200.0, -200.0, 1e4, -1e4, 90.0, -90.0, 30.0, -30.0])
    targets = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    return [float32_gradient(solution, logits, targets, 0.25, gamma) for gamma in GAMMAS]


@case(rtol=1e-4, atol=1e-6, rule="differentiable")
def gradient_float32(solution):
    """The gradient in the dtype learners train in, for every gamma: not only in float64."""
    logits, targets = random_problem(17, (3, 7))
    return [
        float32_gradient(solution, logits, targets, alpha, gamma)
        for alpha, gamma in zip((0.25, None, 0.75, 0.25, None), GAMMAS, strict=True)
    ]


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    logits, targets = random_problem(18, (4, 4))
    before = (logits._version, targets._version)
    solution.focal_loss(logits, targets, 0.25, 2.0, "mean")
    return {"writes": [logits._version - before[0], targets._version - before[1]]}


@case
def unknown_reduction_raises(solution):
    logits, targets = random_problem(16, (4,))
    try:
        solution.focal_loss(logits, targets, 0.25, 2.0, "average")
    except ValueError:
        return "ValueError"
    return "no error"
