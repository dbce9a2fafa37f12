// The extension in a real VS Code: code-server with the packaged seedlint.vsix, driven by
// headless Chromium (playwright-core, the system's /usr/bin/chromium). One file, one finding,
// one fix: the squiggle appears on a shuffling loader, the preferred quick fix applies, the
// file saved holds the fix and the squiggle goes. Screenshots in test-results/.
//
// node test/e2e.js   (after `npm run compile && npm run package`; see .ci/vscode)
// SEEDLINT_PYTHON: the Python that runs `-m seedlint server` (its PYTHONPATH is passed on).
"use strict";
const { chromium } = require("playwright-core");
const { spawn, execFileSync } = require("child_process");
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
  const dirs = [
    "--user-data-dir", path.join(work, "data"),
    "--extensions-dir", path.join(work, "extensions"),
  ];
  execFileSync(codeServer, [...dirs, "--install-extension", path.join(HERE, "seedlint.vsix")], {
    stdio: "inherit",
  });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(
    codeServer,
    [...dirs, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry",
      "--disable-workspace-trust", project],
    { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  server.stdout.on("data", (d) => (log += d));
  server.stderr.on("data", (d) => (log += d));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
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
    // Open train.py (Quick Open), as a user does.
    await page.keyboard.press("Control+P");
    await page.waitForSelector(".quick-input-widget input", { timeout: 20000 });
    await page.keyboard.type("train.py");
    await page.waitForTimeout(500);
    await page.keyboard.press("Enter");
    await page.waitForSelector(".monaco-editor .view-lines", { timeout: 20000 });
    // The squiggle: seedlint's diagnostic on the loader call.
    const squiggle = await page
      .waitForSelector(".monaco-editor .squiggly-warning", { timeout: 60000 })
      .catch(() => null);
    await page.screenshot({ path: path.join(RESULTS, "vscode-squiggle.png") });
    if (squiggle === null) {
      fail("no squiggle on the shuffling loader within 60 s");
      return;
    }
    // The cursor into the finding, then the quick fix menu (Ctrl+.) and its preferred fix.
    await page.click(".monaco-editor .view-line:nth-child(4)");
    await page.keyboard.press("End");
    await page.keyboard.press("Control+.");
    const item = await page
      .waitForSelector(".action-widget .action-label:has-text('generator')", { timeout: 30000 })
      .catch(() => null);
    await page.screenshot({ path: path.join(RESULTS, "vscode-quick-fix.png") });
    if (item === null) {
      fail("no quick fix titled with `generator` in the menu");
      return;
    }
    await item.click();
    await page.waitForTimeout(1000);
    await page.keyboard.press("Control+S");
    const deadline = Date.now() + 30000;
    let saved = fs.readFileSync(file, "utf8");
    while (!saved.includes("generator=") && Date.now() < deadline) {
      await page.waitForTimeout(250);
      saved = fs.readFileSync(file, "utf8");
    }
    if (!saved.includes("generator=torch.Generator().manual_seed(0)")) {
      fail(`the quick fix did not apply; the file holds:\n${saved}`);
      return;
    }
    await page
      .waitForSelector(".monaco-editor .squiggly-warning", { state: "detached", timeout: 30000 })
      .catch(() => fail("the squiggle stayed after the fix"));
    await page.screenshot({ path: path.join(RESULTS, "vscode-fixed.png") });
    console.log(`OK: squiggle, quick fix applied, squiggle gone (${Date.now() - started} ms)`);
  } finally {
    await browser.close();
    server.kill();
    if (process.exitCode) console.error(log.slice(-4000));
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
