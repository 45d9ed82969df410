"""A small LTI 1.3 platform written from the spec, served by uvicorn on 127.0.0.1 in the tests.

Real RSA keys and a JWKS endpoint; the OIDC authorization endpoint answering a login with an
auto-posting form carrying a signed id_token; an OAuth2 token endpoint that checks the tool's
client assertion against the tool's own JWKS; AGS line items and scores; NRPS memberships (two
pages, a ``Link: rel="next"``); and a deep-linking return endpoint that verifies the tool's JWT.
Knobs let a test make a service fail, or build a tampered id_token.
"""

from __future__ import annotations

import html
import re
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from starlette.concurrency import run_in_threadpool

from app.lti import claims

CLIENT_ID = "torchdrill-tool"
DEPLOYMENT_ID = "deployment-1"
CONTEXT_ID = "course-101"


@dataclass
class User:
    sub: str
    name: str
    email: str
    roles: list[str]


INSTRUCTOR = [claims.ROLE_INSTRUCTOR]
LEARNER = [claims.ROLE_LEARNER]


@dataclass
class Platform:
    """State of the platform; ``url`` is set once it serves."""

    url: str = ""
    key: RSAKey = field(
        default_factory=lambda: RSAKey.generate_key(
            2048, parameters={"kid": f"platform-{uuid.uuid4().hex[:8]}"}
        )
    )
    tool_jwks_url: str = ""
    tool_launch_url: str = "http://testserver/lti/launch"
    line_items: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    members: list[dict[str, Any]] = field(default_factory=list)
    deep_link_replies: list[dict[str, Any]] = field(default_factory=list)
    tokens: dict[str, set[str]] = field(default_factory=dict)
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    fail_scores: int = 0  # answer this many score posts with 503
    fail_line_items: bool = False  # answer line-item creation with 503
    lose_line_items: int = 0  # make this many line items, then answer 503 (the reply is lost)
    score_gate: threading.Event | None = None  # score posts wait here until it is set
    in_flight: list[str] = field(default_factory=list)  # userId of each score post received
    # The LTI client-side storage: the frame the launch names as ``lti_storage_target`` (the
    # course page framing the tool answers lti.put_data / lti.get_data); None: not offered.
    storage_target: str | None = None
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)  # login_hint -> launch spec
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def issuer(self) -> str:
        return self.url

    def lineitems_url(self, context_id: str = CONTEXT_ID) -> str:
        return f"{self.url}/contexts/{context_id}/lineitems"

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.key.as_dict(private=False)]}

    # -- id tokens ------------------------------------------------------------------------------

    def claims_for(
        self,
        user: User,
        nonce: str,
        *,
        message_type: str = claims.RESOURCE_LINK_REQUEST,
        resource_link_id: str = "link-1",
        custom: dict[str, str] | None = None,
        context_id: str = CONTEXT_ID,
        context_title: str = "Deep Learning 101",
        lineitem: str | None = None,
    ) -> dict[str, Any]:
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "sub": user.sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": user.name,
            "email": user.email,
            claims.MESSAGE_TYPE: message_type,
            claims.VERSION: claims.LTI_VERSION,
            claims.DEPLOYMENT_ID: DEPLOYMENT_ID,
            claims.TARGET_LINK_URI: self.tool_launch_url,
            claims.ROLES: user.roles,
            claims.CONTEXT: {"id": context_id, "title": context_title, "label": "DL101"},
            claims.AGS_ENDPOINT: {
                "scope": [claims.SCOPE_LINEITEM, claims.SCOPE_SCORE, claims.SCOPE_RESULT_READONLY],
                "lineitems": self.lineitems_url(context_id),
            },
            claims.NRPS: {
                "context_memberships_url": f"{self.url}/contexts/{context_id}/memberships",
                "service_versions": ["2.0"],
            },
        }
        if lineitem:
            body[claims.AGS_ENDPOINT]["lineitem"] = lineitem
        if message_type == claims.RESOURCE_LINK_REQUEST:
            body[claims.RESOURCE_LINK] = {"id": resource_link_id, "title": "Week 1"}
        else:
            body[claims.DL_SETTINGS] = {
                "deep_link_return_url": f"{self.url}/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["window"],
                "data": "opaque-platform-data",
            }
        if custom:
            body[claims.CUSTOM] = custom
        return body

    def sign(self, body: dict[str, Any], key: RSAKey | None = None, kid: str | None = None) -> str:
        key = key or self.key
        return jwt.encode({"alg": "RS256", "kid": kid or key.kid or "", "typ": "JWT"}, body, key)

    # -- the app --------------------------------------------------------------------------------

    def app(self) -> FastAPI:
        api = FastAPI()
        platform = self

        @api.get("/jwks")
        def jwks() -> dict[str, Any]:
            return platform.jwks()

        @api.get("/auth")
        def auth(request: Request) -> Response:
            q = request.query_params
            spec = platform.pending.get(q.get("login_hint", ""))
            if (
                spec is None
                or q.get("client_id") != CLIENT_ID
                or q.get("response_type") != "id_token"
                or q.get("scope") != "openid"
                or q.get("redirect_uri") != platform.tool_launch_url
                or q.get("response_mode") != "form_post"
                or not q.get("nonce")
                or not q.get("state")
            ):
                return JSONResponse({"error": "invalid_request"}, status_code=400)
            token = platform.sign(platform.claims_for(spec["user"], q["nonce"], **spec.get("options", {})))
            target = html.escape(platform.storage_target or "")
            storage = f'<input type="hidden" name="lti_storage_target" value="{target}">' if target else ""
            page = (
                f'<form id="launch" method="post" action="{html.escape(q["redirect_uri"])}">'
                f'<input type="hidden" name="id_token" value="{token}">'
                f'<input type="hidden" name="state" value="{html.escape(q["state"])}">'
                f"{storage}"
                '<button type="submit">Continue</button></form>'
            )
            return HTMLResponse(page)

        @api.get("/course-page")
        def course_page(sub: str) -> Response:
            """The LMS's course page showing the tool in an iframe (as Canvas and Moodle do); its
            script is the platform's side of the client-side storage."""
            query = {
                "iss": platform.issuer,
                "login_hint": sub,
                "target_link_uri": platform.tool_launch_url,
                "client_id": CLIENT_ID,
                "lti_deployment_id": DEPLOYMENT_ID,
            }
            if platform.storage_target:
                query["lti_storage_target"] = platform.storage_target
            login = platform.tool_launch_url.rsplit("/", 1)[0] + "/login?" + urlencode(query)
            page = (
                '<!doctype html><html lang="en"><head><title>LMS course</title></head><body>'
                "<main><h1>LMS course</h1>"
                f'<iframe id="tool" name="tool" title="Torchdrill" src="{html.escape(login)}" '
                'width="1000" height="700"></iframe></main>'
                '<script src="/storage.js"></script></body></html>'
            )
            return HTMLResponse(page)

        @api.get("/storage.js")
        def storage_js() -> Response:
            return Response(STORAGE_JS, media_type="text/javascript")

        @api.post("/token")
        async def token(request: Request) -> Response:
            form = await request.form()
            platform.token_requests.append(dict(form))
            if form.get("grant_type") != "client_credentials" or form.get("client_assertion_type") != (
                claims.CLIENT_ASSERTION_TYPE
            ):
                return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
            tool_keys = KeySet.import_key_set(httpx.get(platform.tool_jwks_url, timeout=5).json())
            try:
                assertion = jwt.decode(str(form.get("client_assertion")), tool_keys, algorithms=["RS256"])
                jwt.JWTClaimsRegistry(
                    iss={"essential": True, "value": CLIENT_ID},
                    sub={"essential": True, "value": CLIENT_ID},
                    aud={"essential": True, "value": f"{platform.url}/token"},
                    exp={"essential": True},
                    jti={"essential": True},
                ).validate(assertion.claims)
            except Exception as exc:
                return JSONResponse({"error": "invalid_client", "detail": str(exc)}, status_code=401)
            value = secrets.token_urlsafe(16)
            platform.tokens[value] = set(str(form.get("scope", "")).split())
            return JSONResponse(
                {
                    "access_token": value,
                    "token_type": "Bearer",
                    "expires_in": 3600,
                    "scope": form.get("scope"),
                }
            )

        def allowed(request: Request, scope: str) -> bool:
            auth = request.headers.get("authorization", "")
            return auth.startswith("Bearer ") and scope in platform.tokens.get(auth[7:], set())

        @api.get("/contexts/{context_id}/lineitems")
        def list_items(context_id: str, request: Request) -> Response:
            if not allowed(request, claims.SCOPE_LINEITEM):
                return JSONResponse({"error": "unauthorized"}, status_code=401)
            wanted = request.query_params.get("resource_id")
            items = [
                i
                for i in platform.line_items.values()
                if i["_context"] == context_id and (wanted is None or i.get("resourceId") == wanted)
            ]
            return JSONResponse(
                [{k: v for k, v in i.items() if not k.startswith("_")} for i in items],
                media_type=claims.LINEITEMS_MEDIA,
            )

        @api.post("/contexts/{context_id}/lineitems")
        async def create_item(context_id: str, request: Request) -> Response:
            if not allowed(request, claims.SCOPE_LINEITEM):
                return JSONResponse({"error": "unauthorized"}, status_code=401)
            if platform.fail_line_items:
                return JSONResponse({"error": "unavailable"}, status_code=503)
            body = await request.json()
            item_id = f"{platform.lineitems_url(context_id)}/{uuid.uuid4().hex[:8]}"
            with platform.lock:
                platform.line_items[item_id] = body | {"id": item_id, "_context": context_id}
                if platform.lose_line_items > 0:
                    platform.lose_line_items -= 1
                    return JSONResponse({"error": "unavailable"}, status_code=503)
            return JSONResponse(body | {"id": item_id}, status_code=201, media_type=claims.LINEITEM_MEDIA)

        @api.post("/contexts/{context_id}/lineitems/{item}/scores")
        async def score(context_id: str, item: str, request: Request) -> Response:
            if not allowed(request, claims.SCOPE_SCORE):
                return JSONResponse({"error": "unauthorized"}, status_code=401)
            if request.headers.get("content-type") != claims.SCORE_MEDIA:
                return JSONResponse({"error": "unsupported_media_type"}, status_code=415)
            if platform.fail_scores > 0:
                platform.fail_scores -= 1
                return JSONResponse({"error": "unavailable"}, status_code=503)
            line_item = f"{platform.lineitems_url(context_id)}/{item}"
            if line_item not in platform.line_items:
                return JSONResponse({"error": "no such line item"}, status_code=404)
            body = await request.json()
            with platform.lock:
                platform.in_flight.append(str(body.get("userId")))
            if platform.score_gate is not None:
                await run_in_threadpool(platform.score_gate.wait, 30)
            platform.scores.append(body | {"_line_item": line_item})
            return Response(status_code=204)

        @api.get("/contexts/{context_id}/memberships")
        def memberships(context_id: str, request: Request) -> Response:
            if not allowed(request, claims.SCOPE_NRPS):
                return JSONResponse({"error": "unauthorized"}, status_code=401)
            page = int(request.query_params.get("page", "1"))
            half = (len(platform.members) + 1) // 2
            chunk = platform.members[:half] if page == 1 else platform.members[half:]
            headers = (
                {"Link": f'<{platform.url}/contexts/{context_id}/memberships?page=2>; rel="next"'}
                if page == 1
                else {}
            )
            body = {"id": str(request.url), "context": {"id": context_id}, "members": chunk}
            return JSONResponse(body, headers=headers, media_type=claims.MEMBERSHIPS_MEDIA)

        @api.post("/deep-link-return")
        async def deep_link_return(request: Request) -> Response:
            form = await request.form()
            tool_keys = KeySet.import_key_set(httpx.get(platform.tool_jwks_url, timeout=5).json())
            token = jwt.decode(str(form.get("JWT")), tool_keys, algorithms=["RS256"])
            jwt.JWTClaimsRegistry(
                iss={"essential": True, "value": CLIENT_ID},
                aud={"essential": True, "value": platform.issuer},
                exp={"essential": True},
                nonce={"essential": True},
            ).validate(token.claims)
            platform.deep_link_replies.append(dict(token.claims))
            return HTMLResponse("<p id='received'>Content received by the LMS.</p>")

        return api


# The platform's side of LTI client-side storage: values kept per sending origin, answered only
# to that origin; every message is logged in ``window.ltiLog`` for the test to read.
STORAGE_JS = """
"use strict";
var store = {};
window.ltiLog = [];
window.addEventListener("message", function (event) {
  var data = event.data;
  if (!data || typeof data !== "object" || typeof data.subject !== "string") return;
  window.ltiLog.push({ subject: data.subject, origin: event.origin, key: data.key || null });
  var mine = store[event.origin] = store[event.origin] || {};
  var reply = { subject: data.subject + ".response", message_id: data.message_id };
  if (data.subject === "lti.put_data") {
    mine[data.key] = data.value;
    reply.key = data.key;
    reply.value = data.value;
  } else if (data.subject === "lti.get_data") {
    if (Object.prototype.hasOwnProperty.call(mine, data.key)) {
      reply.key = data.key;
      reply.value = mine[data.key];
    } else {
      reply.error = { code: "bad_request", message: "no value under that key" };
    }
  } else if (data.subject === "lti.capabilities") {
    reply.supported_messages = [{ subject: "lti.put_data" }, { subject: "lti.get_data" }];
  } else {
    reply.error = { code: "unsupported_subject", message: "not supported" };
  }
  event.source.postMessage(reply, event.origin);
});
"""


def launch_form(page: str, form_id: str | None = None) -> tuple[str, dict[str, str]]:
    """The action and fields of an auto-posting form (the first, or the one with ``form_id``)."""
    if form_id is not None:
        start = page.index(f'id="{form_id}"')
        page = page[page.rindex("<form", 0, start) : page.index("</form>", start)]
    action = re.search(r'action="([^"]+)"', page)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', page))
    assert action, page
    return html.unescape(action.group(1)), {k: html.unescape(v) for k, v in fields.items()}


def login_query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
