# syntax=docker/dockerfile:1
# One image, four entry points (scripts/scale-entrypoint.sh): web, recorder, runner, migrate.
# No secret is baked in: every credential comes from the environment at run time (docs/deploy.md).
#
#   docker build -t torchdrill:latest .
#   docker compose up -d --scale runner=4

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- build: a virtualenv with the pinned dependencies and the CPU build of torch -------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt /tmp/requirements.txt
# torch first, from the CPU-only index (no CUDA wheels): `pip install -r` then finds it satisfied.
RUN TORCH_VERSION="$(sed -n 's/^torch==//p' /tmp/requirements.txt)" \
 && pip install --index-url https://download.pytorch.org/whl/cpu "torch==${TORCH_VERSION}" \
 && pip install -r /tmp/requirements.txt \
 && python -c "import torch; assert not torch.cuda.is_available(); print('torch', torch.__version__)"

# --- runtime -----------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 torchdrill \
 && useradd --system --uid 10001 --gid torchdrill --home-dir /srv/torchdrill --shell /usr/sbin/nologin torchdrill
COPY --from=build /opt/venv /opt/venv
WORKDIR /srv/torchdrill
# Source owned by root and read-only for the app user: a compromised web process cannot rewrite it.
COPY alembic.ini pyproject.toml ./
COPY app ./app
COPY runner ./runner
COPY migrations ./migrations
COPY templates ./templates
COPY problems ./problems
COPY scripts/scale-entrypoint.sh /usr/local/bin/torchdrill-entrypoint
RUN chmod 0755 /usr/local/bin/torchdrill-entrypoint \
 && python -m compileall -q app runner migrations
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/srv/torchdrill \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TORCHDRILL_ENV=production \
    TORCHDRILL_HOST=0.0.0.0 \
    TORCHDRILL_PORT=8000 \
    TORCHDRILL_LOG_FORMAT=json \
    TORCHDRILL_PROBLEMS_DIR=/srv/torchdrill/problems
# web and recorder run as this user; runner and migrate need root for bubblewrap and cgroups and
# are started with `user: root` in docker-compose.yml.
USER torchdrill
EXPOSE 8000
ENTRYPOINT ["/usr/bin/tini", "--", "torchdrill-entrypoint"]
CMD ["web"]
