"""docs/deploy.md's table "Every setting" against the code, both ways, defaults included.

The code's settings: every field of ``app.kit.settings.Settings``, the runner worker's
(``runner.transport.worker_settings.DEFAULTS``), and every other ``TORCHDRILL_*`` name the
product reads from the environment (``os.environ.get("TORCHDRILL_…", default)``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic.fields import PydanticUndefined

from app.kit.settings import Settings
from runner.transport.worker_settings import DEFAULTS as RUNNER_DEFAULTS

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "deploy.md"
ENV_READ = re.compile(r'environ\.get\(\s*"(TORCHDRILL_[A-Z0-9_]+)"(?:\s*,\s*"([^"]*)")?')
NOT_SETTINGS = {"TORCHDRILL_CONFIG"}  # the CLI client's config file, not a server setting


def _spelled(value: Any) -> str:
    """A default as the table writes it: `120`, `text`, `false`, or the word unset / empty."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and not value:
        return "empty"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def code_settings() -> dict[str, str | None]:
    """name -> default as the table spells it (None: read, default not stated in one place)."""
    found: dict[str, str | None] = {}
    for name, field in Settings.model_fields.items():
        default = field.default_factory() if field.default_factory else field.default  # type: ignore[call-arg]
        assert default is not PydanticUndefined, name
        found[f"TORCHDRILL_{name.upper()}"] = _spelled(default)
    for name, runner_default in RUNNER_DEFAULTS.items():
        spelled = _spelled(runner_default)
        assert found.get(name, spelled) == spelled, f"{name}: the runner's default differs from the web's"
        found[name] = spelled
    for path in [*REPO.joinpath("app").rglob("*.py"), *REPO.joinpath("runner").rglob("*.py")]:
        for name, default in ENV_READ.findall(path.read_text()):
            if name not in NOT_SETTINGS and name not in found:
                found[name] = _spelled(default) if default else "unset"
    return found


def documented_settings() -> dict[str, str]:
    """The table under "## Every setting": name -> its default cell's first word or `literal`."""
    text = DOC.read_text()
    section = text.split("## Every setting", 1)[1].split("\n## ", 1)[0]
    table: dict[str, str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`TORCHDRILL_"):
            continue
        name = cells[0].strip("`")
        literal = re.match(r"`([^`]*)`", cells[1])
        table[name] = literal.group(1) if literal else cells[1].split()[0].strip(";,")
        assert name not in NOT_SETTINGS
    return table


def test_every_setting_of_the_code_is_in_the_table_with_its_true_default() -> None:
    documented = documented_settings()
    missing = sorted(set(code_settings()) - set(documented))
    assert not missing, f"settings the code reads that docs/deploy.md does not list: {missing}"
    wrong = {
        name: (documented[name], default)
        for name, default in code_settings().items()
        if default is not None and documented[name] != default
    }
    assert not wrong, f"(documented, true) defaults that differ: {wrong}"


def test_every_setting_of_the_table_is_read_by_the_code() -> None:
    unknown = sorted(set(documented_settings()) - set(code_settings()))
    assert not unknown, f"docs/deploy.md lists settings nothing reads: {unknown}"


def test_the_check_can_fail() -> None:
    """The parser finds the table (so the two checks above compare something)."""
    documented = documented_settings()
    assert documented["TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S"] == "120"
    assert len(documented) >= len(Settings.model_fields)
