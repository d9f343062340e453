//! The connected MCP servers' resources as the agent's tools: `list_mcp_resources` lists what
//! the servers offer (resources, and templates of URIs to fill in), `read_mcp_resource` reads
//! one by its URI. Both run through the pipeline as every tool does, in the `mcp` group; what
//! they return is others' words, marked as data and screened like any MCP result.

use std::rc::Rc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{McpClient, ResourceBody, ResourcePart};
use crate::media::{MediaSupport, MAX_IMAGE_BYTES, MAX_PDF_BYTES};
use crate::protocol::{ApprovalCategory, ContentBlock};
use crate::tools::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};

/// What a message's attachment list holds for a resource: `mcp:<server>:<uri>`. A vault path
/// never holds a colon, nor does a server's name, so it is never taken for a note.
pub fn resource_attachment(server: &str, uri: &str) -> String {
    format!("mcp:{server}:{uri}")
}

/// The server and URI of a [`resource_attachment`]; `None` for a vault path.
pub fn split_resource_attachment(attachment: &str) -> Option<(&str, &str)> {
    let (server, uri) = attachment.strip_prefix("mcp:")?.split_once(':')?;
    (!server.is_empty() && !uri.is_empty()).then_some((server, uri))
}

/// A connected server that offers resources.
pub struct ResourceServer {
    /// The name the user gave it.
    pub name: String,
    pub client: Rc<McpClient>,
    /// The user trusts the server's read-only hints: reading from it needs no approval.
    pub trusted: bool,
}

/// `list_mcp_resources`: what the servers offer.
pub struct ListMcpResources {
    servers: Rc<Vec<ResourceServer>>,
}

/// `read_mcp_resource`: one resource's content.
pub struct ReadMcpResource {
    servers: Rc<Vec<ResourceServer>>,
}

/// Both tools over `servers`, or none when no server offers resources.
pub fn resource_tools(servers: Vec<ResourceServer>) -> Option<(ListMcpResources, ReadMcpResource)> {
    if servers.is_empty() {
        return None;
    }
    let servers = Rc::new(servers);
    Some((ListMcpResources { servers: servers.clone() }, ReadMcpResource { servers }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// One server's resources only; every server's when left out.
    #[serde(default)]
    server: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The server that offers the resource.
    server: String,
    /// The resource's URI, as listed, or a template's with its variables filled in.
    #[schemars(length(min = 1))]
    uri: String,
}

/// `schema` with the servers' names as its `server` property's `enum`.
fn with_server_names(mut schema: Value, servers: &[ResourceServer]) -> Value {
    let names: Vec<Value> = servers.iter().map(|s| Value::String(s.name.clone())).collect();
    if let Some(property) = schema.pointer_mut("/properties/server").and_then(Value::as_object_mut) {
        property.insert("enum".into(), Value::Array(names));
    }
    schema
}

/// Where `name` is among `servers`, or an error the model can act on (the names that are).
fn find(servers: &[ResourceServer], name: &str) -> Result<usize, ToolError> {
    servers.iter().position(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        ToolError::model(format!("No connected MCP server {name:?} offers resources; these do: {}.", names.join(", ")))
    })
}

fn call_error(error: crate::Error) -> ToolError {
    match error {
        crate::Error::Cancelled => ToolError::Fatal("cancelled".into()),
        // The server is unreachable, refused, or broke the protocol: the model may go on.
        e => ToolError::model(e.to_string()),
    }
}

#[async_trait(?Send)]
impl Tool for ListMcpResources {
    const NAME: &'static str = "list_mcp_resources";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Mcp;
    type Args = ListArgs;
    type Plan = Vec<usize>;

    fn description(&self) -> &str {
        "List the resources the connected MCP servers offer (files, pages, records of the services \
         they front, outside the vault): each resource's URI, name and type, and templates of URIs \
         to fill in. Read one with read_mcp_resource."
    }

    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Mcp
    }

    fn parameters(&self) -> Value {
        with_server_names(crate::tools::args_schema::<ListArgs>(), &self.servers)
    }

    fn preapproved(&self, _args: &ListArgs) -> bool {
        // Asking a server the user connected what it offers sends nothing of the vault.
        true
    }

    async fn plan(&self, args: ListArgs, _ctx: &ToolContext<'_>) -> Result<Vec<usize>, ToolError> {
        match args.server {
            None => Ok((0..self.servers.len()).collect()),
            Some(name) => Ok(vec![find(&self.servers, &name)?]),
        }
    }

    async fn apply(&self, plan: Vec<usize>, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let mut text = String::new();
        let (mut resources, mut templates) = (0, 0);
        for server in plan.iter().filter_map(|&i| self.servers.get(i)) {
            text.push_str(&format!("MCP server \"{}\":\n", server.name));
            let listed = match server.client.list_resources(ctx.cancel).await {
                Ok(listed) => listed,
                // One server that fails does not hide the others' lists.
                Err(e) => match call_error(e) {
                    ToolError::Fatal(why) => return Err(ToolError::Fatal(why)),
                    ToolError::RespondToModel(why) => {
                        text.push_str(&format!("(could not list its resources: {why})\n"));
                        continue;
                    }
                },
            };
            let patterns = server.client.list_resource_templates(ctx.cancel).await.map_err(call_error)?;
            (resources, templates) = (resources + listed.len(), templates + patterns.len());
            if listed.is_empty() && patterns.is_empty() {
                text.push_str("(no resources)\n");
            }
            for r in &listed {
                text.push_str(&entry(&r.uri, r.title.as_deref().unwrap_or(&r.name), &r.mime_type, &r.description));
            }
            for t in &patterns {
                let name = t.title.as_deref().unwrap_or(&t.name);
                text.push_str(&entry(&format!("template {}", t.uri_template), name, &t.mime_type, &t.description));
            }
        }
        let summary = match templates {
            0 => crate::tools::plural(resources, "resource", "resources"),
            n => format!(
                "{} and {}",
                crate::tools::plural(resources, "resource", "resources"),
                crate::tools::plural(n, "template", "templates")
            ),
        };
        Ok(ToolOutput::text(text.trim_end()).with_summary(summary))
    }
}

/// A listed resource or template: `- ADDRESS — NAME (type; description)`, the parentheses
/// holding what the server said of the two.
fn entry(address: &str, name: &str, mime_type: &Option<String>, description: &Option<String>) -> String {
    let about: Vec<&str> = [mime_type.as_deref(), description.as_deref()].into_iter().flatten().collect();
    if about.is_empty() {
        return format!("- {address} — {name}\n");
    }
    format!("- {address} — {name} ({})\n", about.join("; "))
}

#[async_trait(?Send)]
impl Tool for ReadMcpResource {
    const NAME: &'static str = "read_mcp_resource";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Mcp;
    type Args = ReadArgs;
    /// The server's place in the list, and the URI.
    type Plan = (usize, String);

    fn description(&self) -> &str {
        "Read a resource of a connected MCP server by its URI (from list_mcp_resources, or a \
         template's URI with its variables filled in). Text comes as it is; an image or a PDF \
         follows the result where the model takes it. Outside the vault: the user approves each \
         read unless they trust the server."
    }

    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Mcp
    }

    fn parameters(&self) -> Value {
        with_server_names(crate::tools::args_schema::<ReadArgs>(), &self.servers)
    }

    fn preapproved(&self, args: &ReadArgs) -> bool {
        // A read only reads, by the protocol; the URI the model chose still goes to the server,
        // so only a server the user trusts gets it unasked.
        self.servers.iter().any(|s| s.name == args.server && s.trusted)
    }

    async fn plan(&self, args: ReadArgs, _ctx: &ToolContext<'_>) -> Result<(usize, String), ToolError> {
        Ok((find(&self.servers, &args.server)?, args.uri))
    }

    async fn apply(&self, (index, uri): (usize, String), ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let server = &self.servers[index];
        let parts = server.client.read_resource(uri.trim(), ctx.cancel).await.map_err(call_error)?;
        let shown = show_parts(&parts, ctx.media);
        let summary = crate::tools::plural(parts.len(), "part", "parts");
        Ok(ToolOutput { media: shown.blocks, ..ToolOutput::text(shown.text).with_summary(summary) })
    }
}

/// A read resource as the model gets it: the text, and the images and documents that follow.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownResource {
    pub text: String,
    pub blocks: Vec<ContentBlock>,
}

/// `parts` for a model that takes what `media` says. Each part is headed by its URI and type;
/// text is given as it is, bytes that are UTF-8 text of a text type too; an image or a PDF
/// within the providers' limits follows as a block; other bytes are named by type and size.
pub fn show_parts(parts: &[ResourcePart], media: MediaSupport) -> ShownResource {
    let mut shown = ShownResource { text: String::new(), blocks: Vec::new() };
    if parts.is_empty() {
        shown.text.push_str("(the resource is empty)");
    }
    for part in parts {
        let mime = part.mime_type.as_deref().unwrap_or_default();
        let head = match mime {
            "" => format!("[resource {}]", part.uri),
            mime => format!("[resource {} ({mime})]", part.uri),
        };
        let body = match &part.body {
            ResourceBody::Text(text) => text.clone(),
            ResourceBody::Bytes(bytes) => show_bytes(bytes, mime, media, &mut shown.blocks),
        };
        if !shown.text.is_empty() {
            shown.text.push('\n');
        }
        shown.text.push_str(&format!("{head}\n{body}"));
    }
    shown
}

/// `bytes` of type `mime` as a block for a model that takes `media`: an image it can see, a
/// PDF it can read, within their limits; `None` for anything else.
pub(crate) fn media_block(bytes: &[u8], mime: &str, media: MediaSupport) -> Option<ContentBlock> {
    use base64::Engine;
    let encode = || base64::engine::general_purpose::STANDARD.encode(bytes);
    let image = matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp");
    if image && media.images && bytes.len() <= MAX_IMAGE_BYTES {
        return Some(ContentBlock::Image { media_type: mime.into(), data: encode() });
    }
    if mime == "application/pdf" && media.documents && bytes.len() <= MAX_PDF_BYTES {
        return Some(ContentBlock::Document { media_type: mime.into(), data: encode(), name: "resource.pdf".into() });
    }
    None
}

fn show_bytes(bytes: &[u8], mime: &str, media: MediaSupport, blocks: &mut Vec<ContentBlock>) -> String {
    if let Some(block) = media_block(bytes, mime, media) {
        let said = match &block {
            ContentBlock::Image { .. } => "[An image: it follows this text.]",
            _ => "[A PDF: the document follows this text.]",
        };
        blocks.push(block);
        return said.into();
    }
    let texty = mime.is_empty()
        || mime.starts_with("text/")
        || mime.ends_with("json")
        || mime.ends_with("xml")
        || mime.ends_with("yaml")
        || mime.ends_with("javascript");
    match std::str::from_utf8(bytes) {
        Ok(text) if texty => text.to_string(),
        _ => {
            let kind = if mime.is_empty() { "bytes" } else { mime };
            format!("[{kind}, {} bytes: not shown, not text this model can read]", bytes.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(mime: Option<&str>, body: ResourceBody) -> ResourcePart {
        ResourcePart { uri: "demo://a".into(), mime_type: mime.map(str::to_string), body }
    }

    #[test]
    fn text_parts_come_as_they_are_and_each_part_is_headed() {
        let parts = [
            part(Some("text/markdown"), ResourceBody::Text("# Hello".into())),
            part(None, ResourceBody::Text("plain".into())),
        ];
        let shown = show_parts(&parts, MediaSupport::ALL);
        assert_eq!(shown.text, "[resource demo://a (text/markdown)]\n# Hello\n[resource demo://a]\nplain");
        assert!(shown.blocks.is_empty());
        assert_eq!(show_parts(&[], MediaSupport::ALL).text, "(the resource is empty)");
    }

    #[test]
    fn bytes_are_read_as_text_an_image_or_named() {
        let text =
            show_parts(&[part(Some("text/plain"), ResourceBody::Bytes(b"Resource 2".to_vec()))], MediaSupport::ALL);
        assert_eq!(text.text, "[resource demo://a (text/plain)]\nResource 2");
        let png = part(Some("image/png"), ResourceBody::Bytes(vec![137, 80, 78, 71]));
        let seen = show_parts(std::slice::from_ref(&png), MediaSupport::ALL);
        assert!(seen.text.ends_with("[An image: it follows this text.]"), "{}", seen.text);
        assert_eq!(seen.blocks, [ContentBlock::Image { media_type: "image/png".into(), data: "iVBORw==".into() }]);
        let blind = show_parts(&[png], MediaSupport { images: false, documents: false });
        assert!(blind.blocks.is_empty());
        assert!(
            blind.text.ends_with("[image/png, 4 bytes: not shown, not text this model can read]"),
            "{}",
            blind.text
        );
        let zip = show_parts(&[part(Some("application/zip"), ResourceBody::Bytes(b"PK".to_vec()))], MediaSupport::ALL);
        assert!(zip.text.ends_with("[application/zip, 2 bytes: not shown, not text this model can read]"));
    }
}
