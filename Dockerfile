# syntax=docker/dockerfile:1
# Social Publisher: one image for the API, the worker and migrations (docs/deploy.md).
#   docker build -t social-publisher .
#   API (default): docker run --env-file .env -p 3000:3000 social-publisher
#   worker:        docker run --env-file .env --no-healthcheck social-publisher node packages/app-worker/src/main.ts
#   migrations:    docker run --env-file .env --no-healthcheck social-publisher node packages/runtime/src/migrate-cli.ts
#   embedded mode: docker run -p 3000:3000 -v sp-data:/data social-publisher node packages/app-http/src/main.ts
#                  (API and worker in one process, PGlite under /data; for a trial, not production)
# compose.yaml runs all of it with PostgreSQL and Redis.
#
# There is no compile step: Node 24 strips the types and runs the .ts sources as they are
# (`pnpm start` is `node packages/app-http/src/main.ts`). The build stage installs everything and
# type-checks; the runtime stage gets the sources and the production dependencies only.
#
# Why `pnpm install --prod` and not `pnpm deploy`: deploy copies each workspace package into
# node_modules, and Node refuses to strip types from files under node_modules
# (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING). A workspace install links them as symlinks to
# packages/*, which Node resolves to their real paths, outside node_modules.

ARG NODE_IMAGE=node:24-slim

# ---- pnpm: the version package.json pins (packageManager), installed with npm
FROM ${NODE_IMAGE} AS pnpm
WORKDIR /app
# CI: pnpm never prompts.
ENV CI=true
COPY package.json ./
RUN npm install --global --no-fund --no-audit --loglevel=error \
      "$(node -p "require('./package.json').packageManager.split('+')[0]")" \
  && pnpm --version

# ---- manifests: the install layers below are reused while only sources change
FROM pnpm AS manifests
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/adapter-bullmq/package.json packages/adapter-bullmq/
COPY packages/adapter-inprocess-queue/package.json packages/adapter-inprocess-queue/
COPY packages/adapter-media/package.json packages/adapter-media/
COPY packages/adapter-platforms/package.json packages/adapter-platforms/
COPY packages/adapter-postgres/package.json packages/adapter-postgres/
COPY packages/adapter-webhooks/package.json packages/adapter-webhooks/
COPY packages/app-http/package.json packages/app-http/
COPY packages/app-worker/package.json packages/app-worker/
COPY packages/client/package.json packages/client/
COPY packages/config/package.json packages/config/
COPY packages/domain/package.json packages/domain/
COPY packages/net-guard/package.json packages/net-guard/
COPY packages/runtime/package.json packages/runtime/
COPY packages/telemetry/package.json packages/telemetry/
COPY packages/testkit/package.json packages/testkit/
COPY bench/package.json bench/

# ---- build: every dependency, the sources, the type check (`--build-arg TYPECHECK=false` skips
# it); `docker build --target build` gives an image that can run `pnpm test` against a database
FROM manifests AS build
RUN --mount=type=cache,id=social-publisher-pnpm,target=/pnpm-store \
    pnpm install --frozen-lockfile --store-dir /pnpm-store
COPY . .
ARG TYPECHECK=true
RUN if [ "$TYPECHECK" = "true" ]; then pnpm typecheck; fi
# The sources the runtime needs: every package without its tests and node_modules.
RUN mkdir /out \
  && tar --exclude=node_modules --exclude='packages/*/test' -cf - packages | tar -xf - -C /out

# ---- prod-deps: production dependencies only (no vitest, typescript, biome, testcontainers)
FROM manifests AS prod-deps
RUN --mount=type=cache,id=social-publisher-pnpm,target=/pnpm-store \
    pnpm install --prod --frozen-lockfile --ignore-scripts --store-dir /pnpm-store

# ---- runtime
FROM ${NODE_IMAGE} AS runtime
# HOST: listen on every interface also in the embedded mode (whose default is 127.0.0.1).
# DATA_DIR: the embedded mode's PGlite and generated key (production mode writes nothing).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# Owned by root: the service can read its code and dependencies, not change them.
COPY --from=prod-deps /app ./
COPY --from=build /out/packages ./packages
RUN mkdir -p /data && chown node:node /data
# The unprivileged user of the node images (uid 1000).
USER node
EXPOSE 3000
# No curl in slim images: node asks GET /health (200 when the database and the queue answer,
# 503 when one is down). The start period covers the migrations every process runs at start.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 (not pnpm): it gets the SIGTERM of `docker stop` and shuts down
# gracefully (requests and platform calls in flight finish, up to 30 s).
CMD ["node", "packages/app-http/src/main.ts", "--api-only"]
