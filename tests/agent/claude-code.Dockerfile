# Main's base for a real agent trial: the local Debian base with Claude Code preinstalled at
# build time, pinned (the chapter's advice: the agent's setup runs under the no-network
# policy, so nothing may need a download then). Harbor's claude-code agent skips its install
# when `claude --version` already reports the requested version. The native binary comes
# from the npm package fetched on the host (@anthropic-ai/claude-code and its
# @anthropic-ai/claude-code-linux-x64); procps (which Harbor's own install adds, for the
# process-tree kill) from Debian's .debs fetched on the host with `apt-get download`.
ARG BASE=harness-local/python:3.12-slim
FROM ${BASE}
ARG CLAUDE_CODE_VERSION
COPY debs/ /tmp/debs/
RUN dpkg -i /tmp/debs/*.deb && rm -rf /tmp/debs
COPY claude /usr/local/bin/claude
RUN claude --version | grep -qF "${CLAUDE_CODE_VERSION} (Claude Code)"
