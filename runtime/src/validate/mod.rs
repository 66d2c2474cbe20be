//! Strict argument validation, called by the generated validators.
//!
//! Strict means JSON types are never coerced: an integer field refuses `"42"`, `true` and
//! `42.5` (and `42.0`, as pydantic's `strict=True` does). Every problem is collected so the
//! model can fix all of them in one retry; nothing allocates unless an argument is wrong.

mod containers;
mod errors;
mod scalars;
#[cfg(feature = "gateway")]
mod schema;

pub use self::containers::{Fields, NoArguments, array, object, reject_unknown_fields};
pub use self::errors::{
    ArgError, ArgErrors, ArgPath, FromArguments, JsonObject, QUOTE_LIMIT, REPORTED_ERRORS,
    describe, quote_client_text,
};
pub use self::scalars::{NumberRules, StringRules, boolean, integer, not_a_member, number, string};
#[cfg(feature = "gateway")]
pub use self::schema::PinnedSchema;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use regex::Regex;
    use serde_json::Value;

    fn run<T>(check: impl FnOnce(ArgPath<'_>, &mut ArgErrors) -> Option<T>) -> Result<T, String> {
        let root = ArgPath::Root;
        let mut errors = ArgErrors::default();
        check(root.field("x"), &mut errors).ok_or_else(|| errors.to_string())
    }

    #[test]
    fn null_is_absent_for_optional_and_defaulted_fields_but_not_for_required_ones() {
        let object: JsonObject =
            serde_json::from_value(json!({"a": null, "b": null, "c": null})).expect("an object");
        let mut errors = ArgErrors::default();
        let mut fields = Fields::new(&object, ArgPath::Root, &["a", "b", "c"], &mut errors);
        assert_eq!(fields.optional("a", boolean), Some(None));
        assert_eq!(fields.or_default("b", boolean, || true), Some(true));
        assert_eq!(fields.required("c", boolean), None);
        assert_eq!(errors.to_string(), "c: expected a boolean, got null");
    }

    #[test]
    fn unknown_keys_are_quoted_short_and_counted_past_the_limit() {
        let mut object = JsonObject::new();
        object.insert("k".repeat(100_000), json!(1));
        for index in 0..1_000 {
            object.insert(format!("extra{index}"), json!(1));
        }
        let mut errors = ArgErrors::default();
        reject_unknown_fields(&object, ArgPath::Root, &["id"], &mut errors);
        let message = errors.to_string();
        assert_eq!(errors.errors().len(), REPORTED_ERRORS);
        assert_eq!(errors.omitted(), 1_001 - REPORTED_ERRORS);
        assert!(
            message.starts_with(&format!("{}...: unknown field", "k".repeat(40))),
            "{message}"
        );
        assert!(message.ends_with("; and 981 more"), "{message}");
        assert!(message.len() < 2_000, "{} bytes", message.len());
    }

    #[test]
    fn client_strings_are_quoted_at_most_forty_characters() {
        assert_eq!(quote_client_text("short"), "\"short\"");
        let long = "é".repeat(41);
        assert_eq!(
            quote_client_text(&long),
            format!("{:?}... (41 characters)", "é".repeat(40))
        );
    }

    #[test]
    fn integers_are_strict() {
        let int =
            |value: Value| run(|path, errors| integer::<u32>(&value, path, 1, 999_999, errors));
        assert_eq!(int(json!(42)), Ok(42));
        assert_eq!(
            int(json!("42")),
            Err(r#"x: expected an integer, got the string "42""#.into())
        );
        assert_eq!(
            int(json!(true)),
            Err("x: expected an integer, got true".into())
        );
        assert_eq!(
            int(json!(42.5)),
            Err("x: expected an integer, got the number 42.5".into())
        );
        assert_eq!(
            int(json!(42.0)),
            Err("x: expected an integer, got the number 42.0".into())
        );
        assert_eq!(int(json!(0)), Err("x: must be at least 1, got 0".into()));
        assert_eq!(
            int(json!(1_000_000)),
            Err("x: must be at most 999999, got 1000000".into())
        );
        assert_eq!(
            int(json!(u64::MAX)),
            Err("x: must be at most 999999, got 18446744073709551615".into())
        );
    }

    #[test]
    fn strings_check_length_in_code_points_and_pattern() {
        let regex = Regex::new("^[a-z]+$").unwrap();
        let rules = StringRules {
            min_length: Some(2),
            max_length: Some(3),
            pattern: Some((&regex, "^[a-z]+$")),
        };
        let text = |value: Value| run(|path, errors| string(&value, path, &rules, errors));
        assert_eq!(text(json!("abc")), Ok("abc".to_owned()));
        assert_eq!(
            text(json!("ééé")).unwrap_err(),
            r#"x: must match the pattern ^[a-z]+$, got the string "ééé""#
        );
        assert_eq!(
            text(json!("a")),
            Err("x: expected at least 2 characters, got 1".into())
        );
        assert_eq!(
            text(json!(1)),
            Err("x: expected a string, got the number 1".into())
        );
    }

    #[test]
    fn long_strings_are_not_echoed_back() {
        let long = "A".repeat(10_000);
        let message = run(|path, errors| boolean(&json!(long), path, errors)).unwrap_err();
        assert!(message.len() < 120, "{message}");
        assert!(message.ends_with("... (10000 characters)"), "{message}");
    }

    #[test]
    fn arrays_collect_every_item_error() {
        let value = json!([1, "2", 3, true]);
        let message = run(|path, errors| {
            array(
                &value,
                path,
                None,
                Some(10),
                errors,
                |item, path, errors| integer::<i64>(item, path, i64::MIN, i64::MAX, errors),
            )
        })
        .unwrap_err();
        assert_eq!(
            message,
            r#"x[1]: expected an integer, got the string "2"; x[3]: expected an integer, got true"#
        );
    }

    #[test]
    fn numbers_honour_exclusive_bounds() {
        let rules = NumberRules {
            exclusive_minimum: Some(0.0),
            maximum: Some(1.0),
            ..NumberRules::default()
        };
        let num = |value: Value| run(|path, errors| number(&value, path, &rules, errors));
        assert_eq!(num(json!(1)), Ok(1.0));
        assert_eq!(
            num(json!(0.0)),
            Err("x: must be greater than 0, got 0.0".into())
        );
        assert_eq!(
            num(json!("1")),
            Err(r#"x: expected a number, got the string "1""#.into())
        );
    }

    #[test]
    fn unknown_fields_name_the_allowed_ones() {
        let object = json!({"incident_id": 1, "extra": 2});
        let mut errors = ArgErrors::default();
        reject_unknown_fields(
            object.as_object().unwrap(),
            ArgPath::Root,
            &["incident_id", "view"],
            &mut errors,
        );
        assert_eq!(
            errors.to_string(),
            "extra: unknown field; expected one of: incident_id, view"
        );
    }
}
