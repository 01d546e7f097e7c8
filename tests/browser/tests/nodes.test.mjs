// Pages of a site with two verification nodes side by side (the nodes fixture, written by
// run.sh: `cargo test --test browser_fixture write_nodes_fixture`), built with --drafts, at
// 1280 and 390 px: the comparison chart draws a bar group per row with a bar per node and
// a legend naming each node and its GPU, every part of it inside the chart and its text at
// a readable size; a table citing a node without a record shows the other node's rows and
// chart and says "not measured on node-c yet" under node-c's GPU, with no raw column id and
// no Markdown backtick on the page; the verification nodes page lays out at both widths.
// Screenshots land in tests/browser/out/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { axeViolations, build, launch, noChromium, screenshotPath, validateHtml } from './support.mjs';
import { layoutProblems } from './layout.mjs';

const WIDTHS = [1280, 390];

function nodesFixture() {
  const dir = process.env.GLOSSARY_NODES_FIXTURE;
  if (!dir || !fs.existsSync(path.join(dir, 'glossary.toml'))) {
    throw new Error('GLOSSARY_NODES_FIXTURE must name the nodes fixture written by run.sh');
  }
  return dir;
}

/// What the comparison chart on the open page looks like as drawn: its box, its legend
/// entries, its bars, and every text's box and font size.
async function chartFacts(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('svg.comparison-chart');
    if (!svg) return null;
    const box = svg.getBoundingClientRect();
    const texts = Array.from(svg.querySelectorAll('text')).map((t) => {
      const r = t.getBoundingClientRect();
      return {
        text: t.textContent,
        left: r.left - box.left, right: r.right - box.left,
        top: r.top - box.top, bottom: r.bottom - box.top,
        px: parseFloat(getComputedStyle(t).fontSize) * (box.width / svg.viewBox.baseVal.width),
      };
    });
    const legend = Array.from(svg.querySelectorAll('.chart-legend text')).map((t) => t.textContent);
    const swatches = Array.from(svg.querySelectorAll('.chart-legend rect')).map((r) => r.getAttribute('class'));
    const bars = Array.from(svg.querySelectorAll(':scope > rect.chart-bar')).map((r) => ({
      cls: r.getAttribute('class'), width: r.getBoundingClientRect().width,
    }));
    return { width: box.width, height: box.height, viewport: window.innerWidth, texts, legend, swatches, bars };
  });
}

describe('two nodes side by side (build --drafts of the nodes fixture)', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-nodes-'));
    site = path.join(tmp, 'out');
    const result = build(nodesFixture(), site, ['--drafts']);
    assert.equal(result.status, 0, result.stderr);
    browser = await launch();
  });
  after(async () => browser?.close());

  test('the pages pass axe and html-validate', async () => {
    const pages = ['terms/occupancy/index.html', 'terms/occupancy-pending/index.html', 'terms/occupancy-lines/index.html', 'nodes/index.html'];
    assert.deepEqual(await validateHtml(pages.map((p) => path.join(site, p))), []);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const p of pages) {
      await page.goto('file://' + path.join(site, p));
      assert.deepEqual(await axeViolations(page), [], `${p}: axe`);
    }
    await page.close();
  });

  for (const width of WIDTHS) {
    test(`the comparison chart has a legend and readable bar groups at ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'terms/occupancy/index.html'));
      assert.deepEqual(await layoutProblems(page), []);
      const c = await chartFacts(page);
      assert.ok(c, 'a comparison chart');
      assert.deepEqual(c.legend, ['node-a (Fixture GPU A)', 'node-b (Fixture GPU B)']);
      assert.deepEqual(c.swatches, ['chart-bar node-0', 'chart-bar node-1']);
      // A bar group per row, a bar per node in each, node-b's at 60% of node-a's.
      assert.equal(c.bars.length, 8);
      for (let i = 0; i < 8; i += 2) {
        assert.equal(c.bars[i].cls, 'chart-bar node-0');
        assert.equal(c.bars[i + 1].cls, 'chart-bar node-1');
        assert.ok(Math.abs(c.bars[i + 1].width / c.bars[i].width - 0.6) < 0.02, JSON.stringify(c.bars));
      }
      assert.ok(c.width <= c.viewport, `chart ${c.width} px in a ${c.viewport} px window`);
      for (const t of c.texts) {
        assert.ok(t.left >= -0.5 && t.right <= c.width + 0.5 && t.top >= -0.5 && t.bottom <= c.height + 0.5,
          `"${t.text}" outside the chart: ${JSON.stringify(t)} in ${c.width}x${c.height}`);
        assert.ok(t.px >= 11, `"${t.text}" drawn at ${t.px.toFixed(1)} px`);
      }
      await page.screenshot({ path: screenshotPath(`nodes-two-node-chart-${width}`), fullPage: true });
      await page.close();
    });

    test(`a node without a record says so under its GPU, the other's numbers shown, at ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'terms/occupancy-pending/index.html'));
      assert.deepEqual(await layoutProblems(page), []);
      const facts = await page.evaluate(() => {
        const table = document.querySelector('figure.measured-table table');
        const groups = Array.from(table.querySelectorAll('th.node-group')).map((th) => th.textContent);
        const pending = table.querySelector('th.pending-group');
        const p = pending.getBoundingClientRect();
        const scroll = pending.closest('.table-scroll').getBoundingClientRect();
        return {
          groups,
          pending: pending.textContent,
          pendingVisible: p.width > 0 && p.height > 0,
          pendingInBox: p.left >= scroll.left - 1 && p.right <= scroll.right + 1,
          rows: table.querySelectorAll('tbody tr').length,
          staleShown: !!document.querySelector('figure.measured-table .stale'),
          text: document.body.innerText,
          legend: Array.from(document.querySelectorAll('svg.comparison-chart .chart-legend text')).map((t) => t.textContent),
          bars: document.querySelectorAll('svg.comparison-chart > rect.chart-bar').length,
        };
      });
      assert.deepEqual(facts.groups, ['node-a (Fixture GPU A)', 'node-c (Fixture GPU C)']);
      assert.equal(facts.pending, 'not measured on node-c yet');
      assert.ok(facts.pendingVisible, 'the pending heading is drawn');
      if (width === 1280) assert.ok(facts.pendingInBox, 'at 1280 px the pending column is in view');
      assert.equal(facts.rows, 4);
      assert.equal(facts.staleShown, false);
      assert.deepEqual(facts.legend, ['node-a (Fixture GPU A)', 'node-c (Fixture GPU C)', 'not measured on node-c yet']);
      assert.equal(facts.bars, 4, 'node-a\'s four bars, none for node-c');
      assert.ok(!facts.text.includes('`'), 'no Markdown backtick on the page');
      assert.ok(!/\bgbps\b/.test(facts.text), 'no raw column id on the page');
      await page.screenshot({ path: screenshotPath(`nodes-pending-${width}`), fullPage: true });
      await page.close();
    });

    test(`a two-node line chart draws a line per node under its legend at ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'terms/occupancy-lines/index.html'));
      assert.deepEqual(await layoutProblems(page), []);
      const c = await page.evaluate(() => {
        const svg = document.querySelector('svg.line-chart');
        const box = svg.getBoundingClientRect();
        const inside = (e) => {
          const r = e.getBoundingClientRect();
          return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
        };
        const scale = box.width / svg.viewBox.baseVal.width;
        return {
          lines: Array.from(svg.querySelectorAll('polyline')).map((l) => ({ cls: l.getAttribute('class'), dash: getComputedStyle(l).strokeDasharray })),
          legend: Array.from(svg.querySelectorAll('.chart-legend text')).map((t) => t.textContent),
          outside: Array.from(svg.querySelectorAll('text, polyline, circle')).filter((e) => !inside(e)).map((e) => e.textContent || e.tagName),
          smallest: Math.min(...Array.from(svg.querySelectorAll('text')).map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
          fits: box.right <= window.innerWidth,
        };
      });
      assert.deepEqual(c.lines.map((l) => l.cls), ['chart-line node-0', 'chart-line node-1']);
      assert.notEqual(c.lines[0].dash, c.lines[1].dash, 'the two lines read apart without colour');
      assert.deepEqual(c.legend, ['node-a (Fixture GPU A)', 'node-b (Fixture GPU B)']);
      assert.deepEqual(c.outside, []);
      assert.ok(c.fits, 'the chart fits the window');
      assert.ok(c.smallest >= 10.5, `smallest text ${c.smallest.toFixed(1)} px`);
      await page.screenshot({ path: screenshotPath(`nodes-line-chart-${width}`), fullPage: true });
      await page.close();
    });

    test(`the verification nodes page lays out at ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'nodes/index.html'));
      assert.deepEqual(await layoutProblems(page), []);
      const sections = await page.evaluate(() => Array.from(document.querySelectorAll('section.node')).map((s) => ({
        id: s.id,
        right: Math.max(...Array.from(s.querySelectorAll('dd, dt, code')).map((e) => e.getBoundingClientRect().right)),
        facts: Array.from(s.querySelectorAll('dt')).map((d) => d.textContent),
      })));
      assert.deepEqual(sections.map((s) => s.id), ['node-a', 'node-b', 'node-c']);
      for (const s of sections) {
        assert.ok(s.right <= width, `${s.id} reaches ${s.right} px in a ${width} px window`);
        for (const f of ['GPU', 'Compute capability', 'SMs', 'L2', 'Memory', 'Drivers seen', 'CUDA seen', 'Runs', 'Signing key', 'Cited by']) {
          assert.ok(s.facts.includes(f), `${s.id} has no ${f}`);
        }
      }
      await page.screenshot({ path: screenshotPath(`nodes-page-${width}`), fullPage: true });
      await page.close();
    });
  }
});
