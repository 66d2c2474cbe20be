# syntax=docker/dockerfile:1
# The server image: a static binary on an empty image, non-root (uid 10001), no shell.
# Reproducible from the committed Cargo.lock (`--locked`); pin the builder by digest with
#   docker build --build-arg RUST_IMAGE=rust:1.95-bookworm@sha256:<digest> .
ARG RUST_IMAGE=rust:1.95-bookworm

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
RUN RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build --release --locked --target x86_64-unknown-linux-gnu -p mcp-agent-harness \
 && install -D -m 0755 target/x86_64-unknown-linux-gnu/release/mcp-agent-harness /out/mcp-agent-harness \
 && install -d -o 10001 -g 10001 -m 0700 /out/var/log/monitor-mcp

FROM scratch
COPY --from=build /out/mcp-agent-harness /mcp-agent-harness
# The audit log's directory; mount a tmpfs here when the root is read-only.
COPY --from=build --chown=10001:10001 /out/var/log/monitor-mcp /var/log/monitor-mcp
USER 10001:10001
ENTRYPOINT ["/mcp-agent-harness"]
CMD ["serve", "--transport", "streamable-http", "--bind", "127.0.0.1:8765", "--audit-path", "/var/log/monitor-mcp/audit.jsonl"]
# No curl or python in the image: the binary checks itself.
HEALTHCHECK --interval=5s --timeout=3s --retries=5 --start-period=2s \
  CMD ["/mcp-agent-harness", "health", "--url", "http://127.0.0.1:8765/health"]
