// The Day 10, 17 and 42 lessons and the Day 17 register-budgets stepper, built from the
// repository's own content and H200 records in drafts mode (the content is unsigned):
// tables, charts and prose numbers are on the page, axe finds nothing, nothing scrolls
// sideways at 390 px, and the occupancy term lists the lessons in day order (the
// register-budgets stepper is tested in stepper.test.mjs).
// Screenshots at 1280 and 390 px land in tests/browser/out/.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  axeViolations, build, launch, noChromium, repo, screenshotPath,
} from './support.mjs';

const lessons = [
  'lessons/day-10-block-size/index.html',
  'lessons/day-17-registers-and-spills/index.html',
  'lessons/day-42-reading-nsight-compute/index.html',
];

describe('the Day 10, 17 and 42 lessons (repository content, drafts)', { skip: noChromium }, () => {
  let site;
  let browser;

  before(async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-lessons-'));
    for (const part of ['content', 'templates', 'measurements', 'glossary.toml']) {
      fs.cpSync(path.join(repo, part), path.join(root, part), { recursive: true });
    }
    site = path.join(root, 'out');
    const result = build(root, site, ['--drafts']);
    if (result.status !== 0) throw new Error('building the repository content failed:\n' + result.stderr);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
  });

  for (const url of lessons) {
    test(`${url}: table, chart and recorded numbers; axe clean; fits 390 px`, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto('file://' + path.join(site, url));
      const body = await page.locator('main').innerText();
      assert.ok(!body.includes('[missing value]'), 'every number in the prose resolved from a record');
      assert.ok(!body.includes('{{'), 'no template call left unexpanded');
      assert.ok(await page.locator('main table').count() >= 1, 'a measured table');
      assert.ok(await page.locator('main svg[role="img"]').count() >= 1, 'a chart');
      assert.deepEqual(await axeViolations(page), []);
      const name = url.split('/')[1];
      await page.screenshot({ path: screenshotPath(`${name}-1280`), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at 390 px`);
      await page.screenshot({ path: screenshotPath(`${name}-390`), fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('the occupancy term lists Days 10, 17, 42 and 45 in day order', async () => {
    const page = await browser.newPage();
    await page.goto('file://' + path.join(site, 'terms/occupancy/index.html'));
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Where you meet this' }) });
    const links = await section.getByRole('link').allTextContents();
    const days = links.map((t) => Number(t.match(/Day (\d+)/)?.[1])).filter((d) => d);
    assert.deepEqual(days, [10, 17, 42, 45], `found: ${links.join(' | ')}`);
    await page.close();
  });

});
