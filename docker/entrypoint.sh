#!/bin/sh
# Starts one entry point of this image's deployable: main (HTTP API), worker (queue consumer) or migrate (one-shot).
set -eu
app="${APP_DIR:-/app}"
entry="${1:-main}"
case "$entry" in
  main | worker | migrate) ;;
  *)
    echo "usage: main | worker | migrate (got '$entry')" >&2
    exit 64
    ;;
esac
if [ ! -f "$app/bundle/$entry.js" ]; then
  echo "this image has no '$entry' entry point" >&2
  exit 64
fi
shift || true
# exec: node becomes PID 1 and receives SIGTERM itself (the services close gracefully on it).
exec node --enable-source-maps "$app/bundle/$entry.js" "$@"
