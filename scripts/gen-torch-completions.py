#!/usr/bin/env python3
"""Write app/static/torch-completions.json: the editor's torch names, from the installed (pinned) torch.

    .venv/bin/python scripts/gen-torch-completions.py          # rewrite the file
    .venv/bin/python scripts/gen-torch-completions.py --check  # exit 1 if it is out of step

The editor completes ``torch.``, ``torch.nn.``, ``torch.nn.functional.`` and Tensor methods from
this list, so it offers exactly what the sandbox's torch has. A test runs ``--check``'s comparison:
upgrading torch without regenerating the file fails it.
"""

from __future__ import annotations

import inspect
import json
import sys
import types
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).resolve().parents[1] / "app" / "static" / "torch-completions.json"
MODULES = ("torch", "torch.nn", "torch.nn.functional")


def _kind(value: Any) -> str:
    if isinstance(value, types.ModuleType):
        return "namespace"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def _public(obj: Any) -> list[dict[str, str]]:
    names = []
    for name in sorted(set(dir(obj))):
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a lazy attribute that fails to load is not offered
            continue
        names.append({"name": name, "type": _kind(value)})
    return names


def build() -> dict[str, Any]:
    """The completion data of the torch importable here."""
    import importlib

    import torch

    return {
        "torch_version": torch.__version__,
        "modules": {name: _public(importlib.import_module(name)) for name in MODULES},
        "tensor_methods": [e for e in _public(torch.Tensor) if e["type"] != "class"],
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=None, separators=(",", ":"), sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    text = render(build())
    if "--check" in argv:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT} is out of step with the installed torch: run {sys.argv[0]}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
