#!/usr/bin/env bash
# A throwaway PostgreSQL server for kjudge's store (tests, scripts/local-cluster.sh, a user
# trying KJUDGE_DB=postgresql://...): data, log and unix socket all in one directory, no TCP.
#
#   scripts/local-postgres.sh start [DIR]   start (initialising DIR on first use), create the
#                                           database "kjudge", print the KJUDGE_DB URL on stdout
#   scripts/local-postgres.sh url [DIR]     print the URL of the server in DIR
#   scripts/local-postgres.sh stop [DIR]    stop it (the data stays in DIR; rm -rf DIR to drop it)
#
# DIR defaults to /tmp/kjudge-pg. Only the URL goes to stdout; progress goes to stderr.
# PostgreSQL refuses to run as root: as root, the server runs as the `postgres` system user of
# the Debian package (runuser), which then owns DIR; as any other user, as that user.
# Needs: apt-get install postgresql (initdb, pg_ctl under /usr/lib/postgresql/N/bin).
set -euo pipefail

cmd=${1:-}
dir=${2:-/tmp/kjudge-pg}
db=kjudge

die() { echo "local-postgres: $*" >&2; exit 1; }

case "$cmd" in start|stop|url) ;; *) die "usage: $0 start|stop|url [DIR]";; esac
# The URL carries DIR unencoded, and a unix socket path is limited to 107 bytes.
[[ "$dir" =~ ^[A-Za-z0-9/._+-]+$ ]] || die "DIR '$dir': use only letters, digits and / . _ + -"
dir=$(realpath -m "$dir")
[ ${#dir} -le 80 ] || die "DIR '$dir' is too long for a unix socket path (80 characters at most)"

if [ "$(id -u)" -eq 0 ]; then
  user=postgres
  id -u "$user" >/dev/null 2>&1 || die "no 'postgres' system user: apt-get install postgresql"
  as_user() { runuser -u "$user" -- "$@"; }
else
  user=$(id -un)
  as_user() { "$@"; }
fi

url() { echo "postgresql:///$db?host=$dir&user=$user"; }

if [ "$cmd" = url ]; then url; exit 0; fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/pg_ctl" ]; then
  die "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb, pg_ctl): apt-get install postgresql"
fi

if [ "$cmd" = stop ]; then
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_user "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2
  else
    echo "local-postgres: no server running in $dir" >&2
  fi
  exit 0
fi

mkdir -p "$dir"
if [ "$(id -u)" -eq 0 ]; then
  chown "$user" "$dir"
  # The server user must reach DIR through its parents.
  runuser -u "$user" -- test -x "$dir" || die "user $user cannot enter $dir: choose a DIR under /tmp"
fi
if [ ! -f "$dir/data/PG_VERSION" ]; then
  echo "local-postgres: initdb in $dir/data" >&2
  as_user "$bindir/initdb" -D "$dir/data" -U "$user" --auth=trust -E UTF8 --locale=C.UTF-8 >&2 ||
    as_user "$bindir/initdb" -D "$dir/data" -U "$user" --auth=trust -E UTF8 --locale=C >&2
fi
if ! as_user "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  # listen_addresses='': no TCP at all; the socket lives in DIR.
  as_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=200 -c fsync=off" start >&2 ||
    die "the server did not start; see $dir/server.log"
fi
psql="$bindir/psql"
[ -x "$psql" ] || psql=$(command -v psql) || die "psql not found: apt-get install postgresql-client"
if [ "$(as_user "$psql" -h "$dir" -U "$user" -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
  as_user "$psql" -h "$dir" -U "$user" -d postgres -qc "CREATE DATABASE $db" >&2
fi
url
