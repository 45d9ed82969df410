#!/bin/sh
# The container's entry points (Dockerfile ENTRYPOINT). Secrets come only from the environment.
#   web       the FastAPI app (python -m app); refuses a default secret in production
#   recorder  stores verdicts from the results queue, sweeps lost/stuck submissions
#   runner    a sandboxed judge worker on the judge queue (needs root; holds only the broker URL)
#   migrate   alembic upgrade head, then import the problem bank (needs the sandbox: run as root)
#   healthcheck-web | healthcheck-runner | healthcheck-recorder
set -eu
cmd="${1:-web}"
[ "$#" -gt 0 ] && shift
case "$cmd" in
  web)
    exec python -m app "$@" ;;
  recorder)
    exec python -m app.scaleout.recorder "$@" ;;
  runner)
    exec python -m runner.transport.celery_worker "$@" ;;
  migrate)
    alembic upgrade head
    exec python -m app.problems.importer "${TORCHDRILL_PROBLEMS_DIR:-problems}" ;;
  healthcheck-web)
    exec python -c "import sys, urllib.request as u; sys.exit(0 if u.urlopen('http://127.0.0.1:${TORCHDRILL_PORT:-8000}/healthz', timeout=5).status == 200 else 1)" ;;
  healthcheck-runner)
    exec python -m runner.transport.celery_worker healthcheck ;;
  healthcheck-recorder)
    exec python -m app.scaleout.recorder healthcheck ;;
  *)
    exec "$cmd" "$@" ;;
esac
