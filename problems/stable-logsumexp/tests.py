"""Tests for stable-logsumexp.

Values are compared with torch.logsumexp's semantics (the reference matches it): huge and tiny
magnitudes, -inf slices, +inf and NaN, every dim of 3-D inputs, float64, empty batches, random
families over a ladder of sizes (check_family) and the input left alone (check_call). Every case
allows only the operations the reference uses and a few accepted alternatives (allow_ops, declared
for the whole problem), so no built-in or sibling kernel computes the log-sum-exp by any route; one
case also names the built-ins (forbid_ops) for a message that says which.
"""

import torch

from runner.testing import case, check_call, check_family, forbid_ops, op_rules_for_every_case, tensor_samples

NO_BUILTIN = (
    "Do not use `torch.logsumexp`, `Tensor.logsumexp` or `torch.special.logsumexp`, nor another operation "
    "that computes a log-sum-exp for you (`logcumsumexp`, `log_softmax`, …): build it from elementwise "
    "operations and reductions. A hidden test detects any other operation, whatever the route."
)
# Accepted alternatives to the reference's operations beyond those alternatives/ uses (aten
# operators, as dispatched after PyTorch's own decomposition of composite functions): other ways to
# take the max, guard infinities, shift.
ALTERNATIVES = (
    "aten.maximum",
    "aten.clamp",
    "aten.clamp_min",
    "aten.isinf",
    "aten.isnan",
    "aten.isposinf",
    "aten.isneginf",
    "aten.bitwise_not",
    "aten.logical_not",
    "aten.logical_and",
    "aten.logical_or",
    "aten.log1p",
    "aten.div",
    "aten.neg",
    "aten.gt",
    "aten.ge",
    "aten.lt",
    "aten.le",
    "aten.nan_to_num",
    "aten.index",
    "aten.index_put",
    "aten.rsub",
    "aten.squeeze",
)
op_rules_for_every_case("no-builtin-logsumexp", allow=NO_BUILTIN, allow_extra=ALTERNATIVES)
INPUTS = (
    "`x` is a float32 or float64 tensor with at least one dimension; `dim` may be negative; the reduced "
    "dimension has at least one element (other dimensions may be empty, e.g. shape `(0, 3)`)."
)
NO_CHANGE = "Do not modify `x` (no in-place operations on it)."

RTOL = 1e-5
ATOL = 1e-5
INF = float("inf")
NAN = float("nan")


def example_input():
    return torch.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -999.0], [0.0, 0.0, 0.0]])


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    return solution.stable_logsumexp(example_input(), 1)


@case(rtol=RTOL, atol=ATOL)
def random_family_last_dim(solution):
    """A ladder of sizes plus a size-1 row, an empty batch, magnitudes around 1e4 and ties."""
    return check_family(
        lambda x: solution.stable_logsumexp(x, -1), tensor_samples(ndim=2, seed=1), constraint=INPUTS
    )


@case(rtol=RTOL, atol=ATOL)
def random_family_middle_dim_float64(solution):
    return check_family(
        lambda x: solution.stable_logsumexp(x, 1),
        tensor_samples(ndim=3, seed=2, sizes=(1, 2, 4), dtype=torch.float64),
        constraint=INPUTS,
    )


@case(rtol=RTOL, atol=ATOL)
def square_input_dim_1(solution):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(6, 6, generator=g) * 5.0 + torch.arange(6.0)
    return solution.stable_logsumexp(x, 1)


@case(rtol=RTOL, atol=ATOL)
def every_dim_of_3d(solution):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 4, 5, generator=g) * 10.0
    return [solution.stable_logsumexp(x, d) for d in (0, 1, 2, -2)]


@case(rtol=RTOL, atol=ATOL)
def large_magnitudes(solution):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(4, 16, generator=g) * 2.0
    x[0] += 5e4
    x[1] -= 5e4
    x[2, 3] = 3e4  # one term dominates the row
    return solution.stable_logsumexp(x, 1)


@case(rtol=RTOL, atol=ATOL)
def infinities_and_nan(solution):
    x = torch.tensor(
        [
            [-INF, -INF, -INF],  # empty "probability mass": -inf
            [-INF, 0.0, -INF],  # only one finite term: log(e^0) = 0
            [INF, 1.0, 2.0],  # +inf
            [NAN, 1.0, 2.0],  # NaN propagates
            [-INF, 500.0, 499.0],
        ]
    )
    return solution.stable_logsumexp(x, 1)


@case(rtol=RTOL, atol=ATOL)
def size_one_dim_and_empty_batch(solution):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(4, 1, generator=g) * 100.0
    empty = torch.zeros(0, 3)
    return {"single": solution.stable_logsumexp(x, 1), "empty": solution.stable_logsumexp(empty, 1)}


@case(rtol=1e-10, atol=1e-10)
def float64_keeps_dtype(solution):
    g = torch.Generator().manual_seed(6)
    x = torch.randn(3, 8, generator=g, dtype=torch.float64) * 300.0
    return solution.stable_logsumexp(x, 1)


@case(rtol=RTOL, atol=ATOL, rule="input-not-modified")
def input_not_modified(solution):
    g = torch.Generator().manual_seed(7)
    x = torch.randn(4, 5, generator=g) * 20.0
    return check_call(solution.stable_logsumexp, x, 1, constraint=NO_CHANGE, properties=("shape", "dtype"))


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-logsumexp")
def no_builtin_logsumexp(solution):
    names = (
        "torch.logsumexp",
        "torch.Tensor.logsumexp",
        "torch.special.logsumexp",
        "aten.logsumexp",
        "aten.logcumsumexp",
        "aten._logcumsumexp",
        "aten.logaddexp",
    )
    with forbid_ops(dict.fromkeys(names, NO_BUILTIN)):
        g = torch.Generator().manual_seed(8)
        return solution.stable_logsumexp(torch.randn(3, 4, generator=g), 1)


@case(rule="input-not-modified")
def input_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensor's version counter."""
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(9)) * 20.0
    before = x._version
    solution.stable_logsumexp(x, 1)
    return {"writes": x._version - before}
