//! The runtime's integration tests: one test binary, each file below a module of it, sharing
//! `common` (the hand-written server spec, clients, upstreams). One binary links once, where a
//! binary per file linked the runtime and its dependencies twenty times.
//!
//! Every test of a binary runs in one process, in threads: a test that changes what is global
//! to the process (an environment variable the runtime reads) runs again alone in a child
//! process of its own through `common::alone`.

mod common;

mod adversarial;
mod catalog;
mod concurrency;
mod confirm;
mod content;
mod forms;
#[cfg(feature = "gateway")]
mod gateway;
#[cfg(feature = "gateway")]
mod gateway_http;
#[cfg(feature = "gateway")]
mod gateway_rounds;
mod idempotency;
#[cfg(feature = "redis")]
mod idempotency_redis;
mod pipeline;
mod prompt_body;
#[cfg(feature = "redis")]
mod rate_limit_subjects;
mod redaction;
mod redaction_corpus;
#[cfg(feature = "redis")]
mod redis_store;
mod skills;
mod subscriptions;
mod tabular_summary;
mod verify;
