// Renders a Markdown file to an HTML page styled like a GitHub comment (github-markdown-css,
// raw HTML allowed as GitHub allows it, ```mermaid blocks drawn by Mermaid in the browser).
// Usage: node render-markdown.mjs INPUT.md OUTPUT.html [--open] [--offset=PIXELS]
// Needs markdown-it, github-markdown-css and mermaid installed in $MDRENDER_DIR/node_modules
// (scripts/render-markdown.sh installs them).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [input, output, ...flags] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node render-markdown.mjs INPUT.md OUTPUT.html [--open]");
  process.exit(2);
}
const modules = path.join(process.env.MDRENDER_DIR || "/tmp/mdrender", "node_modules");
const require = createRequire(path.join(modules, "noop.js"));
const MarkdownIt = require("markdown-it");

const md = new MarkdownIt({ html: true, linkify: true, typographer: false });
const fence = md.renderer.rules.fence;
md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  if (token.info.trim() === "mermaid") {
    return `<pre class="mermaid">${md.utils.escapeHtml(token.content)}</pre>\n`;
  }
  return fence(tokens, idx, options, env, self);
};
md.enable("table");

const body = md.render(fs.readFileSync(input, "utf8"));
const css = path.join(modules, "github-markdown-css", "github-markdown-light.css");
const mermaid = path.join(modules, "mermaid", "dist", "mermaid.min.js");
const openAll = flags.includes("--open");
const offsetFlag = flags.find((f) => f.startsWith("--offset="));
const offset = offsetFlag ? Number.parseInt(offsetFlag.slice("--offset=".length), 10) || 0 : 0;
const html = `<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="file://${css}">
<style>
  body { background: #fff; margin: 0; margin-top: -${offset}px; }
  .comment { max-width: 880px; margin: 16px auto; border: 1px solid #d0d7de; border-radius: 6px; }
  .comment-header { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px;
    font: 14px -apple-system, "Segoe UI", sans-serif; color: #57606a; }
  .markdown-body { padding: 16px; font-size: 14px; }
</style>
<script src="file://${mermaid}"></script>
</head><body>
<div class="comment"><div class="comment-header"><b>cartograph</b> commented</div>
<article class="markdown-body">
${body}
</article></div>
<script>
  ${openAll ? 'document.querySelectorAll("details").forEach(d => d.open = true);' : ""}
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
  mermaid.run({ querySelector: "pre.mermaid" });
</script>
</body></html>
`;
fs.writeFileSync(output, html);
