// The plugin's stylesheet parses cleanly: a rule left unclosed nests every rule after it inside
// its selector (CSS nesting), which silently unstyles them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { transformSync } from "esbuild";

test("styles.css has no syntax problem esbuild reports", () => {
  const { warnings } = transformSync(readFileSync("styles.css", "utf8"), { loader: "css" });
  assert.deepEqual(
    warnings.map((w) => `${w.location?.line}: ${w.text}`),
    [],
  );
});

test("an unclosed rule is caught", () => {
  const { warnings } = transformSync(".a svg {\n  width: 1px;\n\n.b {\n  color: red;\n}\n", { loader: "css" });
  assert.match(warnings[0].text, /Expected "}"/);
});
