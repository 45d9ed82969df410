"""The value a check returns from the sandbox: what is compared, and what only words the message.

Encoded by :func:`runner.records.values.encode` as
``{"__check__": {"kind", "constraint", "compared", "seen"}}``.
``compared`` is compared with the reference's, with the case's tolerances; when it holds ``"holds"``
(the check's own verdict on the code, e.g. "passes gradcheck"), validation also requires the
reference's to be true. ``seen`` is never compared: it carries the measurements (first changed index,
finite-difference error, input descriptions) the host turns into words when the comparison fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TAG = "__check__"


@dataclass(frozen=True)
class CheckValue:
    kind: str
    constraint: str
    compared: Any
    seen: Any

    def payload(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "constraint": self.constraint,
            "compared": self.compared,
            "seen": self.seen,
        }


def unwrap(encoded: Any) -> dict[str, Any] | None:
    """The payload of an encoded check value, or None for any other value."""
    if isinstance(encoded, dict) and set(encoded) == {TAG} and isinstance(encoded[TAG], dict):
        payload: dict[str, Any] = encoded[TAG]
        return payload
    return None


def reference_failure(encoded: Any) -> str | None:
    """Why the reference's own check value says it breaks the check, or None when it holds."""
    payload = unwrap(encoded)
    if payload is None:
        return None
    compared = payload.get("compared")
    if isinstance(compared, dict) and compared.get("holds") is False:
        kind = str(payload.get("kind", "check"))
        return f"the reference fails its own {kind} check" + _WHY.get(kind, "")
    return None


_WHY = {
    "gradients": " (torch.autograd.gradcheck, or finite differences, disagree with its backward)",
    "optimizer": (
        " (it deviates from the optimizer it is checked against, changes a parameter without a "
        "gradient, or modifies something other than parameters and state)"
    ),
}
