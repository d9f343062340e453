//! Unguessable per-task values: a note written in advance must not be able to name them.

/// `bytes` random bytes as lower-case hex, from the platform's secure source (the browser's
/// `crypto.getRandomValues` in wasm). Should that ever fail, the clock and an address stand
/// in: weaker, but a task still runs.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    if getrandom::fill(&mut buf).is_err() {
        let fallback = crate::hash::content_hash(format!("{:p}{}", &buf, buf.len()).as_bytes());
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (fallback >> ((i % 8) * 8)) as u8;
        }
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}
