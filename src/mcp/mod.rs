//! A Model Context Protocol client: tools, prompts and resources from servers outside the vault.
//!
//! [`McpClient`] runs a session over an [`McpTransport`]: [`StreamableHttp`] in the core over
//! the host's HTTP (desktop, mobile, CLI), or [`Stdio`] over a child process the host starts
//! (desktop only). A server that asks its users to sign in is signed in to with OAuth
//! ([`start_sign_in`], [`finish_sign_in`]), and its tokens renewed as they run out.

mod client;
mod config;
mod elicitation;
mod features;
mod http;
mod message;
mod oauth;
mod oauth_discovery;
mod resources;
mod sampling;
mod stdio;
mod tool;
mod toolset;
mod transport;

pub use client::{
    CallOutcome, McpClient, McpOffer, McpPromptInfo, McpResourceInfo, McpResourceTemplate, McpToolInfo, Progress,
    PromptArgument, ResourceBody, ResourcePart, ServerInfo, ToolAnnotations, PROTOCOL_VERSIONS,
};
pub use config::{McpServerConfig, McpServerTransport};
pub use elicitation::Elicitation;
pub use features::{ClientFeatures, ClientOffer, NoForms, Root};
pub use http::StreamableHttp;
pub use message::{Incoming, RpcError};
pub use oauth::{finish_sign_in, start_sign_in, CredentialsSink, McpCredentials, McpSignIn, OAuthApp, OAuthClient};
pub use resources::{
    resource_attachment, resource_tools, show_parts, split_resource_attachment, ListMcpResources, ReadMcpResource,
    ResourceServer, ShownResource,
};
pub use sampling::{ModelSampler, SamplingOutcome, SamplingReply, SamplingRequest};
pub use stdio::Stdio;
pub use tool::{split_tool_name, tool_name, McpTool, SAMPLING_APPROVAL};
pub use toolset::{McpProblem, McpToolset, ServerPrompt, ServerResource};
pub use transport::{Inbox, McpTransport};
