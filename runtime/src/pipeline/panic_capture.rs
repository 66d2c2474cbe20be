//! Panics in tool bodies, and anywhere else in a call's pipeline (an output guard, a
//! validator): caught by the pipeline (`catch_unwind`) and logged once, as one line under the
//! call's trace id, with the payload and where it happened.
//!
//! The default panic hook would print its own line first, without the trace id, and with
//! `RUST_BACKTRACE=1` a resolved backtrace per panic: a panic storm then wrote megabytes and
//! grew the server's memory fivefold (symbol tables). The hook installed here stays silent
//! for panics inside a tool body, where it only notes the location for the pipeline's line,
//! and hands every other panic to the hook that was there before.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Once;
use std::task::{Context, Poll};

thread_local! {
    /// True while a tool body (or a call's pipeline) is being polled on this thread.
    static IN_BODY: Cell<bool> = const { Cell::new(false) };
    /// Where the last body panic on this thread happened.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the hook (once per process; later calls do nothing).
pub(crate) fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_BODY.with(Cell::get) {
                let location = info.location().map(ToString::to_string);
                LOCATION.with(|slot| *slot.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

/// The location of the last body panic on this thread, taken.
pub(crate) fn take_location() -> Option<String> {
    LOCATION.with(|slot| slot.borrow_mut().take())
}

pin_project_lite::pin_project! {
    /// A future polled as a tool body (or a call's whole pipeline): marked as a body while it
    /// is polled, so the hook stays silent, and its panic returned as `Err`.
    ///
    /// One layer rather than `catch_unwind` over an `async fn` wrapper: each `async` layer
    /// that takes a future by value keeps its own copy of it, and a call's pipeline is large
    /// enough for those copies to show in the cost of every call.
    pub(crate) struct Caught<F> {
        #[pin]
        inner: F,
    }
}

/// `inner`, polled as a body with its panics caught ([`Caught`]).
pub(crate) fn caught<F: Future>(inner: F) -> Caught<F> {
    Caught { inner }
}

impl<F: Future> Future for Caught<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        struct Reset(bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                IN_BODY.with(|flag| flag.set(self.0));
            }
        }
        let inner = self.project().inner;
        let _reset = Reset(IN_BODY.with(|flag| flag.replace(true)));
        // The inner future is not polled again after a panic: its `Err` is the output.
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// A panic payload's message, when it is a string.
pub(crate) fn panic_message(payload: &Box<dyn Any + Send>) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_panic_is_noted_not_printed_and_the_flag_is_reset() {
        install_hook();
        let body = caught(async { panic!("boom") });
        let panic = futures::executor::block_on(body).expect_err("the panic is the output");
        assert_eq!(panic_message(&panic), "boom");
        let location = take_location().expect("the hook noted where");
        assert!(location.contains("panic_capture.rs"), "{location}");
        assert!(!IN_BODY.with(Cell::get));
    }
}
