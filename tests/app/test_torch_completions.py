"""The editor's torch completions are in step with the installed (pinned) torch."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_torch_completions", ROOT / "scripts" / "gen-torch-completions.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_completions_match_the_installed_torch() -> None:
    script = _script()
    committed = script.OUTPUT.read_text()
    assert committed == script.render(script.build()), (
        "app/static/torch-completions.json is out of step with torch: run scripts/gen-torch-completions.py"
    )
    data = json.loads(committed)
    names = {module: {e["name"] for e in entries} for module, entries in data["modules"].items()}
    assert {"tensor", "matmul", "nn"} <= names["torch"]
    assert {"Linear", "Module", "functional"} <= names["torch.nn"]
    assert {"relu", "softmax", "cross_entropy"} <= names["torch.nn.functional"]
    assert {"view", "unsqueeze", "backward"} <= {e["name"] for e in data["tensor_methods"]}
    assert not any(n.startswith("_") for group in names.values() for n in group)
