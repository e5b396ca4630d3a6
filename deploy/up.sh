#!/usr/bin/env bash
# `make up`: the production-like stack on this machine, in the foreground; Ctrl-C stops it all.
#
#   nginx on $HOST:$PORT (default 127.0.0.1:8000) -> $WEB Daphne processes (default: one per core)
#   Celery workers per queue (bots, analyses, periodic + default), Celery beat
#   all under supervisord (deploy/supervisord_conf.py): a process that exits is restarted alone
#   PostgreSQL and Redis: started when down (as CI does); the database is created when missing.
#
# Settings are production ones (DJANGO_PRODUCTION=1) except TLS: nginx here speaks plain HTTP.
# Everything else comes from the environment (DATABASE_URL, REDIS_URL, SIESTA_*); see docs/operations.md.
set -euo pipefail
cd "$(dirname "$0")/.."

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
WEB="${WEB:-$(nproc)}"
WEB_PORT="${WEB_PORT:-$((PORT + 1))}"

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/siesta}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
export DJANGO_PRODUCTION=1
export DJANGO_SECURE_SSL_REDIRECT="${DJANGO_SECURE_SSL_REDIRECT:-0}"
export DJANGO_ALLOWED_HOSTS="${DJANGO_ALLOWED_HOSTS:-127.0.0.1,localhost}"
export DJANGO_CSRF_TRUSTED_ORIGINS="${DJANGO_CSRF_TRUSTED_ORIGINS:-http://127.0.0.1:$PORT,http://localhost:$PORT}"
# The one origin of every link the site mails (confirmation, password reset, notices, unsubscribe).
# Listening on every address (HOST=0.0.0.0) says nothing of the site's name: set it then.
site_host="$HOST"
if [ "$HOST" = 0.0.0.0 ] || [ "$HOST" = "::" ]; then
  site_host=127.0.0.1
  [ -n "${SIESTA_SITE_URL:-}" ] || echo "up: set SIESTA_SITE_URL: mailed links will name http://$site_host:$PORT" >&2
fi
export SIESTA_SITE_URL="${SIESTA_SITE_URL:-http://$site_host:$PORT}"
# The load benchmark's echo socket (/ws/echo/<room>/) is off unless asked for:
# `make up SIESTA_ECHO_WS=1` before `make loadtest` serves bench.asgi (the site plus the echo,
# bench/asgi.py) instead of siesta_site.asgi; the site itself never routes it.
export SIESTA_ECHO_WS="${SIESTA_ECHO_WS:-0}"
export PYTHONUNBUFFERED=1
# Metrics (docs/operations.md, Metrics): every process of the stack writes its values to files in
# this directory, and a scrape of /metrics on any web process adds them up. Emptied at each start.
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/var/metrics}"
mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -name '*.db' -delete

mkdir -p var/nginx/tmp
# Open files: every socket is a descriptor, in nginx (two per proxied socket: its own limit is set in
# deploy/nginx.conf.template) and in the web process holding it. A soft limit of 1,024, common by
# default, would cap each web process near a thousand sockets: raise it to the hard limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 8192 ]; then
  echo "up: at most $(ulimit -n) open files per process: each web process holds fewer sockets" >&2
fi
if [ -z "${DJANGO_SECRET_KEY:-}" ]; then
  [ -s var/secret_key ] || python3 -c 'import secrets; print(secrets.token_urlsafe(50))' > var/secret_key
  DJANGO_SECRET_KEY="$(cat var/secret_key)"
  export DJANGO_SECRET_KEY
fi

sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v nginx >/dev/null; then
  echo "up: installing Debian's nginx" >&2
  sudo_if_needed apt-get install -y --no-install-recommends nginx-light ||
    sudo_if_needed apt-get install -y --no-install-recommends nginx
fi

wait_for() {  # wait_for <what> <command...>: retry for up to 30 s
  local what=$1; shift
  for _ in $(seq 60); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "up: $what did not come up" >&2
  return 1
}

# PostgreSQL and Redis on this machine: start them when down (remote ones are left alone).
pg_host="$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(p.hostname or "127.0.0.1", p.port or 5432, p.username or "postgres", p.path.lstrip("/"))' "$DATABASE_URL")"
read -r PGH PGP PGU PGDB <<<"$pg_host"
if [[ "$PGH" == 127.0.0.1 || "$PGH" == localhost ]]; then
  if ! pg_isready -q -h "$PGH" -p "$PGP"; then
    sudo_if_needed pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || true
  fi
  wait_for PostgreSQL pg_isready -q -h "$PGH" -p "$PGP"
  if [ "$(psql -h "$PGH" -p "$PGP" -U "$PGU" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PGDB'")" != 1 ]; then
    psql -h "$PGH" -p "$PGP" -U "$PGU" -d postgres -qc "CREATE DATABASE \"$PGDB\""
  fi
fi
redis_pong() { [ "$(redis-cli -u "$REDIS_URL" ping 2>/dev/null)" = PONG ]; }
if ! redis_pong; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /tmp --logfile /tmp/siesta-redis.log
fi
wait_for Redis redis_pong

.venv/bin/python manage.py migrate --noinput -v 0
.venv/bin/python manage.py collectstatic --noinput -v 0

# nginx's configuration: the upstream lists one port per web process.
upstreams=""
for i in $(seq 0 $((WEB - 1))); do
  upstreams+="        server 127.0.0.1:$((WEB_PORT + i)) max_fails=0;"$'\n'
done
user_line=""
[ "$(id -u)" = 0 ] && user_line="user root;"
python3 - "$user_line" "$HOST:$PORT" "$PWD/staticfiles" "$upstreams" <<'PY'
import sys
user, listen, static_root, upstreams = sys.argv[1:]
text = open("deploy/nginx.conf.template").read()
for key, value in {"@USER@": user, "@LISTEN@": listen, "@STATIC_ROOT@": static_root,
                   "@UPSTREAMS@": upstreams.rstrip("\n"), "@MIME_TYPES@": "/etc/nginx/mime.types"}.items():
    text = text.replace(key, value)
open("var/nginx/nginx.conf", "w").write(text)
PY
nginx -t -q -p var/nginx -c nginx.conf -e stderr

echo "up: http://$HOST:$PORT/ (nginx) -> $WEB web processes on ports $WEB_PORT-$((WEB_PORT + WEB - 1)); Ctrl-C stops everything" >&2
# supervisord runs the Procfile's processes (web once per port, $WEB_PORT + i for web-(i+1)) and
# restarts any that exits, alone: `.venv/bin/supervisorctl -c var/supervisord.conf status`.
echo $$ > var/up.pid
PROCFILE=Procfile
if [ "$SIESTA_ECHO_WS" = 1 ]; then
  PROCFILE=var/Procfile.bench
  sed 's/ siesta_site\.asgi:application$/ bench.asgi:application/' Procfile > "$PROCFILE"
fi
.venv/bin/python deploy/supervisord_conf.py "$PROCFILE" "$WEB" "$WEB_PORT" var/supervisord.conf
exec .venv/bin/supervisord -c var/supervisord.conf
