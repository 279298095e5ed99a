#!/bin/sh
# Entrypoint of the sas image (deploy/Dockerfile): runs `services/$SERVICE/dist/main.js`.
#
# `exec` replaces this shell with node, so SIGTERM from `docker stop` or Kubernetes (forwarded by
# tini) reaches the service's own shutdown handler instead of killing a wrapper shell and leaving
# node to be SIGKILLed. With arguments, runs them instead (e.g. `node tools/cli/dist/main.js`).
# APP_ROOT lets the static tests run this script against the checked-out workspace.
set -eu

app_root="${APP_ROOT:-/app}"
cd "$app_root"

if [ "$#" -gt 0 ]; then
  exec "$@"
fi

available() {
  found=""
  for main in services/*/dist/main.js; do
    [ -f "$main" ] || continue
    dir="${main#services/}"
    found="$found ${dir%/dist/main.js}"
  done
  echo "${found# }"
}

if [ -z "${SERVICE:-}" ]; then
  echo "docker-entrypoint: SERVICE is not set; build with --build-arg SERVICE=<dir> or run with -e SERVICE=<dir>, one of: $(available)" >&2
  exit 64
fi

main="services/${SERVICE}/dist/main.js"
if [ ! -f "$main" ]; then
  echo "docker-entrypoint: SERVICE='${SERVICE}' has no ${app_root}/${main}; set SERVICE to one of: $(available)" >&2
  exit 64
fi

exec node "services/${SERVICE}/dist/main.js"
