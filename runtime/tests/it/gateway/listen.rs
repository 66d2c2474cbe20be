//! A 2026-07-28 upstream over streamable HTTP (the harness's own subscriptions, served by
//! rmcp): the gateway opens one `subscriptions/listen` stream on it for the resources it
//! serves as subscribable, before the link counts as up, and passes their updates on.

use std::sync::Arc;
use std::time::Duration;

use harness_contract::pin_sha256;
use harness_runtime::Pipeline;
use harness_runtime::catalog::{CatalogSpec, ResourceContent, ResourceSpec};
use harness_runtime::spec::{PinKind, PinSpec, ServerSpec, UpstreamSpec};
use harness_runtime::upstream::{Upstreams, fetch_offered};

use super::leak;
use crate::common::listening::Listening;
use crate::common::{SERVER, upstream};

const fn resource(uri: &'static str) -> ResourceSpec {
    ResourceSpec {
        uri,
        name: "r",
        title: None,
        description: None,
        mime_type: "text/plain",
        content: ResourceContent::Text("content"),
        size: 7,
        subscribe: true,
    }
}

/// The upstream: two subscribable resources.
static UPSTREAM: ServerSpec = ServerSpec {
    catalog: CatalogSpec {
        resources: &[resource("test://watched"), resource("test://other")],
        ..CatalogSpec::EMPTY
    },
    ..SERVER
};

fn spec(url: &str, pins: &'static [PinSpec]) -> &'static UpstreamSpec {
    upstream::spec_2026("listening", url, &[], pins)
}

#[tokio::test]
async fn a_2026_upstreams_updates_come_on_its_listen_stream() {
    let source = Arc::new(Pipeline::new(&UPSTREAM, &[]));
    let url = upstream::serve(Listening(Arc::clone(&source), &UPSTREAM)).await;
    let offered = fetch_offered(spec(&url, &[])).await.expect("its lists");
    assert!(offered.subscribe, "the upstream lets clients subscribe");
    let watched = offered
        .resources
        .iter()
        .find(|resource| resource["uri"] == "test://watched")
        .expect("listed");
    // Only test://watched is served (and subscribable) through the gateway.
    let pins = leak(Box::new([PinSpec {
        kind: PinKind::Resource,
        name: "test://watched",
        remote_name: "test://watched",
        sha256: leak(pin_sha256(PinKind::Resource, watched).into_boxed_str()),
        schema: None,
        subscribe: true,
    }]));
    let upstreams = Upstreams::new(std::slice::from_ref(spec(&url, pins)));
    let mut updates = upstreams.resource_updates();
    upstreams.start().await;
    assert!(upstreams.all_up(), "{}", upstreams.health());
    // The stream is acknowledged before the upstream's listener is registered: wait for it.
    let mut listeners = source.subscriptions().open();
    tokio::time::timeout(
        Duration::from_secs(20),
        listeners.wait_for(|open| *open >= 1),
    )
    .await
    .expect("the gateway listens upstream")
    .unwrap();
    assert_eq!(
        source.subscriptions().resource_updated("test://other"),
        Ok(1)
    );
    assert_eq!(
        source.subscriptions().resource_updated("test://watched"),
        Ok(1)
    );
    let updated = tokio::time::timeout(Duration::from_secs(20), updates.recv())
        .await
        .expect("an update passed on")
        .unwrap();
    assert_eq!(updated, "test://watched", "test://other was not asked for");
}
