//! The replicas' Compose example follows the Compose Specification and agrees with the
//! manifest: the variables it sets are the ones harness.toml reads, and the load balancer, the
//! image and the manifest name one port.

use serde_json::Value;

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn compose() -> Value {
    serde_yaml_ng::from_str(&read("compose.yaml")).expect("compose.yaml is YAML")
}

#[test]
fn the_compose_file_follows_the_compose_specification() {
    let schema: Value =
        serde_json::from_str(&read("../../tests/data/compose-spec.json")).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("the Compose schema compiles");
    let compose = compose();
    let errors: Vec<String> = validator
        .iter_errors(&compose)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn the_compose_file_sets_what_the_manifest_reads_on_its_port() {
    let manifest: toml::Table = read("harness.toml").parse().expect("harness.toml");
    let url_env = manifest["rate_limit_store"]["url_env"].as_str().unwrap();
    let token_env = manifest["transport"]["auth_token_env"].as_str().unwrap();
    let port = manifest["transport"]["bind"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .to_owned();

    let compose = compose();
    let replicas = &compose["services"]["paging"];
    let environment = replicas["environment"].as_object().unwrap();
    let mut names: Vec<&str> = environment.keys().map(String::as_str).collect();
    names.sort_unstable();
    let mut expected = vec![url_env, token_env];
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert!(
        environment[url_env]
            .as_str()
            .unwrap()
            .starts_with("redis://redis:"),
        "the replicas reach the redis service"
    );
    assert!(replicas["deploy"]["replicas"].as_u64().unwrap() > 1);
    assert_eq!(
        compose["services"]["lb"]["ports"][0],
        format!("127.0.0.1:{port}:{port}")
    );

    let dockerfile = read("Dockerfile");
    assert!(
        dockerfile.contains(&format!("\"0.0.0.0:{port}\"")),
        "serve binds {port}"
    );
    assert!(dockerfile.contains(&format!("http://127.0.0.1:{port}/health")));
    let nginx = read("nginx.conf");
    assert!(nginx.contains(&format!("server paging:{port} resolve;")));
    assert!(nginx.contains(&format!("listen {port};")));
}
