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
MEAN = "m = x.mean(dim=1, keepdim=True)\n"


def _center_rows(body: str) -> str:
    return "import torch\n\n\ndef center_rows(x):\n" + "".join(f"    {line}\n" for line in body.splitlines())


# Each works in the caller's `x` through the named alias, then restores its bytes exactly.
RESTORED = {
    ".data in place": MEAN + "saved = x.clone()\nx.data.sub_(m)\nout = x.clone()\nx.data.copy_(saved)\nreturn out",
    ".data item assignment": MEAN
    + "saved = x.clone()\nd = x.data\nd[:] = d - m\nout = d.clone()\nd[:] = saved\nreturn out",
    ".data of a view": MEAN
    + "saved = x.clone()\nv = x[0:].data\nv.sub_(m)\nout = x.clone()\nv.copy_(saved)\nreturn out",
    ".data, a row at a time": MEAN
    + "saved = x.clone()\nfor i in range(x.shape[0]):\n    x.data[i].sub_(m[i])\nout = x.clone()\n"
    "x.data.copy_(saved)\nreturn out",
    "nn.Parameter alias": MEAN
    + "saved = x.clone()\np = torch.nn.Parameter(x, requires_grad=False)\np.sub_(m)\nout = p.clone()\n"
    "p.copy_(saved)\nreturn out",
    "detach()": MEAN + "saved = x.clone()\nd = x.detach()\nd.sub_(m)\nout = d.clone()\nd.copy_(saved)\nreturn out",
    "view": MEAN
    + "saved = x.clone()\nv = x.view(-1)\nv.sub_(m.expand_as(x).reshape(-1))\nout = x.clone()\nv.copy_(saved.view(-1))\n"
    "return out",
    "as_strided": MEAN
    + "saved = x.clone()\ns = torch.as_strided(x.data, x.shape, x.stride())\ns.sub_(m)\nout = s.clone()\n"
    "s.copy_(saved)\nreturn out",
    "no_grad in place": MEAN
    + "saved = x.clone()\nwith torch.no_grad():\n    x.sub_(m)\nout = x.clone()\nwith torch.no_grad():\n"
    "    x.copy_(saved)\nreturn out",
    "inference_mode in place": MEAN
    + "saved = x.clone()\nwith torch.inference_mode():\n    x.data.sub_(m)\n    out = x.clone()\n"
    "    x.data.copy_(saved)\nreturn out.clone()",
    "out= argument": MEAN
    + "saved = x.clone()\ntorch.sub(x, m, out=x.data)\nout = x.clone()\ntorch.add(saved, 0, out=x.data)\nreturn out",
    "index_put_ through .data": MEAN
    + "saved = x.clone()\nd = x.data\nd.index_put_((torch.arange(x.shape[0]),), d - m)\nout = d.clone()\n"
    "d.index_put_((torch.arange(x.shape[0]),), saved)\nreturn out",
    "masked_scatter_ through .data": MEAN
    + "saved = x.clone()\nd = x.data\nmask = torch.ones_like(d, dtype=torch.bool)\nd.masked_scatter_(mask, d - m)\n"
    "out = d.clone()\nd.masked_scatter_(mask, saved)\nreturn out",
    "a fused optimizer's kernel on .data": MEAN
    + "saved = x.clone()\nd = x.data\nd.addcmul_(m.expand_as(d), torch.full_like(d, -1.0))\nout = d.clone()\n"
    "d.copy_(saved)\nreturn out",
}

# Reads through the same aliases, nothing written: must be accepted.
HONEST = {
    ".data read": "d = x.data\nreturn d - d.mean(dim=1, keepdim=True)",
    "detach() read": "d = x.detach()\nreturn d - d.mean(dim=1, keepdim=True)",
    "out= into its own buffer": "out = torch.empty_like(x)\ntorch.sub(x, x.mean(dim=1, keepdim=True), out=out)\n"
    "return out",
    "a copy written in place": "y = x.clone()\ny.data.sub_(y.mean(dim=1, keepdim=True))\nreturn y",
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
