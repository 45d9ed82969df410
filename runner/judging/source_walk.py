"""The source policy's walk: one pass over judged code's syntax tree, finding every :class:`Refusal`.

``runner.judging.source_policy.check`` runs it and reports the first refusal; the rules it applies,
as data with their reasons, are in ``runner.judging.source_rules``.
"""

from __future__ import annotations

import ast
import string

from runner.judging.source_definitions import DefinitionWalk
from runner.judging.source_paths import Refusal as Refusal
from runner.judging.source_paths import denied_torch as _denied_torch
from runner.judging.source_paths import norm as _norm
from runner.judging.source_paths import under as _under
from runner.judging.source_rules import (
    ALLOWED_DUNDER_ATTRIBUTES,
    ALLOWED_DUNDER_NAMES,
    ALLOWED_MODULES,
    BACKEND_NAMESPACES,
    BACKEND_SCOPED,
    BACKEND_WRITE,
    BACKENDS,
    DENIED_ATTRIBUTES,
    DENIED_BUILTINS,
    DENIED_SPECIAL_METHODS,
    DENIED_TORCH,
    FOREIGN_MODULE_NAMES,
    MODULE_ESCAPES,
    NAMED_ATTRIBUTE_BUILTINS,
    NEVER_ALLOWED,
    PROCESS_WIDE_SETTINGS,
    SCOPED_SETTINGS,
    TORCH_INTERNAL_NAMES,
)
from runner.judging.source_tree import is_dunder


def _backends(path: str) -> str | None:
    """The part of ``path`` from ``torch.backends`` on, however it was reached
    (``torch.nn.functional.torch.backends.cudnn`` is ``torch.backends.cudnn``); None if it is not there."""
    if "torch.backends" not in path:  # most paths: one substring test
        return None
    parts = path.split(".")
    for i in range(len(parts) - 1):
        if parts[i] == "torch" and parts[i + 1] == "backends":
            return ".".join(parts[i:])
    return None


# Every kind of node :meth:`SourceWalk._node` has a rule for.
_WALKED = (
    ast.Attribute,
    ast.Name,
    ast.Call,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.MatchClass,
    ast.Global,
    ast.Nonlocal,
    ast.arg,
    ast.AnnAssign,
)


class SourceWalk(DefinitionWalk):
    # --- the walk ---------------------------------------------------------------------------

    def refusals(self) -> list[Refusal]:
        """Every rule the code breaks, in the walk's order (once per walk)."""
        # Imports first, so a name is known as a module wherever it is used.
        for node in self.tree.nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._import(node)
        for node in self.tree.nodes:
            if isinstance(node, _WALKED):  # the kinds of node _node reads; most nodes are none of them
                self._node(node)
        return self.found

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                self._refuse(node, "import", "relative imports are not allowed: solution.py is one file.")
                return
            base = node.module or ""
            self._module(node, base)
            for alias in node.names:
                if alias.name == "*":
                    self._refuse(
                        node, "import", f"`from {base} import *` is not allowed: import the names you use."
                    )
                    continue
                path = f"{base}.{alias.name}"
                self._path(node, path)
                self.modules[alias.asname or alias.name] = path
        else:
            for alias in node.names:
                self._module(node, alias.name)
                local = alias.asname or alias.name.split(".")[0]
                self.modules[local] = alias.name if alias.asname else local
                self.imported_modules.add(local)

    def _module(self, node: ast.AST, name: str) -> None:
        top = name.split(".")[0]
        if top == "torch":
            self._path(node, name)
        elif top in NEVER_ALLOWED:
            self._refuse(
                node, "judge", f"`{name}` is the judge's own code: solutions may not import or use it."
            )
        elif self._allowance(name) is not None:
            self._beyond(node, name, self._allowance(name) or "")
        elif not (top in ALLOWED_MODULES and not self._private_part(name)):
            self._refuse(
                node,
                "import",
                f"importing `{name}` is not allowed: solutions may import torch and its public "
                f"submodules and {', '.join(sorted(ALLOWED_MODULES - {'__future__'}))}.",
            )

    @staticmethod
    def _private_part(path: str) -> str | None:
        return next((p for p in path.split(".") if p.startswith("_") and p != "__future__"), None)

    def _path(self, node: ast.AST, path: str) -> None:
        """A dotted name read through a module: private parts and denied torch parts."""
        allowance = self._allowance(path)
        if allowance is not None:
            self._beyond(node, path, allowance)
            return
        private = self._private_part(path)
        if private is not None and not (path.startswith("__future__") and private == "__future__"):
            if is_dunder(private):
                self._dunder(node, private)
            else:
                self._refuse(
                    node,
                    "private",
                    f"`{path}` is not allowed: `{private}` is a private part of "
                    f"{'PyTorch' if path.startswith('torch') else 'a module'} (its name starts with an "
                    "underscore). Exercises are about public PyTorch: use the documented name instead.",
                )
            return
        denied = _denied_torch(path)
        if denied is not None:
            why = DENIED_TORCH[denied]
            self._refuse(node, "torch-internals", f"`{denied}` is not allowed here: {why}.")
            return
        escape = next((p for p in path.split(".")[1:] if p in MODULE_ESCAPES), None)
        if escape is not None:
            self._refuse(node, "module", f"`{path}` is not allowed: it reaches the `{escape}` module.")
            return
        foreign = next((p for p in path.split(".")[1:] if p in FOREIGN_MODULE_NAMES), None)
        if foreign is not None:
            self._refuse(
                node,
                "module",
                f"`{path}` is not allowed: `{foreign}` is a module another module imported, not one "
                "solutions may use (import the modules the policy allows, by their own names).",
            )
            return
        self._process_wide(node, path)
        leaf = path.split(".")[-1]
        if leaf in DENIED_ATTRIBUTES:
            self._refuse(node, "attribute", f"`{leaf}` is not allowed: {DENIED_ATTRIBUTES[leaf]}.")

    def _process_wide(self, node: ast.AST, path: str) -> None:
        """A public setter of process-wide torch state anywhere in ``path`` (``torch.set_default_dtype``,
        ``torch.autograd.anomaly_mode.detect_anomaly.__call__``)."""
        parts = path.split(".")
        for i, part in enumerate(parts):
            if part in PROCESS_WIDE_SETTINGS:
                self._setting(node, ".".join(parts[: i + 1]))
                return

    def _setting(self, node: ast.AST, name: str) -> Refusal:
        why = PROCESS_WIDE_SETTINGS[name.split(".")[-1]]
        return self._refuse(node, "process-wide", f"`{name}` is not allowed: {why}.")

    def _scoped_setting(self, node: ast.Name | ast.Attribute, path: str | None) -> None:
        """A setter that is also a context manager (``torch.set_grad_enabled``,
        ``torch.backends.cudnn.flags``) used other than as a ``with`` item or a decorator: called on
        its own, kept as a value or entered by hand, what it sets stays in force for the tests."""
        name = path if path is not None else node.attr if isinstance(node, ast.Attribute) else None
        if name is None:
            return
        leaf = name.rpartition(".")[2]
        scoped = SCOPED_SETTINGS.get(leaf)
        if scoped is None and leaf in BACKEND_SCOPED and path is not None and _backends(path) is not None:
            scoped = BACKEND_SCOPED[leaf]
        if scoped is not None and not self._allowed(name) and not self.tree.scoped_call(node):
            what, instead = scoped
            self._refuse(
                node,
                "process-wide",
                f"`{name}` is only allowed as a `with` block or a decorator: called on its own it "
                f"changes {what} for everything that runs after it, the judge's tests included."
                f" Write {instead}.",
            )

    def _backend(self, node: ast.Name | ast.Attribute, path: str) -> None:
        """torch.backends' process-wide switches: one assigned (by a path or an import's alias), or
        one of its modules or flag groups held as a value, where an assignment through it could
        not be read."""
        path = _backends(path) or ""
        if not path or self._allowed(path):
            return
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            self._refuse(node, "process-wide", f"changing `{path}` is not allowed: {BACKEND_WRITE}.")
        elif (
            self._backend_namespace(path) and isinstance(node.ctx, ast.Load) and not self._read_through(node)
        ):
            self._backend_value(node, path)

    def _read_through(self, node: ast.expr) -> bool:
        """``node`` is the object an attribute is named on: ``node.name``, ``getattr(node, "name")``."""
        if self.tree.used_as_base(node):
            return True
        call = self.tree.parents.get(node)
        return (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in NAMED_ATTRIBUTE_BUILTINS
            and call.func.id not in self.modules
            and bool(call.args)
            and call.args[0] is node
        )

    @staticmethod
    def _backend_namespace(path: str) -> bool:
        path = _backends(path) or ""
        return path == BACKENDS or (_under(path, BACKENDS) and path.split(".")[-1] in BACKEND_NAMESPACES)

    def _backend_value(self, node: ast.AST, path: str) -> Refusal:
        return self._refuse(
            node,
            "module-value",
            f"`{path}` may only be read through its names (`{BACKENDS}.mps.is_available()`, "
            f"`{BACKENDS}.mkldnn.enabled`), not passed around or stored: its flags are process-wide "
            "(one assignment changes what every later torch call does, the judge's tests included), "
            "and an assignment through another name could not be read.",
        )

    def _node(self, node: ast.AST) -> None:
        if isinstance(node, ast.Attribute):
            self._attribute(node)
        elif isinstance(node, ast.Name):
            self._name(node)
        elif isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, ast.arg | ast.AnnAssign):
            self._annotation(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self._annotation(node.returns)
            if node.name in DENIED_SPECIAL_METHODS and not self._allowed(node.name):
                self._refuse(
                    node,
                    "special-method",
                    f"defining `{node.name}` is not allowed: it hooks into PyTorch's or Python's machinery, "
                    "where code runs outside the function the judge calls.",
                )
        elif isinstance(node, ast.ClassDef):
            self._class(node)
        elif isinstance(node, ast.MatchClass):
            for attr in node.kwd_attrs:  # `case C(name=x)` reads attribute `name` of the subject
                self._attribute_name(node, _norm(attr), None)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                if is_dunder(name) and name not in ALLOWED_DUNDER_NAMES:
                    self._dunder(node, name)

    def _unbound_method(self, node: ast.Attribute) -> None:
        """``A.method`` of the solution's own class, unless called on ``self`` (``Base.f(self)``)."""
        if not (
            isinstance(node.value, ast.Name)
            and node.value.id in self.tree.classes
            and node.attr in self.tree.instance_methods
        ):
            return
        call = self.tree.parents.get(node)
        if (
            isinstance(call, ast.Call)
            and call.func is node
            and call.args
            and isinstance(call.args[0], ast.Name)
            and self.tree.own_instance(call.args[0])
        ):
            return
        self._refuse(
            node,
            "unbound-method",
            f"`{node.value.id}.{node.attr}` is only called on an instance (`obj.{node.attr}(...)`) "
            "or on `self`: through the class it could be handed any object as `self`.",
        )

    def _attribute(self, node: ast.Attribute) -> None:
        self._unbound_method(node)
        self._plain_call_value(node)
        path = self._dotted(node)
        self._scoped_setting(node, path)
        if path is not None:
            self._path(node, path)
            if _backends(path) is not None:
                self._backend(node, path)
            elif not isinstance(node.ctx, ast.Load):  # no allowance opens patching what it names
                self._refuse(
                    node,
                    "patch",
                    f"changing `{path}` is not allowed: a solution uses PyTorch and Python as they are, "
                    "it does not replace their parts.",
                )
            return
        self._attribute_name(node, node.attr, node.value)

    def _attribute_name(self, node: ast.AST, name: str, base: ast.expr | None) -> None:
        """An attribute read on an object the checker cannot name (an instance, a call's result)."""
        if self._allowed(name):
            return
        if is_dunder(name):
            if name not in ALLOWED_DUNDER_ATTRIBUTES:
                self._dunder(node, name)
            return
        if name.startswith("_"):
            on_self = isinstance(base, ast.Name) and self.tree.own_instance(base)
            if on_self and name in self.tree.own_private and name not in TORCH_INTERNAL_NAMES:
                return
            self._refuse(
                node,
                "private",
                f"`.{name}` is not allowed: names that start with an underscore are private "
                "(PyTorch's internal tables and machinery). Use the public API; your own classes may "
                "keep private attributes on `self`.",
            )
            return
        if name in DENIED_ATTRIBUTES:
            self._refuse(node, "attribute", f"`.{name}` is not allowed: {DENIED_ATTRIBUTES[name]}.")
        elif name in PROCESS_WIDE_SETTINGS:
            self._setting(node, name)
        elif name == "format" and base is not None and not isinstance(base, ast.Constant):
            self._refuse(
                node,
                "format",
                "`.format` is only allowed on a string literal (or use an f-string): a format string "
                "built at run time can read attributes by name.",
            )
        elif name == "format" and isinstance(base, ast.Constant) and isinstance(base.value, str):
            self._format_fields(node, base.value)
        elif name in MODULE_ESCAPES:
            self._refuse(node, "module", f"`.{name}` is not allowed: it reaches the `{name}` module.")

    def _format_fields(self, node: ast.AST, text: str, depth: int = 0) -> None:
        """A literal's replacement fields, nested ones in format specs (``{0:{1.x}}``) included."""
        try:
            parsed = list(string.Formatter().parse(text))
        except ValueError:
            return
        for _, name, spec, _ in parsed:
            if name and ("." in name or "[" in name):
                self._refuse(
                    node,
                    "format",
                    f"the format field `{{{name}}}` reads attributes or items by name: "
                    "pass the value itself.",
                )
                return
            if spec and depth < 2:
                self._format_fields(node, spec, depth + 1)

    def _name(self, node: ast.Name) -> None:
        name = node.id
        if isinstance(node.ctx, ast.Load):
            self._plain_call_value(node)
            if name in self.modules:
                self._scoped_setting(node, self.modules[name])
                self._backend(node, self.modules[name])
        if (
            name in self.imported_modules
            and isinstance(node.ctx, ast.Load)
            and not self.tree.used_as_base(node)
        ):
            self._refuse(
                node,
                "module-value",
                f"the module `{name}` may only be used through its names (`{name}.something`), "
                "not passed around or stored.",
            )
            return
        if self._allowed(name):
            return
        if name in DENIED_BUILTINS and name not in self.modules:
            self._refuse(node, "builtin", f"`{name}` is not allowed: {DENIED_BUILTINS[name]}.")
        elif name in NAMED_ATTRIBUTE_BUILTINS and name not in self.modules and not self.tree.called(node):
            self._refuse(
                node,
                "dynamic-attribute",
                f"`{name}` may only be called directly, with the attribute's name written as a string.",
            )
        elif is_dunder(name) and name not in ALLOWED_DUNDER_NAMES:
            self._dunder(node, name)

    def _call(self, node: ast.Call) -> None:
        self._plain_call(node)
        func = node.func
        if not isinstance(func, ast.Name):
            return
        if func.id in NAMED_ATTRIBUTE_BUILTINS and func.id not in self.modules:
            if len(node.args) < 2 or (node.keywords and func.id != "getattr"):
                self._refuse(node, "dynamic-attribute", f"`{func.id}` needs an object and a name.")
                return
            name = node.args[1]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self._refuse(
                    node,
                    "dynamic-attribute",
                    f"`{func.id}` with a computed name is not allowed: write the attribute's name "
                    "(`obj.name`), so what the code uses can be read.",
                )
                return
            attr = _norm(name.value)
            target = node.args[0]
            path = self._dotted(target)
            if path is not None:
                self._path(node, f"{path}.{attr}")
                read = f"{path}.{attr}"
                if func.id == "getattr" and self._backend_namespace(read) and not self._allowed(read):
                    self._backend_value(node, read)
                if func.id in ("setattr", "delattr") and _backends(path) is not None:
                    self._refuse(
                        node, "process-wide", f"changing `{path}.{attr}` is not allowed: {BACKEND_WRITE}."
                    )
                elif func.id in ("setattr", "delattr"):  # the same patch as `path.attr = …`
                    self._refuse(
                        node,
                        "patch",
                        f"changing `{path}.{attr}` is not allowed: a solution uses PyTorch and Python as "
                        "they are, it does not replace their parts.",
                    )
            else:
                self._attribute_name(node, attr, target)
        elif func.id == "type" and len(node.args) == 3:
            self._refuse(node, "class", "`type(name, bases, namespace)` is not allowed: use `class`.")
