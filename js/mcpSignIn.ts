import { Notice } from "obsidian";
import type { PluginContext } from "./context";
import type { McpCredentials } from "./generated/protocol";
import { keepMcpSignIn, mcpApp, mcpSignIn } from "./settings";

/** The `obsidian://` action the browser comes back to after signing in to an MCP server. */
export const SIGN_IN_ACTION = "vault-agent-mcp-auth";

/** Where the browser comes back to: the vault's name routes the answer to this vault when several are open. */
export function signInRedirect(vaultName: string): string {
  return `obsidian://${SIGN_IN_ACTION}?vault=${encodeURIComponent(vaultName)}`;
}

/** How long a sign-in waits for the browser to come back. */
const WAIT_MS = 10 * 60 * 1000;

/** Sign-ins under way, by their `state`: each waits for the browser's answer. */
const waiting = new Map<string, (answer: Record<string, string>) => void>();

/**
 * The browser came back to `obsidian://vault-agent-mcp-auth` (the plugin's protocol handler):
 * hands the parameters to the sign-in they answer.
 */
export function signInAnswered(params: Record<string, string>): void {
  // Obsidian's own parameters; the rest is the authorization server's answer.
  const { action: _action, vault: _vault, ...answer } = params;
  const resolve = waiting.get(answer.state ?? "");
  if (!resolve) {
    new Notice("Vault Agent: this sign-in is not one under way here. Start it again from the settings, MCP servers.");
    return;
  }
  waiting.delete(answer.state);
  resolve(answer);
}

/**
 * Signs in to the MCP server `name` at `url` (OAuth): the core finds where and registers the
 * plugin there (or signs in as the app the user registered for it), the browser opens the
 * server's page, and once the user agrees it comes back to this vault through `obsidian://`.
 * The credentials are kept like API keys. Rejects with what went wrong in words.
 */
export async function signIn(ctx: PluginContext, name: string, url: string, vaultName: string): Promise<McpCredentials> {
  const { vault } = await ctx.core();
  const app = mcpApp(ctx.apiKeyStore(), name);
  // After a step-up (a call that needed more access), the kept sign-in says what more to ask for.
  const more = mcpSignIn(ctx.apiKeyStore(), name)?.stepUpScope;
  const started = await vault.mcpSignIn(url, signInRedirect(vaultName), ctx.transport(), app, more);
  const answer = await new Promise<Record<string, string>>((resolve, reject) => {
    waiting.set(started.state, resolve);
    window.setTimeout(() => {
      if (waiting.delete(started.state)) reject(new Error("the browser did not come back within 10 minutes"));
    }, WAIT_MS);
    window.open(started.url);
  });
  const credentials = await vault.mcpFinishSignIn(started, answer, ctx.transport());
  keepMcpSignIn(ctx.apiKeyStore(), () => ctx.saveSettings())(name, credentials);
  await ctx.saveSettings();
  return credentials;
}
