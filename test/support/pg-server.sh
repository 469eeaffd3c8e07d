#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite (never a system service):
#   pg-server.sh start DIR   initdb in DIR, start on 127.0.0.1:$PGPORT (default 55432) and a socket in DIR,
#                            print the admin URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   pg-server.sh stop DIR    fast shutdown, then remove DIR
#   pg-server.sh restart DIR `pg_ctl restart -m fast` (every connection is cut; the data stays)
#   pg-server.sh halt DIR    fast shutdown, keeping DIR (the server is unreachable until `resume`)
#   pg-server.sh resume DIR  start a halted server again on the same port
# The server refuses to run as root, so as root it runs as the Debian `postgres` user.
set -euo pipefail
command=${1:?usage: pg-server.sh start|stop DIR}
root=${2:?usage: pg-server.sh start|stop DIR}
port=${PGPORT:-55432}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "pg-server.sh: PostgreSQL is not installed (apt-get install -y postgresql)" >&2; exit 1; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
# fsync off: a test server's data is thrown away; max_connections covers several gateways and their queues at once.
options() { echo "-p $1 -k $root/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400"; }
case "$command" in
  start)
    mkdir -p "$root/data" "$root/sock"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$root"
    chmod 700 "$root/data"
    as_owner "$bin/initdb" -D "$root/data" -U postgres -A trust -E UTF8 --no-locale --no-sync >/dev/null
    echo "$port" >"$root/port"
    as_owner "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 30 -o "$(options "$port")" start >/dev/null || { cat "$root/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  restart)
    as_owner "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 30 -m fast -o "$(options "$(cat "$root/port")")" restart >/dev/null || { cat "$root/server.log" >&2; exit 1; }
    ;;
  halt)
    as_owner "$bin/pg_ctl" -D "$root/data" -m fast -w stop >/dev/null
    ;;
  resume)
    as_owner "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 30 -o "$(options "$(cat "$root/port")")" start >/dev/null || { cat "$root/server.log" >&2; exit 1; }
    ;;
  stop)
    [ -d "$root/data" ] && as_owner "$bin/pg_ctl" -D "$root/data" -m fast -w stop >/dev/null || true
    rm -rf "$root"
    ;;
  *) echo "pg-server.sh: unknown command $command (start or stop)" >&2; exit 1 ;;
esac
