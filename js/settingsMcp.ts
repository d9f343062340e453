import { type ButtonComponent, Platform, Setting } from "obsidian";
import type { PluginContext } from "./context";
import type { McpOffer, McpServerConfig } from "./generated/protocol";
import { signIn, signInRedirect } from "./mcpSignIn";
import { keepMcpSignIn, mcpApp, mcpServers, mcpSignIn } from "./settings";
import { errorMessage } from "./views/turn";
import { count } from "./views/count";

/**
 * The settings' MCP section: the servers whose tools the agent may call. Each is a URL
 * (Streamable HTTP, signed in to with the user's account, or with a bearer token; both kept as
 * API keys are) or, on desktop, a command; the test lists its tools, each of which can be
 * turned off.
 */
export function mcpSection(el: HTMLElement, ctx: PluginContext, vaultName: string, redisplay: () => void): void {
  const servers = ctx.settings.mcp.servers;
  new Setting(el)
    .setName("MCP servers")
    .setHeading()
    .setDesc(
      "Tools from servers outside the vault (Model Context Protocol). Every call asks you first, unless you trust a server's read-only tools. Modes need the MCP tool group, which the agent mode has.",
    );
  servers.forEach((server, index) => serverEditor(el, ctx, server, index, vaultName, redisplay));
  new Setting(el).addButton((b) =>
    b.setButtonText("Add a server").onClick(async () => {
      servers.push({
        name: `server${servers.length + 1}`,
        transport: { type: "http", url: "", headers: [] },
        enabled: true,
        disabledTools: [],
        trustReadOnly: false,
      });
      await ctx.saveSettings();
      redisplay();
    }),
  );
}

function serverEditor(
  el: HTMLElement,
  ctx: PluginContext,
  server: McpServerConfig,
  index: number,
  vaultName: string,
  redisplay: () => void,
): void {
  const keys = ctx.apiKeyStore();
  const save = () => ctx.saveSettings();
  const box = el.createDiv({ cls: "vault-agent-mcp-server" });
  new Setting(box)
    .setName("Name")
    .setDesc("The agent sees its tools under this name. Letters, digits, - and _.")
    .addText((t) =>
      t.setValue(server.name).onChange(async (value) => {
        const name = value.trim().replace(/[^A-Za-z0-9_-]+/g, "-").replace(/__+/g, "_").slice(0, 24);
        // The same name again (a space typed, which names drop): nothing moves, nothing is lost.
        if (!name || name === server.name) return;
        // The token and the sign-in are kept under the server's name: they move with a rename.
        for (const prefix of ["mcp", "mcpauth", "mcpapp"] as const) {
          const kept = keys.get(`${prefix}-${server.name}`);
          if (kept) {
            keys.set(`${prefix}-${name}`, kept);
            keys.set(`${prefix}-${server.name}`, "");
          }
        }
        server.name = name;
        await save();
      }),
    )
    .addToggle((t) =>
      t
        .setTooltip("On: its tools are offered")
        .setValue(server.enabled)
        .onChange(async (on) => {
          server.enabled = on;
          await save();
        }),
    )
    .addExtraButton((b) =>
      b
        .setIcon("trash")
        .setTooltip("Remove this server")
        .onClick(async () => {
          keys.set(`mcp-${server.name}`, "");
          keys.set(`mcpauth-${server.name}`, "");
          keys.set(`mcpapp-${server.name}`, "");
          ctx.settings.mcp.servers.splice(index, 1);
          await save();
          redisplay();
        }),
    );
  new Setting(box)
    .setName("Reached by")
    .setDesc(Platform.isDesktopApp ? "" : "Commands run on desktop only; on this device such a server is skipped.")
    .addDropdown((d) =>
      d
        .addOption("http", "URL (Streamable HTTP)")
        .addOption("stdio", "Command (desktop only)")
        .setValue(server.transport.type)
        .onChange(async (type) => {
          server.transport =
            type === "stdio" ? { type: "stdio", command: "", args: [], env: [] } : { type: "http", url: "", headers: [] };
          await save();
          redisplay();
        }),
    );
  const transport = server.transport;
  if (transport.type === "http") {
    let drawSignIn = (): void => {};
    new Setting(box).setName("URL").addText((t) =>
      t
        .setPlaceholder("Server URL")
        .setValue(transport.url)
        .onChange(async (value) => {
          transport.url = value.trim();
          // A sign-in is for the server it was made with (the core sends it nowhere else).
          if (mcpSignIn(keys, server.name)) {
            keys.set(`mcpauth-${server.name}`, "");
            drawSignIn();
          }
          await save();
        }),
    );
    const signInEl = box.createDiv({ cls: "vault-agent-mcp-sign-in" });
    drawSignIn = () => signInRow(signInEl, ctx, server, () => transport.url, vaultName, drawSignIn);
    drawSignIn();
    new Setting(box)
      .setName("Headers")
      .setDesc("Optional, sent with every request: one a line, the name, a colon, then the value.")
      .addTextArea((t) =>
        t
          .setPlaceholder("X-Api-Version: 2")
          .setValue(transport.headers.map(([name, value]) => `${name}: ${value}`).join("\n"))
          .onChange(async (text) => {
            transport.headers = text
              .split("\n")
              .map((line) => line.split(/:(.*)/s, 2).map((part) => part.trim()))
              .filter((pair): pair is [string, string] => pair.length === 2 && pair[0] !== "" && pair[1] !== "");
            await save();
          }),
      );
    new Setting(box)
      .setName("Bearer token")
      .setDesc(keys.secure ? "Optional. Kept in Obsidian's secret storage." : "Optional. Kept in the plugin's data.json.")
      .addText((t) => {
        t.inputEl.type = "password";
        t.setValue(keys.get(`mcp-${server.name}`)).onChange(async (value) => {
          keys.set(`mcp-${server.name}`, value);
          await save();
        });
      });
  } else {
    new Setting(box)
      .setName("Command")
      .setDesc("The program and its arguments, split at spaces.")
      .addText((t) =>
        t.setValue([transport.command, ...transport.args].join(" ")).onChange(async (value) => {
          const [command = "", ...args] = value.trim().split(/\s+/);
          transport.command = command;
          transport.args = args;
          await save();
        }),
      );
  }
  new Setting(box)
    .setName("Trust its read-only tools")
    .setDesc("Tools the server marks read-only run without asking. The mark is the server's claim: turn this on only for servers you trust.")
    .addToggle((t) =>
      t.setValue(server.trustReadOnly).onChange(async (on) => {
        server.trustReadOnly = on;
        await save();
      }),
    );
  const tools = box.createDiv({ cls: "vault-agent-mcp-tools" });
  new Setting(box).addButton((b) =>
    b.setButtonText("Test and list tools").onClick(async () => {
      b.setDisabled(true);
      tools.empty();
      tools.setText("Connecting…");
      try {
        const [config] = mcpServers({ ...ctx.settings, mcp: { servers: [{ ...server, enabled: true }] } }, keys, Platform.isDesktopApp);
        if (!config) throw new Error("commands run on desktop only");
        const listed = await (await ctx.core()).vault.mcpTools(config, ctx.transport(), keepMcpSignIn(keys, save), ctx.vaultPath());
        showTools(tools, server, listed, save);
      } catch (error) {
        tools.empty();
        tools.createDiv({ cls: "vault-agent-error", text: errorMessage(error) });
      } finally {
        b.setDisabled(false);
      }
    }),
  );
  box.appendChild(tools);
}

/**
 * The server's sign-in: *Sign in* (OAuth, in the browser) for a server that asks for it, or
 * who is signed in and *Sign out*. Drawn again in `el` by `redraw`.
 */
function signInRow(
  el: HTMLElement,
  ctx: PluginContext,
  server: McpServerConfig,
  url: () => string,
  vaultName: string,
  redraw: () => void,
): void {
  el.empty();
  const keys = ctx.apiKeyStore();
  const kept = mcpSignIn(keys, server.name);
  const row = new Setting(el).setName("Sign-in");
  const problem = el.createDiv({ cls: "vault-agent-error vault-agent-mcp-sign-in-error" });
  problem.hide();
  // A click while waiting starts again (the browser was closed, say): only the latest
  // attempt's outcome is shown.
  let attempt = 0;
  const signInButton = (b: ButtonComponent, label: string) =>
    b.setButtonText(label).onClick(async () => {
      if (!url()) {
        problem.setText("Put the server's URL above first.");
        problem.show();
        return;
      }
      const mine = ++attempt;
      b.setButtonText("Waiting for the browser…");
      b.setTooltip("Click to start again");
      problem.hide();
      try {
        await signIn(ctx, server.name, url(), vaultName);
        if (mine === attempt) redraw();
      } catch (error) {
        if (mine !== attempt) return;
        b.setButtonText(label);
        problem.setText(`Not signed in: ${errorMessage(error)}`);
        problem.show();
      }
    });
  if (kept) {
    const scope = kept.scope ? ` (${kept.scope})` : "";
    const where = keys.secure ? "in Obsidian's secret storage" : "in the plugin's data.json";
    // A call the server refused for want of more access (a step-up): the next sign-in asks for it.
    const more = kept.stepUpScope
      ? ` A call needed more access than this sign-in gives (${kept.stepUpScope}): sign in again to grant it.`
      : "";
    row.setDesc(`Signed in${scope}. The tokens are kept ${where} and renewed as they run out.${more}`);
    if (kept.stepUpScope) row.addButton((b) => signInButton(b.setCta(), "Sign in again"));
    row.addButton((b) =>
      b.setButtonText("Sign out").onClick(async () => {
        keys.set(`mcpauth-${server.name}`, "");
        await ctx.saveSettings();
        redraw();
      }),
    );
    return;
  }
  row
    .setDesc("For a server that asks you to sign in with your account, such as Notion's. Your browser opens the server's page, then comes back to Obsidian.")
    .addButton((b) => signInButton(b, "Sign in"));
  // For a server whose authorization server registers no apps (GitHub's): the user's own.
  const app = mcpApp(keys, server.name) ?? { clientId: "" };
  const keepApp = async () => {
    keys.set(`mcpapp-${server.name}`, app.clientId.trim() ? JSON.stringify(app) : "");
    await ctx.saveSettings();
  };
  new Setting(el)
    .setName("Your own sign-in app")
    .setDesc(
      `Only for a server that registers no apps itself (signing in says so): register an OAuth app there with ${signInRedirect(vaultName)} as its redirect URL, then give its client ID, and its secret if it has one. Kept ${keys.secure ? "in Obsidian's secret storage" : "in the plugin's data.json"}.`,
    )
    .addText((t) => {
      t.inputEl.addClass("vault-agent-mcp-app-id");
      t.setPlaceholder("Client ID")
        .setValue(app.clientId)
        .onChange(async (value) => {
          app.clientId = value.trim();
          await keepApp();
        });
    })
    .addText((t) => {
      t.inputEl.type = "password";
      t.inputEl.addClass("vault-agent-mcp-app-secret");
      t.setPlaceholder("Client secret (optional)")
        .setValue(app.clientSecret ?? "")
        .onChange(async (value) => {
          app.clientSecret = value.trim() || undefined;
          await keepApp();
        });
    });
}

/**
 * What the server offers: how many tools, prompts and resources (with where the chat offers the
 * last two), then each tool with a toggle that turns it off for the agent.
 */
function showTools(el: HTMLElement, server: McpServerConfig, offer: McpOffer, save: () => Promise<void>): void {
  el.empty();
  const offered = [count(offer.tools.length, "tool")];
  if (offer.prompts) offered.push(`${count(offer.prompts, "prompt")} (/ in the chat)`);
  if (offer.resources) offered.push(`${count(offer.resources, "resource")} (@ in the chat)`);
  el.createDiv({ cls: "vault-agent-mcp-count", text: `Connected: ${offered.join(", ")}` });
  for (const tool of offer.tools) {
    const readOnly = tool.annotations?.readOnlyHint ? " (read-only)" : "";
    new Setting(el)
      .setName(`${tool.title ?? tool.name}${readOnly}`)
      .setDesc(tool.description ?? "")
      .addToggle((t) =>
        t.setValue(!server.disabledTools.includes(tool.name)).onChange(async (on) => {
          server.disabledTools = on
            ? server.disabledTools.filter((name) => name !== tool.name)
            : [...new Set([...server.disabledTools, tool.name])];
          await save();
        }),
      );
  }
}
