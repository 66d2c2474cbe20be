# The Codex cells' image in the compatibility matrix (tests/agent/matrix.py): the local
# Debian base with Codex CLI preinstalled at build time, pinned, as claude-code.Dockerfile
# does for Claude Code (nothing may need a download once the agent runs). Harbor's codex agent
# skips its install (curl, ripgrep, nvm, node, `npm install -g`) when `codex --version`
# already reports the requested version. What is copied is the npm package's native build
# (@openai/codex-linux-x64, fetched on the host: vendor/x86_64-unknown-linux-musl, a static
# binary) with the files its codex-package.json says it loads beside it (codex-path/rg,
# codex-resources); the binary finds them from its own real path, so a symlink on PATH works.
# Its own image, not main's Claude Code base: the two agents are measured separately.
ARG BASE=harness-local/python:3.12-slim
FROM ${BASE}
ARG CODEX_VERSION
COPY codex/ /opt/codex/
RUN ln -s /opt/codex/bin/codex /usr/local/bin/codex
RUN codex --version | grep -qxF "codex-cli ${CODEX_VERSION}"
