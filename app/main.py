"""The application factory: settings, database, runner and dispatcher wired into one FastAPI app."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware

from app import analytics
from app.accounts import admin_pages, reset_pages, two_factor_pages
from app.accounts import pages as auth_pages
from app.analytics import api as analytics_api
from app.analytics import pages as analytics_pages
from app.api_v1.router import router as api_v1_router
from app.authoring import api as authoring_api
from app.authoring import pages as authoring_pages
from app.billing import api as billing_api
from app.courses import access as course_access
from app.courses import api as course_api
from app.courses import pages as course_pages
from app.discussion import api as discussion_api
from app.discussion import pages as discussion_pages
from app.drafts import api as draft_api
from app.hints import api as hint_api
from app.kit.body_limit import BodyLimitMiddleware
from app.kit.db import Database, request_slots
from app.kit.db_slots import DatabaseSlots, keep_threads_beyond
from app.kit.errors import AppError
from app.kit.headers import SecurityHeadersMiddleware
from app.kit.hosts import AllowedHostsMiddleware, allowed_hosts
from app.kit.links import public_url
from app.kit.logging import SubmissionLogMiddleware
from app.kit.mail import Mailer
from app.kit.runner import JudgeRunner, runtime_info
from app.kit.security import prepare_password_checks
from app.kit.settings import Settings, get_settings
from app.kit.static_assets import StaticAssetsApp
from app.kit.web import DatabaseSlot, render, static_assets
from app.lti import admin_pages as lti_admin_pages
from app.lti import course_pages as lti_course_pages
from app.lti import pages as lti_pages
from app.lti.setup import install as install_lti
from app.moderation import api as moderation_api
from app.moderation import pages as moderation_pages
from app.problems import api as problem_api
from app.reports import api as report_api
from app.reports import outcomes as report_outcomes
from app.reports import pages as report_pages
from app.reports.service import Notifier
from app.scaleout.judging_setup import setup_judging
from app.site import account_pages, problem_pages, track_pages
from app.site import submission_pages as submission_detail_pages
from app.solutions import api as solution_api
from app.solutions import pages as solution_pages
from app.submissions import api as submission_api
from app.submissions import pages as submission_pages
from app.submissions.dispatch import Dispatcher, ResultWaiter
from app.submissions.judging import recover_unfinished
from app.submissions.metrics import install_metrics

log = logging.getLogger("torchdrill")

HTTP_CODES = {400: "bad_request", 401: "login_required", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type",
              422: "invalid_input", 429: "rate_limited"}  # fmt: skip


def wants_json(request: Request) -> bool:
    path = request.url.path
    if path.startswith("/api/") or path == "/healthz":
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def error_response(
    request: Request, status: int, code: str, detail: str, headers: dict[str, str] | None = None
) -> Response:
    if wants_json(request):
        return JSONResponse({"error": code, "detail": detail}, status_code=status, headers=headers)
    if code == "login_required":
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target)}", status_code=303)
    if code == "two_factor_required":  # staff the site wants enrolled: to the set-up page
        return RedirectResponse("/account/two-factor", status_code=303)
    response = render(
        request, "errors/error.html", {"status": status, "code": code, "detail": detail}, status
    )
    response.headers.update(headers or {})
    return response


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def app_error(request: Request, exc: AppError) -> Response:
        return error_response(request, exc.status_code, exc.code, exc.detail, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and str(exc.detail).startswith("There was an error parsing the body"):
            # FastAPI's answer to undecodable bodies: the same 422 as any other malformed JSON.
            return error_response(request, 422, "invalid_input", "The request body could not be decoded.")
        code = HTTP_CODES.get(exc.status_code, "http_error")
        detail = "Page not found." if exc.status_code == 404 else str(exc.detail)
        return error_response(request, exc.status_code, code, detail, dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
        return error_response(request, 422, "invalid_input", "; ".join(parts) or "The input is not valid.")

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(
            request,
            500,
            "internal_error",
            "Something went wrong on our side. Your work was not lost; try again.",
        )


def create_app(
    settings: Settings | None = None,
    *,
    database: Database | None = None,
    runner: JudgeRunner | None = None,
    dispatcher: Dispatcher | None = None,
) -> FastAPI:
    settings = settings or get_settings()
    prepare_password_checks()  # log-in costs the same for unknown emails from the first one on
    course_access.install()  # course assignments open Premium problems to their students
    analytics.install()  # course analytics kept in each verdict's transaction
    db = database or Database(settings.database_url, settings.db_pool_size)
    slots = DatabaseSlots(request_slots(db.pool_size, settings.judge_workers))
    waiter = ResultWaiter(recheck_s=settings.wait_recheck_s)
    judging = setup_judging(settings, db, waiter, runner=runner, dispatcher=dispatcher)
    judge_runner, dispatcher = judging.runner, judging.dispatcher
    lti_worker = install_lti(settings, db, waiter)  # LTI grade passback hears verdicts and regrades

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        keep_threads_beyond(slots)
        for submission_id in recover_unfinished(db):  # finish what a previous process left in flight
            dispatcher.submit(submission_id)
        lti_worker.start()
        yield
        lti_worker.stop()
        dispatcher.shutdown()
        if database is None:
            db.dispose()

    # No Swagger UI: it loads from a CDN. /api/docs redirects to the v1 page the app renders itself.
    app = FastAPI(title="Torchdrill", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")  # fmt: skip
    app.state.settings = settings
    app.state.db = db
    app.state.db_slots = slots
    app.state.runner = judge_runner
    app.state.dispatcher = dispatcher
    app.state.waiter = waiter
    app.state.lti_worker = lti_worker

    # Reporters are mailed their re-judge's outcome, through the app's mailer of the moment.
    def notifier() -> Notifier:
        mailer = getattr(app.state, "mailer", None)  # as accounts.reset_pages.get_mailer keeps it
        if mailer is None:
            mailer = app.state.mailer = Mailer(settings)
        return Notifier(mailer, public_url(settings).rstrip("/"))

    report_outcomes.install(notifier)

    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.secret_key,
        session_cookie=settings.session_cookie,
        max_age=settings.session_max_age_s,
        same_site="lax",
        https_only=settings.secure_cookies,
    )

    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(AllowedHostsMiddleware, hosts=allowed_hosts(settings))  # 400 for a forged Host
    # Bodies counted as they arrive, before any route or session reads them (app/kit/body_limit.py).
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(SubmissionLogMiddleware)  # outermost: it sees the access-log line
    install_error_handlers(app)
    app.mount("/static", StaticAssetsApp(static_assets), name="static")  # hashed names, gzip, caching

    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> Response:
        return RedirectResponse("/api/v1/docs", status_code=307)

    @app.get("/healthz", tags=["health"])
    def healthz() -> Response:
        checks: dict[str, str] = {}
        try:
            db.ping()
            checks["database"] = "ok"
        except Exception as exc:
            checks["database"] = f"unavailable: {type(exc).__name__}"
        try:
            checks["runner"] = "ok" if judge_runner.ready() else "starting"
        except Exception as exc:
            checks["runner"] = f"unavailable: {type(exc).__name__}"
        if all(v == "ok" for v in checks.values()):
            return JSONResponse({"status": "ok", **checks, "runtime": runtime_info(judge_runner)})
        detail = ", ".join(f"{k} {v}" for k, v in checks.items() if v != "ok")
        return JSONResponse(
            {"status": "unavailable", "error": "unavailable", "detail": detail, **checks}, status_code=503
        )

    # The JSON APIs before the pages: the editor's and the scripts' calls (runs, submissions, the
    # polls of them, drafts) are many for each page shown, and a request is matched against every
    # route before its own, twice (to find the route, then to enter it). Measured a match: the
    # editor's submission and poll ~30 -> ~8 µs, POST /api/v1/submissions ~110 -> ~60 µs, a page
    # ~7 -> ~60 µs. No path of one router is a path of another (tests/app/test_routes.py), so the
    # order decides nothing else.
    for router in (
        submission_api.router,
        draft_api.router,
        problem_api.router,
        hint_api.router,
        api_v1_router,
        report_api.router,
        solution_api.router,
        problem_pages.router,
        track_pages.router,
        submission_pages.router,
        submission_detail_pages.router,
        report_pages.router,
        discussion_api.router,
        discussion_pages.router,
        moderation_api.router,
        moderation_pages.router,
        solution_pages.router,
        auth_pages.router,
        reset_pages.router,
        two_factor_pages.router,
        account_pages.router,
        admin_pages.router,
        authoring_pages.router,
        authoring_api.router,
        course_api.router,
        course_pages.router,
        analytics_api.router,
        analytics_pages.router,
        billing_api.router,
        lti_pages.router,
        lti_admin_pages.router,
        lti_course_pages.router,
        lti_course_pages.api_router,
    ):
        # Every route holds a database slot from before its first dependency to its teardown
        # (app/kit/db.py). /healthz and /metrics do not queue behind them: one short read each.
        app.include_router(router, dependencies=[DatabaseSlot])
    install_metrics(app, judging.stats, judging.sources)  # /metrics
    return app
