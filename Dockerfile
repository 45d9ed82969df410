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
# Where that index is unreachable, point TORCH_INDEX_URL elsewhere and TORCH_FIND_LINKS at a
# directory holding the +cpu wheel (scripts/image-smoke.sh); the +cpu wheel outranks a plain one.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG TORCH_FIND_LINKS=
# torch.cuda.is_available() is False for a CUDA build on a GPU-less builder too: check the build.
RUN TORCH_VERSION="$(sed -n 's/^torch==//p' /tmp/requirements.txt)" \
 && pip install --index-url "${TORCH_INDEX_URL}" ${TORCH_FIND_LINKS:+--find-links "${TORCH_FIND_LINKS}"} \
        "torch==${TORCH_VERSION}" \
 && pip install -r /tmp/requirements.txt \
 && python -c "import torch; assert torch.version.cuda is None, 'not the CPU build of torch'; print('torch', torch.__version__)"
# The learner commands the operator CLI registers live in the light client (clients/python, package
# `torchdrill`); its dependencies are among requirements.txt's.
COPY clients/python /tmp/client
RUN pip install --no-deps /tmp/client && rm -rf /tmp/client
# The zygote's fork loop, compiled (runner/sandbox/_forkserver.c; without it the zygote runs the same loop
# in Python, slower: docs/benchmarks.md, the twelfth pass). The runtime stage takes the .so only.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && (python -c "import os, sysconfig; raise SystemExit(not os.path.exists(sysconfig.get_paths()['include'] + '/Python.h'))" \
     || apt-get install -y --no-install-recommends python3-dev) \
 && rm -rf /var/lib/apt/lists/*
COPY setup.py /tmp/forkserver/setup.py
COPY runner/sandbox/_forkserver.c /tmp/forkserver/runner/sandbox/_forkserver.c
RUN cd /tmp/forkserver && python setup.py build_ext --inplace \
 && python -c "import sys; sys.path.insert(0, '.'); import runner.sandbox._forkserver"

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
COPY --from=build /tmp/forkserver/runner/sandbox/_forkserver.*.so ./runner/sandbox/
COPY migrations ./migrations
COPY templates ./templates
COPY problems ./problems
COPY scripts/scale-entrypoint.sh /usr/local/bin/torchdrill-entrypoint
# The operator CLI (`torchdrill users create ...`, pyproject's [project.scripts]): the
# project itself is not pip-installed, so write the console script pip would have written.
RUN chmod 0755 /usr/local/bin/torchdrill-entrypoint \
 && printf '#!/opt/venv/bin/python\nimport sys\nfrom app.cli.main import main\nsys.exit(main())\n' \
        > /opt/venv/bin/torchdrill \
 && chmod 0755 /opt/venv/bin/torchdrill \
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
