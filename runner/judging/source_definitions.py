"""The source policy walk's state and its rules for how judged code names things and what it
defines: a problem's allowances (which open exactly what they name), dunder names, dotted paths,
functions that may only be called plainly, string annotations and class definitions.

:class:`runner.judging.source_walk.SourceWalk` builds on it with the walk itself (imports, paths,
attributes, names and calls).
"""

from __future__ import annotations

import ast

from runner.judging.source_paths import Refusal as Refusal
from runner.judging.source_paths import denied_torch as _denied_torch
from runner.judging.source_paths import under as _under
from runner.judging.source_rules import (
    DENIED_ATTRIBUTES,
    DENIED_TORCH,
    DENIED_UNDER_ALLOWANCE,
    MODULE_ESCAPES,
    PLAIN_CALL_ONLY,
    PROCESS_WIDE_SETTINGS,
)
from runner.judging.source_tree import SourceTree, is_dunder

# torch's tensor classes by their last name (any path to them: `torch.nn.parameter.Parameter`,
# `torch.nn.UninitializedParameter`, `torch.masked.MaskedTensor`): a subclass changes what every torch
# function does with it, and an uninitialised one names the class it becomes.
_TENSOR_CLASS_NAMES = frozenset(
    {"Parameter", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin", "Buffer"}
)

# A context manager's own methods: called by hand, what it sets is never put back (`with` calls them).
_CONTEXT_METHODS = frozenset({"__enter__", "__exit__", "__aenter__", "__aexit__"})


def _tensor_class(path: str) -> bool:
    leaf = path.rpartition(".")[2]
    return path.startswith("torch.") and (leaf.endswith("Tensor") or leaf in _TENSOR_CLASS_NAMES)


class DefinitionWalk:
    def __init__(self, tree: ast.Module, allow: frozenset[str]) -> None:
        self.tree = SourceTree(tree)
        self.allow = allow
        self.modules: dict[str, str] = {}  # local name -> the dotted path an import bound to it
        self.imported_modules: set[str] = set()  # names bound by `import x` (certainly modules)
        # Every refusal, in the walk's order. The rules add to it as they find one (``_refuse``)
        # rather than yield it: a generator per rule and node cost most of the walk's time.
        self.found: list[Refusal] = []

    def _refuse(self, node: ast.AST, rule: str, message: str) -> Refusal:
        """A refusal at ``node``, added to :attr:`found` (and returned)."""
        end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        refusal = Refusal(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, rule, message, end)
        self.found.append(refusal)
        return refusal

    def _allowed(self, path: str) -> bool:
        return any(_under(path, a) for a in self.allow)

    def _allowance(self, path: str) -> str | None:
        """The problem's allowance ``path`` is under (the longest), or None."""
        return max((a for a in self.allow if _under(path, a)), key=len, default=None)

    def _beyond(self, node: ast.AST, path: str, allowance: str) -> None:
        """An allowance opens exactly what it names: the parts of ``path`` after it meet every rule
        (no private part, no denied part of torch, no escape to another module, no denied
        attribute such as ``redispatch``), so allowing ``torch.ops`` does not open redispatch or
        private kernels, nor allowing ``numpy`` numpy's private modules."""
        rest = path[len(allowance) + 1 :].split(".") if path != allowance else []
        for part in rest:
            if is_dunder(part):
                self._dunder(node, part)
                return
            if part.startswith("_"):
                self._refuse(
                    node,
                    "private",
                    f"`{path}` is not allowed: the problem allows `{allowance}`, not `{part}`, a private "
                    "part under it (its name starts with an underscore).",
                )
                return
            if part in MODULE_ESCAPES:
                self._refuse(node, "module", f"`{path}` is not allowed: it reaches the `{part}` module.")
                return
        for denied_path, why in DENIED_UNDER_ALLOWANCE.items():
            if _under(path, denied_path) and not _under(allowance, denied_path):
                self._refuse(node, "module", f"`{denied_path}` is not allowed: {why}.")
                return
        denied = _denied_torch(path)
        if denied is not None and len(denied) > len(allowance):
            self._refuse(node, "torch-internals", f"`{denied}` is not allowed here: {DENIED_TORCH[denied]}.")
            return
        setting = next((p for p in rest if p in PROCESS_WIDE_SETTINGS), None)
        if setting is not None:
            self._refuse(
                node,
                "process-wide",
                f"`{path}` is not allowed (the problem allows `{allowance}`, not `{setting}`): "
                f"{PROCESS_WIDE_SETTINGS[setting]}.",
            )
            return
        if rest and rest[-1] in DENIED_ATTRIBUTES:
            self._refuse(node, "attribute", f"`{rest[-1]}` is not allowed: {DENIED_ATTRIBUTES[rest[-1]]}.")

    def _dunder(self, node: ast.AST, name: str) -> Refusal:
        if name in _CONTEXT_METHODS:
            return self._refuse(
                node,
                "context",
                f"calling `{name}` by hand is not allowed: enter a context manager with `with ...:` "
                "(or `contextlib.ExitStack` inside one), so what it sets — a device, autograd's mode, "
                "a backend's flags — is put back when the block ends instead of staying in force for "
                "the judge's tests.",
            )
        instead = " (`type(x)` gives an object's class)" if name == "__class__" else ""
        return self._refuse(
            node,
            "dunder",
            f"`{name}` is not allowed: it reaches Python's internals (classes, namespaces, code). "
            f"Solutions use objects through their public methods{instead}.",
        )

    def _called_path(self, node: ast.expr) -> str | None:
        """The dotted path a name or attribute stands for, when an import bound it; else None."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        return self._dotted(node)

    def _plain_call(self, node: ast.Call) -> None:
        """A function of ``PLAIN_CALL_ONLY`` called with more than one positional argument."""
        path = self._called_path(node.func)
        if path not in PLAIN_CALL_ONLY or self._allowed(path):
            return
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
            self._refuse(
                node,
                "dynamic-attribute",
                f"`{path}` with more than one argument is not allowed: {PLAIN_CALL_ONLY[path]}.",
            )

    def _plain_call_value(self, node: ast.expr) -> None:
        """A function of ``PLAIN_CALL_ONLY`` kept or passed as a value could be called with anything."""
        path = self._called_path(node)
        if path in PLAIN_CALL_ONLY and not self._allowed(path):
            call = self.tree.parents.get(node)
            if not (isinstance(call, ast.Call) and call.func is node):
                self._refuse(
                    node,
                    "dynamic-attribute",
                    f"`{path}` as a value is not allowed: call it directly ({PLAIN_CALL_ONLY[path]}).",
                )

    def _annotation(self, annotation: ast.expr | None) -> None:
        """A string in an annotation is code: ``typing.get_type_hints`` evaluates it, and
        ``functools.singledispatch``'s ``register`` calls that on the function it is given."""
        if annotation is None:
            return
        for part in ast.walk(annotation):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                self._refuse(
                    part,
                    "annotation",
                    "a string annotation is not allowed: Python's `typing` evaluates it as code the "
                    "judge cannot read. Write the annotation as an expression (`x: torch.Tensor`).",
                )
                return

    def _class(self, node: ast.ClassDef) -> None:
        for keyword in node.keywords:
            if keyword.arg == "metaclass" and not self._allowed("metaclass"):
                self._refuse(node, "class", "a metaclass is not allowed: define a plain class.")
        for base in node.bases:
            path = self._dotted(base)
            if path is not None and _tensor_class(path) and not self._allowed(path):
                self._refuse(
                    node,
                    "class",
                    f"subclassing `{path}` is not allowed: a tensor subclass changes what every torch "
                    "function does with it. Work with plain tensors.",
                )

    def _dotted(self, node: ast.expr) -> str | None:
        """The dotted path of ``a.b.c`` when ``a`` is a name an import bound; else None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.modules:
            return ".".join([self.modules[node.id], *reversed(parts)])
        return None
