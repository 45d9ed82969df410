#!/usr/bin/env bash
# Build the Docker image without a Docker engine (rootful podman/buildah) and prove it works
# against the host's PostgreSQL and Redis. An operator/developer check, not part of `make test`:
# it needs root, podman, Debian's apt mirror and PyPI, and takes a few minutes (docs/deploy.md,
# "Verifying the image without a Docker engine").
#
#   sudo scripts/image-smoke.sh
#
# 1. migrate (root, privileged) runs alembic and imports the problem bank; expected values are
#    computed in the sandbox inside the container (bubblewrap + per-job cgroups);
# 2. web (uid 10001, read-only root) refuses to start without a real secret, then serves /healthz;
# 3. recorder + runner judge a reference solution (accepted) and a mutant (wrong_answer) submitted
#    through the REST API with a token made by the `torchdrill` CLI; the three health checks pass;
# 4. the image runs as uid 10001, holds the CPU build of torch, and carries no secret.
#
# No Docker Hub needed: the base image is a stand-in built with debootstrap from the host's apt
# mirror (cached as $BASE_IMAGE). torch comes from the +cpu wheel in $TORCH_WHEELS when there is
# one, else from the Dockerfile's default index. Settings (environment):
#   SMOKE_WORK_DIR      scratch directory for the root filesystem and logs (/var/tmp/torchdrill-image)
#   BASE_IMAGE          stand-in for python:3.11-slim-bookworm (localhost/python-base:3.11-bookworm)
#   IMAGE               tag of the image built (localhost/torchdrill:smoke)
#   REBUILD_BASE=1      rebuild the stand-in base even if it exists;  NO_CACHE=1  podman build --no-cache
#   DEBIAN_MIRROR       default: the first Debian URI of /etc/apt/sources.list*
#   TORCH_WHEELS        directory holding torch-<version>+cpu-*.whl (/opt/wheels)
#   SMOKE_PG_HOST/PORT/USER  PostgreSQL with trust auth (127.0.0.1, 5432, postgres)
#   SMOKE_DB            database created and dropped by this script (torchdrill_image)
#   SMOKE_REDIS_URL     a Redis database nobody else uses; must be empty, flushed at the end
#                       (redis://127.0.0.1:6379/7)
#   SMOKE_PROBLEM, SMOKE_MUTANT   what is submitted (freeze-backbone, hardcoded_example.py)
#   PODMAN_RUNTIME      OCI runtime (runc when installed: crun 1.8 refuses hybrid cgroup hosts)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${SMOKE_WORK_DIR:-/var/tmp/torchdrill-image}"
BASE_IMAGE="${BASE_IMAGE:-localhost/python-base:3.11-bookworm}"
IMAGE="${IMAGE:-localhost/torchdrill:smoke}"
TORCH_WHEELS="${TORCH_WHEELS:-/opt/wheels}"
PG_HOST="${SMOKE_PG_HOST:-127.0.0.1}"
PG_PORT="${SMOKE_PG_PORT:-5432}"
PG_USER="${SMOKE_PG_USER:-postgres}"
DB_NAME="${SMOKE_DB:-torchdrill_image}"
REDIS_URL="${SMOKE_REDIS_URL:-redis://127.0.0.1:6379/7}"
PROBLEM="${SMOKE_PROBLEM:-freeze-backbone}"
MUTANT="${SMOKE_MUTANT:-hardcoded_example.py}"
PREFIX="td-smoke-$$"
DATABASE_URL="postgresql+psycopg://${PG_USER}@${PG_HOST}:${PG_PORT}/${DB_NAME}"

CONTAINERS=()    # names of the containers this run started
DB_CREATED=0
REDIS_CLAIMED=0
T_BASE="cached"
T_BUILD="-"
IMAGE_SIZE="-"

# shellcheck source=scripts/smoke-lib.sh
. "$ROOT/scripts/smoke-lib.sh"

summary() {
  printf '\n==================== image smoke summary ====================\n'
  printf 'image %s (%s), base %s\n' "$IMAGE" "$IMAGE_SIZE" "$BASE_IMAGE"
  printf 'base build: %s, image build: %s\n' "$T_BASE" "$T_BUILD"
  print_results
}

release() {
  local name
  for name in "${CONTAINERS[@]}"; do
    if [ "$FAILED" = 1 ] && podman container exists "$name" 2>/dev/null; then
      printf '\n--- last log lines of %s\n' "$name" >&2
      podman logs --tail 25 "$name" 2>&1 | cut -c1-400 >&2
    fi
    podman rm -f -t 10 "$name" >/dev/null 2>&1
  done
  [ "$DB_CREATED" = 1 ] && PGOPTIONS='-c client_min_messages=warning' dropdb -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" --if-exists "$DB_NAME"
  [ "$REDIS_CLAIMED" = 1 ] && redis-cli -u "$REDIS_URL" flushdb >/dev/null
}
on_exit_release_and_summarize

# --- preconditions -------------------------------------------------------------------------------
require_root "rootful podman: privileged containers and cgroups"
missing=()
for tool in podman curl python3 psql createdb dropdb redis-cli; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] || die "missing tools: ${missing[*]}" \
  "apt-get install -y podman buildah debootstrap curl postgresql-client redis-tools"
mkdir -p "$WORK"

# Containers: runc where installed (crun 1.8 refuses hosts with a hybrid cgroup v1/v2 layout),
# and ulimits within this process's hard limits (podman's defaults are higher and fail without
# CAP_SYS_RESOURCE).
RUNTIME="${PODMAN_RUNTIME:-$(command -v runc >/dev/null && echo runc || echo crun)}"
nofile="$(ulimit -Hn)"; [ "$nofile" = unlimited ] && nofile=1048576
nproc="$(ulimit -Hu)"; { [ "$nproc" = unlimited ] || [ "$nproc" -gt 16384 ]; } && nproc=16384
PODMAN_OPTS=(--runtime "$RUNTIME" --ulimit "nofile=${nofile}:${nofile}" --ulimit "nproc=${nproc}:${nproc}")
# Privileged containers get their own cgroup namespace: the runner's cgroup tree (and its sweep
# of leftover job groups) stays inside the container, away from the host's /sys/fs/cgroup.
PRIVILEGED=(--user root --privileged --cgroupns=private)

prun() { podman run "${PODMAN_OPTS[@]}" --network host "$@"; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- the stand-in base image ---------------------------------------------------------------------
debian_mirror() {
  local uri
  uri="$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    /etc/apt/sources.list.d/*.sources | grep -v -- '-security' \
    | sed -E 's/^URIs:[[:space:]]*//; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//; s/[[:space:]].*//' \
    | grep -m1 '/debian/\?$' || true)"
  printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

build_base() {
  local mirror rootfs="$WORK/rootfs" start
  command -v debootstrap >/dev/null || die "debootstrap missing" "apt-get install -y debootstrap"
  mirror="${DEBIAN_MIRROR:-$(debian_mirror)}"
  log "building the stand-in base $BASE_IMAGE (debootstrap bookworm from $mirror)"
  start=$SECONDS
  rm -rf "$rootfs"
  if ! debootstrap --variant=minbase \
      --include=python3,python3-venv,python3-pip,python-is-python3,ca-certificates \
      bookworm "$rootfs" "$mirror" >"$WORK/base.log" 2>&1; then
    tail -20 "$WORK/base.log" >&2
    die "debootstrap" "see $WORK/base.log"
  fi
  # The same apt sources as the host, so apt-get in the Dockerfile reaches the same mirror.
  if [ -f /etc/apt/sources.list ] || [ -f /etc/apt/sources.list.d/debian.sources ]; then
    rm -f "$rootfs/etc/apt/sources.list"
    [ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$rootfs/etc/apt/sources.list"
    [ -f /etc/apt/sources.list.d/debian.sources ] &&
      cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
  fi
  # Certificate authorities the host trusts beyond Debian's (e.g. a TLS-intercepting egress
  # proxy): without them pip inside the build cannot reach PyPI.
  python3 - "$rootfs" <<'EOF'
import pathlib, re, sys
pem = re.compile(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", re.S)
root = pathlib.Path(sys.argv[1])
have = set(pem.findall((root / "etc/ssl/certs/ca-certificates.crt").read_text()))
extra = [c for c in pem.findall(pathlib.Path("/etc/ssl/certs/ca-certificates.crt").read_text()) if c not in have]
for i, cert in enumerate(extra):
    (root / f"usr/local/share/ca-certificates/host-extra-{i}.crt").write_text(cert + "\n")
print(f"host CA certificates added: {len(extra)}")
EOF
  chroot "$rootfs" update-ca-certificates >>"$WORK/base.log" 2>&1
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  tar --numeric-owner -C "$rootfs" -c . | podman import -q \
    --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV=LANG=C.UTF-8' --change 'CMD=["python3"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  T_BASE="$((SECONDS - start)) s"
}

if [ "${REBUILD_BASE:-0}" = 1 ] || ! podman image exists "$BASE_IMAGE"; then
  build_base
fi
base_python="$(prun --rm "$BASE_IMAGE" python --version 2>&1)" || die "base image runs python" "$base_python"
pass "stand-in base $BASE_IMAGE" "$base_python"

# --- the image -----------------------------------------------------------------------------------
TORCH_VERSION="$(sed -n 's/^torch==//p' "$ROOT/requirements.txt")"
BUILD_ARGS=(--build-arg "PYTHON_IMAGE=$BASE_IMAGE")
wheels=("$TORCH_WHEELS"/torch-"$TORCH_VERSION"+cpu-*.whl)
torch_wheel=""
[ -e "${wheels[0]}" ] && torch_wheel="${wheels[0]}"
if [ -n "$torch_wheel" ]; then
  # The +cpu wheel outranks PyPI's (CUDA) torch of the same version: only the index page is read.
  BUILD_ARGS+=(-v "$TORCH_WHEELS:$TORCH_WHEELS:ro" --build-arg TORCH_INDEX_URL=https://pypi.org/simple
    --build-arg "TORCH_FIND_LINKS=$TORCH_WHEELS")
fi
[ "${NO_CACHE:-0}" = 1 ] && BUILD_ARGS+=(--no-cache)
torch_source="${torch_wheel:-the default index of the Dockerfile}"
log "building $IMAGE (torch from $torch_source); log: $WORK/build.log"
start=$SECONDS
if ! podman build "${PODMAN_OPTS[@]}" --pull=never "${BUILD_ARGS[@]}" -t "$IMAGE" -f "$ROOT/Dockerfile" \
    "$ROOT" >"$WORK/build.log" 2>&1; then
  tail -30 "$WORK/build.log" >&2
  die "podman build" "see $WORK/build.log"
fi
T_BUILD="$((SECONDS - start)) s"
IMAGE_SIZE="$(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.2f GB", $1 / 1e9}')"
pass "podman build" "$T_BUILD, $IMAGE_SIZE"

# --- 4 (static part first): user, torch, no secrets ------------------------------------------------
log "image: user, torch, secrets"
user="$(podman image inspect --format '{{.Config.User}}' "$IMAGE")"
uid="$(prun --rm "$IMAGE" id -u)"
if [ "$uid" = 10001 ] && [ "$user" = torchdrill ]; then
  pass "image runs as a non-root user by default" "USER $user, uid $uid"
else
  fail "image runs as a non-root user by default" "USER '$user', uid '$uid'"
fi
torch="$(prun --rm "$IMAGE" python -c \
  'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>&1 || true)"
nvidia="$(prun --rm "$IMAGE" sh -c 'pip list 2>/dev/null | grep -ci nvidia' || true)"
if [ "$torch" = "${TORCH_VERSION}+cpu cuda None" ] && [ "$nvidia" = 0 ]; then
  pass "torch is the CPU build" "$torch, no nvidia packages"
else
  fail "torch is the CPU build" "$torch; nvidia packages: $nvidia"
fi
secret_re='SECRET|PASSW|TOKEN|DATABASE_URL|BROKER_URL|_KEY='
leaks="$( { podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMAGE"
            podman history --no-trunc --format '{{.CreatedBy}}' "$IMAGE"; } | grep -iE "$secret_re" || true)"
files="$(prun --rm --entrypoint sh "$IMAGE" -c 'find / -xdev \( -name .env -o -name ".env.*" \
  -o -name "*.key" -o -name "id_rsa*" -o -name .git -o -name "*.db" -o -name .netrc -o -name .pypirc \
  -o -name pip.conf \) -print 2>/dev/null; find /srv/torchdrill -name "*.pem"' || true)"
if [ -z "$leaks" ] && [ -z "$files" ]; then
  pass "no secret in the image" "env and history clean; no .env/.git/keys/databases"
else
  fail "no secret in the image" "$(printf '%s %s' "$leaks" "$files" | tr '\n' ' ' | cut -c1-200)"
fi
owner="$(prun --rm "$IMAGE" stat -c '%u %a' /srv/torchdrill/app)"
if [ "$owner" = "0 755" ]; then
  pass "source owned by root, not writable by the app user" "/srv/torchdrill/app: uid 0, mode 755"
else
  fail "source owned by root, not writable by the app user" "$owner"
fi

# --- services: PostgreSQL database and Redis database of our own -----------------------------------
psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -Atqc 'select 1' >/dev/null ||
  die "PostgreSQL reachable" "$PG_USER@$PG_HOST:$PG_PORT (trust auth)"
# Our own database name: a leftover from an interrupted run is ours to drop.
PGOPTIONS='-c client_min_messages=warning' dropdb -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" --if-exists "$DB_NAME"
createdb -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" "$DB_NAME"
DB_CREATED=1
keys="$(redis-cli -u "$REDIS_URL" dbsize 2>&1)" || die "Redis reachable" "$REDIS_URL: $keys"
[ "$keys" = 0 ] || die "Redis database unused" "$REDIS_URL holds $keys keys: set SMOKE_REDIS_URL to an empty one"
REDIS_CLAIMED=1
SECRET="$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')"
METRICS_TOKEN="$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
PORT="$(free_port)"
# Production needs the site's address (links, allowed hosts) and a metrics token: here the site is
# the loopback port the checks below talk to.
SITE_ENV=(-e TORCHDRILL_PUBLIC_URL="http://127.0.0.1:$PORT" -e TORCHDRILL_METRICS_TOKEN="$METRICS_TOKEN")
APP_ENV=(-e TORCHDRILL_ENV=production -e TORCHDRILL_SECRET_KEY="$SECRET" -e TORCHDRILL_DATABASE_URL="$DATABASE_URL"
  -e TORCHDRILL_BROKER_URL="$REDIS_URL" "${SITE_ENV[@]}")

# --- 1. migrate ------------------------------------------------------------------------------------
log "1. migrate (root, privileged): alembic + problem bank, expected values from the sandbox"
n_problems="$(find "$ROOT/problems" -mindepth 2 -maxdepth 2 -name problem.toml | wc -l)"
CONTAINERS+=("$PREFIX-migrate")
start=$SECONDS
if out="$(prun --name "$PREFIX-migrate" "${PRIVILEGED[@]}" "${APP_ENV[@]}" "$IMAGE" migrate 2>&1)"; then
  rc=0
else
  rc=$?
fi
printf '%s\n' "$out" | grep -vE '^INFO  \[alembic' | head -20
head_rev="$(psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$DB_NAME" -Atqc \
  'select version_num from alembic_version' 2>/dev/null || true)"
with_values="$(psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$DB_NAME" -Atqc \
  "select count(*) from problem_versions where expectations::text like '%\"value\"%'" 2>/dev/null || echo 0)"
if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q "created $n_problems, updated 0, unchanged 0, failed 0" \
    && [ "$with_values" = "$n_problems" ]; then
  pass "migrate" "alembic at $head_rev; $n_problems problems imported with sandbox-computed values, $((SECONDS - start)) s"
else
  die "migrate" "exit $rc; $with_values of $n_problems problems with expected values"
fi

# --- 2. web ----------------------------------------------------------------------------------------
log "2. web: refuses a missing or default secret; serves /healthz as uid 10001"
WEB_ENV=(-e TORCHDRILL_ENV=production -e TORCHDRILL_DATABASE_URL="$DATABASE_URL" -e TORCHDRILL_BROKER_URL="$REDIS_URL"
  -e TORCHDRILL_HOST=127.0.0.1 -e TORCHDRILL_PORT="$PORT" "${SITE_ENV[@]}")
for case in missing default; do
  secret_env=()
  [ "$case" = default ] && secret_env=(-e TORCHDRILL_SECRET_KEY=dev-insecure-secret-change-me)
  CONTAINERS+=("$PREFIX-web-$case")
  if out="$(timeout 120 podman run "${PODMAN_OPTS[@]}" --network host --name "$PREFIX-web-$case" \
      --read-only --tmpfs /tmp "${WEB_ENV[@]}" "${secret_env[@]}" "$IMAGE" web 2>&1)"; then
    fail "web refuses a $case secret" "it started"
  elif printf '%s' "$out" | grep -q 'TORCHDRILL_SECRET_KEY must be set'; then
    pass "web refuses a $case secret" "exit non-zero: TORCHDRILL_SECRET_KEY must be set ..."
  else
    fail "web refuses a $case secret" "$(printf '%s' "$out" | tail -1 | cut -c1-160)"
  fi
done
CONTAINERS+=("$PREFIX-web")
prun -d --name "$PREFIX-web" --read-only --tmpfs /tmp "${WEB_ENV[@]}" -e TORCHDRILL_SECRET_KEY="$SECRET" \
  "$IMAGE" web >/dev/null
code=000
for _ in $(seq 60); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" || true)"
  [ "$code" = 200 ] && break
  sleep 1
done
[ "$code" = 200 ] || die "web /healthz" "HTTP $code"
pass "web /healthz" "HTTP 200: $(curl -s "http://127.0.0.1:$PORT/healthz")"
web_uid="$(podman exec "$PREFIX-web" id -u)"
app_uid="$(podman top "$PREFIX-web" huser args | awk '/python -m app/ {print $1}')"
if [ "$web_uid" = 10001 ] && [ "$app_uid" = 10001 ]; then
  pass "web runs as uid 10001" "python -m app under host uid $app_uid"
else
  fail "web runs as uid 10001" "exec uid $web_uid, app process uid '$app_uid'"
fi

# --- 3. recorder, runner, a judged submission ---------------------------------------------------------
log "3. recorder + runner; submissions through the REST API"
CONTAINERS+=("$PREFIX-recorder" "$PREFIX-runner")
prun -d --name "$PREFIX-recorder" --read-only --tmpfs /tmp "${APP_ENV[@]}" "$IMAGE" recorder >/dev/null
# Like docker-compose.yml: the runner holds the broker URL only.
prun -d --name "$PREFIX-runner" "${PRIVILEGED[@]}" --tmpfs /tmp -e TORCHDRILL_BROKER_URL="$REDIS_URL" \
  -e TORCHDRILL_RUNNER_SLOTS=2 "$IMAGE" runner >/dev/null
for _ in $(seq 90); do
  podman exec "$PREFIX-runner" torchdrill-entrypoint healthcheck-runner 2>/dev/null && break
  running="$(podman inspect -f '{{.State.Running}}' "$PREFIX-runner" 2>/dev/null || true)"
  [ "$running" = true ] || die "runner starts" "the container exited"
  sleep 1
done

email="smoke-$$@example.com"
podman exec "$PREFIX-web" torchdrill users create "$email" --password 'correct horse battery staple' >/dev/null \
  || die "torchdrill users create (CLI in the web container)"
TOKEN="$(podman exec "$PREFIX-web" torchdrill tokens create "$email" --name image-smoke)" \
  || die "torchdrill tokens create (CLI in the web container)"
pass "torchdrill CLI in the image" "users create + tokens create"

submit() {  # submit FILE -> "verdict passed/total (submission ID, HTTP status, runtime ...)"
  python3 "$ROOT/scripts/smoke_submit.py" "$PORT" "$TOKEN" "$PROBLEM" "$1"
}
verdict="$(submit "$ROOT/problems/$PROBLEM/solution.py")"
if [[ "$verdict" == accepted\ * ]]; then
  pass "reference solution of $PROBLEM" "$verdict"
else
  fail "reference solution of $PROBLEM" "$verdict"
fi
verdict="$(submit "$ROOT/problems/$PROBLEM/mutants/$MUTANT")"
if [[ "$verdict" == wrong_answer\ * ]]; then
  pass "mutant $MUTANT of $PROBLEM" "$verdict"
else
  fail "mutant $MUTANT of $PROBLEM" "$verdict"
fi
# Warm spares wait in fresh job groups with their limits set (cgroup v1 or v2 layout).
cg="$(podman exec "$PREFIX-runner" sh -c 'cd /sys/fs/cgroup && for f in memory/torchdrill/job-*/memory.limit_in_bytes \
  torchdrill/job-*/memory.max; do [ -f "$f" ] && echo "$f=$(cat "$f")"; done' 2>/dev/null || true)"
if [ -n "$cg" ]; then
  pass "runner's per-job cgroups" "$(printf '%s\n' "$cg" | wc -l) job groups in the container's own cgroup, e.g. $(printf '%s\n' "$cg" | head -1 | sed 's|job-[^/]*|job-*|')"
else
  fail "runner's per-job cgroups" "no job group with a memory limit in the runner container"
fi

for svc in web recorder runner; do
  if podman exec "$PREFIX-$svc" torchdrill-entrypoint "healthcheck-$svc"; then
    pass "healthcheck-$svc"
  else
    fail "healthcheck-$svc" "exit $?"
  fi
done
