"""A statement's rules, and what mutants say about them: the problem format's half of
"rules ↔ checks ↔ mutants".

A rule is a sentence of the statement that constrains *how* the code works ("do not call
``clip_grad_norm_``", "``p.grad`` keeps its identity"). It is written once, in the statement's
``## Rules`` section, one bullet each, with an id in bold::

    ## Rules

    - **no-builtin-clipping**: Do not call `torch.nn.utils.clip_grad_norm_` or its relatives.
    - **grad-identity**: Multiply every gradient in place: `p.grad` keeps its identity.

A problem whose statement constrains only *what* is returned says ``None.`` under the heading.
The page renders the section as it is; the host reads the ids and sentences from it. A case that
enforces a rule names it (``@case(rule="grad-identity")``), and its failure message carries the id
and the sentence. A mutant declares the rule it breaks, and whether it is a *cheat* (a bypass
attempt rather than an honest mistake), in comment front matter at the top of its file::

    # rule: grad-identity
    # kind: cheat
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from runner.jobs import Expectations

RULE_ID_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_SECTION_RE = re.compile(r"(?ms)^##\s+Rules\s*$\n(.*?)(?=^##\s|\Z)")
_BULLET_RE = re.compile(r"^[-*]\s+\*\*(?P<id>[^*]+)\*\*\s*[:—–-]?\s*(?P<sentence>.*)$")
_FRONT_RE = re.compile(r"^#\s*(?P<key>[a-z]+)\s*:\s*(?P<value>.*?)\s*$")

MUTANT = "mutant"
CHEAT = "cheat"
KINDS = (MUTANT, CHEAT)


@dataclass(frozen=True)
class Rule:
    id: str
    sentence: str
    line: int  # in statement.md, 1-based


@dataclass(frozen=True)
class MutantMeta:
    """What a mutant's front matter says: the rule it breaks (or "") and its kind."""

    rule: str = ""
    kind: str = MUTANT

    @property
    def is_cheat(self) -> bool:
        return self.kind == CHEAT


class RulesError(ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def parse_rules(statement: str) -> tuple[Rule, ...]:
    """The rules of the statement's ``## Rules`` section, in order; () when it has none.

    Raises :class:`RulesError` for a malformed section: a bullet without a bold id, an id that is
    not lower-case words joined by hyphens, an id given twice, a rule without its sentence.
    """
    match = _SECTION_RE.search(statement)
    if match is None:
        return ()
    first_line = statement[: match.start(1)].count("\n") + 1
    rules: list[Rule] = []
    current: dict[str, object] | None = None

    def close() -> None:
        if current is None:
            return
        sentence = " ".join(str(current["sentence"]).split())
        if not sentence:
            raise RulesError(f"rule {current['id']} has no sentence", int(str(current["line"])))
        rules.append(Rule(id=str(current["id"]), sentence=sentence, line=int(str(current["line"]))))

    for offset, text in enumerate(match.group(1).splitlines()):
        line = first_line + offset
        stripped = text.strip()
        if not stripped:
            continue
        if stripped[0] in "-*" and stripped[1:2] == " ":
            close()
            bullet = _BULLET_RE.match(stripped)
            if bullet is None:
                raise RulesError("a rule must start with its id in bold: - **rule-id**: sentence", line)
            rule_id = bullet.group("id").strip()
            if not RULE_ID_RE.match(rule_id):
                raise RulesError(
                    f"rule id {rule_id!r} must be lower-case words joined by hyphens (e.g. grad-identity)",
                    line,
                )
            if any(r.id == rule_id for r in rules):
                raise RulesError(f"rule id {rule_id!r} is given twice", line)
            current = {"id": rule_id, "sentence": bullet.group("sentence"), "line": line}
        elif current is not None and text[:1].isspace():
            current["sentence"] = f"{current['sentence']} {stripped}"
        elif stripped in ("None", "None.") and not rules and current is None:
            continue  # the statement says so: no sentence constrains how the code works
        else:
            raise RulesError("the Rules section holds only bullets: - **rule-id**: sentence", line)
    close()
    return tuple(rules)


def mutant_meta(source: str) -> MutantMeta:
    """The front matter of a mutant: the leading ``# key: value`` comment lines.

    Raises :class:`RulesError` for an unknown key or kind (a typo would silently drop a duty).
    """
    found: dict[str, str] = {}
    for line_no, text in enumerate(source.splitlines(), start=1):
        stripped = text.strip()
        if not stripped.startswith("#"):
            break
        front = _FRONT_RE.match(stripped)
        if front is None or front.group("key") not in ("rule", "kind"):
            if front is not None and front.group("key") in ("rules", "breaks", "cheat"):
                raise RulesError(
                    f"unknown front matter key {front.group('key')!r} (use rule: or kind:)", line_no
                )
            continue  # an ordinary comment
        key, value = front.group("key"), front.group("value")
        if key in found:
            raise RulesError(f"front matter key {key!r} is given twice", line_no)
        if key == "kind" and value not in KINDS:
            raise RulesError(f"kind must be one of {', '.join(KINDS)}, not {value!r}", line_no)
        if key == "rule" and not RULE_ID_RE.match(value):
            raise RulesError(f"rule id {value!r} must be lower-case words joined by hyphens", line_no)
        found[key] = value
    meta = MutantMeta(rule=found.get("rule", ""), kind=found.get("kind", MUTANT))
    if meta.is_cheat and not meta.rule:
        raise RulesError("a cheat must name the rule it tries to bypass (# rule: rule-id)", 1)
    return meta


def with_rule_sentences(expectations: Expectations, statement: str) -> Expectations:
    """The expectations with each case's rule sentence filled from the statement, so the host words a
    failure as the statement does. A malformed Rules section or an unknown id leaves it empty
    (``problems validate`` refuses both)."""
    if not any(c.rule for c in expectations.cases):
        return expectations
    try:
        sentences = {r.id: r.sentence for r in parse_rules(statement)}
    except RulesError:
        sentences = {}
    cases = tuple(
        dataclasses.replace(c, rule_sentence=sentences.get(c.rule, "")) if c.rule else c
        for c in expectations.cases
    )
    return dataclasses.replace(expectations, cases=cases)
