"""The statement's own example notation as custom input, read as data with :mod:`ast`, never run.

A statement writes its example input as Python::

    x = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64)
    mask = torch.ones(2, 3, dtype=torch.bool)
    dim = 1

:func:`read_notation` reads such text (assignments one a line, or a dict whose values are such
expressions) into the argument data of ``runner.format.inputs`` by walking its syntax tree: only
literals and these constructors with literal arguments are understood —
``torch.tensor``, ``torch.zeros``, ``torch.ones``, ``torch.full``, ``torch.arange``, ``torch.eye``
(``dtype=torch.<dtype>``, ``requires_grad=True``), and the methods ``.reshape``/``.view``,
``.float()``, ``.double()``, ``.long()``, ``.int()``, ``.bool()``, ``.to(torch.<dtype>)`` and
``.requires_grad_()`` on them. Random constructors (``torch.randn`` after ``torch.manual_seed``)
are refused: their values depend on torch's generator, which the host does not run; write the
values instead. Nothing is imported, called or evaluated.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from runner.format.inputs import DTYPES, MAX_ELEMENTS, InputError

ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}
_CASTS = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "bool": "bool",
}
_RANDOM = {"randn", "rand", "randint", "randperm", "normal", "manual_seed", "rand_like", "randn_like"}


class _Tensor:
    """A tensor being read: its values as a flat list, its shape and dtype."""

    def __init__(self, flat: list[Any], shape: list[int], dtype: str, requires_grad: bool = False) -> None:
        if len(flat) > MAX_ELEMENTS:
            raise InputError(f"input: a tensor has at most {MAX_ELEMENTS:,} values")
        self.flat, self.shape, self.dtype, self.requires_grad = flat, shape, dtype, requires_grad

    def data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tensor": _nest(self.flat, self.shape), "dtype": self.dtype}
        return out | ({"requires_grad": True} if self.requires_grad else {})


def _nest(flat: list[Any], shape: list[int]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = math.prod(shape[1:])
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _cast(value: Any, dtype: str) -> Any:
    if dtype == "bool":
        return bool(value)
    if dtype.startswith(("int", "uint")):
        return int(value)
    return float(value)


def _dtype(node: ast.expr, where: str) -> str:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        name = ALIASES.get(node.attr, node.attr)
        if name in DTYPES:
            return name
    raise InputError(f"{where}: dtype must be one of torch.{', torch.'.join(DTYPES)}")


def _literal(node: ast.expr, where: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise InputError(
            f"{where}: only literal values and torch.tensor/zeros/ones/full/arange/eye are understood "
            f"here, not {ast.unparse(node)[:80]!r}"
        ) from None


def _shape_args(args: list[ast.expr], where: str) -> list[int]:
    values = [_literal(a, where) for a in args]
    if len(values) == 1 and isinstance(values[0], list | tuple):
        values = list(values[0])
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise InputError(f"{where}: a shape is whole numbers, e.g. torch.zeros(2, 3)")
    if math.prod(values) > MAX_ELEMENTS:
        raise InputError(f"{where}: the input is too large (more than {MAX_ELEMENTS:,} values)")
    return values


def _keywords(call: ast.Call, where: str, default: str) -> tuple[str, bool]:
    dtype, requires_grad = default, False
    for keyword in call.keywords:
        if keyword.arg == "dtype":
            dtype = _dtype(keyword.value, where)
        elif keyword.arg == "requires_grad":
            requires_grad = _literal(keyword.value, where) is True
        elif keyword.arg != "device":
            raise InputError(f"{where}: the argument {keyword.arg}= is not understood here")
    return dtype, requires_grad


def _kinds(flat: list[Any]) -> str:
    if flat and all(isinstance(v, bool) for v in flat):
        return "bool"
    if flat and all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        return "int64"
    return "float32"


def _flatten(data: Any, where: str) -> tuple[list[Any], list[int]]:
    if isinstance(data, list | tuple):
        if not data:
            return [], [0]
        parts = [_flatten(d, where) for d in data]
        if any(p[1] != parts[0][1] for p in parts):
            raise InputError(f"{where}: rows of a tensor must all have the same shape")
        return [v for p in parts for v in p[0]], [len(data), *parts[0][1]]
    if isinstance(data, bool | int | float):
        return [data], []
    raise InputError(f"{where}: a tensor's values must be numbers or booleans in nested lists")


def _constructor(call: ast.Call, name: str, where: str) -> _Tensor:
    if name in _RANDOM:
        raise InputError(
            f"{where}: torch.{name} makes random values, which are not read here (their values come "
            "from torch's generator); write the values, e.g. torch.tensor([[0.5, -1.2]]), or use "
            "zeros/ones/full/arange/eye"
        )
    if name == "tensor":
        if len(call.args) != 1:
            raise InputError(f"{where}: torch.tensor takes one nested list of values")
        flat, shape = _flatten(_literal(call.args[0], where), where)
        dtype, grad = _keywords(call, where, _kinds(flat))
        return _Tensor([_cast(v, dtype) for v in flat], shape, dtype, grad)
    if name in ("zeros", "ones"):
        shape = _shape_args(call.args, where)
        dtype, grad = _keywords(call, where, "float32")
        return _Tensor([_cast(1 if name == "ones" else 0, dtype)] * math.prod(shape), shape, dtype, grad)
    if name == "full":
        if len(call.args) != 2:
            raise InputError(f"{where}: torch.full takes a shape and a value")
        shape = _shape_args(call.args[:1], where)
        fill = _literal(call.args[1], where)
        if not isinstance(fill, bool | int | float):
            raise InputError(f"{where}: torch.full's value must be a number")
        dtype, grad = _keywords(call, where, _kinds([fill]))
        return _Tensor([_cast(fill, dtype)] * math.prod(shape), shape, dtype, grad)
    if name == "arange":
        bounds = [_literal(a, where) for a in call.args]
        if not 1 <= len(bounds) <= 3 or not all(
            isinstance(b, int | float) and not isinstance(b, bool) for b in bounds
        ):
            raise InputError(
                f"{where}: torch.arange takes numbers: (end), (start, end) or (start, end, step)"
            )
        start, end, step = (
            (0, bounds[0], 1)
            if len(bounds) == 1
            else (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1)
        )
        if step == 0:
            raise InputError(f"{where}: torch.arange's step must not be 0")
        span = (end - start) / step
        if not math.isfinite(span):
            raise InputError(f"{where}: the input is too large (more than {MAX_ELEMENTS:,} values)")
        count = max(0, math.ceil(span))
        if count > MAX_ELEMENTS:
            raise InputError(f"{where}: the input is too large (more than {MAX_ELEMENTS:,} values)")
        dtype, grad = _keywords(call, where, _kinds(bounds))
        return _Tensor([_cast(start + i * step, dtype) for i in range(count)], [count], dtype, grad)
    if name == "eye":
        sizes = _shape_args(call.args, where)
        if len(sizes) not in (1, 2):
            raise InputError(f"{where}: torch.eye takes n, or n and m")
        n, m = sizes[0], sizes[-1]
        dtype, grad = _keywords(call, where, "float32")
        flat = [_cast(1 if i == j else 0, dtype) for i in range(n) for j in range(m)]
        return _Tensor(flat, [n, m], dtype, grad)
    raise InputError(f"{where}: torch.{name} is not understood here (tensor, zeros, ones, full, arange, eye)")


def _method(tensor: _Tensor, call: ast.Call, name: str, where: str) -> _Tensor:
    if name in ("reshape", "view"):
        shape = [_literal(a, where) for a in call.args]
        if len(shape) == 1 and isinstance(shape[0], list | tuple):
            shape = list(shape[0])
        if shape.count(-1) == 1 and all(isinstance(s, int) for s in shape):
            known = math.prod(s for s in shape if s != -1)
            shape[shape.index(-1)] = len(tensor.flat) // known if known else 0
        if not all(isinstance(s, int) and s >= 0 for s in shape) or math.prod(shape) != len(tensor.flat):
            raise InputError(f"{where}: cannot reshape {len(tensor.flat)} values to {tuple(shape)}")
        return _Tensor(tensor.flat, shape, tensor.dtype, tensor.requires_grad)
    if name in _CASTS or name == "to":
        dtype = _CASTS[name] if name in _CASTS else _dtype(call.args[0] if call.args else call.func, where)
        return _Tensor([_cast(v, dtype) for v in tensor.flat], tensor.shape, dtype, tensor.requires_grad)
    if name == "requires_grad_":
        return _Tensor(tensor.flat, tensor.shape, tensor.dtype, True)
    raise InputError(f"{where}: the method .{name}() is not understood here")


def _value(node: ast.expr, where: str) -> Any:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id == "torch":
            return _constructor(node, node.func.attr, where).data()
        inner = _value(owner, where)
        if isinstance(inner, dict) and "tensor" in inner:
            flat, shape = _flatten(inner["tensor"], where)
            tensor = _Tensor(flat, shape, inner["dtype"], bool(inner.get("requires_grad")))
            return _method(tensor, node, node.func.attr, where).data()
        raise InputError(f"{where}: .{node.func.attr}() is only understood on a tensor")
    if isinstance(node, ast.Dict):
        out = {}
        for key, item in zip(node.keys, node.values, strict=True):
            name = _literal(key, where) if key is not None else None
            if not isinstance(name, str):
                raise InputError(f"{where}: table keys must be strings")
            out[name] = _value(item, f"{where}.{name}")
        return out
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(item, f"{where}[{i}]") for i, item in enumerate(node.elts)]
    return _literal(node, where)


def read_notation(text: str) -> dict[str, Any] | None:
    """The arguments of text in the statement's notation, or None when it is not Python at all."""
    try:
        tree = ast.parse(text.strip(), mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    body = [s for s in tree.body if not _is_torch_import(s)]
    if len(body) == 1 and isinstance(body[0], ast.Expr):
        value = _value(body[0].value, "input")
        if not isinstance(value, dict):
            raise InputError("input: give the arguments as a table of name = value")
        return value
    arguments: dict[str, Any] = {}
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            _value(statement.value, "input")  # refuses torch.manual_seed(...) with its reason
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            raise InputError(
                f"input, line {statement.lineno}: only assignments `name = value` are understood "
                "(one argument each)"
            )
        name = statement.targets[0].id
        arguments[name] = _value(statement.value, f"input.{name}")
    return arguments


def _is_torch_import(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Import) and [a.name for a in statement.names] == ["torch"]
