"""Every bad launch is refused with a clear page and leaves nothing behind (rows counted).

Classes of attack: forged or re-signed tokens (a key the platform never published, a published
kid over another key, alg "none"/HS256), tokens for someone else (aud, azp), stale or future
tokens, replays (nonce, state), unknown issuers and deployments, wrong message types and versions,
and a state that belongs to another browser.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from sqlalchemy import func, select

from app.accounts.models import User as Account
from app.courses.models import Course, CourseMember
from app.kit.db import Database
from app.lti import claims
from app.lti.models import LtiContext, LtiNonce, LtiResourceLink, LtiUserLink
from tests.app.conftest import Browser
from tests.app.lti.conftest import launch, start_login, tampered_launch
from tests.app.lti.platform import INSTRUCTOR, Platform, User, login_query

TEACHER = User("t-1", "Ada", "ada@uni.example", INSTRUCTOR)
COUNTED = (Account, Course, CourseMember, LtiContext, LtiUserLink, LtiResourceLink, LtiNonce)


def _counts(db: Database) -> tuple[int, ...]:
    with db.transaction() as session:
        return tuple(int(session.scalar(select(func.count()).select_from(m)) or 0) for m in COUNTED)


def _set(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda body: body.__setitem__(name, value)


def _drop(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda body: body.pop(name)


NOW = int(time.time())
SAME_KID_AS_THE_PLATFORM = "<the platform's kid>"

CASES: dict[str, tuple[Callable[[dict[str, Any]], None] | None, dict[str, Any], str]] = {
    "wrong audience": (_set("aud", "someone-else"), {}, "audience"),
    "wrong audience list": (_set("aud", ["someone-else", "another"]), {}, "audience"),
    "several audiences, no azp": (_set("aud", ["torchdrill-tool", "another"]), {}, "authorized party"),
    "wrong azp": (_set("azp", "another"), {}, "authorized party"),
    "expired": (lambda b: b.update(exp=int(time.time()) - 120, iat=int(time.time()) - 600), {}, "expired"),
    "issued in the future": (lambda b: b.update(iat=int(time.time()) + 3600), {}, "future"),
    "no exp": (_drop("exp"), {}, "required claim"),
    "unknown issuer": (_set("iss", "https://evil.example"), {}, "issuer"),
    "unknown deployment": (_set(claims.DEPLOYMENT_ID, "deployment-9"), {}, "deployment id"),
    "no deployment": (_drop(claims.DEPLOYMENT_ID), {}, "deployment id"),
    "wrong message type": (_set(claims.MESSAGE_TYPE, "LtiSubmissionReviewRequest"), {}, "message type"),
    "wrong version": (_set(claims.VERSION, "1.1"), {}, "LTI version"),
    "another nonce": (_set("nonce", "not-the-logins"), {}, "nonce"),
    "no nonce": (_drop("nonce"), {}, "required claim"),
    "no resource link": (_drop(claims.RESOURCE_LINK), {}, "resource link"),
    "no sub": (_drop("sub"), {}, "names no user"),
    "a key never published": (
        None,
        {"key": RSAKey.generate_key(2048), "kid": SAME_KID_AS_THE_PLATFORM},
        "signature",
    ),
    "an unknown kid": (
        None,
        {"key": RSAKey.generate_key(2048, parameters={"kid": "x"}), "kid": "x"},
        "signature",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_tampered_id_token_is_refused(case: str, platform: Platform, new_browser: Any, db: Database) -> None:
    change, sign, words = CASES[case]
    if sign.get("kid") == SAME_KID_AS_THE_PLATFORM:
        sign = sign | {"kid": platform.key.kid}
    before = _counts(db)
    refused = tampered_launch(new_browser(), platform, TEACHER, change, **sign)
    assert refused.status_code == 400, refused.text
    assert "The launch from your LMS was refused" in refused.text and words in refused.text, refused.text
    assert _counts(db) == before


def _unsigned(body: dict[str, Any], alg: str) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': alg, 'typ': 'JWT'})}.{part(body)}." + ("" if alg == "none" else "c2ln")


@pytest.mark.parametrize("alg", ["none", "HS256"])
def test_unsigned_or_symmetric_tokens_are_refused(
    alg: str, platform: Platform, new_browser: Any, db: Database
) -> None:
    browser = new_browser()
    query = login_query(start_login(browser, platform, TEACHER).headers["location"])
    before = _counts(db)
    token = _unsigned(platform.claims_for(TEACHER, query["nonce"]), alg)
    refused = browser.post("/lti/launch", data={"id_token": token, "state": query["state"]})
    assert refused.status_code == 400 and "refused" in refused.text
    assert _counts(db) == before


def test_replayed_launch_is_refused(platform: Platform, new_browser: Any, db: Database) -> None:
    """The same id_token and state again (a captured form post), and the old token with a new state."""
    browser = new_browser()
    query = login_query(start_login(browser, platform, TEACHER).headers["location"])
    token = platform.sign(platform.claims_for(TEACHER, query["nonce"]))
    assert browser.post("/lti/launch", data={"id_token": token, "state": query["state"]}).status_code == 303
    before = _counts(db)
    again = browser.post("/lti/launch", data={"id_token": token, "state": query["state"]})
    assert again.status_code == 400 and ("already used" in again.text or "does not belong" in again.text)
    fresh = login_query(start_login(browser, platform, TEACHER).headers["location"])
    replay = browser.post("/lti/launch", data={"id_token": token, "state": fresh["state"]})
    assert replay.status_code == 400 and "nonce" in replay.text
    assert _counts(db) == before


def test_state_must_belong_to_this_browser(platform: Platform, new_browser: Any, db: Database) -> None:
    victim, attacker = new_browser(), new_browser()
    query = login_query(start_login(victim, platform, TEACHER).headers["location"])
    token = platform.sign(platform.claims_for(TEACHER, query["nonce"]))
    before = _counts(db)
    for browser, state in ((attacker, query["state"]), (victim, "made-up-state"), (victim, "")):
        refused = browser.post("/lti/launch", data={"id_token": token, "state": state})
        assert refused.status_code == 400 and "state" in refused.text
    assert _counts(db) == before


def test_garbage_and_missing_tokens(platform: Platform, new_browser: Any, db: Database) -> None:
    browser: Browser = new_browser()
    query = login_query(start_login(browser, platform, TEACHER).headers["location"])
    before = _counts(db)
    for token in ("", "not.a.jwt", "a.b", "\u00e9" * 10):
        refused = browser.post("/lti/launch", data={"id_token": token, "state": query["state"]})
        assert refused.status_code == 400, token
    assert _counts(db) == before


def test_login_refusals(platform: Platform, new_browser: Any) -> None:
    browser = new_browser()
    for extra, words in (
        ({"iss": "https://unknown.example"}, "not a registered platform"),
        ({"client_id": "other-client"}, "not a registered platform"),
        ({"lti_deployment_id": "nope"}, "deployment id"),
        ({"target_link_uri": "https://evil.example/lti/launch"}, "not on this site"),
        ({"login_hint": ""}, "lacks"),
    ):
        refused = start_login(browser, platform, TEACHER, **extra)
        assert refused.status_code == 400 and words in refused.text, (extra, refused.text)
    ok = start_login(browser, platform, TEACHER)
    assert ok.status_code == 302 and ok.headers["location"].startswith(f"{platform.url}/auth?")
    post = browser.post(
        "/lti/login",
        data={"iss": platform.issuer, "login_hint": "x", "target_link_uri": platform.tool_launch_url},
    )
    assert post.status_code == 302  # POST works too (one client id registered for the issuer)


def test_a_full_launch_still_works(platform: Platform, new_browser: Any) -> None:
    """The refusals above are not the tool refusing everything."""
    assert launch(new_browser(), platform, TEACHER).status_code == 303


def test_learners_cannot_deep_link(platform: Platform, new_browser: Any, db: Database) -> None:
    from tests.app.lti.platform import LEARNER

    before = _counts(db)
    refused = launch(
        new_browser(),
        platform,
        User("s-5", "S", "s5@uni.example", LEARNER),
        message_type=claims.DEEP_LINKING_REQUEST,
    )
    assert refused.status_code == 400 and "only instructors" in refused.text
    assert _counts(db) == before


def test_deep_link_picker_needs_a_deep_linking_launch(platform: Platform, new_browser: Any) -> None:
    browser = new_browser()
    assert launch(browser, platform, TEACHER).status_code == 303  # a resource link launch: signed in
    assert browser.get("/lti/deep-link").status_code == 403
    forged = browser.post(
        "/lti/deep-link", data={"choice": "problem:add-tensors", "csrf_token": browser.csrf()}
    )
    assert forged.status_code == 403


def test_picker_offers_only_what_the_instructor_may_link(
    platform: Platform, new_browser: Any, db: Database
) -> None:
    """Another instructor's assignment, an unknown problem or a made-up choice: refused, nothing sent."""
    from datetime import timedelta

    from app.courses import assignments, enrolment
    from app.kit.db import utcnow
    from tests.app.courses.helpers import user

    with db.transaction() as session:
        other = enrolment.create_course(session, user(session, "instructor"), "Not yours")
        now = utcnow()
        theirs = assignments.create_assignment(
            session,
            other,
            title="Secret",
            problem_slugs=["add-tensors"],
            release_at=now,
            due_at=now + timedelta(days=1),
        ).id
    browser = new_browser()
    picker = launch(browser, platform, TEACHER, message_type=claims.DEEP_LINKING_REQUEST)
    assert picker.status_code == 303
    assert "Secret" not in browser.get("/lti/deep-link").text
    for choice in (f"assignment:{theirs}", "problem:no-such-problem", "anything", ""):
        refused = browser.post(
            "/lti/deep-link", data={"choice": choice, "csrf_token": browser.csrf("/lti/deep-link")}
        )
        assert refused.status_code == 422 and "Pick" in refused.text, choice
    assert platform.deep_link_replies == []
    assert (
        browser.post("/lti/deep-link", data={"choice": "problem:add-tensors"}).status_code == 403
    )  # no CSRF
