import { Setting } from "obsidian";
import type { PluginContext } from "./context";
import type { MemoryEntry, MemoryKind } from "./protocol";
import { errorMessage } from "./views/turn";

/**
 * The settings' memory section: whether finished tasks teach the agent, and what it remembers
 * (`.obsidian-agent/memory/`), each entry editable and deletable; "Forget everything" clears it.
 * The core reads and writes the store; this only shows it.
 */
export function memorySection(el: HTMLElement, ctx: PluginContext): void {
  const agent = ctx.settings.agent;
  new Setting(el)
    .setName("Memory")
    .setHeading()
    .setDesc("Facts and preferences the agent saved for later tasks. Each task's prompt gets the ones that bear on its request.");
  new Setting(el)
    .setName("Learn from finished tasks")
    .setDesc("After a task that completed, one short model call saves what is worth remembering.")
    .addToggle((t) =>
      t.setValue(agent.memoryExtraction).onChange(async (on) => {
        agent.memoryExtraction = on;
        await ctx.saveSettings();
      }),
    );
  new Setting(el)
    .setName("Fast path for repeated tasks")
    .setDesc(
      "A task that completed leaves a recipe. A request like one that worked three times is planned in one call, its steps still approved and checkpointed, and answered in one or two more.",
    )
    .addToggle((t) =>
      t.setValue(agent.fastPath).onChange(async (on) => {
        agent.fastPath = on;
        await ctx.saveSettings();
      }),
    );
  const list = el.createDiv({ cls: "vault-agent-memory" });
  void showEntries(list, ctx);
}

async function showEntries(list: HTMLElement, ctx: PluginContext): Promise<void> {
  const refresh = () => void showEntries(list, ctx);
  let entries: MemoryEntry[];
  let vault;
  try {
    vault = (await ctx.core()).vault;
    entries = await vault.memoryList();
  } catch (error) {
    list.empty();
    list.createDiv({ cls: "setting-item-description", text: `Memory could not be read: ${errorMessage(error)}` });
    return;
  }
  list.empty();
  const act = (work: Promise<unknown>) =>
    work.then(refresh, (error: unknown) => {
      list.createDiv({ cls: "mod-warning", text: errorMessage(error) });
    });
  if (entries.length === 0) {
    list.createDiv({ cls: "setting-item-description", text: "Nothing remembered yet." });
    return;
  }
  for (const entry of [...entries].reverse()) {
    const row = new Setting(list).setName(entry.text).setDesc(describe(entry));
    row.settingEl.addClass("vault-agent-memory-entry");
    row.addButton((b) =>
      b.setButtonText("Edit").onClick(() => edit(row, entry, (kind, text) => act(vault.memoryEdit(entry.id, kind, text)), refresh)),
    );
    row.addButton((b) => b.setButtonText("Forget").onClick(() => act(vault.memoryDelete(entry.id))));
  }
  let armed = false;
  new Setting(list)
    .setName("Forget everything")
    .setDesc(`Removes all ${entries.length} memories. This cannot be undone.`)
    .addButton((b) => {
      b.buttonEl.addClass("mod-warning");
      b.setButtonText("Forget everything").onClick(() => {
        // One button, two clicks: the second says it is meant.
        if (!armed) {
          armed = true;
          b.setButtonText("Click again to forget everything");
          return;
        }
        void act(vault.memoryForgetAll());
      });
    });
}

function describe(entry: MemoryEntry): string {
  const kind = entry.kind === "preference" ? "Preference" : "Fact";
  if (!entry.createdMs) return kind;
  return `${kind} · saved ${new Date(entry.createdMs).toLocaleDateString()}`;
}

/** Turns `row` into an editor for `entry`: its kind and text, saved or cancelled. */
function edit(
  row: Setting,
  entry: MemoryEntry,
  save: (kind: MemoryKind, text: string) => Promise<unknown>,
  cancel: () => void,
): void {
  let kind: MemoryKind = entry.kind;
  let text = entry.text;
  row.clear();
  row.controlEl.empty();
  row.setName("").setDesc("");
  row.addDropdown((d) =>
    d
      .addOption("fact", "Fact")
      .addOption("preference", "Preference")
      .setValue(kind)
      .onChange((v) => (kind = v as MemoryKind)),
  );
  row.addTextArea((t) => {
    t.setValue(text).onChange((v) => (text = v));
    t.inputEl.rows = 2;
    t.inputEl.addClass("vault-agent-memory-text");
  });
  row.addButton((b) => b.setButtonText("Save").setCta().onClick(() => void save(kind, text)));
  row.addButton((b) => b.setButtonText("Cancel").onClick(cancel));
}
