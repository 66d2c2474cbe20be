//! Reading a lane call's HTTP response within the connection's limits (rmcp's, the same its own
//! requests are held to): a JSON body read whole up to its bound, and an event stream none of
//! whose events may outgrow its bound, however many events it carries.

use futures::StreamExt;
use futures::stream::BoxStream;
use sse_stream::{Error as SseError, Sse, SseStream};

/// A call's event stream.
pub(crate) type Events = BoxStream<'static, Result<Sse, SseError>>;

/// Why a response's body could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BodyError {
    /// The connection failed while reading it.
    #[error("reading the response: {0}")]
    Read(#[from] reqwest::Error),
    /// A JSON body longer than its bound.
    #[error("the response is longer than {0} bytes")]
    TooLarge(usize),
    /// An event longer than its bound.
    #[error("an event of the response is longer than {0} bytes")]
    EventTooLarge(usize),
}

/// `response`'s whole body, refused past `max` bytes (before reading, when it says its length).
pub(crate) async fn json_body(
    mut response: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, BodyError> {
    let announced = response.content_length().unwrap_or(0);
    if announced > u64::try_from(max).unwrap_or(u64::MAX) {
        return Err(BodyError::TooLarge(max));
    }
    let mut body = Vec::with_capacity(usize::try_from(announced).unwrap_or(0));
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > max {
            return Err(BodyError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `response`'s events, the stream failing at the first event longer than `max_event` bytes.
pub(crate) fn events(response: reqwest::Response, max_event: usize) -> Events {
    let mut bound = EventBound::new(max_event);
    let bytes = response.bytes_stream().map(move |chunk| {
        let chunk = chunk?;
        bound.observe(&chunk)?;
        Ok::<_, BodyError>(chunk)
    });
    SseStream::from_bytes_stream(bytes).boxed()
}

/// The size of the event being read, from the bytes as they come: an event ends at a blank
/// line, a line at CR, LF or CRLF (the event stream format's three line ends).
#[derive(Debug)]
struct EventBound {
    max: usize,
    line: usize,
    event: usize,
    after_cr: bool,
}

impl EventBound {
    fn new(max: usize) -> Self {
        Self {
            max,
            line: 0,
            event: 0,
            after_cr: false,
        }
    }

    fn observe(&mut self, chunk: &[u8]) -> Result<(), BodyError> {
        for &byte in chunk {
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                continue;
            }
            if byte == b'\r' || byte == b'\n' {
                if self.line == 0 {
                    self.event = 0;
                }
                self.line = 0;
                self.after_cr = byte == b'\r';
            } else {
                self.line += 1;
                self.event += 1;
                if self.event > self.max {
                    return Err(BodyError::EventTooLarge(self.max));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks` to a bound of `max`; whether they all passed.
    fn passes(max: usize, chunks: &[&[u8]]) -> bool {
        let mut bound = EventBound::new(max);
        chunks.iter().all(|chunk| bound.observe(chunk).is_ok())
    }

    #[test]
    fn each_event_is_bounded_not_the_stream() {
        // 17 bytes of lines, however many such events follow.
        let event = b"id: 1\ndata: 123456\n\n";
        assert!(passes(17, &[event.as_slice(); 100]));
        assert!(!passes(16, &[event]));
    }

    #[test]
    fn every_line_end_ends_lines_and_a_blank_line_ends_the_event_across_chunks() {
        // CRLF split between chunks is one line end, not a blank line.
        assert!(!passes(9, &[b"data: 12\r", b"\ndata: 34\r\n\r\n"]));
        assert!(passes(8, &[b"data: 12\r", b"\n\r\n", b"data: 34\n\n"]));
        assert!(passes(8, &[b"data: 12\r\rdata: 34\r\r"]));
        assert!(!passes(15, &[b"data: 12\rdata: 34\r\r"]));
    }

    #[test]
    fn one_endless_line_fails_as_soon_as_it_passes_the_bound() {
        let mut bound = EventBound::new(1024);
        let chunk = [b'a'; 512];
        assert!(bound.observe(&chunk).is_ok());
        assert!(bound.observe(&chunk).is_ok());
        assert!(matches!(
            bound.observe(b"a"),
            Err(BodyError::EventTooLarge(1024))
        ));
    }
}
