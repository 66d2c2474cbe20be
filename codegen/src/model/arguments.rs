//! Arguments and object fields: unique names that stay distinct as Rust fields, which
//! constraint keys apply to which type, enum members that stay distinct as Rust variants,
//! array items, nested objects, and defaults checked against their own type.
//!
//! Objects nest fields, so fields and types are checked by the functions of this one file,
//! calling each other; the scalar types' own checks are in [`crate::model::bounds`].

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::ident;
use crate::manifest::{ArgType, Argument};
use crate::manifest_path::{ManifestPath, Segment};
use crate::model::bounds::{Limit, check_order, integer_type, number_type, string_type};
use crate::model::constraints::Constraints;
use crate::model::names::{TypeNames, report_ident_error, rust_names};
use crate::model::types::{FieldModel, Presence, TypeModel};
use crate::model::value::{check_value, toml_to_json};

/// The fields of a tool's arguments or of an object, in manifest order; `None` when any of them
/// failed. Generated type names start with `type_prefix` (none when the owner's name failed).
pub(crate) fn fields(
    arguments: &[Argument],
    list: &ManifestPath,
    type_prefix: Option<&str>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<Vec<FieldModel>> {
    let errors = errors.child();
    // The same grammar declares results; their diagnostics say so.
    let in_results = list
        .segments()
        .iter()
        .any(|segment| matches!(segment, Segment::Key(key) if key == "results"));
    let (noun, nouns) = if in_results {
        ("result field", "result fields")
    } else {
        ("argument", "arguments")
    };
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut idents: BTreeMap<String, (String, usize)> = BTreeMap::new();
    let mut fields = Vec::new();
    for (index, argument) in arguments.iter().enumerate() {
        let path = list.index(index);
        if let Some(first) = seen.insert(&argument.name, index) {
            errors.report(
                Diagnostic::value(
                    path.key("name"),
                    format!("duplicate {noun} `{}`", argument.name),
                )
                .label("already defined")
                .also_at(list.index(first).key("name"), "first defined here")
                .help(format!("{noun} names must be unique")),
            );
            continue;
        }
        let Some(field) = field(argument, &path, type_prefix, type_names, &errors) else {
            continue;
        };
        if let Some((other, other_index)) =
            idents.insert(field.ident.clone(), (argument.name.clone(), index))
        {
            errors.report(
                Diagnostic::value(
                    path.key("name"),
                    format!(
                        "{nouns} `{other}` and `{}` both become the field `{}` in Rust",
                        argument.name, field.ident
                    ),
                )
                .label("collides after case conversion")
                .also_at(
                    list.index(other_index).key("name"),
                    format!("`{other}` becomes `{}` too", field.ident),
                )
                .help("rename one of them so their snake_case forms differ"),
            );
        }
        fields.push(field);
    }
    errors.unless_failed(fields)
}

fn field(
    argument: &Argument,
    path: &ManifestPath,
    type_prefix: Option<&str>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<FieldModel> {
    let names = rust_names(&argument.name, &path.key("name"), errors);
    let type_name = match (type_prefix, &names) {
        (Some(prefix), Some((_, camel))) => Some(format!("{prefix}{camel}")),
        _ => None,
    };
    let ty = type_model(
        &Constraints::of_argument(argument),
        path,
        type_name.as_deref(),
        type_names,
        errors,
    );
    let presence = presence(argument, ty.as_ref(), path, errors);
    let (ident, _) = names?;
    Some(FieldModel {
        name: argument.name.clone(),
        ident,
        description: argument.description.clone(),
        presence: presence?,
        ty: ty?,
    })
}

/// Whether the argument must be given, may be absent, or has a default (checked against `ty`,
/// when the type itself passed).
fn presence(
    argument: &Argument,
    ty: Option<&TypeModel>,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<Presence> {
    let Some(default) = &argument.default else {
        return Some(if argument.required == Some(false) {
            Presence::Optional
        } else {
            Presence::Required
        });
    };
    let default_path = path.key("default");
    if argument.required == Some(true) {
        errors.report(
            Diagnostic::value(
                path.key("required"),
                "a required argument cannot have a default",
            )
            .label("required = true")
            .help("remove `required` (a default makes the argument optional) or remove `default`"),
        );
        return None;
    }
    if argument.ty == ArgType::Object {
        errors.report(
            Diagnostic::value(default_path, "an object argument cannot have a default")
                .label("not supported")
                .help("give defaults to the object's fields instead"),
        );
        return None;
    }
    let value = match toml_to_json(default) {
        Ok(value) => value,
        Err(message) => {
            errors.report(
                Diagnostic::value(default_path, message)
                    .label("not a JSON value")
                    .help("use a string, number, boolean or array"),
            );
            return None;
        }
    };
    // Without a valid type there is nothing to check the default against; that error
    // is already reported.
    let ty = ty?;
    if let Err(problem) = check_value(ty, &value) {
        errors.report(
            Diagnostic::value(default_path, format!("default {problem}"))
                .label("invalid default")
                .help("the default must satisfy the argument's own type and constraints"),
        );
        return None;
    }
    Some(Presence::Default(value))
}

/// The type an argument or array item declares, with its constraints checked; `type_name` is
/// the Rust name an enum or object would take.
fn type_model(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    type_name: Option<&str>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let keys = errors.child();
    for (key, applies_to) in constraints.present_keys() {
        if !applies_to.contains(&constraints.ty) {
            let types: Vec<String> = applies_to.iter().map(ToString::to_string).collect();
            keys.report(
                Diagnostic::key(
                    path.key(key),
                    format!("`{key}` does not apply to type `{}`", constraints.ty),
                )
                .label("not a constraint of this type")
                .help(format!(
                    "`{key}` applies to: {}; remove it or change `type`",
                    types.join(", ")
                )),
            );
        }
    }
    if keys.failed() {
        return None;
    }
    match constraints.ty {
        ArgType::String => string_type(constraints, path, errors),
        ArgType::Integer => integer_type(constraints, path, errors),
        ArgType::Number => number_type(constraints, path, errors),
        ArgType::Boolean => Some(TypeModel::Boolean),
        ArgType::Enum => enum_type(constraints, path, type_name?, type_names, errors),
        ArgType::Array => array_type(constraints, path, type_name, type_names, errors),
        ArgType::Object => object_type(constraints, path, type_name, type_names, errors),
    }
}

fn object_type(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    type_name: Option<&str>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let Some(fields) = constraints.fields.filter(|fields| !fields.is_empty()) else {
        errors.report(
            Diagnostic::value(path.clone(), "an object argument needs `fields`")
                .label("no fields")
                .help("add [[...fields]] entries, each with a name and a type"),
        );
        return None;
    };
    let type_name = type_name?;
    type_names.claim(type_name, "an object argument", path);
    let fields = self::fields(
        fields,
        &path.key("fields"),
        Some(type_name),
        type_names,
        errors,
    )?;
    Some(TypeModel::Object {
        type_name: type_name.to_owned(),
        fields,
    })
}

fn enum_type(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    type_name: &str,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let Some(values) = constraints.values.filter(|values| !values.is_empty()) else {
        errors.report(
            Diagnostic::value(path.clone(), "an enum needs `values`")
                .label("no values")
                .help("list the allowed strings, e.g. values = [\"summary\", \"signals\"]"),
        );
        return None;
    };
    let members = errors.child();
    let mut variants: Vec<(String, String)> = Vec::new();
    for (index, value) in values.iter().enumerate() {
        let value_path = path.key("values").index(index);
        let variant = match ident::camel(value) {
            Ok(variant) => variant,
            Err(error) => {
                report_ident_error(&error, value, &value_path, &members);
                continue;
            }
        };
        let Some(other_index) = variants
            .iter()
            .position(|(v, i)| v == value || *i == variant)
        else {
            variants.push((value.clone(), variant));
            continue;
        };
        let other = &variants[other_index].0;
        let message = if other == value {
            format!("duplicate enum value `{value}`")
        } else {
            format!("enum values `{other}` and `{value}` both become the variant `{variant}`")
        };
        members.report(
            Diagnostic::value(value_path, message)
                .label("collides")
                .also_at(path.key("values").index(other_index), "first defined here")
                .help("make every value distinct after case conversion"),
        );
    }
    if members.failed() {
        return None;
    }
    type_names.claim(type_name, "an enum argument", path);
    Some(TypeModel::Enum {
        type_name: type_name.to_owned(),
        variants,
    })
}

fn array_type(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    type_name: Option<&str>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let errors = errors.child();
    check_order(
        Limit {
            key: "min_items",
            value: constraints.min_items,
        },
        Limit {
            key: "max_items",
            value: constraints.max_items,
        },
        path,
        &errors,
    );
    let Some(items) = constraints.items else {
        errors.report(
            Diagnostic::value(path.clone(), "an array argument needs `items`")
                .label("no item type")
                .help("add items = { type = \"string\" } (or another scalar type)"),
        );
        return None;
    };
    let items_path = path.key("items");
    if matches!(items.ty, ArgType::Array | ArgType::Object) {
        errors.report(
            Diagnostic::value(items_path.key("type"), format!("array items cannot be of type `{}`", items.ty))
                .label("not a scalar")
                .help("items are string, integer, number, boolean or enum; use an object argument for structure"),
        );
        return None;
    }
    let item_type_name = type_name.map(|name| format!("{name}Item"));
    let items = type_model(
        &Constraints::of_items(items),
        &items_path,
        item_type_name.as_deref(),
        type_names,
        &errors,
    )?;
    errors.unless_failed(TypeModel::Array {
        items: Box::new(items),
        min_items: constraints.min_items,
        max_items: constraints.max_items,
    })
}

/// Variables or arguments in the argument grammar, all required and of the scalar kinds
/// `allowed` names.
pub(crate) fn scalar_fields(
    arguments: &[Argument],
    path: &ManifestPath,
    prefix: Option<&str>,
    allowed: &[ArgType],
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<Vec<FieldModel>> {
    for (index, argument) in arguments.iter().enumerate() {
        if !allowed.contains(&argument.ty) {
            let names: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            errors.report(
                Diagnostic::value(
                    path.index(index).key("type"),
                    format!("type {} is not allowed here", argument.ty),
                )
                .label("not a scalar this can carry")
                .help(format!("use one of: {}", names.join(", "))),
            );
        }
    }
    let fields = fields(arguments, path, prefix, type_names, errors)?;
    Some(fields)
}
