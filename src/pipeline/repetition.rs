//! The ToolRepetitionDetector: stops a model that keeps making the same call.

use std::collections::{BTreeSet, VecDeque};

use serde_json::Value;

/// How many recent calls are remembered.
pub const WINDOW: usize = 15;
/// An identical call (same tool, same arguments) is blocked when it would be seen this often.
pub const IDENTICAL_LIMIT: usize = 3;
/// A search is blocked when this many earlier searches in the window were similar.
pub const SIMILAR_SEARCH_LIMIT: usize = 3;
/// Searches are similar when the Jaccard index of their query terms is at least this.
pub const SIMILARITY: f64 = 0.5;

/// Remembers the last `WINDOW` calls and blocks repeats. A blocked call is remembered too, so
/// a model that insists stays blocked until it does something else.
#[derive(Debug, Default)]
pub struct ToolRepetitionDetector {
    recent: VecDeque<Seen>,
}

#[derive(Debug)]
struct Seen {
    key: String,
    terms: Option<BTreeSet<String>>,
}

impl ToolRepetitionDetector {
    /// A detector with an empty window.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a call and says whether it must be blocked: `Err` holds the message for the
    /// model. `search_query` is the query of a search tool's call.
    pub fn check(&mut self, tool: &str, args: &Value, search_query: Option<&str>) -> Result<(), String> {
        let key = format!("{tool}:{}", canonical(args));
        let terms = search_query.map(query_terms);
        let identical = self.recent.iter().filter(|s| s.key == key).count();
        let similar = match &terms {
            Some(terms) if !terms.is_empty() => self
                .recent
                .iter()
                .filter_map(|s| s.terms.as_ref())
                .filter(|earlier| jaccard(earlier, terms) >= SIMILARITY)
                .count(),
            _ => 0,
        };
        self.recent.push_back(Seen { key, terms });
        if self.recent.len() > WINDOW {
            self.recent.pop_front();
        }
        if identical + 1 >= IDENTICAL_LIMIT {
            return Err(format!(
                "Blocked: this exact {tool} call was already made {identical} times recently and gave the same \
                 result. Use the results you have, change your approach, or finish with what you know."
            ));
        }
        if similar >= SIMILAR_SEARCH_LIMIT {
            return Err(format!(
                "Blocked: {similar} earlier searches were nearly the same as this one. More rephrasings will not \
                 find more; read the notes you found, search for something different, or finish."
            ));
        }
        Ok(())
    }
}

/// JSON with object keys sorted, so argument order does not hide a repeat.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<_> = map.keys().collect();
            crate::sort::sort(&mut keys);
            let fields: Vec<String> =
                keys.into_iter().map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k]))).collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// A query's distinct lower-cased words.
fn query_terms(query: &str) -> BTreeSet<String> {
    crate::sort::by_insertion(
        query.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase),
    )
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_third_identical_call_is_blocked_whatever_the_key_order() {
        let mut d = ToolRepetitionDetector::new();
        assert!(d.check("read_file", &json!({"path": "a.md", "offset": 1}), None).is_ok());
        assert!(d.check("read_file", &json!({"offset": 1, "path": "a.md"}), None).is_ok());
        let blocked = d.check("read_file", &json!({"path": "a.md", "offset": 1}), None).unwrap_err();
        assert!(blocked.contains("already made 2 times"), "{blocked}");
        assert!(d.check("read_file", &json!({"path": "b.md"}), None).is_ok());
    }

    #[test]
    fn calls_leave_the_window_after_fifteen_others() {
        let mut d = ToolRepetitionDetector::new();
        let call = json!({"path": "a.md"});
        d.check("read_file", &call, None).unwrap();
        d.check("read_file", &call, None).unwrap();
        for i in 0..WINDOW {
            d.check("list_files", &json!({"path": format!("f{i}")}), None).unwrap();
        }
        assert!(d.check("read_file", &call, None).is_ok());
    }

    #[test]
    fn a_fourth_similar_search_is_blocked() {
        let mut d = ToolRepetitionDetector::new();
        let q = |text: &str| json!({"query": text});
        for text in ["tantivy index wasm", "tantivy wasm index build", "wasm tantivy index"] {
            d.check("search_files", &q(text), Some(text)).unwrap();
        }
        assert!(d.check("search_files", &q("cooking recipes"), Some("cooking recipes")).is_ok());
        let blocked = d.check("search_files", &q("index tantivy in wasm"), Some("index tantivy in wasm")).unwrap_err();
        assert!(blocked.contains("3 earlier searches"), "{blocked}");
    }

    #[test]
    fn jaccard_of_term_sets() {
        let a = query_terms("Alpha beta");
        let b = query_terms("beta GAMMA alpha delta");
        assert!((jaccard(&a, &b) - 0.5).abs() < 1e-9);
    }
}
