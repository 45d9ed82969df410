"""The syntax tree of judged code, walked once: every node in order, each node's parent, and what
the solution defines itself (its private names, its classes and their instance methods).

The source policy's walk (``runner.judging.source_walk``) asks it where a name sits: whether
``self`` is a method's own instance, whether a name is the base of an attribute or the called function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _static_or_class(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in func.decorator_list
    )


class SourceTree:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        # One walk (breadth first, as ``ast.walk``): every node in order, each node's parent, and
        # the solution's own private names. The children are read from each node's ``_fields``
        # directly, once: ``ast.walk`` and ``ast.iter_child_nodes`` would read them twice.
        self.nodes: list[ast.AST] = [tree]
        self.parents: dict[ast.AST, ast.AST] = {}
        own: set[str] = set()
        # ``Load``/``Store``/``Del`` are shared by every expression and hold nothing: not walked.
        nodes, parents, node_type, context = self.nodes, self.parents, ast.AST, ast.expr_context
        i = 0
        while i < len(nodes):
            parent = nodes[i]
            i += 1
            for field in parent._fields:
                value = getattr(parent, field, None)
                if isinstance(value, node_type):
                    if not isinstance(value, context):
                        parents[value] = parent
                        nodes.append(value)
                elif isinstance(value, list):
                    for item in value:
                        if isinstance(item, node_type):
                            parents[item] = parent
                            nodes.append(item)
            if isinstance(parent, ast.Attribute | ast.ClassDef):
                own.update(self._defined_private(parent))
        self.own_private = frozenset(n for n in own if n.startswith("_") and not is_dunder(n))
        # The solution's classes and the methods that take an instance: such a method reached
        # through its class could be handed any object as `self` (`A.method(torch.nn)`).
        self.classes = {n.name for n in self.nodes if isinstance(n, ast.ClassDef)}
        self.instance_methods = {
            item.name
            for n in self.nodes
            if isinstance(n, ast.ClassDef)
            for item in n.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not _static_or_class(item)
        }

    @staticmethod
    def _defined_private(node: ast.AST) -> Iterator[str]:
        """Names the solution gives its own objects: ``self._x = …`` and class bodies."""
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                yield node.attr
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield item.name
                elif isinstance(item, ast.Assign | ast.AnnAssign):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    yield from (t.id for t in targets if isinstance(t, ast.Name))

    def own_instance(self, name: ast.Name) -> bool:
        """Whether ``name`` is the first parameter (``self``/``cls``) of one of the solution's
        methods, never rebound: then it is an instance (or the class) of the solution's own."""
        node: ast.AST = name
        while (node := self.parents.get(node)) is not None:  # type: ignore[assignment]
            if isinstance(node, ast.ClassDef):
                return False  # a class body binds no parameter
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
            if node.args.vararg or node.args.kwarg:
                params += [a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None]
            if name.id not in params:
                continue  # a closure: the name is bound further out
            positional = [*node.args.posonlyargs, *node.args.args]
            first = positional[0] if positional else None
            return (
                name.id in ("self", "cls")
                and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and isinstance(self.parents.get(node), ast.ClassDef)
                and first is not None
                and first.arg == name.id
                and not any(
                    isinstance(n, ast.Name) and n.id == name.id and not isinstance(n.ctx, ast.Load)
                    for n in ast.walk(node)
                )
            )
        return False

    def used_as_base(self, node: ast.expr) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, ast.Attribute) and parent.value is node

    def called(self, node: ast.Name) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, ast.Call) and parent.func is node

    def scoped_call(self, node: ast.expr) -> bool:
        """``node`` is called where what the call sets is put back at the block's end: as a ``with``
        item (``with f(...):``) or a decorator (``@f(...)``)."""
        call = self.parents.get(node)
        if not (isinstance(call, ast.Call) and call.func is node):
            return False
        holder = self.parents.get(call)
        if isinstance(holder, ast.withitem):
            return holder.context_expr is call
        if isinstance(holder, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return any(d is call for d in holder.decorator_list)
        return False
