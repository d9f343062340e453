use super::*;

fn sites(allow: &[&str], deny: &[&str]) -> WebSites {
    WebSites {
        allow: allow.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn a_domain_covers_its_subdomains_and_no_look_alike() {
    let lists = sites(&["example.org", "*.docs.rs"], &["ads.example.org"]);
    assert!(lists.allows("example.org") && lists.allows("help.example.org") && lists.allows("serde.docs.rs"));
    assert!(!lists.allows("badexample.org") && !lists.allows("example.org.evil.com"));
    assert!(!lists.allows("ads.example.org") && lists.denies("x.ads.example.org"));
}

#[test]
fn the_host_is_what_the_client_would_reach() {
    assert_eq!(host_of("https://Help.Obsidian.md/Links?x=1#y").unwrap(), "help.obsidian.md");
    assert_eq!(host_of("http://127.0.0.1:8080/page").unwrap(), "127.0.0.1");
    // The user part is not the host.
    assert_eq!(host_of("https://example.org@evil.com/").unwrap(), "evil.com");
    assert_eq!(host_of("https://evil.com./").unwrap(), "evil.com");
    assert!(host_of("file:///etc/passwd").unwrap_err().contains("only http and https"));
    assert!(host_of("https://%65vil.com/").is_err());
    assert!(host_of("not a url").is_err());
}

#[test]
fn html_becomes_markdown_without_scripts_or_styles() {
    let html = "<html><head><title>T</title><style>p{}</style></head><body><h1>Sourdough</h1>\
                <p>Bake at <b>250 °C</b>, see <a href=\"https://example.org/x\">the guide</a>.</p>\
                <script>steal()</script><ul><li>flour</li><li>water</li></ul></body></html>";
    let md = html_to_markdown(html).unwrap();
    assert!(md.starts_with("# Sourdough"), "{md}");
    assert!(md.contains("Bake at **250 °C**, see [the guide](https://example.org/x)."), "{md}");
    assert!(md.contains("*   flour") || md.contains("- flour"), "{md}");
    assert!(!md.contains("steal()") && !md.contains("p{}"), "{md}");
}
