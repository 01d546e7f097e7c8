// The built site in headless Chromium: search, live reload, accessibility (axe-core),
// layout at phone width and in print, and HTML validity (html-validate) of every page.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  axeViolations, build, fixtureSite, htmlFiles, launch, noChromium, recordForeignRequests,
  repo, screenshotPath, serve, tempCopy, validateHtml,
} from './support.mjs';

const entryPages = {
  index: '',
  term: 'terms/occupancy/',
  lesson: 'lessons/day-1-fixture/',
  guide: 'guides/fixture-guide/',
};

describe('the published fixture site, served', { skip: noChromium }, () => {
  let server;
  let browser;
  before(async () => {
    server = await serve(tempCopy(fixtureSite(), 'serve'));
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    server?.stop();
  });

  test('search finds the occupancy entry from "warp slots", with no third-party request', async () => {
    const page = await browser.newPage();
    const foreign = recordForeignRequests(page, server.url);
    await page.goto(server.url + entryPages.guide);
    await page.fill('#search-input', 'warp slots');
    const results = page.locator('#search-results li a');
    await results.first().waitFor();
    const names = await results.allTextContents();
    assert.ok(names.includes('occupancy'), `occupancy among ${names}`);
    // The lesson has both words in its title; occupancy has the phrase in its body only.
    assert.ok(names.indexOf('Day 1 — warps and slots') < names.indexOf('occupancy'), `title before body: ${names}`);
    await page.screenshot({ path: screenshotPath('search-warp-slots') });

    // A title match outranks a body match, and every term must match.
    await page.fill('#search-input', 'scheduler');
    await page.waitForFunction(() => document.querySelector('#search-results .search-count')?.textContent.includes('“scheduler”'));
    assert.deepEqual(await results.allTextContents(), ['warp scheduler', 'occupancy']);
    await page.fill('#search-input', 'warp nosuchword');
    await page.waitForFunction(() => document.querySelector('#search-results')?.textContent.includes('No entry matches'));

    // Drafts are never searchable.
    await page.fill('#search-input', 'draftonlyword');
    await page.waitForFunction(() => document.querySelector('#search-results')?.textContent.includes('No entry matches'));

    // Following a result opens the entry.
    await page.fill('#search-input', 'warp slots');
    await results.first().waitFor();
    await page.locator('#search-results li a', { hasText: 'occupancy' }).click();
    await page.waitForURL(/terms\/occupancy\/index\.html$/);

    // The search page answers ?q= too (the form's target without script).
    await page.goto(server.url + 'search/index.html?q=warp+slots');
    await page.waitForFunction(() => document.getElementById('search-page-status')?.textContent.includes('warp slots'));
    const listed = await page.locator('#search-page-results li a').allTextContents();
    assert.deepEqual(listed, names, 'the search page ranks like the search box');
    assert.deepEqual(foreign, []);
    await page.close();
  });

  for (const scheme of ['light', 'dark']) {
    test(`axe finds no violations on the index, a term, a lesson and a guide (${scheme})`, async () => {
      const page = await browser.newPage();
      await page.emulateMedia({ colorScheme: scheme });
      const found = [];
      for (const [kind, url] of Object.entries(entryPages)) {
        await page.goto(server.url + url);
        found.push(...(await axeViolations(page)).map((v) => `${kind}: ${v}`));
        await page.screenshot({ path: screenshotPath(`${kind}-${scheme}`), fullPage: true });
      }
      await page.close();
      assert.deepEqual(found, []);
    });
  }

  test('pages fit a 360 px wide phone without sideways scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const wide = [];
    for (const [kind, url] of Object.entries(entryPages)) {
      await page.goto(server.url + url);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 360) wide.push(`${kind}: ${width}px`);
      await page.screenshot({ path: screenshotPath(`${kind}-phone`), fullPage: true });
    }
    await page.close();
    assert.deepEqual(wide, []);
  });

  test('a line chart is labelled, marks every point beside its table, and stays readable at 390 px and in dark mode', async () => {
    const url = server.url + 'terms/warp-scheduler/';
    const seen = {};
    for (const [name, viewport, scheme] of [['desktop', { width: 1280, height: 900 }, 'light'], ['phone', { width: 390, height: 844 }, 'dark']]) {
      const page = await browser.newPage({ viewport });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(url);
      const chart = page.locator('.measured svg.line-chart');
      await chart.waitFor();
      seen[name] = await page.evaluate(() => {
        const svg = document.querySelector('.measured svg.line-chart');
        const ids = (svg.getAttribute('aria-labelledby') || '').split(' ');
        const tick = svg.querySelector('.chart-tick').getBoundingClientRect();
        const line = getComputedStyle(svg.querySelector('.chart-line'));
        const title = getComputedStyle(svg.querySelector('.chart-axis-title'));
        return {
          role: svg.getAttribute('role'),
          named: ids.map((id) => document.getElementById(id)?.textContent || ''),
          points: svg.querySelectorAll('circle.chart-point').length,
          tableRows: svg.closest('figure').querySelectorAll('table tbody tr').length,
          axisTitles: [...svg.querySelectorAll('.chart-axis-title')].map((t) => t.textContent),
          width: svg.getBoundingClientRect().width,
          tickHeight: tick.height,
          stroke: line.stroke,
          titleFill: title.fill,
          background: getComputedStyle(document.body).backgroundColor,
          pageWidth: document.documentElement.scrollWidth,
        };
      });
      assert.deepEqual(await axeViolations(page), [], `${name}: axe`);
      await chart.screenshot({ path: screenshotPath(`line-chart-${name}`) });
      await page.screenshot({ path: screenshotPath(`line-chart-page-${name}`), fullPage: true });
      await page.close();
    }
    for (const [name, s] of Object.entries(seen)) {
      assert.equal(s.role, 'img', name);
      assert.match(s.named[0], /^Line chart of .+ against .+/, name);
      assert.match(s.named[1], /3 points/, name);
      assert.equal(s.points, 3, `${name}: every point is marked`);
      assert.equal(s.tableRows, 3, `${name}: the data table stays beside the chart`);
      assert.equal(s.axisTitles.length, 2, `${name}: both axes are titled`);
      assert.ok(s.width <= (name === 'phone' ? 390 : 1280), `${name}: ${s.width}px wide`);
      assert.ok(s.tickHeight >= 10, `${name}: tick labels ${s.tickHeight}px tall`);
      assert.notEqual(s.stroke, s.background, `${name}: the line shows against the page`);
    }
    assert.ok(seen.phone.pageWidth <= 390, `no sideways scrolling at 390 px: ${seen.phone.pageWidth}`);
    // Dark mode swaps the palette: the axis titles are light on dark.
    assert.notEqual(seen.phone.titleFill, seen.desktop.titleFill, 'axis text follows the colour scheme');
  });

  test('print hides navigation and search and shows link targets', async () => {
    const page = await browser.newPage();
    await page.goto(server.url + entryPages.term);
    await page.emulateMedia({ media: 'print' });
    const seen = await page.evaluate(() => ({
      header: getComputedStyle(document.querySelector('.site-header')).display,
      link: getComputedStyle(document.querySelector('.sources a'), '::after').content,
      table: getComputedStyle(document.querySelector('.measured table')).breakInside,
    }));
    assert.equal(seen.header, 'none');
    assert.match(seen.link, /https:\/\/docs\.nvidia\.com/);
    assert.equal(seen.table, 'avoid');
    await page.pdf({ path: path.join(path.dirname(screenshotPath('x')), 'term-print.pdf') });
    await page.close();
  });
});

describe('live reload', { skip: noChromium }, () => {
  let server;
  let browser;
  let root;
  before(async () => {
    root = tempCopy(fixtureSite(), 'reload');
    server = await serve(root, ['--drafts']);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    server?.stop();
  });

  test('an edit reaches the open page; a broken edit shows its error; the next good save recovers', async () => {
    const page = await browser.newPage();
    await page.goto(server.url + 'terms/warp-scheduler/');
    const file = path.join(root, 'content/terms/warp-scheduler.md');
    const good = fs.readFileSync(file, 'utf8');

    fs.writeFileSync(file, good.replace('Each cycle', 'Edited live: each cycle'));
    await page.waitForFunction(() => document.body.innerText.includes('Edited live'), null, { timeout: 20000 });
    await page.screenshot({ path: screenshotPath('live-reload-edit') });

    fs.writeFileSync(file, good.replace('title:', 'title: [unclosed'));
    await page.waitForFunction(
      () => document.getElementById('serve-error')?.textContent.includes('warp-scheduler.md'),
      null, { timeout: 20000 });
    await page.screenshot({ path: screenshotPath('live-reload-error') });

    fs.writeFileSync(file, good.replace('Each cycle', 'Recovered: each cycle'));
    await page.waitForFunction(() => document.body.innerText.includes('Recovered: each cycle'), null, { timeout: 20000 });
    await page.close();
  });
});

describe('html-validate', () => {
  test('every page of the built fixture site (drafts included) is valid', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-validate-'));
    const site = path.join(out, 'site');
    const result = build(tempCopy(fixtureSite(), 'validate'), site, ['--drafts']);
    assert.equal(result.status, 0, result.stderr);
    const files = htmlFiles(site);
    assert.ok(files.length >= 7, `expected the fixture's pages, found ${files.length}`);
    assert.deepEqual(await validateHtml(files), []);
  });
});

describe('the repository content', () => {
  let site;
  before(() => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-repo-'));
    for (const part of ['content', 'templates', 'measurements', 'glossary.toml']) {
      const src = path.join(repo, part);
      if (fs.existsSync(src)) fs.cpSync(src, path.join(root, part), { recursive: true });
    }
    site = path.join(root, 'out');
    const result = build(root, site, ['--drafts']);
    if (result.status !== 0) {
      throw new Error('building the repository content failed:\n' + result.stderr);
    }
  });

  test('every page is valid HTML', async () => {
    assert.deepEqual(await validateHtml(htmlFiles(site)), []);
  });

  test('axe finds no violations on the index, the occupancy term, the day 45 lesson and the guide', { skip: noChromium }, async () => {
    const browser = await launch();
    const page = await browser.newPage();
    const found = [];
    for (const url of ['index.html', 'terms/occupancy/index.html', 'lessons/day-45-occupancy/index.html', 'guides/occupancy-limiting-factor/index.html']) {
      await page.goto('file://' + path.join(site, url));
      found.push(...(await axeViolations(page)).map((v) => `${url}: ${v}`));
      await page.screenshot({ path: screenshotPath('repo-' + url.replace(/\/index\.html$|\.html$/, '').replace(/\//g, '-')), fullPage: true });
    }
    await browser.close();
    assert.deepEqual(found, []);
  });
});
