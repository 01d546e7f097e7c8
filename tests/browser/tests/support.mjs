// Shared setup for the browser tests: find Chromium, the glossary binary and the fixture
// site, start `glossary serve`, launch the browser, run axe and html-validate.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..', '..');
export const outDir = path.resolve(here, '..', 'out');

export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
export const haveChromium = fs.existsSync(chromiumPath);
export const noChromium = haveChromium ? false
  : `Chromium is not installed at ${chromiumPath} (apt-get install -y chromium); browser tests skipped`;

export const glossaryBin = process.env.GLOSSARY_BIN
  || path.join(process.env.CARGO_TARGET_DIR || path.join(repo, 'target'), 'debug', 'glossary');
/// Optimized builds of glossary and of the synthetic corpus writer (`--features corpus`),
/// for the tests at 10,000 entries; run.sh builds them in the `browser` profile, so that
/// target/release/glossary (the README's binary) is never rebuilt by the tests.
const releaseDir = process.env.GLOSSARY_RELEASE_DIR
  || path.join(process.env.CARGO_TARGET_DIR || path.join(repo, 'target'), 'browser');
export const releaseBin = path.join(releaseDir, 'glossary');
export const corpusBin = path.join(releaseDir, 'glossary-corpus');

/// The signed fixture site, written by run.sh (`cargo test --test browser_fixture`).
export function fixtureSite() {
  const dir = process.env.GLOSSARY_FIXTURE;
  if (!dir || !fs.existsSync(path.join(dir, 'glossary.toml'))) {
    throw new Error('GLOSSARY_FIXTURE must name the fixture site written by run.sh');
  }
  return dir;
}

export function tempCopy(src, name) {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), `glossary-${name}-`));
  fs.cpSync(src, dest, { recursive: true });
  return dest;
}

export function build(root, outSite, extra = []) {
  return spawnSync(glossaryBin, ['build', '--root', root, '--out', outSite, ...extra], { encoding: 'utf8' });
}

/// Start `glossary serve` on a free port; resolves to { url, stop, output }.
export function serve(root, extra = []) {
  const proc = spawn(glossaryBin, ['serve', '--root', root, '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  proc.stderr.on('data', (d) => output.push(String(d)));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: proc.stdout });
    const timer = setTimeout(() => reject(new Error('serve did not start:\n' + output.join(''))), 30000);
    lines.on('line', (line) => {
      output.push(line + '\n');
      const m = line.match(/at (http:\/\/[^/\s]+\/)/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], output, stop: () => proc.kill() });
      }
    });
    proc.on('exit', (code) => reject(new Error(`serve exited (${code}):\n` + output.join(''))));
  });
}

export async function launch() {
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/// Fail the page on any request that leaves the site being tested.
export function recordForeignRequests(page, origin) {
  const foreign = [];
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('file:')) foreign.push(u);
  });
  return foreign;
}

export async function axeViolations(page) {
  // Evaluated through the DevTools protocol rather than added as a <script>: the pages'
  // Content-Security-Policy runs no inline script, and a test must not weaken it.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  }));
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

export function htmlFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.html')) out.push(path.join(entry.parentPath ?? entry.path, entry.name));
  }
  return out.sort();
}

/// html-validate's recommended rules over every page; returns "file:line:col rule: message".
export async function validateHtml(files) {
  const { HtmlValidate } = require('html-validate');
  // The recommended rules, less two about source formatting rather than the document:
  // templates leave blank-but-indented lines, and `<!doctype html>` is valid in any case.
  const validator = new HtmlValidate({
    extends: ['html-validate:recommended'],
    rules: { 'no-trailing-whitespace': 'off', 'doctype-style': 'off' },
  });
  const problems = [];
  for (const file of files) {
    const report = await validator.validateFile(file);
    for (const r of report.results) {
      for (const m of r.messages) {
        if (m.severity >= 2) problems.push(`${file}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`);
      }
    }
  }
  return problems;
}

export function screenshotPath(name) {
  fs.mkdirSync(outDir, { recursive: true });
  return path.join(outDir, `${name}.png`);
}
