#!/bin/sh
# Entrypoint of the postgres stand-in (postgres.Containerfile). On the first start (no PG_VERSION
# in $PGDATA): initdb with superuser $POSTGRES_USER (default postgres) and password
# $POSTGRES_PASSWORD (required), scram-sha-256 for every TCP connection, trust on the local socket
# only (what pg_isready in the health check uses), and CREATE DATABASE $POSTGRES_DB (default: the
# user's name). Then runs the server as the postgres user, listening on all interfaces.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

if [ "${1:-postgres}" != postgres ]; then
  exec "$@"
fi
[ "$#" -gt 0 ] && shift
case "${1:-}" in
  --version|-V|--help|-\?|--describe-config) exec postgres "$@" ;;
esac

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: POSTGRES_PASSWORD must be set on the first start" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_pg initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    # Single-user mode: no listener while the database is created.
    printf 'CREATE DATABASE "%s" OWNER "%s";\n' "$db" "$user" \
      | as_pg postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres-entrypoint: initialised $PGDATA (user $user, database $db)" >&2
fi

exec setpriv --reuid=postgres --regid=postgres --init-groups \
  postgres -D "$PGDATA" -c listen_addresses='*' "$@"
