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
# The deployable's own Node flags (node-flags next to the bundle: one per line, # for comments), if it has any.
flags=""
if [ -f "$app/node-flags" ]; then flags=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$app/node-flags" | tr '\n' ' '); fi
# exec: node becomes PID 1 and receives SIGTERM itself (the services close gracefully on it).
# shellcheck disable=SC2086 # the flags are meant to split into words
exec node --enable-source-maps $flags "$app/bundle/$entry.js" "$@"
