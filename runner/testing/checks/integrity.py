"""Input integrity and tensor properties (in the sandbox): what a call did to its inputs and returned.

``check_call(fn, *args)`` copies every tensor argument before the call, calls ``fn`` and reports, as
plain data compared with the reference's on the host:

* for each tensor argument, the index of its first element changed by the call (None: unchanged),
  so "do not modify the input" and "update it in place" are both checked; elements are compared
  bit for bit (``-0.0`` is not ``0.0``, a NaN's payload counts), and an argument whose values are
  back where they were but whose version counter moved (an in-place write, then another that put
  the values back) or whose memory an aten operator wrote through any alias (``.data``, views,
  ``out=``: ``runner.testing.checks.writes``) is reported as ``"restored"``; ``"unwatched"`` when
  that watch was taken off torch's stack during the call;
* for each tensor argument, whether the output shares its storage (a view) or not (a copy), the
  output's tensors found in tuples, lists, dicts and dataclasses too (a cache returned in a dict);
* the output's shape, dtype, device, ``requires_grad`` and contiguity;
* the output itself (``output=False`` leaves the values to other cases).

What the statement requires is what the reference does: a reference that returns a view makes
"must be a view" a rule, one that returns a float32 copy makes "same dtype, new tensor" one.

The check is sealed (``runner.testing.sealed``): :data:`check_call` is made when this module is
imported — in the zygote, before any problem's tests or learner's code — from templates whose every
global name is a constant captured then, and every tensor primitive it reads inputs and outputs
through is torch's C descriptor on ``torch._C.TensorBase`` (``clone``, ``nonzero``, ``view``,
``untyped_storage``, the version counter, …), not a lookup through ``torch.Tensor`` at call time.
A solution that replaces ``Tensor.clone``, ``Tensor.nonzero``, ``torch.view_as_real``, this
module's helpers or ``runner.testing.check_call`` itself changes nothing the check does, and a
case's reference to it (``tests.py``'s ``check_call``) is bound to the sealed function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.records.check_value import CheckValue
from runner.testing import sealed
from runner.testing.checks import writes
from runner.testing.checks.arguments import argument_names, index_of

PROPERTIES = ("shape", "dtype", "device", "requires_grad", "contiguous")


OUTPUT_TENSORS = 64  # tensors looked for in a returned container, at most
OUTPUT_DEPTH = 4

# The names the templates below use; seal() binds each to a constant captured at import. Never
# read at run time.
TENSOR: Any = None
CLONE: Any = None
DETACH: Any = None
RESHAPE: Any = None
VIEW: Any = None
NE: Any = None
NONZERO: Any = None
NUMEL: Any = None
ITEM: Any = None
GETITEM: Any = None
IS_COMPLEX: Any = None
IS_FLOATING_POINT: Any = None
ELEMENT_SIZE: Any = None
UNTYPED_STORAGE: Any = None
STORAGE_DATA_PTR: Any = None
IS_CONTIGUOUS: Any = None
SHAPE: Any = None
DTYPE: Any = None
DEVICE: Any = None
DEVICE_TYPE: Any = None
REQUIRES_GRAD: Any = None
VERSION: Any = None
VIEW_AS_REAL: Any = None
INT_OF_WIDTH: Any = None
IS_DATACLASS: Any = None
FIELDS: Any = None
GET_ATTRIBUTE: Any = None
DICT_ITEMS: Any = None
TUPLE_ITER: Any = None
LIST_ITER: Any = None
STR_OF: Any = None
FIRST_CHANGE: Any = None
SHARES_STORAGE: Any = None
OUTPUT_TENSORS_OF: Any = None
PROPERTIES_OF: Any = None
ARGUMENT_NAMES: Any = None
INDEX_OF: Any = None
CHECK_VALUE: Any = None
KNOWN_PROPERTIES: Any = None
MAX_TENSORS: Any = None
MAX_DEPTH: Any = None
WATCH_BEGIN: Any = None
WATCH_END: Any = None


def _first_change_template(before: Any, after: Any) -> tuple[list[int] | None, Any, Any]:
    """Index of the first element that differs bit for bit (floats compared as integers of the
    same width: ``-0.0`` is not ``0.0``, a NaN's payload counts), with its old and new values."""
    if tuple(SHAPE(before)) != tuple(SHAPE(after)) or DTYPE(before) is not DTYPE(after):
        return [], f"shape {tuple(SHAPE(before))}", f"shape {tuple(SHAPE(after))}"
    old = RESHAPE(DETACH(before), -1)
    new = RESHAPE(DETACH(after), -1)
    old_bits, new_bits = old, new
    if IS_COMPLEX(old):
        old_bits, new_bits = VIEW_AS_REAL(old), VIEW_AS_REAL(new)
    if IS_FLOATING_POINT(old_bits):
        width = INT_OF_WIDTH[ELEMENT_SIZE(old_bits)]
        old_bits, new_bits = VIEW(old_bits, width), VIEW(new_bits, width)
    changed = NONZERO(NE(old_bits, new_bits))
    if NUMEL(changed) == 0:
        return None, None, None
    flat = int(ITEM(GETITEM(changed, (0, 0))))
    return INDEX_OF(flat, tuple(SHAPE(before))), ITEM(GETITEM(old, flat)), ITEM(GETITEM(new, flat))


def _shares_storage_template(a: Any, b: Any) -> bool:
    try:
        return bool(
            STORAGE_DATA_PTR(UNTYPED_STORAGE(a)) == STORAGE_DATA_PTR(UNTYPED_STORAGE(b))
            and NUMEL(a)
            and NUMEL(b)
        )
    except (RuntimeError, NotImplementedError):
        return False


def _output_tensors_template(result: Any) -> dict[str, Any]:
    """The output's tensors by label: the output itself, or those inside tuples, lists, dicts
    (string or int keys) and dataclasses, a few levels deep. A subclass of a tuple, list or dict
    (a named tuple, torch's ``return_types``, a learner's own class) is read through the built-in's
    own methods, as the host's encoder reads it, so it can neither hide what it holds nor invent
    more. Walked with an explicit stack (a sealed template has no nested functions), in the order
    a recursive walk takes."""
    found: dict[str, Any] = {}
    stack: list[tuple[Any, str, int]] = []
    kind = type(result)
    if issubclass(kind, tuple) or issubclass(kind, list):  # the labels the checks have always used
        top = list(TUPLE_ITER(result)) if issubclass(kind, tuple) else list(LIST_ITER(result))
        for i in range(len(top) - 1, -1, -1):
            stack.append((top[i], "the output" if len(top) == 1 else f"output[{i}]", 1))
    else:
        stack.append((result, "the output", 0))
    while stack:
        value, label, depth = stack.pop()
        if len(found) >= MAX_TENSORS or depth > MAX_DEPTH:
            continue
        kind = type(value)
        children: list[tuple[Any, str, int]] = []
        if isinstance(value, TENSOR):
            found[label] = value
        elif issubclass(kind, tuple) or issubclass(kind, list):
            items = list(TUPLE_ITER(value)) if issubclass(kind, tuple) else list(LIST_ITER(value))
            for i in range(len(items)):
                children.append((items[i], f"{label}[{i}]", depth + 1))
        elif issubclass(kind, dict):
            for key, item in list(DICT_ITEMS(value)):
                if type(key) is str or type(key) is int:
                    children.append((item, f"{label}[{key!r}]", depth + 1))
        elif IS_DATACLASS(value) and not isinstance(value, type):
            for f in FIELDS(value):
                children.append((GET_ATTRIBUTE(value, f.name), f"{label}.{f.name}", depth + 1))
        for i in range(len(children) - 1, -1, -1):
            stack.append(children[i])
    return found


def _properties_template(tensor: Any, wanted: Sequence[str]) -> dict[str, Any]:
    every = {
        "shape": list(SHAPE(tensor)),
        "dtype": STR_OF(DTYPE(tensor)).removeprefix("torch."),
        "device": DEVICE_TYPE(DEVICE(tensor)),
        "requires_grad": bool(REQUIRES_GRAD(tensor)),
        "contiguous": bool(IS_CONTIGUOUS(tensor)),
    }
    chosen: dict[str, Any] = {}
    for p in wanted:
        chosen[p] = every[p]
    return chosen


def _check_call_template(
    fn: Any,
    *args: Any,
    names: Sequence[str] | None = None,
    constraint: str = "",
    output: bool = True,
    properties: Sequence[str] = PROPERTIES,
    storage: bool = True,
) -> CheckValue:
    """Call ``fn(*args)`` and report what it did to its tensor arguments and what it returned."""
    unknown = set(properties) - set(KNOWN_PROPERTIES)
    if unknown:
        raise ValueError(f"check_call: unknown properties {sorted(unknown)}; known: {KNOWN_PROPERTIES}")
    arg_names = list(names) if names is not None else ARGUMENT_NAMES(fn, len(args))
    tensors: dict[str, Any] = {}
    for i in range(len(args)):
        if isinstance(args[i], TENSOR):
            tensors[arg_names[i]] = args[i]
    copies: dict[str, Any] = {}
    versions: dict[str, int] = {}
    for name, t in DICT_ITEMS(tensors):
        copies[name] = CLONE(DETACH(t))
        versions[name] = VERSION(t)  # every in-place write moves it
    WATCH_BEGIN(list(tensors.values()))  # every write into their memory, by any alias
    try:
        result = fn(*args)
    finally:
        written = WATCH_END()

    changed: dict[str, Any] = {}
    changes: dict[str, Any] = {}
    for name, tensor in DICT_ITEMS(tensors):
        if written is None:  # the watch was taken off torch's stack: nothing can be said
            changed[name] = "unwatched"
            continue
        index, before, after = FIRST_CHANGE(copies[name], tensor)
        writes = VERSION(tensor) - versions[name]
        aliased = False
        try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
            aliased = STORAGE_DATA_PTR(UNTYPED_STORAGE(tensor)) in written
        except (RuntimeError, NotImplementedError):
            pass
        if index is None and (writes or aliased):
            changed[name] = "restored"
            changes[name] = {"writes": writes}
            continue
        changed[name] = index
        if index is not None:
            changes[name] = {"before": before, "after": after}
    labelled = OUTPUT_TENSORS_OF(result)
    compared: dict[str, Any] = {"inputs_changed": changed}
    if storage:
        shares: dict[str, bool] = {}
        for name, t in DICT_ITEMS(tensors):
            shares[name] = False
            for o in list(labelled.values()):
                if SHARES_STORAGE(o, t):
                    shares[name] = True
                    break
        compared["shares_storage"] = shares
    described: dict[str, Any] = {}
    for label, o in DICT_ITEMS(labelled):
        described[label] = PROPERTIES_OF(o, properties)
    compared["properties"] = described
    if output:
        compared["output"] = result
    return CHECK_VALUE("integrity", constraint, compared, {"changes": changes})


def _writes_during_template(fn: Any, *tensors: Any) -> tuple[Any, Any]:
    """Call ``fn()`` and report, for each of ``tensors``, whether an aten operator wrote its memory
    during the call, by any alias: ``(result, [bool, ...])``, or ``(result, "unwatched")`` when the
    watch was taken off torch's stack (which never matches a reference's report)."""
    watched = []
    for t in tensors:
        if not isinstance(t, TENSOR):
            raise TypeError("writes_during: expected tensors")
        watched.append(t)
    WATCH_BEGIN(watched)
    try:
        result = fn()
    finally:
        written = WATCH_END()
    if written is None:
        return result, "unwatched"
    report: list[bool] = []
    for t in watched:
        ptr = 0
        try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
            ptr = STORAGE_DATA_PTR(UNTYPED_STORAGE(t))
        except (RuntimeError, NotImplementedError):
            pass
        report.append(bool(ptr) and ptr in written)
    return result, report


sealed.prepare(
    _writes_during_template,
    _first_change_template,
    _shares_storage_template,
    _output_tensors_template,
    _properties_template,
    _check_call_template,
    index_of,
)


def _sealed_check_call() -> Any:
    """``check_call`` with every function and primitive it uses captured now, as sealed constants."""
    import dataclasses

    import torch

    base: Any = torch._C.TensorBase.__dict__
    primitives: dict[str, Any] = {
        "TENSOR": torch.Tensor,
        "CLONE": base["clone"],
        "DETACH": base["detach"],
        "RESHAPE": base["reshape"],
        "VIEW": base["view"],
        "NE": base["ne"],
        "NONZERO": base["nonzero"],
        "NUMEL": base["numel"],
        "ITEM": base["item"],
        "GETITEM": base["__getitem__"],
        "IS_COMPLEX": base["is_complex"],
        "IS_FLOATING_POINT": base["is_floating_point"],
        "ELEMENT_SIZE": base["element_size"],
        "UNTYPED_STORAGE": base["untyped_storage"],
        "STORAGE_DATA_PTR": torch._C.StorageBase.__dict__["data_ptr"],
        "IS_CONTIGUOUS": base["is_contiguous"],
        "SHAPE": base["shape"].__get__,
        "DTYPE": base["dtype"].__get__,
        "DEVICE": base["device"].__get__,
        "DEVICE_TYPE": torch.device.__dict__["type"].__get__,
        "REQUIRES_GRAD": base["requires_grad"].__get__,
        # The version counter through torch's C descriptor, not ``tensor._version`` (which a class
        # attribute on ``torch.Tensor`` or a subclass could shadow).
        "VERSION": base["_version"].__get__,
        "VIEW_AS_REAL": torch.view_as_real,
        "INT_OF_WIDTH": {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64},
        "IS_DATACLASS": dataclasses.is_dataclass,
        "FIELDS": dataclasses.fields,
        "GET_ATTRIBUTE": object.__getattribute__,
        "DICT_ITEMS": dict.items,
        "TUPLE_ITER": tuple.__iter__,
        "LIST_ITER": list.__iter__,
        "STR_OF": str,
        "INDEX_OF": sealed.seal(index_of),
        "MAX_TENSORS": OUTPUT_TENSORS,
        "MAX_DEPTH": OUTPUT_DEPTH,
    }
    helpers = {
        "FIRST_CHANGE": sealed.seal(_first_change_template, **primitives),
        "SHARES_STORAGE": sealed.seal(_shares_storage_template, **primitives),
        "OUTPUT_TENSORS_OF": sealed.seal(_output_tensors_template, **primitives),
        "PROPERTIES_OF": sealed.seal(_properties_template, **primitives),
    }
    function = sealed.seal(
        _check_call_template,
        **primitives,
        **helpers,
        WATCH_BEGIN=writes.BEGIN,
        WATCH_END=writes.END,
        ARGUMENT_NAMES=argument_names,
        CHECK_VALUE=CheckValue,
        KNOWN_PROPERTIES=PROPERTIES,
    )
    # seal() keeps positional defaults only. A copy: changing it could only make a check differ
    # from the reference's (which is computed in another process), never agree.
    function.__kwdefaults__ = dict(_check_call_template.__kwdefaults__ or {})
    return function


check_call: Any = _sealed_check_call()


def _sealed_writes_during() -> Any:
    """``writes_during`` with the write watch and the storage primitives as sealed constants."""
    import torch

    base: Any = torch._C.TensorBase.__dict__
    return sealed.seal(
        _writes_during_template,
        TENSOR=torch.Tensor,
        UNTYPED_STORAGE=base["untyped_storage"],
        STORAGE_DATA_PTR=torch._C.StorageBase.__dict__["data_ptr"],
        WATCH_BEGIN=writes.BEGIN,
        WATCH_END=writes.END,
    )


# ``x._version`` sees writes through ``x``, its views and ``detach()``; ``.data`` and
# ``nn.Parameter(x)`` are aliases with counters of their own, so a case that checks "not modified,
# not even temporarily" outside ``check_call`` (a sampler iterated later, tensors inside a list, a
# model's parameters, ``p.grad``) wraps the call in this.
writes_during: Any = _sealed_writes_during()
