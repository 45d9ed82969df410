#!/usr/bin/env bash
# Run the real docker-compose.yml under rootful podman + podman-compose and prove the topology.
# An operator/developer check, not part of `make test`: root only, needs podman, PyPI (for
# podman-compose) and Debian's apt mirror (stand-in images), takes a few minutes.
#
#   sudo scripts/compose-smoke.sh
#
# What it proves (each line is a PASS/FAIL in the summary):
#   - docker-compose.yml, unmodified and without an override file, is accepted by podman-compose
#     and brings up postgres, redis, migrate, web, recorder and two runners (--scale runner=2);
#   - migrate ran once, exited 0 and finished before web and recorder started;
#   - the compose health checks of postgres, redis, web, recorder and both runners pass;
#   - web answers /healthz on 127.0.0.1:$TORCHDRILL_WEB_PORT (published on the loopback only);
#   - network isolation seen from a runner: redis:6379 reachable; postgres and web (by name and by
#     IP address), web's port published on the host's loopback, and outside addresses are not;
#     a host service listening on 0.0.0.0 reachable via the broker network's gateway is a WARN
#     (internal networks, Docker's and podman's alike, still give the host an address on the
#     bridge: only the host's firewall closes that, docs/deploy.md); SMOKE_STRICT_HOST_ISOLATION=1
#     makes it a FAIL, for a host whose firewall is meant to drop that traffic;
#   - a runner's environment holds no app secret / database URL / database password; web's does;
#   - the `torchdrill` CLI in the web container makes a user and a token; through the REST API
#     the reference solution of $SMOKE_PROBLEM is `accepted`, a mutant `wrong_answer`;
#   - with one runner stopped (warm shutdown), the other still judges;
#   - `podman-compose down -v` leaves no container, network or volume of the project.
#
# What it does not prove: the behaviour of Docker Engine / `docker compose` itself (podman's
# netavark networks, not Docker's); the official postgres/redis images (stand-ins built from
# Debian bookworm packages, scripts/compose-standins/: PostgreSQL 15 instead of 16, Redis 7.0);
# that podman-compose enforces depends_on (it cannot here, see below: the script does, in the
# same order); health-check *scheduling* (podman runs health checks from systemd timers; without
# systemd this script runs `podman healthcheck run` itself every $HEALTH_EVERY seconds);
# restart policies; anything under load (python -m bench.scale).
#
# Machine quirks, none of which touch docker-compose.yml:
#   - containers.conf (via CONTAINERS_CONF, a copy of the system one plus): runtime runc (crun 1.8
#     refuses hybrid cgroup hosts), default ulimits within this process's hard limits (podman's
#     defaults need CAP_SYS_RESOURCE), cgroupns private (like image-smoke.sh's privileged runs);
#   - depends_on is applied by this script, not by podman-compose: podman-compose 1.6 skips
#     `condition: service_healthy` with podman < 4.6, and with podman 4.3 `podman start` of web
#     fails on the --requires chain web -> migrate (exited) -> postgres ("generating dependency
#     graph ... not found in input list", containers/podman-compose#921, fixed in podman by
#     containers/podman#26193); --requires would also start the one-shot migrate again. So:
#     `up -d postgres redis` until both are healthy; `up -d --no-deps migrate` until it exits 0;
#     `up -d --no-deps --scale runner=2 web recorder runner`;
#   - teardown is `down -v --remove-orphans`, twice if needed: podman-compose's down does not know
#     the scaled replica runner_2 (removed only as an orphan, in arbitrary order);
#   - podman-compose prints the podman commands it runs, secrets included: its output goes to
#     $WORK/podman-compose.log (mode 0600, deleted at the end unless KEEP_LOGS=1).
#
# Settings (environment):
#   COMPOSE_SMOKE_PROJECT  project name (tdcompose); its containers/networks/volumes are removed
#   SMOKE_WORK_DIR         scratch directory (/var/tmp/torchdrill-compose)
#   PC_VENV                virtualenv for podman-compose, outside the repo (/var/tmp/pc-venv)
#   PODMAN_COMPOSE_VERSION pinned podman-compose (1.6.0)
#   BASE_IMAGE             debootstrap base of image-smoke.sh (localhost/python-base:3.11-bookworm)
#   REBUILD_STANDINS=1     rebuild the redis/postgres stand-ins even if they exist
#   SKIP_APP_BUILD=1       use the existing torchdrill:latest instead of rebuilding it (cached build)
#   TORCH_WHEELS           directory holding torch-<version>+cpu-*.whl (/opt/wheels)
#   TORCHDRILL_WEB_PORT    host port for web (default: a free one)
#   HEALTH_EVERY           seconds between driven health checks (5)
#   SMOKE_PROBLEM, SMOKE_MUTANT   what is submitted (freeze-backbone, hardcoded_example.py)
#   KEEP_LOGS=1            keep $WORK (logs) after the run
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STANDINS="$ROOT/scripts/compose-standins"
WORK="${SMOKE_WORK_DIR:-/var/tmp/torchdrill-compose}"
PROJECT="${COMPOSE_SMOKE_PROJECT:-tdcompose}"
PC_VENV="${PC_VENV:-/var/tmp/pc-venv}"
PC_VERSION="${PODMAN_COMPOSE_VERSION:-1.6.0}"
BASE_IMAGE="${BASE_IMAGE:-localhost/python-base:3.11-bookworm}"
APP_IMAGE="localhost/torchdrill:latest"   # docker-compose.yml: ${TORCHDRILL_IMAGE:-torchdrill:latest}
REDIS_IMAGE="docker.io/library/redis:7-bookworm"
PG_IMAGE="docker.io/library/postgres:16-bookworm"
TORCH_WHEELS="${TORCH_WHEELS:-/opt/wheels}"
HEALTH_EVERY="${HEALTH_EVERY:-5}"
PROBLEM="${SMOKE_PROBLEM:-freeze-backbone}"
MUTANT="${SMOKE_MUTANT:-hardcoded_example.py}"
LABEL="io.podman.compose.project=$PROJECT"

STACK_UP=0
HEALTH_PID=""
LISTENER_PID=""
T_START=$SECONDS
PODMAN_VERSION="$(podman version --format '{{.Client.Version}}' 2>/dev/null || echo '?')"
TIMINGS=()

# shellcheck source=scripts/smoke-lib.sh
. "$ROOT/scripts/smoke-lib.sh"
timing() { TIMINGS+=("$1: $2 s"); }

summary() {
  printf '\n==================== compose smoke summary ====================\n'
  printf 'project %s, podman %s, podman-compose %s, total %s s\n' "$PROJECT" \
    "$PODMAN_VERSION" "$PC_VERSION" "$((SECONDS - T_START))"
  local line joined=""
  for line in "${TIMINGS[@]}"; do joined+="${joined:+, }$line"; done
  printf 'timings: %s\n' "${joined:-none}"
  print_results
}

project_leftovers() {
  {
    podman ps -a --filter "label=$LABEL" --format 'container {{.Names}}'
    podman network ls --filter "label=$LABEL" --format 'network {{.Name}}'
    podman volume ls --filter "label=$LABEL" --format 'volume {{.Name}}'
  } 2>/dev/null
}

release() {
  local name left start
  [ -n "$HEALTH_PID" ] && kill "$HEALTH_PID" 2>/dev/null && wait "$HEALTH_PID" 2>/dev/null
  [ -n "$LISTENER_PID" ] && kill "$LISTENER_PID" 2>/dev/null
  if [ "$STACK_UP" = 1 ]; then
    if [ "$FAILED" = 1 ]; then
      for name in $(podman ps -a --filter "label=$LABEL" --format '{{.Names}}'); do
        printf '\n--- %s: %s; last log lines\n' "$name" \
          "$(podman inspect --format '{{.State.Status}} exit={{.State.ExitCode}} health={{.State.Health.Status}}' "$name")" >&2
        podman logs --tail 15 "$name" 2>&1 | cut -c1-300 >&2
      done
    fi
    log "teardown: podman-compose down -v --remove-orphans"
    start=$SECONDS
    pc down -v --remove-orphans >>"$WORK/podman-compose.log" 2>&1
    # podman-compose 1.6's down only knows runner_1 (no --scale): runner_2 goes as an orphan, in
    # any order, so the first pass may fail to remove redis (runner_2 --requires it), its volume
    # and the broker network. A second pass removes what is left; both are reported.
    left="$(project_leftovers)"
    if [ -n "$left" ]; then
      printf 'after the first down: %s; second pass\n' "$(echo "$left" | tr '\n' ' ')"
      pc down -v --remove-orphans >>"$WORK/podman-compose.log" 2>&1
    fi
    timing "down" "$((SECONDS - start))"
    left="$(project_leftovers)"
    if [ -z "$left" ]; then
      pass "down -v removed the project's containers, networks and volumes"
    else
      fail "down -v removed the project's containers, networks and volumes" "left: $(echo "$left" | tr '\n' ' ')"
    fi
  fi
  if [ "${KEEP_LOGS:-0}" != 1 ]; then
    rm -f "$WORK/podman-compose.log" "$WORK/containers.conf" "$WORK/healthz" "$WORK"/*.log
    rmdir "$WORK" 2>/dev/null
  fi
}
on_exit_release_and_summarize

# --- preconditions -----------------------------------------------------------------------------------
require_root "rootful podman: privileged containers, bridge networks"
for tool in podman python3 curl; do
  command -v "$tool" >/dev/null || die "missing tool: $tool" "apt-get install -y podman python3-venv curl"
done
podman image exists "$BASE_IMAGE" || die "base image $BASE_IMAGE" "run scripts/image-smoke.sh once: it builds it"
mkdir -p "$WORK"
chmod 0700 "$WORK"

# containers.conf for this run: the system one, plus the machine quirks (see the header).
nofile="$(ulimit -Hn)"; [ "$nofile" = unlimited ] && nofile=1048576
nproc="$(ulimit -Hu)"; { [ "$nproc" = unlimited ] || [ "$nproc" -gt 16384 ]; } && nproc=16384
RUNTIME="${PODMAN_RUNTIME:-$(command -v runc >/dev/null && echo runc || echo crun)}"
sys_conf=/etc/containers/containers.conf
[ -f "$sys_conf" ] || sys_conf=/usr/share/containers/containers.conf
python3 - "$sys_conf" "$WORK/containers.conf" "$RUNTIME" "$nofile" "$nproc" <<'EOF'
import re, sys
src, dst, runtime, nofile, nproc = sys.argv[1:]
text = open(src).read() if src and __import__("os").path.exists(src) else ""
for key in ("runtime", "default_ulimits", "cgroupns"):
    if re.search(rf"^\s*{key}\s*=", text, re.M):
        sys.exit(f"{src} already sets {key}: merge by hand")
add = {
    "containers": f'cgroupns = "private"\ndefault_ulimits = ["nofile={nofile}:{nofile}", "nproc={nproc}:{nproc}"]\n',
    "engine": f'runtime = "{runtime}"\n',
}
for table, lines in add.items():
    if re.search(rf"^\[{table}\]\s*$", text, re.M):
        text = re.sub(rf"^\[{table}\]\s*$", f"[{table}]\n{lines}", text, count=1, flags=re.M)
    else:
        text += f"\n[{table}]\n{lines}"
open(dst, "w").write(text)
EOF
export CONTAINERS_CONF="$WORK/containers.conf"

# podman-compose, pinned, in a virtualenv outside the repository.
PC="$PC_VENV/bin/podman-compose"
if ! "$PC_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('podman-compose') != '$PC_VERSION')" 2>/dev/null; then
  log "installing podman-compose==$PC_VERSION into $PC_VENV"
  python3 -m venv "$PC_VENV"
  "$PC_VENV/bin/pip" install -q --disable-pip-version-check "podman-compose==$PC_VERSION" >"$WORK/pip.log" 2>&1 \
    || die "pip install podman-compose==$PC_VERSION" "see $WORK/pip.log"
fi
pc() { "$PC" -p "$PROJECT" -f "$ROOT/docker-compose.yml" "$@"; }

# --- images ------------------------------------------------------------------------------------------
BUILD_OPTS=(--pull=never --build-arg "BASE_IMAGE=$BASE_IMAGE")
build_standin() {  # build_standin TAG CONTAINERFILE
  local start=$SECONDS
  if [ "${REBUILD_STANDINS:-0}" = 1 ] || ! podman image exists "$1"; then
    log "building stand-in $1 from $2"
    podman build "${BUILD_OPTS[@]}" -t "$1" -f "$STANDINS/$2" "$STANDINS" >"$WORK/build-$2.log" 2>&1 \
      || { tail -20 "$WORK/build-$2.log" >&2; die "build stand-in $1" "see $WORK/build-$2.log"; }
    timing "build $1" "$((SECONDS - start))"
  fi
}
build_standin "$REDIS_IMAGE" redis.Containerfile
build_standin "$PG_IMAGE" postgres.Containerfile
pass "stand-in images" "$(podman run --rm "$REDIS_IMAGE" redis-server --version | grep -o 'v=[0-9.]*'), $(podman run --rm "$PG_IMAGE" postgres --version)"

if [ "${SKIP_APP_BUILD:-0}" != 1 ] || ! podman image exists "$APP_IMAGE"; then
  # The build step of scripts/image-smoke.sh (same cache): the +cpu torch wheel when there is one.
  TORCH_VERSION="$(sed -n 's/^torch==//p' "$ROOT/requirements.txt")"
  APP_BUILD=(--pull=never --build-arg "PYTHON_IMAGE=$BASE_IMAGE")
  wheels=("$TORCH_WHEELS"/torch-"$TORCH_VERSION"+cpu-*.whl)
  if [ -e "${wheels[0]}" ]; then
    APP_BUILD+=(-v "$TORCH_WHEELS:$TORCH_WHEELS:ro" --build-arg TORCH_INDEX_URL=https://pypi.org/simple
      --build-arg "TORCH_FIND_LINKS=$TORCH_WHEELS")
  fi
  log "building $APP_IMAGE from the current source (log: $WORK/build-app.log)"
  start=$SECONDS
  podman build "${APP_BUILD[@]}" -t "$APP_IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$WORK/build-app.log" 2>&1 \
    || { tail -30 "$WORK/build-app.log" >&2; die "podman build $APP_IMAGE" "see $WORK/build-app.log"; }
  timing "build app image" "$((SECONDS - start))"
fi
pass "app image" "$APP_IMAGE $(podman image inspect --format '{{.Id}}' "$APP_IMAGE" | cut -c1-12)"

# --- bring the stack up -------------------------------------------------------------------------------
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
rand() { python3 -c "import secrets; print(secrets.token_urlsafe($1))"; }
POSTGRES_PASSWORD="$(rand 32)"; REDIS_PASSWORD="$(rand 32)"; TORCHDRILL_SECRET_KEY="$(rand 48)"
TORCHDRILL_WEB_PORT="${TORCHDRILL_WEB_PORT:-$(free_port)}"
TORCHDRILL_METRICS_TOKEN="$(rand 32)"
# The site, as the checks below reach it: web's published port on the host's loopback.
TORCHDRILL_PUBLIC_URL="http://127.0.0.1:$TORCHDRILL_WEB_PORT"
export POSTGRES_PASSWORD REDIS_PASSWORD TORCHDRILL_SECRET_KEY TORCHDRILL_WEB_PORT TORCHDRILL_METRICS_TOKEN \
  TORCHDRILL_PUBLIC_URL
unset TORCHDRILL_IMAGE
PORT="$TORCHDRILL_WEB_PORT"
: >"$WORK/podman-compose.log"; chmod 0600 "$WORK/podman-compose.log"
# Leftovers of an interrupted run under this project name are ours to remove.
if [ -n "$(project_leftovers)" ]; then
  log "removing leftovers of project $PROJECT"
  pc down -v --remove-orphans >>"$WORK/podman-compose.log" 2>&1 || true
fi
[ -z "$(project_leftovers)" ] || die "project $PROJECT is free" "$(project_leftovers | tr '\n' ' ')"

ctrs() {  # ctrs SERVICE: names of the service's containers
  podman ps -a --filter "label=$LABEL" --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | sort
}
health() { podman inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null || echo missing; }

# Health checks are scheduled by systemd timers in podman 4.3; without systemd nobody runs them.
health_driver() {
  local name
  while sleep "$HEALTH_EVERY"; do
    for name in $(podman ps --filter "label=$LABEL" --format '{{.Names}}' 2>/dev/null); do
      [ -n "$(podman inspect --format '{{if .Config.Healthcheck}}yes{{end}}' "$name" 2>/dev/null)" ] || continue
      podman healthcheck run "$name" >/dev/null 2>&1 || true
    done
  done
}
systemd_timers=no
[ -S /run/systemd/private ] && systemd_timers=yes
if [ "$systemd_timers" = no ]; then
  health_driver &
  HEALTH_PID=$!
fi

wait_healthy() {  # wait_healthy TIMEOUT CONTAINER...
  local deadline=$((SECONDS + $1)) name all; shift
  while :; do
    all=1
    for name in "$@"; do [ "$(health "$name")" = healthy ] || all=0; done
    [ "$all" = 1 ] && return 0
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 2
  done
}

# The depends_on graph, applied by this script in three steps (see the header: podman-compose
# skips service_healthy with podman < 4.6, and podman 4.3 cannot start web/recorder with
# --requires on the exited one-shot migrate: "generating dependency graph ... not found in input
# list", containers/podman-compose#921; podman would also start migrate again there).
log "1/3: podman-compose up -d postgres redis, until both are healthy"
STACK_UP=1
start=$SECONDS
pc up -d postgres redis >>"$WORK/podman-compose.log" 2>&1 || die "podman-compose up -d postgres redis" "see $WORK/podman-compose.log"
PG_C="$(ctrs postgres)"; REDIS_C="$(ctrs redis)"
wait_healthy 120 "$PG_C" "$REDIS_C" || die "postgres and redis become healthy" "postgres $(health "$PG_C"), redis $(health "$REDIS_C")"
timing "postgres+redis healthy" "$((SECONDS - start))"
HEALTHY_AT="$(date +%s.%N)"  # upper bound: the waiting loop saw both healthy at most 2 s earlier

log "2/3: podman-compose up -d --no-deps migrate, until it exits"
start=$SECONDS
pc up -d --no-deps migrate >>"$WORK/podman-compose.log" 2>&1 || die "podman-compose up -d --no-deps migrate" "see $WORK/podman-compose.log"
MIGRATE_C="$(ctrs migrate)"
m_rc="$(timeout 600 podman wait "$MIGRATE_C")" || die "migrate exits within 600 s" "$(podman inspect --format '{{.State.Status}}' "$MIGRATE_C")"
timing "migrate" "$((SECONDS - start))"
[ "$m_rc" = 0 ] || die "migrate exited 0 (service_completed_successfully)" "exit $m_rc"

log "3/3: podman-compose up -d --no-deps --scale runner=2 web recorder runner"
start=$SECONDS
pc up -d --no-deps --scale runner=2 web recorder runner >>"$WORK/podman-compose.log" 2>&1 \
  || die "podman-compose up -d --no-deps --scale runner=2 web recorder runner" "see $WORK/podman-compose.log"
timing "up web, recorder, 2 runners" "$((SECONDS - start))"

WEB_C="$(ctrs web)"; REC_C="$(ctrs recorder)"
mapfile -t RUNNERS < <(ctrs runner)
n_pg="$(ctrs postgres | wc -l)"; n_redis="$(ctrs redis | wc -l)"; n_migrate="$(ctrs migrate | wc -l)"
check "one container each for postgres, redis, migrate, web, recorder" \
  "postgres $n_pg, redis $n_redis, migrate $n_migrate, web $(ctrs web | wc -l), recorder $(ctrs recorder | wc -l)" \
  test "$n_pg$n_redis$n_migrate$(ctrs web | wc -l)$(ctrs recorder | wc -l)" = 11111
check "two runner containers (--scale runner=2)" "${RUNNERS[*]}" test "${#RUNNERS[@]}" = 2

# --- migrate: once, exit 0, before web and recorder ---------------------------------------------------------
epoch() { podman inspect --format "{{.State.$2.UnixNano}}" "$1" | awk '{printf "%.3f", $1 / 1e9}'; }
m_exit="$(podman inspect --format '{{.State.ExitCode}} {{.State.Status}} {{.RestartCount}}' "$MIGRATE_C")"
m_start="$(epoch "$MIGRATE_C" StartedAt)"; m_end="$(epoch "$MIGRATE_C" FinishedAt)"
w_start="$(epoch "$WEB_C" StartedAt)"; r_start="$(epoch "$REC_C" StartedAt)"
m_out="$(podman logs "$MIGRATE_C" 2>&1 | grep -E 'created [0-9]+, updated' | tail -1)"
check "migrate ran once and exited 0" "exit/status/restarts: $m_exit; ${m_out:0:90}" \
  test "$m_exit" = "0 exited 0"
if order="$(python3 -c 'import sys; h, ms, me, w, r = map(float, sys.argv[1:]);
print(f"postgres healthy +0.0s, migrate {ms-h:+.1f}s..{me-h:+.1f}s, web {w-h:+.1f}s, recorder {r-h:+.1f}s");
sys.exit(0 if h <= ms < me <= w and me <= r else 1)' "$HEALTHY_AT" "$m_start" "$m_end" "$w_start" "$r_start")"; then
  pass "migrate finished before web and recorder started" "$order"
else
  fail "migrate finished before web and recorder started" "$order"
fi

# --- health checks -------------------------------------------------------------------------------------
start=$SECONDS
if wait_healthy 240 "$PG_C" "$REDIS_C" "$WEB_C" "$REC_C" "${RUNNERS[@]}"; then
  timing "all healthy after up" "$((SECONDS - start))"
fi
driver="compose health checks run by this script's driver every ${HEALTH_EVERY}s (no systemd)"
[ "$systemd_timers" = yes ] && driver="podman's systemd timers"
for name in "$PG_C" "$REDIS_C" "$WEB_C" "$REC_C" "${RUNNERS[@]}"; do
  cmd="$(podman inspect --format '{{join .Config.Healthcheck.Test " "}}' "$name" | cut -c1-60)"
  check "healthy: $name" "$cmd" test "$(health "$name")" = healthy
done
printf '(health: %s)\n' "$driver"

# --- web on the loopback ----------------------------------------------------------------------------------
code="$(curl -s -o "$WORK/healthz" -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" || true)"
check "web /healthz on 127.0.0.1:$PORT" "HTTP $code $(head -c 100 "$WORK/healthz" 2>/dev/null)" test "$code" = 200
binding="$(podman port "$WEB_C" | tr '\n' ' ')"
check "web published on the host's loopback only" "$binding" test "$binding" = "8000/tcp -> 127.0.0.1:$PORT "

# --- network isolation, seen from a runner ------------------------------------------------------------------
R1="${RUNNERS[0]}"
ip_of() {  # ip_of CONTAINER NETWORK
  podman inspect --format "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$1"
}
broker_gw="$(podman network inspect --format '{{range .Subnets}}{{.Gateway}}{{end}}' "${PROJECT}_broker")"
web_ip="$(ip_of "$WEB_C" "${PROJECT}_frontend")"
web_backend_ip="$(ip_of "$WEB_C" "${PROJECT}_backend")"
pg_ip="$(ip_of "$PG_C" "${PROJECT}_backend")"
probe() {  # probe HOST PORT -> "open" | "closed: <error>"
  podman exec "$R1" python -c '
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()
    print("open")
except Exception as exc:
    print(f"closed: {type(exc).__name__}: {exc}"[:90])' "$1" "$2"
}
res="$(probe redis 6379)"
check "runner reaches redis:6379" "$res" test "$res" = open
for target in postgres:5432 web:8000 "$pg_ip:5432" "$web_backend_ip:8000" "$web_ip:8000" \
    "$broker_gw:$PORT" 1.1.1.1:53 deb.debian.org:80; do
  res="$(probe "${target%:*}" "${target##*:}")"
  what="$target"
  case "$target" in
    "$pg_ip:5432") what="postgres by IP $target" ;;
    "$web_backend_ip:8000") what="web by backend IP $target" ;;
    "$web_ip:8000") what="web by frontend IP $target" ;;
    "$broker_gw:$PORT") what="host via broker gateway, web's published port $target" ;;
  esac
  check "runner cannot reach $what" "$res" test "${res%%:*}" = closed
done
# A host service listening on all interfaces (a throwaway listener of this script, on a free
# port): internal networks block forwarding, but the host owns the bridge's gateway address.
LISTENER_PORT="$(free_port)"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(8); time.sleep(120)' "$LISTENER_PORT" &
LISTENER_PID=$!
sleep 0.5
res="$(probe "$broker_gw" "$LISTENER_PORT")"
kill "$LISTENER_PID" 2>/dev/null; wait "$LISTENER_PID" 2>/dev/null || true
LISTENER_PID=""
what="runner cannot reach a host service on 0.0.0.0 via the broker gateway $broker_gw:$LISTENER_PORT"
if [ "${res%%:*}" = closed ]; then
  pass "$what" "$res"
elif [ "${SMOKE_STRICT_HOST_ISOLATION:-0}" = 1 ]; then
  fail "$what" "$res: host services bound to all interfaces are reachable from the runner network"
else
  warn "$what" "$res: the host's firewall does not drop traffic from the broker network (docs/deploy.md; SMOKE_STRICT_HOST_ISOLATION=1 makes this a failure)"
fi

# --- secrets: runner holds the broker URL only ---------------------------------------------------------
secret_re='^(TORCHDRILL_SECRET_KEY|TORCHDRILL_DATABASE_URL|POSTGRES_PASSWORD|TORCHDRILL_METRICS_TOKEN)='
for name in "${RUNNERS[@]}"; do
  held="$(podman exec "$name" env | grep -oE "$secret_re" | tr '\n' ' ' || true)"
  broker="$(podman exec "$name" env | grep -c '^TORCHDRILL_BROKER_URL=' || true)"
  check "$name's environment holds no app secret or database URL" "found: ${held:-none}; broker URL: $broker" \
    test -z "$held" -a "$broker" = 1
done
web_env="$(podman exec "$WEB_C" env)"
held="$(printf '%s\n' "$web_env" | grep -cE '^(TORCHDRILL_SECRET_KEY|TORCHDRILL_DATABASE_URL)=' || true)"
same="$(printf '%s\n' "$web_env" | grep -qxF "TORCHDRILL_SECRET_KEY=$TORCHDRILL_SECRET_KEY" && echo yes || echo no)"
check "web's environment holds the secret key and the database URL" "$held of 2, secret is this run's: $same" \
  test "$held$same" = 2yes

# --- judge submissions through the REST API ----------------------------------------------------------------
email="compose-smoke-$$@example.com"
if podman exec "$WEB_C" torchdrill users create "$email" --password 'correct horse battery staple' >/dev/null \
  && TOKEN="$(podman exec "$WEB_C" torchdrill tokens create "$email" --name compose-smoke)" && [ -n "$TOKEN" ]; then
  pass "torchdrill CLI in the web container" "users create + tokens create"
else
  die "torchdrill CLI in the web container" "users create / tokens create failed"
fi

submit() {  # submit FILE -> "verdict passed/total (submission ID, HTTP status, runtime ...)"
  python3 "$ROOT/scripts/smoke_submit.py" "$PORT" "$TOKEN" "$PROBLEM" "$1"
}
judged_by() {  # judged_by SUBMISSION_ID -> runner containers whose log mentions it
  local name out=""
  for name in "${RUNNERS[@]}"; do
    podman logs "$name" 2>&1 | grep -q "\"submission_id\": *$1[,}]" && out+="$name "
  done
  printf '%s' "${out:-unknown}"
}
sub_id() { sed -n 's/.*(submission \([0-9]*\),.*/\1/p' <<<"$1"; }

start=$SECONDS
verdict="$(submit "$ROOT/problems/$PROBLEM/solution.py")"
[[ "$verdict" == accepted\ * ]] && ok=0 || ok=1
check "reference solution of $PROBLEM is accepted" "$verdict; runner: $(judged_by "$(sub_id "$verdict")")" test "$ok" = 0
verdict="$(submit "$ROOT/problems/$PROBLEM/mutants/$MUTANT")"
[[ "$verdict" == wrong_answer\ * ]] && ok=0 || ok=1
check "mutant $MUTANT of $PROBLEM is wrong_answer" "$verdict; runner: $(judged_by "$(sub_id "$verdict")")" test "$ok" = 0
timing "two submissions" "$((SECONDS - start))"

# --- bonus: one runner stopped, the other judges ----------------------------------------------------------
start=$SECONDS
podman stop -t 60 "$R1" >/dev/null 2>&1 || true
stopped="$(podman inspect --format '{{.State.Status}} exit={{.State.ExitCode}}' "$R1")"
timing "warm stop of $R1" "$((SECONDS - start))"
verdict="$(submit "$ROOT/problems/$PROBLEM/solution.py")"
[[ "$verdict" == accepted\ * ]] && ok=0 || ok=1
check "with $R1 stopped ($stopped), $PROBLEM still judged" "$verdict; runner: $(judged_by "$(sub_id "$verdict")")" test "$ok" = 0
