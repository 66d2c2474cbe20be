//! The paging servers' tests, one test binary (one link, where a binary per file linked four
//! times): each file below is a module of it, and every test runs in this one process, in
//! threads, each against server processes and a redis-server of its own.

mod compose;
mod oauth_subjects;
mod shared_limit;
mod tasks;
mod telemetry;
