//! JSON-RPC 2.0 messages as MCP sends them: requests, notifications and responses.

use serde_json::{json, Value};

use super::elicitation::{field_orders, FORM_METHOD};
use crate::{Error, Result};

/// A message the server sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response { id: Value, outcome: std::result::Result<Value, RpcError> },
    /// A notification (`notifications/progress`, `notifications/tools/list_changed`, …).
    Notification { method: String, params: Value },
    /// A request the server makes of us (`ping`, `elicitation/create`, `roots/list`, …).
    /// `field_order`: for `elicitation/create`, the keys of its schema's `properties` in the
    /// order the server wrote them, which a form shows and `params` loses (its maps sort).
    Request { id: Value, method: String, params: Value, field_order: Vec<String> },
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// JSON-RPC's "method not found", the answer to a server request we do not serve.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// JSON-RPC's "invalid params": a server request we serve but cannot take as it came.
pub const INVALID_PARAMS: i64 = -32602;

/// JSON-RPC's "internal error": a server request we serve that failed on our side.
pub const INTERNAL_ERROR: i64 = -32603;

impl Incoming {
    /// Reads one message. A batch (an array) is not a message; [`Incoming::parse_all`] reads those.
    pub fn parse(value: Value) -> Result<Incoming> {
        let Value::Object(mut map) = value else {
            return Err(Error::Mcp(format!("the server sent a message that is not an object: {value}")));
        };
        let id = map.remove("id");
        let method = map.remove("method");
        match (id, method) {
            (Some(id), Some(Value::String(method))) => {
                let params = map.remove("params").unwrap_or(Value::Null);
                Ok(Incoming::Request { id, method, params, field_order: Vec::new() })
            }
            (None, Some(Value::String(method))) => {
                Ok(Incoming::Notification { method, params: map.remove("params").unwrap_or(Value::Null) })
            }
            (Some(id), None) => {
                if let Some(error) = map.remove("error") {
                    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                    let message = error.get("message").and_then(Value::as_str).unwrap_or("no message").to_string();
                    let data = error.get("data").cloned();
                    Ok(Incoming::Response { id, outcome: Err(RpcError { code, message, data }) })
                } else {
                    Ok(Incoming::Response { id, outcome: Ok(map.remove("result").unwrap_or(Value::Null)) })
                }
            }
            _ => Err(Error::Mcp(format!("the server sent a message that is not JSON-RPC: {}", Value::Object(map)))),
        }
    }

    /// Reads a message or a batch of messages from JSON text.
    pub fn parse_all(text: &str) -> Result<Vec<Incoming>> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::Mcp(format!("the server sent JSON that does not parse ({e}): {}", clip(text))))?;
        let mut all = match value {
            Value::Array(items) => items.into_iter().map(Incoming::parse).collect::<Result<Vec<_>>>()?,
            other => vec![Incoming::parse(other)?],
        };
        let asks_form = |m: &Incoming| matches!(m, Incoming::Request { method, .. } if method == FORM_METHOD);
        if all.iter().any(asks_form) {
            for (message, order) in all.iter_mut().zip(field_orders(text)) {
                if let Incoming::Request { field_order, .. } = message {
                    *field_order = order;
                }
            }
        }
        Ok(all)
    }
}

/// A request with `id`.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A notification.
pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// Our answer to a server request.
pub fn response(id: &Value, outcome: std::result::Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(e) => json!({ "jsonrpc": "2.0", "id": id, "error": { "code": e.code, "message": e.message } }),
    }
}

/// `text` cut to a length an error message can carry.
pub(crate) fn clip(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_kind_and_batches() {
        let all = Incoming::parse_all(
            r#"[{"jsonrpc":"2.0","id":1,"result":{"ok":true}},
                {"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad"}},
                {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}},
                {"jsonrpc":"2.0","id":7,"method":"ping"}]"#,
        )
        .unwrap();
        assert_eq!(all[0], Incoming::Response { id: json!(1), outcome: Ok(json!({"ok": true})) });
        assert!(
            matches!(&all[1], Incoming::Response { outcome: Err(e), .. } if e.code == -32602 && e.message == "bad")
        );
        assert!(matches!(&all[2], Incoming::Notification { method, .. } if method == "notifications/progress"));
        assert!(matches!(&all[3], Incoming::Request { method, params: Value::Null, .. } if method == "ping"));
    }

    #[test]
    fn a_forms_fields_keep_the_servers_order() {
        let form = r#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"m",
            "requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},
            "bio":{"type":"string","default":"{\"x\": 1}"}}}}}"#;
        let all =
            Incoming::parse_all(&format!(r#"[{{"jsonrpc":"2.0","method":"notifications/progress"}},{form}]"#)).unwrap();
        assert!(matches!(&all[0], Incoming::Notification { .. }));
        assert!(matches!(&all[1], Incoming::Request { field_order, .. } if field_order == &["name", "age", "bio"]));
        let one = Incoming::parse_all(form).unwrap();
        assert!(matches!(&one[0], Incoming::Request { field_order, .. } if field_order == &["name", "age", "bio"]));
    }

    #[test]
    fn refuses_what_is_not_json_rpc() {
        assert!(Incoming::parse_all("not json").is_err());
        assert!(Incoming::parse_all("3").is_err());
        assert!(Incoming::parse_all(r#"{"jsonrpc":"2.0"}"#).is_err());
    }
}
