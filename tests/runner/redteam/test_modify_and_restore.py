"""Modify-and-restore, by every alias of the input's memory, in the real sandbox.

Each attempt uses the caller's ``x`` as scratch space and puts its bytes back before returning, so
the values alone cannot tell. ``.data`` (and ``nn.Parameter(x)``) make an alias whose version
counter is its own; views, ``detach()``, ``as_strided`` and in-place writes under ``no_grad`` or
``inference_mode`` share the input's; ``out=`` writes through an argument. The check_call case of
center-rows sees every one (the write watch of ``runner.testing.checks.writes``, the version
counter), with and without the source policy; honest code that only reads through the same
aliases passes.
"""

from __future__ import annotations

import pytest

from runner.engine import Runner
from tests.runner.checks_support import judge

CENTER = "center-rows"


def _center_rows(body: str) -> str:
    return "import torch\n\n\ndef center_rows(x):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def _lines(*lines: str) -> str:
    return "\n".join(lines)


KEEP = ("m = x.mean(dim=1, keepdim=True)", "saved = x.clone()")

# Each works in the caller's `x` through the named alias, then restores its bytes exactly.
RESTORED = {
    ".data in place": _lines(*KEEP, "x.data.sub_(m)", "out = x.clone()", "x.data.copy_(saved)", "return out"),
    ".data item assignment": _lines(
        *KEEP, "d = x.data", "d[:] = d - m", "out = d.clone()", "d[:] = saved", "return out"
    ),
    ".data of a view": _lines(
        *KEEP, "v = x[0:].data", "v.sub_(m)", "out = x.clone()", "v.copy_(saved)", "return out"
    ),
    ".data, a row at a time": _lines(
        *KEEP,
        "for i in range(x.shape[0]):",
        "    x.data[i].sub_(m[i])",
        "out = x.clone()",
        "x.data.copy_(saved)",
        "return out",
    ),
    "nn.Parameter alias": _lines(
        *KEEP,
        "p = torch.nn.Parameter(x, requires_grad=False)",
        "p.sub_(m)",
        "out = p.clone()",
        "p.copy_(saved)",
        "return out",
    ),
    "detach()": _lines(
        *KEEP, "d = x.detach()", "d.sub_(m)", "out = d.clone()", "d.copy_(saved)", "return out"
    ),
    "view": _lines(
        *KEEP,
        "v = x.view(-1)",
        "v.sub_(m.expand_as(x).reshape(-1))",
        "out = x.clone()",
        "v.copy_(saved.view(-1))",
        "return out",
    ),
    "as_strided": _lines(
        *KEEP,
        "s = torch.as_strided(x.data, x.shape, x.stride())",
        "s.sub_(m)",
        "out = s.clone()",
        "s.copy_(saved)",
        "return out",
    ),
    "no_grad in place": _lines(
        *KEEP,
        "with torch.no_grad():",
        "    x.sub_(m)",
        "out = x.clone()",
        "with torch.no_grad():",
        "    x.copy_(saved)",
        "return out",
    ),
    "inference_mode in place": _lines(
        *KEEP,
        "with torch.inference_mode():",
        "    x.data.sub_(m)",
        "    out = x.clone()",
        "    x.data.copy_(saved)",
        "return out.clone()",
    ),
    "out= argument": _lines(
        *KEEP,
        "torch.sub(x, m, out=x.data)",
        "out = x.clone()",
        "torch.add(saved, 0, out=x.data)",
        "return out",
    ),
    "index_put_ through .data": _lines(
        *KEEP,
        "d = x.data",
        "rows = (torch.arange(x.shape[0]),)",
        "d.index_put_(rows, d - m)",
        "out = d.clone()",
        "d.index_put_(rows, saved)",
        "return out",
    ),
    "masked_scatter_ through .data": _lines(
        *KEEP,
        "d = x.data",
        "mask = torch.ones_like(d, dtype=torch.bool)",
        "d.masked_scatter_(mask, d - m)",
        "out = d.clone()",
        "d.masked_scatter_(mask, saved)",
        "return out",
    ),
    "a fused optimizer's kernel on .data": _lines(
        *KEEP,
        "d = x.data",
        "d.addcmul_(m.expand_as(d), torch.full_like(d, -1.0))",
        "out = d.clone()",
        "d.copy_(saved)",
        "return out",
    ),
}

# Reads through the same aliases, nothing written: must be accepted.
HONEST = {
    ".data read": _lines("d = x.data", "return d - d.mean(dim=1, keepdim=True)"),
    "detach() read": _lines("d = x.detach()", "return d - d.mean(dim=1, keepdim=True)"),
    "out= into its own buffer": _lines(
        "out = torch.empty_like(x)", "torch.sub(x, x.mean(dim=1, keepdim=True), out=out)", "return out"
    ),
    "a copy written in place": _lines(
        "y = x.clone()", "y.data.sub_(y.mean(dim=1, keepdim=True))", "return y"
    ),
}


@pytest.mark.parametrize("route", sorted(RESTORED))
def test_modify_and_restore_through_any_alias_is_caught(runner: Runner, route: str) -> None:
    result = judge(runner, CENTER, _center_rows(RESTORED[route]))
    assert not result.accepted, (route, result)
    failed = {c.name: c.message for c in result.cases if c.status == "failed"}
    assert "input_left_alone" in failed, failed
    message = failed["input_left_alone"]
    assert "input-not-modified" in message and "put its values back" in message, message


@pytest.mark.parametrize("route", [".data in place", "nn.Parameter alias", "out= argument"])
def test_the_same_routes_are_caught_under_the_source_policy(checked_runner: Runner, route: str) -> None:
    """The policy lets `.data` through (everyday optimizer code): the run-time watch decides."""
    result = judge(checked_runner, CENTER, _center_rows(RESTORED[route]))
    assert result.verdict.value == "wrong_answer", result
    assert "put its values back" in next(c.message for c in result.cases if c.name == "input_left_alone")


@pytest.mark.parametrize("route", sorted(HONEST))
def test_reading_through_the_same_aliases_is_accepted(runner: Runner, route: str) -> None:
    result = judge(runner, CENTER, _center_rows(HONEST[route]))
    assert result.accepted, (route, result)


def test_the_watch_cannot_be_taken_off_the_stack(runner: Runner) -> None:
    """Popping the judge's mode (private names; here without the policy) is seen, never a pass."""
    body = (
        "import torch.utils._python_dispatch as d\n"
        "with d._pop_mode_temporarily():\n"
        "    m = x.mean(dim=1, keepdim=True)\n"
        "    saved = x.clone()\n"
        "    x.data.sub_(m)\n"
        "    out = x.clone()\n"
        "    x.data.copy_(saved)\n"
        "return out"
    )
    result = judge(runner, CENTER, _center_rows(body))
    assert not result.accepted, result
