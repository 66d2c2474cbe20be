//! The validated Harbor task around the server: the decisions every bundle file is written
//! from ([`BundleModel`]), and the lints that catch what Harbor itself does not check, each an
//! error with its location and a help line.

mod build;
mod decisions;
mod judge;
mod lints;
mod services;
mod stdio;
pub mod task;
mod topology;

pub(crate) use build::build;
pub use decisions::{
    BundleModel, ComposeHealthcheck, DEFAULT_VERIFIER_IMAGE, MAIN_FILES_DIR, MainModel,
    MainPrograms, ProcessModel, ServiceHealthcheckModel, ServiceModel, SidecarBase, SidecarModel,
    VerifierContainer,
};
pub use judge::{JUDGE_AUDIT_PATH, JudgeModel};
pub(crate) use stdio::binary_in_main;
pub use task::{NetworkPolicy, PhaseNetworks, TaskModel};

pub use crate::manifest::bundle::EnvironmentMode;
