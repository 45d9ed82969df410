"""Host side of the guard: verify the events of a run and judge each case's observations.

Events (``runner.testing.guard``) arrive on the result channel with a per-job sequence number and a
MAC (:func:`event_mac`) under the key the host gave the job's spare (``RawRun.integrity_key``).
Here they are verified — every MAC valid, the sequence numbers exactly 0, 1, 2, … — and cut
into cases at the ``case_start``/``case_end`` events the harness sends. A summary of what each
case observed (hooks registered and removed, checks on operations declared) is built here, on
the host, from those events: for the reference it is stored with the expected values
(``CaseExpectation.observed``), for the learner it is compared with it. Nothing in the sandbox
decides any of this.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from runner.records.allowed_ops import allowed, canonical
from runner.records.events import MODIFIED, event_mac


@dataclass
class CaseEvents:
    """The verified events of one case, each ``[kind, data...]``, in order."""

    events: list[list[str]] = field(default_factory=list)
    complete: bool = False  # its case_end arrived


@dataclass
class RunEvents:
    tampered: str = ""  # why the events of this run cannot be trusted ("" when they can)
    refused: list[str] = field(default_factory=list)  # refusals outside any case (e.g. at import)
    cases: dict[str, CaseEvents] = field(default_factory=dict)


def verify(records: list[dict[str, Any]], key: bytes) -> RunEvents:
    """The run's events, verified and cut into cases."""
    run = RunEvents()
    expected_seq = 0
    current: CaseEvents | None = None
    current_name = ""
    for record in records:
        if record.get("type") != "event":
            continue
        body, mac = record.get("body"), record.get("mac")
        if not isinstance(body, str) or not isinstance(mac, str):
            run.tampered = "an event record is malformed"
            break
        good = event_mac(key, body.encode("ascii", "replace"))
        if not hmac.compare_digest(good, mac):
            run.tampered = "an event record was not written by the judge"
            break
        try:
            parsed = json.loads(body)
        except ValueError:
            run.tampered = "an event record is malformed"
            break
        if not (isinstance(parsed, list) and len(parsed) >= 2 and isinstance(parsed[0], int)):
            run.tampered = "an event record is malformed"
            break
        seq, kind, data = parsed[0], str(parsed[1]), [str(d) for d in parsed[2:]]
        if seq != expected_seq:
            run.tampered = "the judge's events were replayed or lost"
            break
        expected_seq += 1
        if kind == "case_start":
            name = data[0] if data else ""
            if current is not None or name in run.cases:
                run.tampered = "a case was started twice"
                break
            current, current_name = CaseEvents(), name
            run.cases[name] = current
        elif kind == "case_end":
            if current is None or not data or data[0] != current_name:
                run.tampered = "a case ended that had not started"
                break
            current.complete = True
            current = None
        elif current is not None:
            current.events.append([kind, *data])
        elif kind == "refused":
            run.refused.append(data[0] if data else "")
    return run


def summary(case: CaseEvents) -> dict[str, Any]:
    """What a case observed, as plain JSON data compared between the reference and the learner.

    ``hooks``: one list per ``observe_hooks`` block of ``{kind, module, removed}`` (removed =
    a ``remove()`` took it out *and* the module's table no longer holds it at the block's or
    the case's end). ``checks``: the operation checks declared, in order (``runner.testing.ops``).
    ``ops_used``: per ``allow_ops`` block, in order, the operators it saw (canonical names, sorted):
    the reference's are what the block allows.
    """
    windows: list[list[dict[str, Any]]] = []
    registered: dict[str, dict[str, Any]] = {}
    removed: set[str] = set()
    state: dict[str, str] = {}
    window: list[str] | None = None
    window_ids: list[list[str]] = []
    checks: list[list[str]] = []
    op_counts: list[int] = []
    after: list[int] | None = None
    used: dict[str, set[str]] = {}
    for kind, *data in case.events:
        if kind == "op_count" and len(data) == 2 and data[1].isdigit():
            op_counts.append(int(data[1]))
        elif kind == "op_count_after" and len(data) == 2 and data[0].isdigit() and data[1].isdigit():
            after = [int(data[0]), int(data[1])]
        elif kind == "op_used" and len(data) >= 2 and data[0] in used:
            used[data[0]].add(canonical(data[1]))
        elif kind == "observe_hooks_begin":
            window = []
            window_ids.append(window)
        elif kind == "observe_hooks_end":
            window = None
        elif kind == "hook_registered" and len(data) == 3:
            registered[data[0]] = {"kind": data[1], "module": data[2]}
            if window is not None:
                window.append(data[0])
        elif kind == "hook_removed" and data:
            removed.add(data[0])
        elif kind == "hook_state" and len(data) == 2:
            state[data[0]] = data[1]
        elif kind == "check":
            checks.append(data)
            if len(data) >= 2 and data[0] == "allow":
                used.setdefault(data[1], set())
    for ids in window_ids:
        windows.append(
            [
                {**registered[i], "removed": i in removed and state.get(i) == "detached"}
                for i in ids
                if i in registered
            ]
        )
    out: dict[str, Any] = {}
    if windows:
        out["hooks"] = windows
    if checks:
        out["checks"] = checks
    if op_counts:
        out["op_counts"] = op_counts
    if after is not None:
        out["op_count_after"] = after
    if used:
        out["ops_used"] = [sorted(used[block]) for block in used]
    return out


def with_alternative_ops(
    reference: dict[str, Any] | None, alternative: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The reference's summary of a case with the operators an accepted alternative solution used
    in each ``allow_ops`` block added: what the block allows is what either of them used."""
    if not reference or not alternative:
        return reference
    mine, theirs = reference.get("ops_used"), alternative.get("ops_used")
    if not isinstance(mine, list) or not isinstance(theirs, list) or len(mine) != len(theirs):
        return reference
    merged = [sorted(set(a) | set(b)) for a, b in zip(mine, theirs, strict=True)]
    return {**reference, "ops_used": merged}


def _describe_hooks(windows: list[list[dict[str, Any]]]) -> str:
    hooks = [h for w in windows for h in w]
    if not hooks:
        return "no hook registered"
    return ", ".join(
        f"{h['kind']} on {h['module']} ({'removed' if h['removed'] else 'not removed'})" for h in hooks
    )


@dataclass(frozen=True)
class Finding:
    """Why a case does not pass on its observations: ``error`` (the judge was modified) or
    ``failed`` (the code did not do what the case checks)."""

    status: str
    message: str
    kind: str = "judge_modified"  # the failure vocabulary's (runner.judging.failures)

    # The statement rule a problem-wide op rule enforces (``op_rules_for_every_case(rule=...)``),
    # when the failure is that rule's and not the case's own: "" otherwise.
    rule: str = ""


def _rule_of_blocks(kind: str, data: list[str], stack: list[str]) -> None:
    """Track which rule id the open check blocks declared (``check rule <id>``), innermost last."""
    if kind == "check_begin":
        stack.append("")
    elif kind == "check_end" and stack:
        stack.pop()
    elif kind == "check" and len(data) == 2 and data[0] == "rule" and stack:
        stack[-1] = data[1]


GROWTH_FACTOR = 2  # vectorised: the larger size may dispatch at most 2x + 4 the smaller's operations
GROWTH_SLACK = 4
# vectorised: at most 4x + 16 the reference's operations at the same size. A loop padded to a
# fixed trip count keeps its count level between the sizes, but far above a vectorised one's.
PADDING_FACTOR = 4
PADDING_SLACK = 16


def _allowed_findings(events: list[list[str]], reference: dict[str, Any] | None) -> Finding | None:
    """What the ``allow_ops`` blocks of a case found: an operator the reference did not use in the
    same block (nor views, creation or the rule's extras). Without a reference (its own run) there
    is nothing to compare with."""
    if reference is None:
        return None
    stored = reference.get("ops_used")
    reference_used = [set(b) for b in stored if isinstance(b, list)] if isinstance(stored, list) else []
    # ordinal -> (sentence, extras, index, rule id)
    blocks: dict[str, tuple[str, set[str], int, str]] = {}
    rules: list[str] = []
    for kind, *data in events:
        _rule_of_blocks(kind, data, rules)
        if kind == "check" and len(data) >= 3 and data[0] == "allow":
            rule = rules[-1] if rules else ""
            blocks[data[1]] = (data[2], {canonical(op) for op in data[3:]}, len(blocks), rule)
        elif kind == "op_used" and len(data) >= 2 and data[0] in blocks:
            sentence, extra, index, rule = blocks[data[0]]
            if index >= len(reference_used):
                return Finding("error", f"{MODIFIED}: a check of this case did not run as declared.")
            if not allowed(data[1], reference_used[index], extra):
                where = data[2] if len(data) > 2 else ""
                place = f" (solution.py, {where})" if where else ""
                return Finding(
                    "failed",
                    f"{sentence} The judge saw your code use {canonical(data[1])}{place}, which this "
                    "rule does not allow: only the operations the problem's reference solution or its "
                    "accepted alternatives use, views and new tensors.",
                    "operations",
                    rule,
                )
    return None


def _operation_findings(events: list[list[str]], reference_counts: list[int]) -> Finding | None:
    """What the operation checks of a case found (``runner.testing.ops``), decided here on the host."""
    forbidden: dict[str, tuple[str, str]] = {}  # op -> (sentence, rule id of a problem-wide rule)
    required: dict[str, tuple[str, str]] = {}
    rules: list[str] = []
    seen: set[str] = set()
    called: dict[str, str] = {}
    vectorised: list[tuple[str, list[str], list[int], list[int]]] = []
    blocks_open = 0
    for kind, *data in events:
        _rule_of_blocks(kind, data, rules)
        if kind == "check" and len(data) >= 3:
            if data[0] == "forbid":
                forbidden[data[1]] = (data[2], rules[-1] if rules else "")
            elif data[0] == "require":
                required[data[1]] = (data[2], rules[-1] if rules else "")
            elif data[0] == "vectorised":
                vectorised.append((data[1], data[2].split(","), [], []))
        elif kind == "check_begin":
            blocks_open += 1
        elif kind == "check_end":
            blocks_open -= 1
        elif kind == "op_called" and data:
            called.setdefault(data[0], data[1] if len(data) > 1 else "")
        elif kind == "op_seen" and data:
            seen.add(data[0])
        elif kind == "op_count" and len(data) == 2 and vectorised and data[1].isdigit():
            vectorised[-1][2].append(int(data[1]))
        elif kind == "py_count" and len(data) == 2 and vectorised and data[1].isdigit():
            vectorised[-1][3].append(int(data[1]))
    if blocks_open:
        return Finding("error", f"{MODIFIED}: a check of the operations your code calls did not finish.")
    for op, where in called.items():
        if op in forbidden:
            place = f" (solution.py, {where})" if where else ""
            sentence, rule = forbidden[op]
            return Finding(
                "failed", f"{sentence} The judge saw your code call {op}{place}.", "operations", rule
            )
    for op, (sentence, rule) in required.items():
        if op not in seen:
            return Finding(
                "failed", f"{sentence} The judge did not see your code call {op}.", "operations", rule
            )
    for rule, sizes, counts, converted in vectorised:
        if len(counts) != 2 or len(sizes) != 2 or len(converted) != 2:
            return Finding("error", f"{MODIFIED}: the count of your code's operations did not finish.")
        if converted[1] > GROWTH_FACTOR * converted[0] + GROWTH_SLACK:
            return Finding(
                "failed",
                f"{rule} The judge counted {converted[0]} values your code took out of tensors into "
                f"Python (.tolist(), .item(), float(), .numpy(), …) at size {sizes[0]} and "
                f"{converted[1]} at size {sizes[1]}: the work grows with the input, done in Python "
                "instead of with tensor operations.",
                "operations",
            )
        if counts[1] > GROWTH_FACTOR * counts[0] + GROWTH_SLACK:
            return Finding(
                "failed",
                f"{rule} The judge counted {counts[0]} tensor operations at size {sizes[0]} and "
                f"{counts[1]} at size {sizes[1]}: the work grows with the input, as with a Python "
                "loop over its elements.",
                "operations",
            )
    counted = [n for _, _, pair, _ in vectorised for n in pair]
    if len(reference_counts) == len(counted):
        for (rule, sizes, _, _), index in zip(vectorised, range(1, len(counted), 2), strict=False):
            mine, theirs = counted[index], reference_counts[index]
            if mine > PADDING_FACTOR * theirs + PADDING_SLACK:
                return Finding(
                    "failed",
                    f"{rule} The judge counted {mine} tensor operations at size {sizes[1]}, where a "
                    f"vectorised solution needs about {theirs}: the same few operations repeated, "
                    "as with a Python loop (even one padded to a fixed number of steps).",
                    "operations",
                )
    return None


def _after_count_findings(
    events: list[list[str]], observed: dict[str, Any], reference: dict[str, Any]
) -> Finding | None:
    """What ran after a case's counts of operations (``assert_vectorised``) until it ended: a loop
    left to a finaliser runs there. Held to the same bar as a count against the reference's."""
    theirs = reference.get("op_count_after")
    if not (isinstance(theirs, list) and len(theirs) == 2 and all(type(n) is int for n in theirs)):
        return None  # expectations computed before this was recorded
    rule = next(
        (data[1] for kind, *data in events if kind == "check" and len(data) >= 3 and data[0] == "vectorised"),
        "",
    )
    mine = observed.get("op_count_after")
    if mine is None:
        return Finding("error", f"{MODIFIED}: the count of your code's operations did not finish.")
    for index, what in ((0, "tensor operations"), (1, "values taken out of tensors into Python")):
        if mine[index] > PADDING_FACTOR * theirs[index] + PADDING_SLACK:
            return Finding(
                "failed",
                f"{rule} The judge counted {mine[index]} {what} after the counted calls returned, "
                f"where a vectorised solution leaves about {theirs[index]}: work left to run later "
                "(a generator's `finally`, when the input it was tied to is dropped) is counted too.",
                "operations",
            )
    return None


def judge_case(reference: dict[str, Any] | None, case: CaseEvents | None) -> Finding | None:
    """Compare what the learner's run observed in a case with what the reference's did."""
    events = case.events if case is not None else []
    for kind, *data in events:
        if kind in ("refused", "tampered"):
            return Finding("error", f"{MODIFIED} ({data[0] if data else kind}).")
        if kind == "left_state":  # torch's state a context left entered (runner.testing.torch_state)
            return Finding("failed", data[0] if data else "torch's state was left changed.", "left_state")
    reference = reference or {}
    observed = summary(case) if case is not None else {}
    if not reference and not observed:
        return None
    if case is None or not case.complete:
        return Finding("error", f"{MODIFIED}: the judge's record of this case is missing.")
    if observed.get("checks", []) != reference.get("checks", []) and reference:
        return Finding("error", f"{MODIFIED}: a check of this case did not run as declared.")
    counts = reference.get("op_counts")
    reference_counts = [c for c in counts if type(c) is int] if isinstance(counts, list) else []
    finding = (
        _operation_findings(events, reference_counts)
        or _after_count_findings(events, observed, reference)
        or _allowed_findings(events, reference if reference else None)
    )
    if finding is not None:
        return finding
    if "hooks" in reference:
        mine = observed.get("hooks")
        if mine is None or len(mine) != len(reference["hooks"]):
            return Finding("error", f"{MODIFIED}: the hook observation of this case did not run.")
        if mine != reference["hooks"]:
            return Finding(
                "failed",
                f"The judge watched the hooks your code registers: {_describe_hooks(mine)}; this case "
                f"expects {_describe_hooks(reference['hooks'])}.",
                "hooks",
            )
    return None
