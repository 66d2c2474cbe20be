//! One record's JSON line, written field by field. The keys are constants in sorted order, so
//! each goes out as one copy with its quotes and colon; the call id is copied as it is and the
//! timestamp written digit by digit into the line; every other text is escaped as serde_json
//! escapes it. Through serde's derived serializer a line cost about 3,400 instructions of a call's
//! 59,000, most of it each key and each byte of the digest, id and timestamp checked for
//! escapes. The tests hold it to serde_json's output for any field values.

/// The fields of one line, in the order they are written (keys sorted, as Python's
/// `json.dumps(record, sort_keys=True)` writes them: verifiers may be Python).
pub(super) struct Line<'a> {
    pub(super) args_sha256: &'a str,
    /// A hyphenated UUID: nothing in it needs escaping.
    pub(super) call_id: &'a str,
    pub(super) duration_ms: u64,
    pub(super) error_code: Option<&'a str>,
    pub(super) method: Option<&'a str>,
    pub(super) outcome: &'a str,
    pub(super) schema_version: u32,
    /// Written only where the manifest opts in (`Some(None)` is a null subject).
    pub(super) subject: Option<Option<&'a str>>,
    pub(super) task_id: Option<&'a str>,
    /// When the call ended, written as RFC 3339 (see [`write_rfc3339`]).
    pub(super) timestamp: jiff::Timestamp,
    pub(super) tool: &'a str,
    pub(super) trace_id: Option<&'a str>,
}

impl Line<'_> {
    /// Appends the line (without its newline) to `out`.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"args_sha256\":");
        text(out, self.args_sha256);
        out.extend_from_slice(b",\"call_id\":\"");
        out.extend_from_slice(self.call_id.as_bytes());
        out.extend_from_slice(b"\",\"duration_ms\":");
        out.extend_from_slice(itoa::Buffer::new().format(self.duration_ms).as_bytes());
        if let Some(error_code) = self.error_code {
            out.extend_from_slice(b",\"error_code\":");
            text(out, error_code);
        }
        if let Some(method) = self.method {
            out.extend_from_slice(b",\"method\":");
            text(out, method);
        }
        out.extend_from_slice(b",\"outcome\":");
        text(out, self.outcome);
        out.extend_from_slice(b",\"schema_version\":");
        out.extend_from_slice(itoa::Buffer::new().format(self.schema_version).as_bytes());
        match self.subject {
            Some(Some(subject)) => {
                out.extend_from_slice(b",\"subject\":");
                text(out, subject);
            }
            Some(None) => out.extend_from_slice(b",\"subject\":null"),
            None => {}
        }
        if let Some(task_id) = self.task_id {
            out.extend_from_slice(b",\"task_id\":");
            text(out, task_id);
        }
        out.extend_from_slice(b",\"timestamp\":\"");
        write_rfc3339(out, self.timestamp);
        out.extend_from_slice(b"\",\"tool\":");
        text(out, self.tool);
        if let Some(trace_id) = self.trace_id {
            out.extend_from_slice(b",\"trace_id\":");
            text(out, trace_id);
        }
        out.push(b'}');
    }
}

/// Appends `timestamp` as RFC 3339 in UTC with microseconds, e.g.
/// `2026-11-29T23:41:13.123456Z`. Digit by digit: `strftime` parses its format on every call
/// (about 1,300 instructions of each audit record).
pub(super) fn write_rfc3339(out: &mut Vec<u8>, timestamp: jiff::Timestamp) {
    let civil = jiff::tz::Offset::UTC.to_datetime(timestamp);
    let Ok(year) = u32::try_from(civil.year()) else {
        // Before year 0: no clock this runs on says so, but the format must stay right.
        let text = timestamp.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
        out.extend_from_slice(text.as_bytes());
        return;
    };
    let mut push = |value: u32, digits: u32, then: u8| {
        for place in (0..digits).rev() {
            let digit = value / 10u32.pow(place) % 10;
            out.push(b'0' + u8::try_from(digit).expect("one decimal digit"));
        }
        out.push(then);
    };
    let field = |value: i8| u32::try_from(value).expect("civil fields are positive");
    push(year, 4, b'-');
    push(field(civil.month()), 2, b'-');
    push(field(civil.day()), 2, b'T');
    push(field(civil.hour()), 2, b':');
    push(field(civil.minute()), 2, b':');
    push(field(civil.second()), 2, b'.');
    let micros = u32::try_from(civil.subsec_nanosecond() / 1_000).expect("below a second");
    push(micros, 6, b'Z');
}

/// Appends `value` as a JSON string: copied between quotes when no byte of it needs an escape
/// (the names, outcomes and digests of nearly every record), else as serde_json writes it.
fn text(out: &mut Vec<u8>, value: &str) {
    // Every byte looked at, without stopping at the first that needs an escape: a loop with
    // no early exit is vectorized (a 64-digit digest in a few steps rather than 64).
    let needs_escape = value.bytes().fold(false, |found, byte| {
        found | (byte < 0x20) | (byte == b'"') | (byte == b'\\')
    });
    if !needs_escape {
        out.push(b'"');
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(out, value).expect("a string serializes");
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::Serialize;

    use super::*;

    /// The oracle: the same fields through serde's derived serializer.
    #[derive(Serialize)]
    struct Derived<'a> {
        args_sha256: &'a str,
        call_id: &'a str,
        duration_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_code: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<&'a str>,
        outcome: &'a str,
        schema_version: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        subject: Option<Option<&'a str>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        task_id: Option<&'a str>,
        timestamp: &'a str,
        tool: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        trace_id: Option<&'a str>,
    }

    /// Any text, with the characters that need escapes made common.
    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_/:.-]{0,12}",
            "[\"\\\\\u{0}-\u{1f}\u{7f}a\u{e9}\u{2028}\u{1f600}]{0,8}",
            any::<String>(),
        ]
    }

    fn line(fields: &Line<'_>) -> String {
        let mut out = Vec::new();
        fields.write(&mut out);
        String::from_utf8(out).expect("the line is UTF-8")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        #[test]
        fn the_line_is_what_serde_json_writes(
            args_sha256 in any_text(),
            duration_ms in any::<u64>(),
            error_code in proptest::option::of(any_text()),
            method in proptest::option::of(any_text()),
            outcome in any_text(),
            schema_version in any::<u32>(),
            subject in proptest::option::of(proptest::option::of(any_text())),
            task_id in proptest::option::of(any_text()),
            tool in any_text(),
            trace_id in proptest::option::of(any_text()),
            // Any instant jiff can hold, years before 0 included, to the microsecond.
            micros in jiff::Timestamp::MIN.as_microsecond()..=jiff::Timestamp::MAX.as_microsecond(),
        ) {
            let call_id = uuid::Uuid::new_v4().hyphenated().to_string();
            let timestamp = jiff::Timestamp::from_microsecond(micros).unwrap();
            let mut stamp = Vec::new();
            write_rfc3339(&mut stamp, timestamp);
            let stamp = String::from_utf8(stamp).unwrap();
            let fields = Line {
                args_sha256: &args_sha256,
                call_id: &call_id,
                duration_ms,
                error_code: error_code.as_deref(),
                method: method.as_deref(),
                outcome: &outcome,
                schema_version,
                subject: subject.as_ref().map(Option::as_deref),
                task_id: task_id.as_deref(),
                timestamp,
                tool: &tool,
                trace_id: trace_id.as_deref(),
            };
            let derived = Derived {
                args_sha256: fields.args_sha256,
                call_id: fields.call_id,
                duration_ms,
                error_code: fields.error_code,
                method: fields.method,
                outcome: fields.outcome,
                schema_version,
                subject: fields.subject,
                task_id: fields.task_id,
                timestamp: &stamp,
                tool: fields.tool,
                trace_id: fields.trace_id,
            };
            prop_assert_eq!(line(&fields), serde_json::to_string(&derived).unwrap());
        }
    }
}
