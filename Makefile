# Lifecycle targets. `test` and `bundle` run here; `build` needs a Docker engine, `demo`
# installs one (as root) when absent.

STATIC_TARGET := x86_64-unknown-linux-gnu
STATIC_BIN := target/$(STATIC_TARGET)/release/mcp-agent-harness
BUNDLE_DIR ?= target/bundle
IMAGE ?= mcp-agent-harness

.PHONY: build test bundle demo audit static conformance bench bench-e2e bench-build

## build: the server's docker image (multi-stage, static binary on scratch, uid 10001)
build:
	docker build -t $(IMAGE) .

## test: the README test command
test:
	./scripts/test.sh

## bench: guard pipeline, validator, codegen and token benchmarks (see BENCHMARKS.md)
bench:
	cargo bench -p harness-bench

## bench-e2e: end to end against bare rmcp and FastMCP (about 15 minutes)
bench-e2e:
	./scripts/bench-e2e.sh

## bench-build: codegen time and incremental rebuilds (about 10 minutes)
bench-build:
	./scripts/bench-build.sh

## conformance: the official MCP conformance suite against the streamable HTTP server
conformance:
	./scripts/conformance.sh

## static: a statically linked release binary, as the FROM scratch images need
static:
	RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --target $(STATIC_TARGET) -p mcp-agent-harness

## bundle: the Harbor task directory, with the static binary in it
bundle: static
	$(STATIC_BIN) bundle --out $(BUNDLE_DIR) --force

## demo: the Harbor task run for real under Docker (installs and starts the engine if absent,
## needs root): a good run and every failure case, judged by the task's own verifier
demo:
	./scripts/compose-proof.sh

## audit: licenses, bans and sources (cargo-deny, offline), a secrets scan of the bundle;
## AUDIT_ADVISORIES=1 adds the RustSec advisories, which need network access to fetch.
audit: bundle
	cargo deny --version >/dev/null 2>&1 || cargo install cargo-deny --locked
	cargo deny --offline check licenses bans sources
	./scripts/scan_secrets.sh $(BUNDLE_DIR)
	if [ -n "$$AUDIT_ADVISORIES" ]; then cargo deny check advisories; fi
