# syntax=docker/dockerfile:1
# One image per deployable: docker build --build-arg SERVICE=membership -t church/membership .
# SERVICE is a module (membership, attendance, giving, messaging, content, doing, reporting) or gateway.
# The container runs `main` (the HTTP API) by default; `worker` and `migrate` select the other entry points.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG SERVICE
ARG PNPM_VERSION=10.34.9
RUN test -n "$SERVICE" || (echo "build with --build-arg SERVICE=<module|gateway>" >&2 && exit 1)
RUN npm install -g "pnpm@${PNPM_VERSION}"
WORKDIR /repo
# The store is filled from the lockfile alone, so this layer is reused until dependencies change.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm fetch --store-dir /pnpm/store
COPY . .
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --offline --store-dir /pnpm/store
RUN pnpm build "$SERVICE"
# Only the runtime dependencies of this deployable, flat (hoisted) so the bundle resolves them from /app.
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm --filter "@church/${SERVICE}" deploy --prod --legacy --offline --store-dir /pnpm/store \
      --config.node-linker=hoisted /prod

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
# The code's revision (docker build --build-arg BUILD_ID=$(git rev-parse HEAD)): list ETags change with the code.
ARG BUILD_ID=""
ENV NODE_ENV=production \
    DATA_DIR=/tmp/data \
    BUILD_ID=${BUILD_ID}
WORKDIR /app
# A mount point the process may write to (compose mounts a volume here; a fresh volume takes this ownership).
RUN mkdir /data && chown 1000:1000 /data
# Files stay owned by root: the process (uid 1000, "node") can read but not change its own code.
COPY --from=build /prod/node_modules ./node_modules
COPY --from=build /repo/dist/${SERVICE}/ ./
COPY --chmod=0755 docker/entrypoint.sh /usr/local/bin/entrypoint
LABEL org.opencontainers.image.title="church-${SERVICE}"
USER 1000:1000
ENTRYPOINT ["/usr/local/bin/entrypoint"]
CMD ["main"]
