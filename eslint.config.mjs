// Lints the plugin's TypeScript with Obsidian's own rules (eslint-plugin-obsidianmd's
// recommended set, which includes ESLint's and typescript-eslint's type-checked rules).
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";
import { DEFAULT_ACRONYMS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/acronyms.js";
import { DEFAULT_BRANDS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/brands.js";

export default defineConfig([
  { ignores: ["main.js", "pkg/", "dist/", "target/", "node_modules/", "tests/", "scripts/", "artifacts/", "*.mjs"] },
  ...obsidianmd.configs.recommended,
  {
    files: ["js/**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Sentence case, knowing the names this plugin writes as their owners do.
      "obsidianmd/ui/sentence-case": [
        "warn",
        {
          brands: [...DEFAULT_BRANDS, "Vault Agent", "Ollama", "LM Studio", "OpenRouter", "Mistral AI", "Mistral", "DeepSeek", "xAI", "Grok", "Groq", "Azure OpenAI", "Azure AI Foundry", "Azure", "Model Context Protocol", "Streamable HTTP"],
          acronyms: [...DEFAULT_ACRONYMS, "CORS", "US", "MB", "MCP"],
          ignoreWords: ["TOOL_CALL"],
        },
      ],
    },
  },
  {
    // minAppVersion is below 1.13, so the tab must implement display() (obsidianmd's own
    // settings-tab/require-display); the declarative getSettingDefinitions() API is 1.13+.
    files: ["js/settingsTab.ts"],
    rules: {
      "obsidianmd/settings-tab/prefer-setting-definitions": "off",
      "@typescript-eslint/no-deprecated": "off",
    },
  },
]);
