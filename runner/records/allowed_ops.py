"""What an allowed-operations rule (``allow_ops``) lets judged code use, and the names it speaks.

An allow rule is the converse of ``forbid_ops``: instead of naming the built-ins a learner must
not reach, it lets through only the aten operators the problem's reference dispatched in the same
block (``CaseExpectation.observed``), an explicit ``extra`` list, and :data:`ALWAYS_ALLOWED` (views,
reshapes and tensor creation: they compute nothing). Everything else is reported with the
statement's sentence, whatever the route that reached it: a public name, a method, ``out=`` or an
in-place variant, a private aten name, a fused kernel (``aten._fused_adam``, ``aten.addmm``),
``torch.func`` — the observation is PyTorch's dispatch level, below all of them.

Operators are compared by :func:`canonical` name: the overload packet (``aten.exp.out`` and
``aten.exp.default`` are ``aten.exp``) with an in-place variant read as its functional op
(``aten.exp_`` is ``aten.exp``). PyTorch decomposes its composite (CompositeImplicitAutograd)
operations before the dispatch level, so what is compared is what actually ran: ``F.linear`` is
``aten.t`` and ``aten.mm``/``aten.addmm``; an operator with its own kernel (``aten.logsumexp``,
``aten.logcumsumexp``, ``aten._softmax``) is compared as itself and is *not* decomposed further,
because a built-in decomposes into the very elementary operations a from-scratch solution uses.

This module is plain data and string functions: the host imports it without torch.
"""

from __future__ import annotations

# Operators that compute nothing a rule could be about: views and reshapes, copies and dtype
# changes, and tensor creation. An allow rule never needs to list them.
ALWAYS_ALLOWED: frozenset[str] = frozenset(
    f"aten.{name}"
    for name in (
        # views and reshapes
        "view",
        "_unsafe_view",
        "reshape",
        "expand",
        "permute",
        "transpose",
        "t",
        "unsqueeze",
        "squeeze",
        "select",
        "slice",
        "narrow",
        "as_strided",
        "alias",
        "detach",
        "split",
        "split_with_sizes",
        "unbind",
        "view_as_real",
        "view_as_complex",
        "_reshape_alias",
        "lift_fresh",
        # copies and dtype/device moves
        "clone",
        "copy",
        "_to_copy",
        "contiguous",
        # creation
        "empty",
        "empty_like",
        "empty_strided",
        "zeros",
        "zeros_like",
        "ones",
        "ones_like",
        "full",
        "full_like",
        "fill",
        "zero",
        "scalar_tensor",
        "arange",
        "_local_scalar_dense",
    )
)


def canonical(op: str) -> str:
    """The name an allow rule compares: ``aten.exp_`` → ``aten.exp``; packets unchanged.

    ``aten.__and__``-style dunders and names ending in ``__`` are left alone."""
    if op.endswith("_") and not op.endswith("__"):
        return op[:-1]
    return op


def allowed(op: str, reference: frozenset[str] | set[str], extra: frozenset[str] | set[str]) -> bool:
    """Whether an operator the learner's code dispatched is allowed by a rule whose reference
    dispatched ``reference`` and whose author added ``extra`` (canonical names)."""
    name = canonical(op)
    return name in ALWAYS_ALLOWED or name in reference or name in extra
