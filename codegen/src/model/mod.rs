//! Stage 2: the validated model. Every name is resolved to its Rust identifiers, every
//! constraint is checked against its type, every default is applied, and every problem is
//! collected, not just the first. Emitters read only this model.
//!
//! One file per concern, data flowing one way (this file only declares and re-exports), run
//! in order by [`build()`]. Every check reports into an error sink (see `crate::error_sink`).

mod arguments;
pub mod auth;
mod bounds;
mod build;
pub mod bundle;
mod ca_file;
pub mod catalog;
pub mod completion;
mod constraints;
pub mod forms;
pub mod guards;
pub(crate) mod http_edge;
pub(crate) mod input_files;
mod names;
pub(crate) mod pinned_schema;
pub mod prompts;
pub mod results;
pub mod server;
pub mod skills;
pub mod tasks;
pub mod tools;
pub mod types;
pub mod upstream_skills;
pub mod upstreams;
pub mod value;
pub mod verifier;
pub mod write;

pub use auth::AuthModel;
pub use build::{Model, build};
pub use catalog::{CatalogModel, ContentModel, ResourceModel, TemplateModel};
pub use completion::CompletionModel;
pub use forms::FormModel;
pub use guards::{
    DEFAULT_TABULAR, GuardPolicy, MIN_MAX_CHARS, RateLimitPolicy, RateLimitStoreModel,
};
pub use pinned_schema::DIALECT;
pub use prompts::{MessageModel, PromptModel};
pub use results::ResultModel;
pub use server::{AuditModel, ServerModel, TransportModel};
pub use skills::{SkillFile, SkillModel};
pub use tools::{Annotations, Builtin, ToolModel};
pub use types::{FieldModel, IntRepr, Presence, TypeModel};
pub use upstream_skills::UpstreamSkillModel;
pub use upstreams::{EndpointModel, UpstreamBinding, UpstreamModel};
pub use value::check_value;
pub use write::WritePolicy;
