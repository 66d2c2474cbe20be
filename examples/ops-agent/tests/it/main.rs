//! The ops-agent server's tests, one test binary (one link, where a binary per file linked
//! three times): each file below is a module of it, and every test runs in this one process,
//! in threads. The edge's connection test raises the process's file limit for all of them.

mod declared_results;
mod edge;
mod guards;
mod tasks;
