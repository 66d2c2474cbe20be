//! The bundle's files, in order: the typed documents first, then the templated files, then the
//! ledger, which pins the digests of the others.

use crate::emit::bundle::{compose, judge, ledger, task_toml, templated};
use crate::emit::options::EmitOptions;
use crate::model::Model;
use crate::model::bundle::{BundleModel, MAIN_FILES_DIR};

/// Where bundle files go among the artifacts.
pub const PREFIX: &str = "bundle/";

/// Every bundle file of `model`: (path inside the bundle, text), sorted by path.
pub fn files(model: &Model, bundle: &BundleModel, options: &EmitOptions) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "task.toml".to_owned(),
            task_toml::task_toml(bundle, options),
        ),
        ("instruction.md".to_owned(), bundle.instruction.clone()),
        (
            "environment/docker-compose.yaml".to_owned(),
            compose::compose_yaml(bundle, options),
        ),
    ];
    if bundle.verifier.separate {
        files.push((
            "tests/docker-compose.yaml".to_owned(),
            compose::verifier_compose_yaml(bundle, options),
        ));
    }
    files.extend(templated::files(model, bundle, options));
    files.extend(judge::judge_file(model, bundle, options));
    let sidecar = &bundle.sidecar;
    if let Some((dir, shipped)) = sidecar.base.as_ref().and_then(|base| base.files.as_ref()) {
        for (path, text) in shipped {
            files.push((
                format!("environment/{}/{dir}/{path}", sidecar.name),
                text.clone(),
            ));
        }
    }
    for (path, text) in &bundle.main.programs.files {
        files.push((format!("environment/{MAIN_FILES_DIR}/{path}"), text.clone()));
    }
    for service in &bundle.services {
        if let Some(context) = &service.build {
            for (path, text) in &service.build_files {
                files.push((format!("environment/{context}/{path}"), text.clone()));
            }
        }
    }
    let ledger = ledger::ledger_json(model, bundle, &files);
    files.push(("ledger.json".to_owned(), ledger));
    files.sort();
    files
}
