//! Argument types and their strict validators: one struct per tool's arguments and per object
//! argument, one enum per enum argument; the same for each form of a tool, and for its
//! declared result, whose validator checks structuredContent after the guards.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::rust::tokens::{doc, opt, opt_u64, rt};
use crate::ident::to_ident;
use crate::model::{FieldModel, FormModel, Presence, ToolModel, TypeModel};

/// The arguments struct of a tool, its result struct when it declares results, and every
/// enum and object type inside them.
pub(crate) fn tool_types(tool: &ToolModel) -> TokenStream {
    let args_doc = format!("Validated arguments of tool `{}`.", tool.name);
    let name = format_ident!("{}", tool.args_type);
    let args = match &tool.pinned_schema {
        Some(schema) => pinned_schema_arguments(tool, &name, schema),
        None => struct_with_validator(&name, &args_doc, &tool.args),
    };
    let forms = tool.forms.iter().map(|form| form_type(tool, form));
    let args = quote! {
        #args

        #(#forms)*
    };
    let Some(results) = &tool.results else {
        return args;
    };
    let result_doc = format!(
        "The result of tool `{}`: what its body returns, published as its outputSchema. Its \
         validator checks the structuredContent the guards leave.",
        tool.name
    );
    let result_name = format_ident!("{}", results.type_name);
    let result = typed_struct(&result_name, &result_doc, &results.fields, Side::Result);
    quote! {
        #args

        #result
    }
}

/// A form of a tool: its answer's type with the strict validator, and what the runtime asks
/// the client with.
fn form_type(tool: &ToolModel, form: &FormModel) -> TokenStream {
    let rt = rt();
    let name = format_ident!("{}", form.type_name);
    let doc_text = format!(
        "The validated answer to form `{}` of tool `{}`: {}",
        form.key, tool.name, form.message
    );
    let answer = struct_with_validator(&name, &doc_text, &form.fields);
    let (key, message) = (&form.key, &form.message);
    let schema = crate::emit::schema::form_schema(form).to_string();
    quote! {
        #answer

        impl #rt::Form for #name {
            const KEY: &'static str = #key;
            const MESSAGE: &'static str = #message;
            const SCHEMA: &'static str = #schema;
        }
    }
}

/// The arguments of a tool validated by its pinned JSON Schema: the object as the client sent
/// it, once the schema accepts it.
fn pinned_schema_arguments(
    tool: &ToolModel,
    name: &proc_macro2::Ident,
    schema: &serde_json::Value,
) -> TokenStream {
    let rt = rt();
    let serde_crate = "::harness_runtime::__private::serde";
    let schema_static = format_ident!("{}_SCHEMA", tool.module.to_uppercase());
    let text = crate::emit::rust::tokens::raw_string(
        &serde_json::to_string_pretty(schema).expect("schema serializes"),
    );
    let schema_doc = doc(&format!(
        "The pinned JSON Schema of tool `{}`, compiled on first use.",
        tool.name
    ));
    let args_doc = doc(&format!(
        "Validated arguments of tool `{}`: an object its pinned schema accepts.",
        tool.name
    ));
    quote! {
        #schema_doc
        pub static #schema_static: #rt::PinnedSchema = #rt::PinnedSchema::new(#text);

        #args_doc
        #[derive(Debug, Clone, PartialEq, #rt::serde::Serialize)]
        #[serde(crate = #serde_crate, transparent)]
        pub struct #name(pub #rt::JsonObject);

        impl #rt::FromArguments for #name {
            fn from_arguments(
                object: &#rt::JsonObject,
                _path: #rt::ArgPath<'_>,
                errors: &mut #rt::ArgErrors,
            ) -> Option<Self> {
                #schema_static.validate(object, errors).then(|| Self(object.clone()))
            }
        }
    }
}

/// What a generated type holds, which its docs name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Arguments (of a tool, a prompt or a template).
    Argument,
    /// A tool's declared result.
    Result,
}

/// A struct and its strict validator: unknown fields refused, then each field bound by the
/// runtime helper for its presence (`required`, `optional`, `or_default`), every error kept.
pub(crate) fn struct_with_validator(
    name: &proc_macro2::Ident,
    doc_text: &str,
    fields: &[FieldModel],
) -> TokenStream {
    typed_struct(name, doc_text, fields, Side::Argument)
}

fn typed_struct(
    name: &proc_macro2::Ident,
    doc_text: &str,
    fields: &[FieldModel],
    side: Side,
) -> TokenStream {
    let rt = rt();
    let serde_crate = "::harness_runtime::__private::serde";
    let doc = doc(doc_text);
    let field_decls = fields.iter().map(|field| {
        let ident = to_ident(&field.ident);
        let json_name = &field.name;
        let ty = rust_type(&field.ty);
        // Every public field has a doc, so a crate with `missing_docs` on builds cleanly.
        let doc = match field.description.as_deref() {
            Some(description) => self::doc(description),
            None if side == Side::Result => self::doc(&format!("The `{json_name}` field.")),
            None => self::doc(&format!("The `{json_name}` argument.")),
        };
        let rename = (field.ident != field.name).then(|| quote!(#[serde(rename = #json_name)]));
        match field.presence {
            Presence::Optional => quote! {
                #doc
                #rename
                #[serde(skip_serializing_if = "Option::is_none")]
                pub #ident: Option<#ty>,
            },
            _ => quote! {
                #doc
                #rename
                pub #ident: #ty,
            },
        }
    });
    let allowed = fields.iter().map(|field| &field.name);
    let bindings = fields.iter().map(|field| {
        let ident = to_ident(&field.ident);
        let json_name = &field.name;
        let validate = validator(&field.ty);
        let binding = match &field.presence {
            Presence::Required => quote!(fields.required(#json_name, #validate)),
            Presence::Optional => quote!(fields.optional(#json_name, #validate)),
            Presence::Default(value) => {
                // An empty array's default is `Vec::new` itself: a closure around `vec![]`
                // is one clippy (redundant_closure) flags in the generated code.
                let default = match value {
                    serde_json::Value::Array(values) if values.is_empty() => quote!(Vec::new),
                    _ => {
                        let literal = default_literal(&field.ty, value);
                        quote!(|| #literal)
                    }
                };
                quote!(fields.or_default(#json_name, #validate, #default))
            }
        };
        quote!(let #ident = #binding;)
    });
    let assemble = fields.iter().map(|field| {
        let ident = to_ident(&field.ident);
        quote!(#ident: #ident?)
    });
    let nested = fields.iter().map(|field| nested_types(&field.ty, side));
    let bind_fields = if fields.is_empty() {
        quote!(#rt::reject_unknown_fields(object, path, &[], errors);)
    } else {
        quote!(let mut fields = #rt::Fields::new(object, path, &[#(#allowed),*], errors);)
    };
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, #rt::serde::Serialize)]
        #[serde(crate = #serde_crate)]
        pub struct #name {
            #(#field_decls)*
        }

        impl #rt::FromArguments for #name {
            fn from_arguments(
                object: &#rt::JsonObject,
                path: #rt::ArgPath<'_>,
                errors: &mut #rt::ArgErrors,
            ) -> Option<Self> {
                #bind_fields
                #(#bindings)*
                Some(Self { #(#assemble),* })
            }
        }

        #(#nested)*
    }
}

fn nested_types(ty: &TypeModel, side: Side) -> TokenStream {
    let what = match side {
        Side::Argument => "argument",
        Side::Result => "result field",
    };
    match ty {
        TypeModel::Enum {
            type_name,
            variants,
        } => enum_type(type_name, variants, what),
        TypeModel::Object { type_name, fields } => {
            let name = format_ident!("{}", type_name);
            let doc = format!("The `{type_name}` object {what}.");
            typed_struct(&name, &doc, fields, side)
        }
        TypeModel::Array { items, .. } => nested_types(items, side),
        _ => TokenStream::new(),
    }
}

fn enum_type(type_name: &str, variants: &[(String, String)], what: &str) -> TokenStream {
    let rt = rt();
    let serde_crate = "::harness_runtime::__private::serde";
    let name = format_ident!("{}", type_name);
    let idents: Vec<_> = variants
        .iter()
        .map(|(_, variant)| to_ident(variant))
        .collect();
    let values: Vec<_> = variants.iter().map(|(value, _)| value).collect();
    let variant_docs = values.iter().map(|value| format!(" `{value:?}`"));
    let enum_doc = format!(" One of the allowed values of an enum {what}.");
    quote! {
        #[doc = #enum_doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, #rt::serde::Serialize)]
        #[serde(crate = #serde_crate)]
        pub enum #name {
            #(
                #[doc = #variant_docs]
                #[serde(rename = #values)]
                #idents,
            )*
        }

        impl #name {
            /// Every allowed value, in manifest order.
            pub const VALUES: &'static [&'static str] = &[#(#values),*];

            /// The JSON value of this member.
            #[allow(dead_code, reason = "API for tool bodies, which may not need it")]
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Self::#idents => #values,)*
                }
            }

            fn from_json(
                value: &#rt::serde_json::Value,
                path: #rt::ArgPath<'_>,
                errors: &mut #rt::ArgErrors,
            ) -> Option<Self> {
                match value.as_str() {
                    #(Some(#values) => Some(Self::#idents),)*
                    _ => #rt::not_a_member(value, path, Self::VALUES, errors),
                }
            }
        }
    }
}

fn rust_type(ty: &TypeModel) -> TokenStream {
    let ty: syn::Type = syn::parse_str(&ty.rust_type()).expect("the model names a Rust type");
    quote!(#ty)
}

/// The validator of one value of type `ty`: a runtime function where one fits as it is (clippy
/// flags a closure that only forwards), otherwise a closure `|value, path, errors|` holding
/// the rules. The element type is inferred from the field it fills, so no turbofish.
fn validator(ty: &TypeModel) -> TokenStream {
    let rt = rt();
    match ty {
        TypeModel::Boolean => quote!(#rt::boolean),
        TypeModel::Object { .. } => quote!(#rt::object),
        TypeModel::Enum { type_name, .. } => {
            let name = format_ident!("{}", type_name);
            quote!(#name::from_json)
        }
        TypeModel::String {
            min_length,
            max_length,
            pattern,
        } => {
            let (min_length, max_length) = (opt_u64(*min_length), opt_u64(*max_length));
            match pattern {
                Some(pattern) => quote! {
                    |value, path, errors| {
                        static PATTERN: #rt::LazyLock<#rt::Regex> = #rt::LazyLock::new(|| {
                            #rt::Regex::new(#pattern).expect("harness-codegen checked this pattern")
                        });
                        #rt::string(value, path, &#rt::StringRules {
                            min_length: #min_length,
                            max_length: #max_length,
                            pattern: Some((&*PATTERN, #pattern)),
                        }, errors)
                    }
                },
                None => quote! {
                    |value, path, errors| #rt::string(value, path, &#rt::StringRules {
                        min_length: #min_length,
                        max_length: #max_length,
                        pattern: None,
                    }, errors)
                },
            }
        }
        TypeModel::Integer {
            minimum, maximum, ..
        } => {
            let (minimum, maximum) = (i64_bound(*minimum), i64_bound(*maximum));
            quote!(|value, path, errors| #rt::integer(value, path, #minimum, #maximum, errors))
        }
        TypeModel::Number {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
        } => {
            let [minimum, maximum, exclusive_minimum, exclusive_maximum] =
                [minimum, maximum, exclusive_minimum, exclusive_maximum]
                    .map(|bound| opt(bound.map(Literal::f64_unsuffixed)));
            quote! {
                |value, path, errors| #rt::number(value, path, &#rt::NumberRules {
                    minimum: #minimum,
                    maximum: #maximum,
                    exclusive_minimum: #exclusive_minimum,
                    exclusive_maximum: #exclusive_maximum,
                }, errors)
            }
        }
        TypeModel::Array {
            items,
            min_items,
            max_items,
        } => {
            let (min_items, max_items) = (opt_u64(*min_items), opt_u64(*max_items));
            let item = validator(items);
            quote! {
                |value, path, errors| #rt::array(value, path, #min_items, #max_items, errors, #item)
            }
        }
    }
}

/// An integer bound as written: `i64::MIN` and `i64::MAX` by name, others as plain literals.
fn i64_bound(bound: i64) -> TokenStream {
    match bound {
        i64::MIN => quote!(i64::MIN),
        i64::MAX => quote!(i64::MAX),
        _ => {
            let literal = Literal::i64_unsuffixed(bound);
            quote!(#literal)
        }
    }
}

/// A Rust expression for a default value the model already checked against `ty`; its type is
/// inferred from the field.
fn default_literal(ty: &TypeModel, value: &serde_json::Value) -> TokenStream {
    match (ty, value) {
        (TypeModel::String { .. }, serde_json::Value::String(text)) => {
            quote!(String::from(#text))
        }
        (TypeModel::Integer { .. }, serde_json::Value::Number(number)) => {
            let integer = number
                .as_i64()
                .expect("the model checked an integer default");
            i64_bound(integer)
        }
        (TypeModel::Number { .. }, serde_json::Value::Number(number)) => {
            let literal = Literal::f64_unsuffixed(number.as_f64().expect("a finite number"));
            quote!(#literal)
        }
        (TypeModel::Boolean, serde_json::Value::Bool(flag)) => quote!(#flag),
        (
            TypeModel::Enum {
                type_name,
                variants,
            },
            serde_json::Value::String(text),
        ) => {
            let name = format_ident!("{}", type_name);
            let (_, variant) = variants
                .iter()
                .find(|(member, _)| member == text)
                .expect("the model checked the default is a member");
            let variant = to_ident(variant);
            quote!(#name::#variant)
        }
        (TypeModel::Array { items, .. }, serde_json::Value::Array(values)) => {
            let values = values.iter().map(|value| default_literal(items, value));
            quote!(vec![#(#values),*])
        }
        _ => unreachable!("the model checked every default against its type"),
    }
}
