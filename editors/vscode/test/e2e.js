// The extension in a real VS Code: code-server with the packaged seedlint.vsix, driven by
// headless Chromium (playwright-core, the system's /usr/bin/chromium). One file, one finding,
// one fix: the squiggle and the Problems panel's entry appear on a shuffling loader, the
// preferred quick fix applies, the file saved holds what `seedlint check --fix` writes, and
// the finding goes. Screenshots in test-results/ (vscode-failure.png where a step failed).
//
// node test/e2e.js   (after `npm run compile && npm run package`; see .ci/vscode)
// SEEDLINT_PYTHON: the Python that runs `-m seedlint server` (its PYTHONPATH is passed on).
"use strict";
const { chromium } = require("playwright-core");
const { spawn, spawnSync, execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const HERE = path.resolve(__dirname, "..");
const RESULTS = path.join(HERE, "test-results");
const SOURCE =
  "import torch\n" +
  "from torch.utils.data import DataLoader\n" +
  "\n" +
  "loader = DataLoader(range(8), batch_size=2, shuffle=True)\n";
function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exitCode = 1;
}

async function main() {
  const started = Date.now();
  fs.mkdirSync(RESULTS, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "seedlint-vscode-"));
  const project = path.join(work, "project");
  fs.mkdirSync(path.join(project, ".vscode"), { recursive: true });
  const file = path.join(project, "train.py");
  fs.writeFileSync(file, SOURCE);
  const python = process.env.SEEDLINT_PYTHON || "python3";
  // What the preferred quick fix must write: what `seedlint check --fix` writes.
  const cli = path.join(work, "cli", "train.py");
  fs.mkdirSync(path.dirname(cli));
  fs.writeFileSync(cli, SOURCE);
  spawnSync(python, ["-m", "seedlint", "check", "--isolated", "--no-cache", "--fix", cli]);
  const FIXED = fs.readFileSync(cli, "utf8");
  if (!FIXED.includes("generator=torch.Generator().manual_seed(0)")) {
    fail(`\`seedlint check --fix\` did not fix the loader; it wrote:\n${FIXED}`);
    return;
  }
  fs.writeFileSync(
    path.join(project, ".vscode", "settings.json"),
    JSON.stringify({
      "seedlint.path": [python, "-m", "seedlint"],
      "workbench.startupEditor": "none",
      "security.workspace.trust.enabled": false,
      "extensions.ignoreRecommendations": true,
      "files.autoSave": "off",
    }),
  );
  const codeServer = process.env.CODE_SERVER || "code-server";
  // The user's settings and code-server's config in the work folder (nothing in ~/.config):
  // no walkthrough, no welcome page, no password.
  const data = path.join(work, "data");
  fs.mkdirSync(path.join(data, "User"), { recursive: true });
  fs.writeFileSync(
    path.join(data, "User", "settings.json"),
    JSON.stringify({
      "workbench.startupEditor": "none",
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "workbench.tips.enabled": false,
      "security.workspace.trust.enabled": false,
      "telemetry.telemetryLevel": "off",
    }),
  );
  const config = path.join(work, "config.yaml");
  fs.writeFileSync(config, "auth: none\ncert: false\n");
  const dirs = [
    "--config", config,
    "--user-data-dir", data,
    "--extensions-dir", path.join(work, "extensions"),
  ];
  execFileSync(codeServer, [...dirs, "--install-extension", path.join(HERE, "seedlint.vsix")], {
    stdio: "inherit",
  });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(
    codeServer,
    [...dirs, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry",
      "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
      project],
    { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  server.stdout.on("data", (d) => (log += d));
  server.stderr.on("data", (d) => (log += d));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  let page;
  try {
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`;
    for (let i = 0; ; i++) {  // code-server takes a moment to listen
      try {
        await page.goto(url, { timeout: 10000 });
        break;
      } catch (error) {
        if (i > 30) throw error;
        await page.waitForTimeout(500);
      }
    }
    await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
    // Open train.py from the Explorer, as a user does.
    const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "train.py" });
    await row.waitFor({ timeout: 30000 });
    await row.click();
    await page.waitForSelector(".monaco-editor .view-line", { timeout: 20000 });
    // The squiggle: seedlint's diagnostic on the loader call.
    const squiggle = await page
      .waitForSelector(".monaco-editor .squiggly-warning", { timeout: 30000 })
      .catch(() => null);
    await page.screenshot({ path: path.join(RESULTS, "vscode-squiggle.png") });
    if (squiggle === null) {
      fail("no squiggle on the shuffling loader within 30 s");
      return;
    }
    // The finding in the Problems panel (Ctrl+Shift+M): its code, message and place.
    await page.click(".monaco-editor .view-lines");
    await page.keyboard.press("Control+Shift+M");
    const problems = page.locator(".markers-panel .monaco-list-row", { hasText: "RNG001" });
    const listed = await problems.first().waitFor({ timeout: 20000 }).then(() => true, () => false);
    const panel = listed ? await page.locator(".markers-panel").innerText() : "";
    await page.screenshot({ path: path.join(RESULTS, "vscode-problems.png") });
    if (!listed || !panel.includes("DataLoader shuffles without a `generator`")
        || !panel.includes("[Ln 4, Col 10]")) {
      fail(`the Problems panel does not list RNG001 at 4:10; it reads:\n${panel}`);
      return;
    }
    // The cursor into the finding (Go to Line, Ctrl+G), then the quick fix menu (Ctrl+.) and
    // its preferred fix.
    await page.click(".monaco-editor .view-lines");
    await page.keyboard.press("Control+G");
    await page.waitForSelector(".quick-input-widget input", { timeout: 10000 });
    await page.keyboard.type("4:12");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+.");
    // The preferred fix is the one the menu focuses: Enter applies it.
    const item = page.locator(".action-widget .monaco-list-row.focused", {
      hasText: "generator=torch.Generator().manual_seed(0)",
    });
    const offered = await item.waitFor({ timeout: 30000 }).then(() => true, () => false);
    await page.screenshot({ path: path.join(RESULTS, "vscode-quick-fix.png") });
    if (!offered) {
      const menu = await page.locator(".action-widget").innerText().catch(() => "(no menu)");
      fail(`the quick fix menu does not focus the \`generator\` fix; it reads:\n${menu}`);
      return;
    }
    await page.keyboard.press("Enter");
    await page.waitForSelector(".monaco-editor .view-line:has-text('generator=')", {
      timeout: 10000,
    }).catch(() => null);
    await page.keyboard.press("Control+S");
    const deadline = Date.now() + 20000;
    let saved = fs.readFileSync(file, "utf8");
    while (saved !== FIXED && Date.now() < deadline) {
      await page.waitForTimeout(200);
      saved = fs.readFileSync(file, "utf8");
    }
    if (saved !== FIXED) {
      fail(`the quick fix did not apply (or not as \`--fix\` writes it); the file holds:\n${saved}`);
      return;
    }
    // The finding goes: no squiggle, and the Problems panel says so.
    const gone = await page
      .waitForSelector(".monaco-editor .squiggly-warning", { state: "detached", timeout: 20000 })
      .then(() => true, () => false);
    const empty = await page
      .locator(".markers-panel", { hasText: "No problems have been detected" })
      .waitFor({ timeout: 10000 })
      .then(() => true, () => false);
    await page.screenshot({ path: path.join(RESULTS, "vscode-fixed.png") });
    if (!gone || !empty) {
      fail("the finding stayed after the fix (squiggle or Problems panel)");
      return;
    }
    console.log(
      `OK: squiggle and Problems entry (RNG001 at 4:10), quick fix applied and saved, ` +
        `finding gone (${Date.now() - started} ms)`,
    );
  } finally {
    if (process.exitCode && page) {
      await page.screenshot({ path: path.join(RESULTS, "vscode-failure.png") }).catch(() => {});
    }
    await browser.close();
    server.kill();
    if (process.exitCode) console.error(log.slice(-4000));
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
