# The gateway-conformance command in a small image. Build it from a checkout after `npm pack` (the release workflow
# does): docker build --build-arg TARBALL=gateway-conformance-0.2.0.tgz -t gateway-conformance .
# Run it with the reports on a mounted /reports, keys from the environment, and optionally a config file:
#   docker run --rm -e GATEWAY_BASE_URL -e GATEWAY_API_KEY -v "$PWD/reports:/reports" gateway-conformance conformance
# The install is the pack self-test's and the Action's: scripts/install-packed.mjs with the tested lockfile.
FROM node:22-slim AS install
ARG TARBALL
WORKDIR /build
COPY package-lock.json ./
COPY scripts/install-packed.mjs scripts/
COPY ${TARBALL} ./
RUN mkdir -p /opt/gateway-conformance \
 && chown node:node /opt/gateway-conformance /build
USER node
RUN node scripts/install-packed.mjs "/build/${TARBALL}" /opt/gateway-conformance --loglevel=error \
 && rm -f /opt/gateway-conformance/*.tgz

FROM node:22-slim
LABEL org.opencontainers.image.title="gateway-conformance" \
      org.opencontainers.image.description="Conformance suite and load harness for the Model Gateway API" \
      org.opencontainers.image.licenses="MIT"
# Owned by the user that runs it: vitest keeps its cache beside the suites.
COPY --from=install --chown=node:node /opt/gateway-conformance /opt/gateway-conformance
# Reports go to ./reports, which is the mounted /reports; a config file can be mounted into /work.
RUN ln -s /opt/gateway-conformance/node_modules/.bin/gateway-conformance /usr/local/bin/gateway-conformance \
 && mkdir -p /work /reports \
 && ln -s /reports /work/reports \
 && chown node:node /work /reports
USER node
WORKDIR /work
VOLUME ["/reports"]
ENTRYPOINT ["gateway-conformance"]
CMD ["--help"]
