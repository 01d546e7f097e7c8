// The roofline chart (render::chart::roofline_chart) on the repository's roofline page,
// built with --drafts: log-log axes, the node's roofs and ridge points drawn, the
// measured points with their values in <title>, at 1280 and 390 px with no sideways
// scroll and nothing of the chart clipped. Screenshots land in tests/browser/out/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { build, launch, noChromium, repo, screenshotPath } from './support.mjs';

describe('the roofline chart', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-roofline-'));
    for (const part of ['content', 'templates', 'measurements', 'glossary.toml']) {
      fs.cpSync(path.join(repo, part), path.join(tmp, part), { recursive: true });
    }
    // The page's table cites whichever node has a current roofline record: the newest
    // measured, so a record made stale by an edit of the experiment on one node leaves
    // the other (a record cannot be re-signed here).
    const term = path.join(tmp, 'content/terms/roofline.md');
    const text = fs.readFileSync(term, 'utf8');
    const records = path.join(tmp, 'measurements/roofline/records');
    const newest = fs.readdirSync(records).filter((f) => /^[a-z0-9-]+\.json$/.test(f))
      .map((f) => [f.replace(/\.json$/, ''), JSON.parse(fs.readFileSync(path.join(records, f), 'utf8')).captured_at])
      .sort((a, b) => (a[1] < b[1] ? 1 : -1))[0][0];
    fs.writeFileSync(term, text.replace(/^(\s+)node: [a-z0-9-]+$/m, `$1node: ${newest}`));
    site = path.join(tmp, 'out');
    const result = build(tmp, site, ['--drafts']);
    assert.equal(result.status, 0, result.stderr);
    browser = await launch();
  });
  after(async () => browser?.close());

  for (const width of [1280, 390]) {
    test(`at ${width} px: roofs, ridges and points drawn, nothing clipped, no sideways scroll`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'terms/roofline/index.html'));
      const chart = page.locator('svg.roofline-chart');
      assert.equal(await chart.count(), 1, 'one roofline chart');
      await chart.scrollIntoViewIfNeeded();
      const seen = await page.evaluate(() => {
        const svg = document.querySelector('svg.roofline-chart');
        const box = svg.getBoundingClientRect();
        const inside = (r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5
          && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
        const texts = [...svg.querySelectorAll('text')];
        return {
          page: document.documentElement.scrollWidth,
          viewport: window.innerWidth,
          chartRight: box.right,
          clipped: texts.filter((t) => !inside(t.getBoundingClientRect())).map((t) => t.textContent),
          // Text labels that overlap another (drawn over each other, unreadable).
          overlapping: texts.flatMap((a, i) => texts.slice(i + 1).filter((b) => {
            const p = a.getBoundingClientRect();
            const q = b.getBoundingClientRect();
            return p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom;
          }).map((b) => `${a.textContent} / ${b.textContent}`)),
          compute: svg.querySelectorAll('line.roof-compute').length,
          memory: svg.querySelectorAll('line.roof-memory').length,
          ridges: [...svg.querySelectorAll('rect.roof-ridge title')].map((t) => t.textContent),
          points: [...svg.querySelectorAll('circle.roof-point title')].map((t) => t.textContent),
          // The rows of the table the chart draws: one point each.
          rows: svg.closest('figure.measured-table').querySelectorAll('tbody tr').length,
          desc: svg.querySelector('desc').textContent,
          ticks: [...svg.querySelectorAll('text.chart-tick')].map((t) => t.textContent),
        };
      });
      await page.screenshot({ path: screenshotPath(`roofline-${width}`), fullPage: false });
      assert.ok(seen.page <= seen.viewport, `page is ${seen.page} px wide at ${seen.viewport}`);
      assert.ok(seen.chartRight <= seen.viewport, `chart ends at ${seen.chartRight}`);
      assert.deepEqual(seen.clipped, [], 'every label inside the chart');
      assert.deepEqual(seen.overlapping, [], 'no label drawn over another');
      assert.ok(seen.compute >= 2, `compute roofs: ${seen.compute}`);
      assert.ok(seen.memory >= 1, `memory roofs: ${seen.memory}`);
      // The FP32 ridge: 66.9 TFLOP/s over the node's DRAM bandwidth (13.9 FLOP/B on an
      // H200, 20.0 on an H100).
      assert.ok(seen.ridges.some((r) => /ridge of fp32 and dram: (13\.9|19\.9)\d* FLOP\/B/.test(r)), seen.ridges.join('\n'));
      assert.ok(seen.rows >= 10, `the table has ${seen.rows} rows`);
      assert.equal(seen.points.length, seen.rows, seen.points.join('\n'));
      assert.ok(seen.points.some((p) => p.startsWith('k512: 128.00')), seen.points.join('\n'));
      assert.ok(/logarithmic/.test(await chart.locator('title').first().textContent()));
      // Decades on both axes: a log-log chart.
      assert.ok(seen.ticks.includes('1') && seen.ticks.includes('10') && seen.ticks.includes('100'), seen.ticks.join(' '));
      assert.ok(/fp32 roof 66\.9\d* TFLOP\/s, ridge at (13\.9|19\.9)/.test(seen.desc), seen.desc);
      await page.close();
    });
  }
});
