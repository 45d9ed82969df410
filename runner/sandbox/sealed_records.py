"""The harness's result records, written by code the learner's cannot patch.

The harness shares its interpreter with the learner's code: a ``json.dumps``, an ``os.write``,
a ``runner.records.values.encode`` or a ``torch.Tensor.tolist`` replaced from ``solution.py``
would otherwise rewrite what a case returned on its way to the host, and any case would pass.
So the harness encodes values and writes records with *sealed* functions
(``runner.testing.sealed``: every global a constant captured before the learner's import), over
CPython's C JSON encoder and torch's C tensor methods, taken from their C types, not looked up
on ``torch.Tensor``, a class the learner can add attributes to. Made once, in the zygote (the
harness is imported there); each job binds them to locals before the learner's import.

The encoding is :func:`runner.records.values.encode`'s, which stays the in-process path (tests
without a sandbox); ``tests/runner/sandbox/test_sealed_records.py`` keeps the two equal.
"""

from __future__ import annotations

import _json
import math
import posix
import sys
from collections.abc import Callable
from typing import Any

from runner.records import values
from runner.records.check_value import TAG as CHECK_TAG
from runner.records.check_value import CheckValue
from runner.records.values import MAX_DEPTH, MAX_ITEMS, UnsupportedValue
from runner.testing import sealed

Sender = Callable[[int, dict[str, Any]], None]
Encoder = Callable[[Any], Any]

# Names the templates use; seal() binds each to a constant. Never read at run time.
ENCODE: Any = None
ENCODE_TENSOR: Any = None
ENCODE_TENSOR_DATA: Any = None
ENCODE_FLOAT: Any = None
ENCODE_INT: Any = None
TENSOR: Any = None
PARAMETER: Any = None
MODULES: Any = None
REFUSED: Any = None
PLAIN: Any = None
ISFINITE: Any = None
TENSOR_TYPE_NAME: Any = None
DETACH: Any = None
CPU: Any = None
RESHAPE: Any = None
TOLIST: Any = None
NUMEL: Any = None
IS_COMPLEX: Any = None
IS_FLOATING: Any = None
LAYOUT: Any = None
DTYPE: Any = None
SHAPE: Any = None
STRIDED: Any = None
PAYLOAD_OF: Any = None
CHUNKS: Any = None
WRITE: Any = None
LIMIT: Any = None
type_name_of: Any = None
str_of: Any = None
ISNAN: Any = None
ISINF: Any = None
NO_SUBCLASS_HANDLERS: Any = None
DTYPE_NAME: Any = None


def _encode_float_template(x: float) -> Any:
    if ISNAN(x):
        return {"__float__": "nan"}
    if ISINF(x):
        return {"__float__": "inf" if x > 0 else "-inf"}
    return float.__float__(x)


def _encode_template(value: Any, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise UnsupportedValue("the returned value is nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is float:
        return ENCODE_FLOAT(value)
    if kind is int:
        return ENCODE_INT(value)
    if isinstance(value, int):
        return ENCODE_INT(int.__add__(value, 0))  # the int itself, not what its methods say
    if isinstance(value, float):
        return ENCODE_FLOAT(float.__add__(value, 0.0))
    if isinstance(value, str):
        return str.__str__(value)
    if kind is CheckValue:  # built by runner.testing.checks: the one place the reserved tag is made
        return {CHECK_TAG: ENCODE[0](PAYLOAD_OF(value), depth + 1)}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        items = dict.items(value)
        if len(items) > MAX_ITEMS:
            raise UnsupportedValue(
                "a dict with " + int.__repr__(len(items)) + " items is too large to compare"
            )
        for key, item in items:
            key_kind = type(key)
            if key_kind is not str and key_kind is not int:
                raise UnsupportedValue("dict keys must be strings or ints, not " + key_kind.__name__)
            if key_kind is str and str.startswith(key, "__") and str.endswith(key, "__"):
                raise UnsupportedValue("dict key " + str.__repr__(key) + " is reserved")
            out[key if key_kind is str else int.__repr__(key)] = ENCODE[0](item, depth + 1)
        return out
    if isinstance(value, list) or isinstance(value, tuple):  # noqa: SIM101 (a union is built at run time)
        seq = list(list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value))
        if len(seq) > MAX_ITEMS:
            raise UnsupportedValue(
                "a sequence of " + int.__repr__(len(seq)) + " items is too large to compare"
            )
        items_out = []
        for item in seq:
            items_out.append(ENCODE[0](item, depth + 1))
        return items_out
    if kind is TENSOR or kind is PARAMETER:
        return ENCODE_TENSOR(value)
    numpy = MODULES.get("numpy")
    if numpy is not None and (
        kind is numpy.ndarray or (isinstance(value, numpy.generic) and kind.__module__ == "numpy")
    ):
        return ENCODE[0](value.tolist(), depth + 1)
    raise UnsupportedValue(REFUSED(value))


def _encode_tensor_template(tensor: Any) -> dict[str, Any]:
    with NO_SUBCLASS_HANDLERS():  # a Tensor subclass's __torch_function__ is not asked
        return ENCODE_TENSOR_DATA(tensor)


def _encode_tensor_data_template(tensor: Any) -> dict[str, Any]:
    t = CPU(DETACH(tensor))
    if IS_COMPLEX(t) or LAYOUT(t) != STRIDED:
        raise UnsupportedValue("complex or sparse tensors are not supported as case values")
    count = NUMEL(t)
    if count > MAX_ITEMS:
        raise UnsupportedValue("tensor with " + int.__repr__(count) + " elements is too large to compare")
    data = TOLIST(RESHAPE(t, -1))
    if IS_FLOATING(t) and not PLAIN(data):
        encoded = []
        for x in data:
            encoded.append(ENCODE_FLOAT(x))
        data = encoded
    shape = []
    for size in SHAPE(t):
        shape.append(int.__int__(size))
    dtype = str.removeprefix(DTYPE_NAME(DTYPE(t)), "torch.")
    return {"__tensor__": {"dtype": dtype, "shape": shape, "data": data}}


def _plain_template(data: Any) -> bool:
    """A list of finite floats exactly (already encoded), checked in C loops, as values does."""
    if type(data) is not list:
        return False
    if not data:
        return True
    if set(map(type, data)) != {float}:
        return False
    return ISFINITE(sum(data))


def _send_template(fd: int, record: dict[str, Any]) -> None:
    data = str.encode("".join(CHUNKS(record, 0)) + "\n")
    if len(data) > LIMIT and record.get("type") == "case":
        kind = "value" if record.get("status") == "ok" else "output"
        short = {"status": "error", "exception": "ValueTooLarge"}
        for key in ("type", "name", "time_ms"):
            if key in record:
                short[key] = record[key]
        short["message"] = (
            "The case's "
            + kind
            + " is too large to judge: "
            + int.__repr__(len(data) // 1024)
            + " KB encoded, at most "
            + int.__repr__(LIMIT // 1024)
            + " KB."
        )
        data = str.encode("".join(CHUNKS(short, 0)) + "\n")
    view = memoryview(data)
    while view:
        written = WRITE(fd, view)
        view = view[written:]


sealed.prepare(
    _encode_float_template,
    _encode_template,
    _encode_tensor_template,
    _encode_tensor_data_template,
    _plain_template,
    _send_template,
)


def _refuse(value: Any) -> Any:
    raise TypeError(f"not JSON data: {type(value).__name__}")


def _payload(value: CheckValue) -> dict[str, Any]:
    get = object.__getattribute__
    return {
        "kind": get(value, "kind"),
        "constraint": get(value, "constraint"),
        "compared": get(value, "compared"),
        "seen": get(value, "seen"),
    }


def make(record_limit: int) -> tuple[Encoder, Sender] | None:
    """The sealed encoder and sender, or None where sealing is not supported (another Python)."""
    if not sealed.supported():
        return None
    import torch

    base = torch._C.TensorBase
    chunks = _json.make_encoder(
        None, _refuse, _json.encode_basestring_ascii, None, ":", ",", False, False, False
    )
    common = {"type_name_of": sealed.type_name_function(), "str_of": str.__str__}
    encode_float = sealed.seal(_encode_float_template, ISNAN=math.isnan, ISINF=math.isinf)
    cell: list[Any] = [None]
    encode_tensor_data = sealed.seal(
        _encode_tensor_data_template,
        ENCODE_FLOAT=encode_float,
        DETACH=base.__dict__["detach"],
        CPU=base.__dict__["cpu"],
        RESHAPE=base.__dict__["reshape"],
        TOLIST=base.__dict__["tolist"],
        NUMEL=base.__dict__["numel"],
        IS_COMPLEX=base.__dict__["is_complex"],
        IS_FLOATING=base.__dict__["is_floating_point"],
        LAYOUT=base.__dict__["layout"].__get__,
        DTYPE=base.__dict__["dtype"].__get__,
        SHAPE=base.__dict__["shape"].__get__,
        STRIDED=torch.strided,
        PLAIN=sealed.seal(_plain_template, ISFINITE=math.isfinite),
        DTYPE_NAME=torch.dtype.__repr__,
        **common,
    )
    encode_tensor = sealed.seal(
        _encode_tensor_template,
        NO_SUBCLASS_HANDLERS=torch._C.DisableTorchFunctionSubclass,
        ENCODE_TENSOR_DATA=encode_tensor_data,
    )
    encode = sealed.seal(
        _encode_template,
        ENCODE=cell,
        ENCODE_FLOAT=encode_float,
        ENCODE_INT=values._encode_int,  # checks the size of an exact int: nothing to forge
        ENCODE_TENSOR=encode_tensor,
        TENSOR=torch.Tensor,
        PARAMETER=torch.nn.Parameter,
        MODULES=sys.modules,
        REFUSED=values._refused,  # words the refusal only
        PAYLOAD_OF=sealed.seal(_payload),
        **common,
    )
    cell[0] = encode
    send = sealed.seal(_send_template, CHUNKS=chunks, WRITE=posix.write, LIMIT=record_limit)
    return encode, send
