//! server-everything's prompt, resource and template through the gateway, as pinned by
//! `harness-codegen import everything --tools ...`: only the pinned ones are listed, the
//! prompt's arguments are validated before the upstream sees them, and what comes back is
//! the upstream's, guarded; a URI no pin matches is not found without asking the upstream.

use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::json;

use super::gateway;

#[tokio::test]
async fn only_pinned_prompts_resources_and_templates_are_served() {
    let gateway = gateway().await;
    let client = &gateway.client;
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    let names: Vec<&str> = prompts.iter().map(|prompt| prompt.name.as_str()).collect();
    assert_eq!(
        names,
        ["args-prompt"],
        "server-everything offers more; one is pinned"
    );
    let resources = client.list_all_resources().await.expect("resources/list");
    let uris: Vec<&str> = resources
        .iter()
        .map(|resource| resource.uri.as_str())
        .collect();
    assert_eq!(uris, ["demo://resource/static/document/architecture.md"]);

    let arguments = json!({"city": "Lisbon"}).as_object().cloned().unwrap();
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("args-prompt").with_arguments(arguments))
        .await
        .expect("the pinned prompt");
    let text = &prompt.messages[0]
        .content
        .as_text()
        .unwrap_or_else(|| panic!("not text: {prompt:?}"))
        .text;
    assert!(text.contains("Lisbon"), "{text}");
    let wrong = json!({"city": 42}).as_object().cloned().unwrap();
    let refused = client
        .get_prompt(GetPromptRequestParams::new("args-prompt").with_arguments(wrong))
        .await
        .expect_err("a number is not a city");
    assert!(refused.to_string().contains("city"), "{refused}");
    client
        .get_prompt(GetPromptRequestParams::new("simple-prompt"))
        .await
        .expect_err("not pinned");

    let read = |uri: &str| client.read_resource(ReadResourceRequestParams::new(uri));
    let document = read("demo://resource/static/document/architecture.md")
        .await
        .expect("the pinned resource");
    let [ResourceContents::TextResourceContents { text, .. }] = &document.contents[..] else {
        panic!("one text: {document:?}")
    };
    assert!(!text.is_empty());
    let dynamic = read("demo://resource/dynamic/text/7")
        .await
        .expect("by the template");
    let [ResourceContents::TextResourceContents { uri, .. }] = &dynamic.contents[..] else {
        panic!("one text: {dynamic:?}")
    };
    assert_eq!(uri, "demo://resource/dynamic/text/7");
    read("demo://resource/static/document/features.md")
        .await
        .expect_err("not pinned");
}
