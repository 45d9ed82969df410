"""Input integrity and tensor properties (in the sandbox): what a call did to its inputs and returned.

``check_call(fn, *args)`` copies every tensor argument before the call, calls ``fn`` and reports, as
plain data compared with the reference's on the host:

* for each tensor argument, the index of its first element changed by the call (None: unchanged),
  so "do not modify the input" and "update it in place" are both checked;
* for each tensor argument, whether the output shares its storage (a view) or not (a copy);
* the output's shape, dtype, device, ``requires_grad`` and contiguity;
* the output itself (``output=False`` leaves the values to other cases).

What the statement requires is what the reference does: a reference that returns a view makes
"must be a view" a rule, one that returns a float32 copy makes "same dtype, new tensor" one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.records.check_value import CheckValue
from runner.testing.checks.arguments import argument_names, index_of

PROPERTIES = ("shape", "dtype", "device", "requires_grad", "contiguous")


def _first_change(before: Any, after: Any) -> tuple[list[int] | None, Any, Any]:
    """Index of the first element that differs (NaN equals NaN), with its old and new values."""
    import torch

    if before.shape != after.shape or before.dtype != after.dtype:
        return [], f"shape {tuple(before.shape)}", f"shape {tuple(after.shape)}"
    old, new = before.detach().reshape(-1), after.detach().reshape(-1)
    same = old == new
    if old.is_floating_point() or old.is_complex():
        same = same | (torch.isnan(old) & torch.isnan(new))
    changed = (~same).nonzero()
    if changed.numel() == 0:
        return None, None, None
    flat = int(changed[0, 0].item())
    index = index_of(flat, before.shape)
    return index, old[flat].item(), new[flat].item()


def _shares_storage(a: Any, b: Any) -> bool:
    try:
        return bool(
            a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and a.numel() and b.numel()
        )
    except (RuntimeError, NotImplementedError):
        return False


def _properties(tensor: Any, wanted: Sequence[str]) -> dict[str, Any]:
    every = {
        "shape": list(tensor.shape),
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "device": tensor.device.type,
        "requires_grad": bool(tensor.requires_grad),
        "contiguous": bool(tensor.is_contiguous()),
    }
    return {p: every[p] for p in wanted}


def check_call(
    fn: Any,
    *args: Any,
    names: Sequence[str] | None = None,
    constraint: str = "",
    output: bool = True,
    properties: Sequence[str] = PROPERTIES,
    storage: bool = True,
) -> CheckValue:
    """Call ``fn(*args)`` and report what it did to its tensor arguments and what it returned."""
    import torch

    unknown = set(properties) - set(PROPERTIES)
    if unknown:
        raise ValueError(f"check_call: unknown properties {sorted(unknown)}; known: {PROPERTIES}")
    arg_names = list(names) if names is not None else argument_names(fn, len(args))
    tensors = {arg_names[i]: a for i, a in enumerate(args) if isinstance(a, torch.Tensor)}
    copies = {name: t.detach().clone() for name, t in tensors.items()}
    result = fn(*args)

    changed: dict[str, Any] = {}
    changes: dict[str, Any] = {}
    for name, tensor in tensors.items():
        index, before, after = _first_change(copies[name], tensor)
        changed[name] = index
        if index is not None:
            changes[name] = {"before": before, "after": after}
    outs = list(result) if isinstance(result, tuple | list) else [result]
    labelled = {
        ("the output" if len(outs) == 1 else f"output[{i}]"): o
        for i, o in enumerate(outs)
        if isinstance(o, torch.Tensor)
    }
    compared: dict[str, Any] = {"inputs_changed": changed}
    if storage:
        compared["shares_storage"] = {
            name: any(_shares_storage(o, t) for o in labelled.values()) for name, t in tensors.items()
        }
    compared["properties"] = {label: _properties(o, properties) for label, o in labelled.items()}
    if output:
        compared["output"] = result
    return CheckValue("integrity", constraint, compared, {"changes": changes})
