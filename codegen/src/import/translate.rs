//! An upstream tool's `inputSchema` (JSON Schema) as the manifest's argument grammar, where
//! the grammar can say it exactly or more strictly, and otherwise the list of constructs it
//! cannot say, so that nothing is guessed.
//!
//! Said exactly: `type` string, integer, number, boolean, array (of scalars or string
//! enums) and object (with `properties`); `required`; `description`; string `enum`s;
//! `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`; `minLength`/`maxLength`;
//! `pattern` (where the regex crate compiles it); `minItems`/`maxItems`; `default` (a scalar
//! or an array of scalars). Said more strictly, with a note: a missing `additionalProperties`
//! counts as `false` (the grammar rejects unknown fields), and a type union with `null`
//! becomes its other type, and so does an `anyOf`/`oneOf` of one schema and `{"type":
//! "null"}` (pydantic's `Optional`; the manifest does not admit `null`). Annotation-only keywords
//! (`title`, `examples`, `$comment`, `$schema`, `$id`, `$defs`, `definitions`, `deprecated`,
//! `readOnly`, `writeOnly`) validate nothing and are left out. Everything else is reported:
//! `oneOf`/`anyOf`/`allOf`/`not`/`if`, `$ref`, `const`, `format`, `multipleOf`,
//! `uniqueItems`, `patternProperties`, `additionalProperties` other than `false`, arrays of
//! objects or arrays, objects without properties, other type unions, non-string enums...

use serde_json::{Map, Value};

/// Keywords that only annotate and validate nothing.
const ANNOTATIONS: &[&str] = &[
    "title",
    "examples",
    "$comment",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// One argument, object field or array item type in the manifest's grammar.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arg {
    /// The property name (empty for array items).
    pub(crate) name: String,
    /// The grammar's type: string, integer, number, boolean, enum, array or object.
    pub(crate) ty: &'static str,
    /// The schema's description, as the upstream wrote it (audited later).
    pub(crate) description: Option<String>,
    /// Whether the property is in `required`.
    pub(crate) required: bool,
    /// The default value.
    pub(crate) default: Option<Value>,
    /// Constraint keys of the grammar with their values, in the grammar's order.
    pub(crate) constraints: Vec<(&'static str, Value)>,
    /// The item type of an array.
    pub(crate) items: Option<Box<Arg>>,
    /// The fields of an object.
    pub(crate) fields: Vec<Arg>,
}

/// A construct the grammar cannot say, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unsupported {
    /// A JSON pointer into the input schema (`""` is the schema itself).
    pub(crate) at: String,
    /// The construct, e.g. `oneOf` or `an array of objects`.
    pub(crate) construct: String,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.at.is_empty() {
            write!(f, "{} (at the schema's root)", self.construct)
        } else {
            write!(f, "{} at {}", self.construct, self.at)
        }
    }
}

/// A schema the grammar says: the arguments, and where the manifest is stricter.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Translation {
    /// The arguments, in the schema's property order.
    pub(crate) args: Vec<Arg>,
    /// Where the manifest admits less than the upstream would (each with its place).
    pub(crate) notes: Vec<String>,
}

/// The arguments `schema` describes, or every construct the grammar cannot say.
pub(crate) fn translate(schema: &Value) -> Result<Translation, Vec<Unsupported>> {
    let mut walk = Walk::default();
    let args = match schema.as_object() {
        Some(object) => walk.object_fields(object, "", true),
        None => {
            walk.unsupported("", "a schema that is not an object");
            Vec::new()
        }
    };
    if walk.unsupported.is_empty() {
        Ok(Translation {
            args,
            notes: walk.notes,
        })
    } else {
        Err(walk.unsupported)
    }
}

#[derive(Default)]
struct Walk {
    unsupported: Vec<Unsupported>,
    notes: Vec<String>,
}

/// What one schema says about its value's type.
enum Kind {
    Scalar(&'static str),
    Enum(Vec<String>),
    Array,
    Object,
}

impl Walk {
    fn unsupported(&mut self, at: &str, construct: impl Into<String>) {
        self.unsupported.push(Unsupported {
            at: at.to_owned(),
            construct: construct.into(),
        });
    }

    /// The fields of an object schema at `at` (the tool's arguments when `root`).
    fn object_fields(&mut self, object: &Map<String, Value>, at: &str, root: bool) -> Vec<Arg> {
        if let Some(ty) = object.get("type")
            && ty != "object"
        {
            self.unsupported(at, format!("`type: {ty}` where an object is expected"));
        }
        for (key, value) in object {
            match key.as_str() {
                "type" | "properties" | "required" | "description" => {}
                "default" if !root => {}
                "additionalProperties" => {
                    if value != &Value::Bool(false) {
                        self.unsupported(
                            &pointer(at, key),
                            "`additionalProperties` other than false (extra fields)",
                        );
                    }
                }
                key if ANNOTATIONS.contains(&key) => {}
                key => self.unsupported(&pointer(at, key), format!("`{key}`")),
            }
        }
        let required: Vec<&str> = match object.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
                names.iter().filter_map(Value::as_str).collect()
            }
            Some(_) => {
                self.unsupported(
                    &pointer(at, "required"),
                    "`required` that is not a list of names",
                );
                Vec::new()
            }
        };
        let properties = match object.get("properties") {
            None => &Map::new(),
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                self.unsupported(
                    &pointer(at, "properties"),
                    "`properties` that is not an object",
                );
                return Vec::new();
            }
        };
        if properties.is_empty() && !root {
            self.unsupported(at, "an object without `properties` (any fields)");
        }
        for name in &required {
            if !properties.contains_key(*name) {
                self.unsupported(
                    &pointer(at, "required"),
                    format!("`required` names `{name}`, which `properties` does not define"),
                );
            }
        }
        let properties_at = pointer(at, "properties");
        properties
            .iter()
            .filter_map(|(name, schema)| {
                let at = pointer(&properties_at, name);
                let mut arg = self.schema(schema, &at, false)?;
                arg.name = name.clone();
                arg.required = required.contains(&name.as_str());
                if arg.required && arg.default.take().is_some() {
                    self.notes.push(format!(
                        "{at}: default left out (the argument is required, so it never applies)"
                    ));
                }
                Some(arg)
            })
            .collect()
    }

    /// One property's (or item's) schema; `None` when it cannot be said at all.
    fn schema(&mut self, schema: &Value, at: &str, item: bool) -> Option<Arg> {
        let Some(object) = schema.as_object() else {
            self.unsupported(at, format!("the schema `{schema}` (not an object)"));
            return None;
        };
        let unwrapped = self.without_null_variant(object, at);
        let object = unwrapped.as_ref().unwrap_or(object);
        let kind = self.kind(object, at)?;
        let mut arg = Arg {
            name: String::new(),
            ty: match &kind {
                Kind::Scalar(ty) => ty,
                Kind::Enum(_) => "enum",
                Kind::Array => "array",
                Kind::Object => "object",
            },
            description: None,
            required: false,
            default: None,
            constraints: Vec::new(),
            items: None,
            fields: Vec::new(),
        };
        match object.get("description") {
            None => {}
            Some(Value::String(text)) => arg.description = Some(text.clone()),
            Some(_) => self.unsupported(
                &pointer(at, "description"),
                "a description that is not a string",
            ),
        }
        let allowed: &[&str] = match &kind {
            Kind::Scalar("string") => &["minLength", "maxLength", "pattern"],
            Kind::Scalar("integer" | "number") => {
                &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
            }
            Kind::Scalar(_) | Kind::Enum(_) => &[],
            Kind::Array => &["items", "minItems", "maxItems"],
            Kind::Object => {
                arg.fields = self.object_fields(object, at, false);
                if object.contains_key("default") {
                    self.unsupported(&pointer(at, "default"), "a default for an object");
                }
                return Some(arg);
            }
        };
        for (key, value) in object {
            let key_at = pointer(at, key);
            match key.as_str() {
                "type" | "enum" | "description" => {}
                "default" if !item => arg.default = self.default_value(value, &key_at),
                key if ANNOTATIONS.contains(&key) => {}
                key if allowed.contains(&key) => self.constraint(&mut arg, key, value, &key_at),
                "items" | "prefixItems" | "contains" if !matches!(kind, Kind::Array) => {
                    self.unsupported(&key_at, format!("`{key}` on a value that is not an array"))
                }
                key => self.unsupported(&key_at, format!("`{key}`")),
            }
        }
        match kind {
            Kind::Enum(values) => {
                let values = values.into_iter().map(Value::String).collect();
                arg.constraints.insert(0, ("values", values));
            }
            Kind::Array if !object.contains_key("items") => {
                self.unsupported(at, "an array without `items` (any items)");
            }
            _ => {}
        }
        Some(arg)
    }

    /// `anyOf`/`oneOf` of one schema and `{"type": "null"}` (what pydantic writes for an
    /// `Optional`) as that one schema, with the outer keys (description, default...) beside
    /// it; `None` when `object` is not of that shape or the keys would clash.
    fn without_null_variant(
        &mut self,
        object: &Map<String, Value>,
        at: &str,
    ) -> Option<Map<String, Value>> {
        let (key, variants) = ["anyOf", "oneOf"]
            .iter()
            .find_map(|key| Some((*key, object.get(*key)?.as_array()?)))?;
        let is_null = |v: &Value| {
            v.as_object()
                .is_some_and(|o| o.len() == 1 && o.get("type").is_some_and(|t| t == "null"))
        };
        let [first, second] = variants.as_slice() else {
            return None;
        };
        let other = match (is_null(first), is_null(second)) {
            (true, false) => second,
            (false, true) => first,
            _ => return None,
        };
        let mut merged = other.as_object()?.clone();
        for (outer, value) in object.iter().filter(|(outer, _)| *outer != key) {
            if merged.insert(outer.clone(), value.clone()).is_some() {
                return None;
            }
        }
        let ty = merged
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("its other type");
        self.notes.push(format!(
            "{at}: accepts null upstream; the manifest admits only {ty}"
        ));
        Some(merged)
    }

    /// The value's type: `type` (a name, or a list of one name and `null`) and `enum`.
    fn kind(&mut self, object: &Map<String, Value>, at: &str) -> Option<Kind> {
        let ty = match object.get("type") {
            None => None,
            Some(Value::String(ty)) => Some(ty.as_str()),
            Some(Value::Array(types)) => {
                let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                let others: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
                if names.len() != types.len() || others.len() != 1 || names.len() != 2 {
                    let list = Value::Array(types.clone());
                    self.unsupported(&pointer(at, "type"), format!("the type union {list}"));
                    return None;
                }
                self.notes.push(format!(
                    "{at}: accepts null upstream; the manifest admits only {}",
                    others[0]
                ));
                Some(others[0])
            }
            Some(other) => {
                self.unsupported(&pointer(at, "type"), format!("`type: {other}`"));
                return None;
            }
        };
        if let Some(values) = object.get("enum") {
            let strings: Option<Vec<String>> = values
                .as_array()
                .map(|values| {
                    values
                        .iter()
                        .map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            return match (strings, ty) {
                (Some(strings), None | Some("string")) if !strings.is_empty() => {
                    Some(Kind::Enum(strings))
                }
                _ => {
                    self.unsupported(
                        &pointer(at, "enum"),
                        "an enum whose members are not all strings",
                    );
                    None
                }
            };
        }
        match ty {
            Some(ty @ ("string" | "integer" | "number" | "boolean")) => {
                Some(Kind::Scalar(match ty {
                    "string" => "string",
                    "integer" => "integer",
                    "number" => "number",
                    _ => "boolean",
                }))
            }
            Some("array") => Some(Kind::Array),
            Some("object") => Some(Kind::Object),
            Some(other) => {
                self.unsupported(&pointer(at, "type"), format!("`type: \"{other}\"`"));
                None
            }
            None => {
                let combinators = ["oneOf", "anyOf", "allOf", "not", "if", "$ref", "const"];
                match combinators.iter().find(|key| object.contains_key(**key)) {
                    Some(key) => self.unsupported(&pointer(at, key), format!("`{key}`")),
                    None => self.unsupported(at, "a schema without `type` (any value)"),
                }
                None
            }
        }
    }

    fn constraint(&mut self, arg: &mut Arg, key: &str, value: &Value, at: &str) {
        let (manifest_key, converted) = match key {
            "minimum" => ("minimum", bound(value, arg.ty == "integer")),
            "maximum" => ("maximum", bound(value, arg.ty == "integer")),
            "exclusiveMinimum" => ("exclusive_minimum", bound(value, arg.ty == "integer")),
            "exclusiveMaximum" => ("exclusive_maximum", bound(value, arg.ty == "integer")),
            "minLength" => ("min_length", count(value)),
            "maxLength" => ("max_length", count(value)),
            "minItems" => ("min_items", count(value)),
            "maxItems" => ("max_items", count(value)),
            "pattern" => match value.as_str() {
                Some(pattern) if regex::Regex::new(pattern).is_ok() => {
                    ("pattern", Some(value.clone()))
                }
                Some(_) => {
                    self.unsupported(
                        at,
                        "a `pattern` the regex crate cannot compile (look-around or back-references)",
                    );
                    return;
                }
                None => ("pattern", None),
            },
            "items" => {
                match self.schema(value, at, true) {
                    Some(items) if matches!(items.ty, "array" | "object") => {
                        self.unsupported(at, format!("an array of {}s", items.ty));
                    }
                    Some(items) => arg.items = Some(Box::new(items)),
                    None => {}
                }
                return;
            }
            _ => unreachable!("only the allowed keys reach here"),
        };
        match converted {
            Some(value) => arg.constraints.push((manifest_key, value)),
            None => self.unsupported(at, format!("`{key}: {value}`")),
        }
    }

    /// A default the grammar can write: a scalar, or an array of scalars (`null` means none).
    fn default_value(&mut self, value: &Value, at: &str) -> Option<Value> {
        let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
        match value {
            Value::Null => {
                self.notes.push(format!(
                    "{at}: a null default left out (the argument is optional)"
                ));
                None
            }
            Value::Array(items) if items.iter().all(scalar) => Some(value.clone()),
            value if scalar(value) => Some(value.clone()),
            value => {
                self.unsupported(at, format!("the default {value}"));
                None
            }
        }
    }
}

/// A numeric bound as the grammar writes it: an integer's bounds are integers (a whole
/// float such as `1.0` becomes `1`), a number's any finite number within i64 or f64.
fn bound(value: &Value, integer: bool) -> Option<Value> {
    let number = value.as_number()?;
    if number.is_i64() {
        return Some(value.clone());
    }
    if number.is_u64() {
        return None;
    }
    let float = number.as_f64()?;
    if !integer {
        return Some(value.clone());
    }
    let whole = float.fract() == 0.0 && float.abs() < 9.0e15;
    whole.then(|| Value::from(float as i64))
}

/// A length or count: a non-negative integer (a whole float such as `3.0` becomes `3`).
fn count(value: &Value) -> Option<Value> {
    if let Some(count) = value.as_u64() {
        return i64::try_from(count).is_ok().then(|| Value::from(count));
    }
    let float = value.as_f64()?;
    (float.fract() == 0.0 && (0.0..9.0e15).contains(&float)).then(|| Value::from(float as u64))
}

/// `at` with `key` appended as a JSON pointer token.
fn pointer(at: &str, key: &str) -> String {
    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests;
