# Social Publisher: one image for the API, the worker and migrations.
#   docker build -t social-publisher .
#   API (default):  docker run social-publisher
#   worker:         docker run social-publisher node packages/app-worker/src/main.ts
#   migrations:     docker run social-publisher node packages/runtime/src/migrate-cli.ts
# The services run their TypeScript sources directly: Node 24 strips the types, so there is
# no build step, and only production dependencies are installed.

# ---- dependencies: the pinned pnpm installs the workspace's production dependencies
FROM node:24-slim AS deps
WORKDIR /app
RUN npm install --global pnpm@10.34.8 --no-fund --no-audit
# Manifests first: the install layer is reused while only sources change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/adapter-bullmq/package.json packages/adapter-bullmq/
COPY packages/adapter-inprocess-queue/package.json packages/adapter-inprocess-queue/
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
COPY packages/testkit/package.json packages/testkit/
COPY bench/package.json bench/
RUN pnpm install --prod --frozen-lockfile --ignore-scripts
COPY packages packages

# ---- runtime: the sources and their dependencies, run as an unprivileged user
FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=deps --chown=node:node /app /app
USER node
EXPOSE 3000
# No curl in slim images: Node asks /health itself (200 when the database and queue answer).
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "packages/app-http/src/main.ts", "--api-only"]
