# One image for every agentq role. The role is chosen by the command, for example
#   docker run agentq npx tsx apps/cli/src/bin.ts worker
# so warmers, workers and the API scale independently from the same build.
FROM node:22-bookworm-slim

WORKDIR /app

# Manifests first, so that `npm ci` stays cached until a dependency changes. npm ci needs the
# package.json of every workspace listed in the root package.json.
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/store/package.json packages/store/
COPY packages/registry/package.json packages/registry/
COPY packages/models/package.json packages/models/
COPY packages/builtin-tools/package.json packages/builtin-tools/
COPY packages/client/package.json packages/client/
COPY packages/mcp-connect/package.json packages/mcp-connect/
COPY packages/kb/package.json packages/kb/
COPY packages/code-sandbox/package.json packages/code-sandbox/
COPY apps/catalog-warmer/package.json apps/catalog-warmer/
COPY apps/agent-worker/package.json apps/agent-worker/
COPY apps/indexer/package.json apps/indexer/
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY test/package.json test/
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY . .

# Set after `npm ci`: with NODE_ENV=production npm would skip devDependencies.
ENV NODE_ENV=production
USER node

CMD ["npx", "tsx", "apps/cli/src/bin.ts", "--help"]
