// The occupancy stepper in headless Chromium: the occupancy page draws the diagram, its
// accessible name is the entry's alt text, Next and the arrow keys move the highlighted
// step and change the numbers shown, and without JavaScript every step is on the page.
// Screenshots land in tests/browser/out/.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..', '..');
const outDir = path.resolve(here, '..', 'out');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const noChromium = fs.existsSync(chromiumPath) || process.env.CI === '1' ? false
  : `Chromium is not installed at ${chromiumPath} (apt-get install -y chromium); stepper browser test skipped`;

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  }
  return r;
}

function glossaryBin() {
  if (process.env.GLOSSARY_BIN) return process.env.GLOSSARY_BIN;
  run('cargo', ['build', '--quiet']);
  return path.join(process.env.CARGO_TARGET_DIR || path.join(repo, 'target'), 'debug', 'glossary');
}

/// The numbers of the step the widget shows, as { term: value }.
async function shownNumbers(figure) {
  const step = figure.locator('.stepper-step[aria-current="step"]');
  const terms = await step.locator('dt').allTextContents();
  const values = await step.locator('dd').allTextContents();
  return Object.fromEntries(terms.map((t, i) => [t, values[i]]));
}

async function currentStepId(figure) {
  const current = figure.locator('.stepper-step[aria-current="step"]');
  assert.equal(await current.count(), 1, 'exactly one current step');
  return current.getAttribute('id');
}

describe('occupancy stepper', { skip: noChromium }, () => {
  let site;
  let pageUrl;
  let alt;
  let browser;

  before(async () => {
    // The repository's content and presets, with the day 45 record (a fixture one until
    // the H200 record is committed), written by the library so its digests are current.
    site = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-stepper-'));
    run('cargo', ['test', '--quiet', '--test', 'diagram_stepper', '--', '--ignored', '--exact',
      'write_stepper_browser_site'], { STEPPER_SITE_OUT: site });
    run(glossaryBin(), ['build', '--drafts', '--root', site, '--out', path.join(site, 'site-drafts')]);
    pageUrl = pathToFileURL(path.join(site, 'site-drafts', 'terms', 'occupancy', 'index.html')).href;
    const source = fs.readFileSync(path.join(site, 'content', 'terms', 'occupancy.md'), 'utf8');
    alt = source.match(/^\s+alt:\s*"(.*)"\s*$/m)?.[1];
    assert.ok(alt, 'the occupancy entry has diagram alt text');
    fs.mkdirSync(outDir, { recursive: true });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    if (site) fs.rmSync(site, { recursive: true, force: true });
  });

  test('renders the diagram; Next and the arrow keys move the step and change the numbers', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pageUrl);

    const figure = page.getByRole('figure', { name: alt, exact: true });
    assert.equal(await figure.count(), 1, 'a figure named by the alt text');
    const steps = figure.locator('.stepper-step');
    const total = await steps.count();
    assert.ok(total >= 2, `at least two steps, found ${total}`);
    assert.equal(await figure.locator('.stepper-step:visible').count(), 1, 'one step shown at a time');
    const status = figure.locator('.stepper-status');

    // Step 1: an SVG of the H200's 64 warp slots, as many filled as the numbers say.
    assert.equal(await currentStepId(figure), 'occupancy-stepper-step-1');
    assert.match(await status.textContent(), new RegExp(`^Step 1 of ${total}: `));
    const svg = figure.locator('.stepper-step:visible svg');
    assert.equal(await svg.count(), 1);
    assert.equal(await svg.locator('rect.slot').count(), 64);
    const first = await shownNumbers(figure);
    const filled = (n) => Number(n['Resident warps'].split(' of ')[0]);
    assert.equal(await svg.locator('rect.slot:not(.empty)').count(), filled(first));
    const prev = figure.getByRole('button', { name: 'Previous' });
    assert.equal(await prev.getAttribute('aria-disabled'), 'true');
    assert.equal(await figure.locator('.stepper-progress li.is-current').count(), 1);
    await figure.screenshot({ path: path.join(outDir, 'stepper-step-1.png') });

    // Next: the second step is current, highlighted, announced, and its numbers differ.
    await figure.getByRole('button', { name: 'Next' }).click();
    assert.equal(await currentStepId(figure), 'occupancy-stepper-step-2');
    assert.match(await status.textContent(), new RegExp(`^Step 2 of ${total}: `));
    const progressLabel = await figure.locator('.stepper-progress li[aria-current="step"]').textContent();
    assert.equal(progressLabel, await figure.locator('.stepper-step[aria-current="step"] h3 code').textContent());
    const second = await shownNumbers(figure);
    assert.notEqual(second['Resident blocks'], first['Resident blocks']);
    assert.notEqual(second['Measured bandwidth'], first['Measured bandwidth']);
    assert.equal(await figure.locator('.stepper-step:visible svg rect.slot:not(.empty)').count(), filled(second));
    const highlight = await figure.locator('.stepper-step[aria-current="step"]')
      .evaluate((el) => getComputedStyle(el).borderLeftColor);
    const plain = await figure.locator('.stepper-progress li:not(.is-current)').first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    const marked = await figure.locator('.stepper-progress li.is-current')
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(marked, plain, 'the current step is highlighted in the progress list');
    assert.ok(highlight, 'the current step has a highlight border');
    await figure.screenshot({ path: path.join(outDir, 'stepper-step-2.png') });

    // Arrow keys while the widget has focus (the Next button keeps it).
    await page.keyboard.press('ArrowRight');
    assert.equal(await currentStepId(figure), 'occupancy-stepper-step-3');
    const third = await shownNumbers(figure);
    assert.notEqual(third['Resident blocks'], second['Resident blocks']);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await currentStepId(figure), 'occupancy-stepper-step-2');
    await page.keyboard.press('End');
    assert.equal(await currentStepId(figure), `occupancy-stepper-step-${total}`);
    await page.keyboard.press('ArrowRight');
    assert.equal(await currentStepId(figure), `occupancy-stepper-step-${total}`, 'stays on the last step');

    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.emulateMedia({ colorScheme: 'dark' });
    await figure.screenshot({ path: path.join(outDir, 'stepper-step-2-dark.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('without JavaScript every step is on the page and the controls are hidden', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 1400 } });
    const page = await context.newPage();
    await page.goto(pageUrl);
    const figure = page.getByRole('figure', { name: alt, exact: true });
    const total = await figure.locator('.stepper-step').count();
    assert.ok(total >= 2);
    assert.equal(await figure.locator('.stepper-step:visible').count(), total);
    assert.equal(await figure.locator('svg:visible').count(), total);
    assert.equal(await figure.locator('.stepper-controls').isVisible(), false);
    await figure.screenshot({ path: path.join(outDir, 'stepper-no-js.png') });
    await context.close();
  });
});

// The Day 17 preset on the register-pressure term, built from the repository's content and
// its committed H200 record of day17-registers (drafts: the content is unsigned).
describe('register-budgets stepper', { skip: noChromium }, () => {
  let site;
  let browser;

  before(async () => {
    site = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-registers-'));
    for (const part of ['content', 'templates', 'measurements', 'glossary.toml']) {
      fs.cpSync(path.join(repo, part), path.join(site, part), { recursive: true });
    }
    run(glossaryBin(), ['build', '--drafts', '--root', site, '--out', path.join(site, 'site-drafts')]);
    fs.mkdirSync(outDir, { recursive: true });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    if (site) fs.rmSync(site, { recursive: true, force: true });
  });

  test('the register-budgets stepper empties warp slots by registers, step by step', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    await page.goto(pathToFileURL(path.join(site, 'site-drafts', 'terms', 'register-pressure', 'index.html')).href);
    const source = fs.readFileSync(path.join(repo, 'content/terms/register-pressure.md'), 'utf8');
    const alt = source.match(/^\s+alt:\s*"(.*)"\s*$/m)?.[1];
    const figure = page.getByRole('figure', { name: alt, exact: true });
    assert.equal(await figure.count(), 1, 'a figure named by the alt text');
    const total = await figure.locator('.stepper-step').count();
    assert.equal(total, 5, 'the five __launch_bounds__ budgets');
    const numbers = async () => {
      const step = figure.locator('.stepper-step[aria-current="step"]');
      const terms = await step.locator('dt').allTextContents();
      const values = await step.locator('dd').allTextContents();
      return Object.fromEntries(terms.map((t, i) => [t, values[i]]));
    };
    const warps = [];
    const registers = [];
    for (let i = 1; i <= total; i++) {
      const shown = await numbers();
      assert.match(await figure.locator('.stepper-status').textContent(), new RegExp(`^Step ${i} of ${total}: `));
      const svg = figure.locator('.stepper-step:visible svg');
      assert.equal(await svg.locator('rect.slot').count(), 64);
      const filled = Number(shown['Resident warps'].split(' of ')[0]);
      assert.equal(await svg.locator('rect.slot:not(.empty)').count(), filled);
      assert.equal(await svg.locator('rect.regs').count(), Number(shown['Resident blocks']), 'one register-file share per resident block');
      assert.equal(await svg.locator('rect.smem').count(), 0, 'no shared-memory bar');
      assert.match(shown['Binding resource'], /registers|warps/);
      assert.ok(shown['Local memory (B)'] ?? shown['Local memory'] ?? Object.keys(shown).some((k) => /local/i.test(k)), 'spill space shown');
      warps.push(filled);
      registers.push(Number(shown.Block.match(/(\d+) registers per thread/)[1]));
      if (i === 1) await figure.screenshot({ path: path.join(outDir, 'register-budgets-step-1.png') });
      if (i < total) await figure.getByRole('button', { name: 'Next' }).click();
    }
    await figure.screenshot({ path: path.join(outDir, 'register-budgets-step-last.png') });
    for (let i = 1; i < total; i++) {
      assert.ok(registers[i] > registers[i - 1], `registers grow step by step: ${registers}`);
      assert.ok(warps[i] < warps[i - 1], `resident warps fall step by step: ${warps}`);
    }
    assert.equal(warps[0], 64, 'the first budget fills every warp slot');
    await page.close();
  });
});
