# The mock as a container, for CI services and compose files (docs/guides/container.md).
#
#   docker build -t identify-api-mock .
#   podman build --format docker -t identify-api-mock .   (podman's default format drops HEALTHCHECK)
#   docker run --rm -p 4010:4010 identify-api-mock [serve flags…]
#
# Every serve flag also works as an environment variable: IDENTIFY_API_MOCK_ and the flag's name in
# upper snake case (IDENTIFY_API_MOCK_SEED=7; a repeatable flag takes a comma-separated list).

# Build: the whole toolchain, but only to make the bin, which is one self-contained bundle.
FROM node:26-trixie-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the image's own Node runs the build, not the one pinned in devDependencies.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json esbuild.config.ts ./
COPY src src
COPY handlers handlers
COPY fixtures fixtures
RUN node esbuild.config.ts

# Run: the base image and the bin's two files, nothing else (no node_modules, no npm run).
# The package ships this file: `IdentifyApiMockContainer.buildImage()` (identify-api-mock/testcontainers)
# builds this stage alone, from the last FROM on, with the installed package as its `build` stage
# (the package holds the build's files at the same paths): copy only from `build`'s /src here.
FROM node:26-trixie-slim
WORKDIR /app
COPY package.json ./
COPY --from=build /src/dist/src/server/cli.js /src/dist/src/server/cli-bundle.js ./dist/src/server/
# /data: where a --state-file lives, on a volume mounted there (-v NAME:/data), writable by the
# user the server runs as. Not a VOLUME: that would leave an anonymous volume behind every run.
RUN mkdir /data && chown node:node /data
USER node
ENV IDENTIFY_API_MOCK_HOST=0.0.0.0 \
    IDENTIFY_API_MOCK_PORT=4010
EXPOSE 4010
# Kept by `docker build` and `podman build --format docker`; podman's default (OCI) format has no
# health check, so compose files declare this same command (no `$`: compose would read it as its own).
# Healthy when the answer names the mock: a 200 from another server on the port is not it.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.IDENTIFY_API_MOCK_PORT + '/__mock/health').then((r) => r.json()).then((h) => process.exit(h.status === 'ok' && h.name === 'identify-api-mock' ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself: `docker stop` ends it at once.
ENTRYPOINT ["node", "/app/dist/src/server/cli.js", "serve"]
