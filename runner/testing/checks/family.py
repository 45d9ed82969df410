"""Randomised inputs (in the sandbox): a family of inputs from a seed, over a ladder of sizes.

``tensor_samples(...)`` draws one random tensor per size of the ladder plus edge shapes (a size-1
dimension, an empty tensor, large magnitudes, ties); ``samples(make, ...)`` does the same for any
argument list (``make(generator, size)`` returns the arguments). Both are deterministic: the same
seed gives the same inputs in the reference's run and in the learner's.

``check_family(fn, samples)`` calls ``fn`` on every sample and returns the outputs (an exception
becomes ``{"raised": "TypeError: ..."}`` for that sample only). The host compares them with the
reference's one by one and, on failure, shows the smallest failing input — described by the
reference's run, so the description is trusted — and the learner's own output on it, never the
expected one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from runner.records.check_value import CheckValue
from runner.testing.checks.arguments import argument_names

SIZES = (1, 2, 3, 5, 8)
EDGES = ("size_one", "empty", "large", "ties")
SHOWN_ELEMENTS = 16  # inputs up to this many elements are shown with their values
INPUT_ELEMENTS = 2_000  # inputs up to this many elements are also written as custom input


@dataclass(frozen=True)
class Sample:
    """One generated input: a label for messages and the arguments to call with."""

    label: str
    args: tuple[Any, ...]


def samples(make: Callable[[Any, int], Any], *, seed: int = 0, sizes: Sequence[int] = SIZES) -> list[Sample]:
    """One sample per size: ``make(generator, size)`` returns the arguments (a tuple, or one value)."""
    import torch

    out = []
    for size in sizes:
        generator = torch.Generator().manual_seed(seed * 1000 + size)
        args = make(generator, size)
        out.append(Sample(f"random, size {size}", args if isinstance(args, tuple) else (args,)))
    return out


def tensor_samples(
    *,
    ndim: int = 2,
    seed: int = 0,
    sizes: Sequence[int] = SIZES,
    dtype: Any = None,
    edges: Sequence[str] = EDGES,
) -> list[Sample]:
    """Random tensors of ``ndim`` dimensions (the last one of length ``size``), then the edge cases.

    Edge cases: ``size_one`` (every dimension 1 but the last), ``empty`` (a zero-length first
    dimension), ``large`` (values around 1e4), ``ties`` (values from {-1, 0, 1}, many equal).
    """
    import torch

    dtype = dtype or torch.float32
    unknown = set(edges) - set(EDGES)
    if unknown:
        raise ValueError(f"tensor_samples: unknown edges {sorted(unknown)}; known: {EDGES}")

    def shape(generator: Any, size: int) -> tuple[int, ...]:
        lead = [int(torch.randint(1, size + 2, (1,), generator=generator).item()) for _ in range(ndim - 1)]
        return (*lead, size)

    def random(generator: Any, size: int) -> Any:
        return torch.randn(shape(generator, size), generator=generator).to(dtype)

    out = samples(random, seed=seed, sizes=sizes)
    generator = torch.Generator().manual_seed(seed * 1000 + 999)
    last = max(sizes)
    if "size_one" in edges:
        out.append(
            Sample(
                "a size-1 dimension",
                (torch.randn((1,) * (ndim - 1) + (last,), generator=generator).to(dtype),),
            )
        )
    if "empty" in edges and ndim >= 1:
        out.append(Sample("an empty tensor", (torch.empty((0,) + (last,) * (ndim - 1), dtype=dtype),)))
    if "large" in edges:
        out.append(
            Sample(
                "large magnitudes",
                ((torch.randn(shape(generator, last), generator=generator) * 1e4).to(dtype),),
            )
        )
    if "ties" in edges:
        ties = torch.randint(-1, 2, shape(generator, last), generator=generator).to(dtype)
        out.append(Sample("ties (repeated values)", (ties,)))
    return out


def _describe(value: Any, name: str) -> str:
    import torch

    from runner.records import display, values

    if isinstance(value, torch.Tensor):
        head = f"{name} of shape {tuple(value.shape)}, dtype {str(value.dtype).removeprefix('torch.')}"
        if value.numel() <= SHOWN_ELEMENTS:
            return f"{head} = {display.nested(values.encode(value)['__tensor__'])}"
        return head
    return f"{name} = {values.to_display(values.encode(value), 200)}"


def _input(fn: Callable[..., Any], args: tuple[Any, ...], names: Sequence[str]) -> str | None:
    """The sample as custom-input data (JSON, written by the C encoder; the host checks it and
    writes it for the learner), when it reproduces the call exactly: ``fn`` is a named function
    called with these arguments alone (not a lambda), and every argument is a tensor or plain
    data, within :data:`INPUT_ELEMENTS` in all."""
    import inspect
    import json

    import torch

    if not inspect.isfunction(fn) or fn.__name__ == "<lambda>" or len(set(names)) != len(args):
        return None
    given: dict[str, Any] = {}
    elements = 0
    for value, name in zip(args, names, strict=True):
        if isinstance(value, torch.Tensor):
            elements += value.numel()
            if elements > INPUT_ELEMENTS or name.startswith("input") or value.is_complex():
                return None
            given[name] = {
                "tensor": value.detach().tolist(),
                "dtype": str(value.dtype).removeprefix("torch."),
            }
            if value.requires_grad:
                given[name]["requires_grad"] = True
        elif value is None or isinstance(value, bool | int | float | str):
            given[name] = value
        else:
            return None
    try:
        return json.dumps(given, allow_nan=False)
    except ValueError:  # a non-finite number cannot be given as input
        return None


def _empty(args: tuple[Any, ...]) -> bool:
    """Whether an argument is an empty tensor: a degenerate input, shown only when nothing else fails."""
    import torch

    return any(isinstance(a, torch.Tensor) and a.numel() == 0 for a in args)


def _size(args: tuple[Any, ...]) -> int:
    import torch

    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    return sum(a.numel() for a in tensors) if tensors else len(repr(args))


def check_family(
    fn: Callable[..., Any],
    family: Sequence[Sample],
    *,
    constraint: str = "",
    names: Sequence[str] | None = None,
) -> CheckValue:
    """Call ``fn`` on every sample; the outputs are compared with the reference's on the host."""
    outputs: list[Any] = []
    described = []
    for sample in family:
        arg_names = list(names) if names is not None else argument_names(fn, len(sample.args))
        described.append(
            {
                "label": sample.label,
                "size": _size(sample.args),
                "empty": _empty(sample.args),
                "inputs": [_describe(a, n) for a, n in zip(sample.args, arg_names, strict=False)],
                "input": _input(fn, sample.args, arg_names),
            }
        )
        copies = tuple(a.clone() if hasattr(a, "clone") else a for a in sample.args)
        try:
            outputs.append(fn(*copies))
        except Exception as exc:  # one sample's failure is that sample's output, shown if it is the smallest
            outputs.append({"raised": f"{type(exc).__name__}: {str(exc)[:200]}"})
    return CheckValue("family", constraint, {"outputs": outputs}, {"samples": described})
