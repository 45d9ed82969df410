"""Where the client keeps its server and token: a JSON file readable only by its owner.

``$TORCHDRILL_CONFIG``, else ``$XDG_CONFIG_HOME/torchdrill/config.json``, else
``~/.config/torchdrill/config.json``. The terminal and the notebook share it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from torchdrill.errors import ClientError


def config_path() -> Path:
    explicit = os.environ.get("TORCHDRILL_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "torchdrill" / "config.json"


def save_config(data: dict[str, str]) -> Path:
    """Write the config with 0600 permissions (the token is a password)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=2)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path


def load_config() -> dict[str, str]:
    path = config_path()
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ClientError("not logged in: run `torchdrill login --server URL` first") from None
    except (OSError, ValueError) as exc:
        raise ClientError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not data.get("server") or not data.get("token"):
        raise ClientError(f"{path} has no server or token: run `torchdrill login --server URL` again")
    return {k: str(v) for k, v in data.items()}
