import { Setting } from "obsidian";
import type { PluginContext } from "./context";

/**
 * The settings' safety section: the defences against instructions planted in what the agent
 * reads (notes, web pages, MCP results), and the domains web_fetch may read without asking.
 */
export function safetySection(el: HTMLElement, ctx: PluginContext): void {
  const safety = ctx.settings.safety;
  const save = () => ctx.saveSettings();
  new Setting(el)
    .setName("Safety")
    .setHeading()
    .setDesc("Notes, web pages and MCP results can carry instructions written to steer the agent. These checks stop it from following them.");
  const toggle = (name: string, desc: string, key: "untrustedMarking" | "canary" | "secrets" | "screening") =>
    new Setting(el)
      .setName(name)
      .setDesc(desc)
      .addToggle((t) =>
        t.setValue(safety[key]).onChange(async (on) => {
          safety[key] = on;
          await save();
        }),
      );
  toggle(
    "Mark what the agent reads as data",
    "Note contents, pages and tool results reach the model between markers it is told never carry instructions.",
    "untrustedMarking",
  );
  toggle(
    "Canary",
    "A secret token in the agent's instructions. A tool call or answer that contains it stops the task: something the agent read steered it.",
    "canary",
  );
  toggle("Block secrets going out", "A web or MCP call that would send an API key or token stops the task.", "secrets");
  new Setting(el)
    .setName("Writes a minute at most")
    .setDesc("More writes and deletions than this within a minute stop the task, even where writes run without asking. 0: no limit.")
    .addText((t) => {
      t.inputEl.type = "number";
      t.setValue(String(safety.writeRateLimit)).onChange(async (raw) => {
        const value = Number(raw);
        if (raw.trim() !== "" && Number.isInteger(value) && value >= 0) {
          safety.writeRateLimit = value;
          await save();
        }
      });
    });
  toggle(
    "Screen web pages and MCP results",
    "A model reads each page and MCP result first and withholds one that tries to instruct the agent. One more model call per result.",
    "screening",
  );
  new Setting(el)
    .setName("Screening model")
    .setDesc("A cheap model of the same provider does this well. Empty: the chat's model.")
    .addText((t) =>
      t
        .setPlaceholder("Chat's model")
        .setValue(safety.screeningModel)
        .onChange(async (value) => {
          safety.screeningModel = value.trim();
          await save();
        }),
    );
  const domains = (name: string, desc: string, key: "webAllow" | "webDeny") =>
    new Setting(el)
      .setName(name)
      .setDesc(desc)
      .addTextArea((t) => {
        t.setPlaceholder("example.com").setValue(safety[key].join("\n"));
        t.onChange(async (value) => {
          safety[key] = value
            .split(/[\s,]+/)
            .map((d) => d.trim().toLowerCase())
            .filter(Boolean);
          await save();
        });
      });
  domains("Web pages read without asking", "Domains (one a line; each covers its subdomains) the agent may fetch without asking you.", "webAllow");
  domains("Web pages never read", "Domains the agent may never fetch, even if you would approve.", "webDeny");
}
