"""Input integrity and tensor properties (in the sandbox): what a call did to its inputs and returned.

``check_call(fn, *args)`` copies every tensor argument before the call, calls ``fn`` and reports, as
plain data compared with the reference's on the host:

* for each tensor argument, the index of its first element changed by the call (None: unchanged),
  so "do not modify the input" and "update it in place" are both checked; elements are compared
  bit for bit (``-0.0`` is not ``0.0``, a NaN's payload counts), and an argument whose values are
  back where they were but whose version counter moved (an in-place write, then another that put
  the values back) is reported as ``"restored"``;
* for each tensor argument, whether the output shares its storage (a view) or not (a copy), the
  output's tensors found in tuples, lists, dicts and dataclasses too (a cache returned in a dict);
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


_BITS = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}
OUTPUT_TENSORS = 64  # tensors looked for in a returned container, at most
OUTPUT_DEPTH = 4


def _bits(tensor: Any) -> Any:
    """The tensor's elements as integers of the same width: equal only when bit for bit equal."""
    import torch

    if tensor.is_complex():
        tensor = torch.view_as_real(tensor)
    if tensor.is_floating_point():
        return tensor.view(getattr(torch, _BITS[tensor.element_size()]))
    return tensor


def _version_of() -> Any:
    """A tensor's version counter read through torch's C descriptor, not ``tensor._version``
    (which a class attribute on ``torch.Tensor`` or a subclass could shadow)."""
    import torch

    descriptor: Any = torch._C.TensorBase.__dict__["_version"]
    return descriptor.__get__


def _first_change(before: Any, after: Any) -> tuple[list[int] | None, Any, Any]:
    """Index of the first element that differs bit for bit, with its old and new values."""
    if before.shape != after.shape or before.dtype != after.dtype:
        return [], f"shape {tuple(before.shape)}", f"shape {tuple(after.shape)}"
    old, new = before.detach().reshape(-1), after.detach().reshape(-1)
    same = _bits(old) == _bits(new)
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


def _output_tensors(result: Any) -> dict[str, Any]:
    """The output's tensors by label: the output itself, or those inside tuples, lists, dicts
    (string or int keys) and dataclasses, a few levels deep; exact types only, so a container
    subclass of the learner's cannot hide or invent what it holds."""
    import dataclasses

    import torch

    found: dict[str, Any] = {}

    def walk(value: Any, label: str, depth: int) -> None:
        if len(found) >= OUTPUT_TENSORS or depth > OUTPUT_DEPTH:
            return
        kind = type(value)
        if isinstance(value, torch.Tensor):
            found[label] = value
        elif kind is tuple or kind is list:
            for i, item in enumerate(value):
                walk(item, f"{label}[{i}]", depth + 1)
        elif kind is dict:
            for key, item in list(value.items()):
                if type(key) is str or type(key) is int:
                    walk(item, f"{label}[{key!r}]", depth + 1)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                walk(object.__getattribute__(value, f.name), f"{label}.{f.name}", depth + 1)

    if type(result) is tuple or type(result) is list:  # the labels the checks have always used
        for i, item in enumerate(result):
            walk(item, "the output" if len(result) == 1 else f"output[{i}]", 1)
    else:
        walk(result, "the output", 0)
    return found


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
    version = _version_of()
    versions = {name: version(t) for name, t in tensors.items()}  # every in-place write moves it
    result = fn(*args)

    changed: dict[str, Any] = {}
    changes: dict[str, Any] = {}
    for name, tensor in tensors.items():
        index, before, after = _first_change(copies[name], tensor)
        writes = version(tensor) - versions[name]
        if index is None and writes:
            changed[name] = "restored"
            changes[name] = {"writes": writes}
            continue
        changed[name] = index
        if index is not None:
            changes[name] = {"before": before, "after": after}
    labelled = _output_tensors(result)
    compared: dict[str, Any] = {"inputs_changed": changed}
    if storage:
        compared["shares_storage"] = {
            name: any(_shares_storage(o, t) for o in labelled.values()) for name, t in tensors.items()
        }
    compared["properties"] = {label: _properties(o, properties) for label, o in labelled.items()}
    if output:
        compared["output"] = result
    return CheckValue("integrity", constraint, compared, {"changes": changes})
