"""The version-tag watch over torch's writable classes (``runner.testing.class_versions``), in a fresh
interpreter: the mechanism reads a private CPython 3.11 field, so these tests fail if a change, or a
change put back, ever stops being reported (another interpreter is refused by the guard before this
runs: ``test_interpreter_gate.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import json, sys
    import torch, torch.nn as nn
    from runner.testing import class_versions

    class_versions.prepare()
    events = []
    report = class_versions.seal_report(lambda *event: events.append(list(event)))
    class_versions.baseline()
    out = {"watched": class_versions.watched()}

    def step(name, change):
        change()
        report()
        out[name] = [e[1] for e in events]
        events.clear()

    class Mine(nn.Linear):
        pass

    def own_subclass():
        Mine.forward = lambda self, x: x
        nn.Linear(2, 2)(torch.zeros(1, 2))

    def restored():
        original = nn.Linear.__dict__["forward"]
        nn.Linear.forward = lambda self, x: x
        nn.Linear.forward = original

    step("nothing", lambda: None)
    step("own subclass", own_subclass)
    step("restored", restored)
    step("later", lambda: None)
    print(json.dumps(out))
""")


def _run() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_change_put_back_is_reported_and_honest_use_is_not() -> None:
    out = _run()
    assert isinstance(out["watched"], int) and out["watched"] > 500  # torch's public classes, not a handful
    assert out["nothing"] == []
    assert out["own subclass"] == []  # a learner's class is theirs; creating it moves no tag of torch's
    assert out["restored"], out
    assert "torch.nn.modules.linear.Linear" in out["restored"][0]  # bases first: the class itself
    assert out["later"] == out["restored"]  # once changed, every later case is told too
