// Layout of every page at a laptop width (1280 px) and a phone width (390 px), opened from
// disk as the README suggests: no page scrolls sideways, no image is broken, every table's
// columns lie inside its box or its scroll container (and a scrolling table says so),
// captions are never cut, label cells never break inside a word, internal links name
// files. The repository's own content must also show every table column at 1280 px.
// Screenshots land in tests/browser/out/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { build, htmlFiles, launch, noChromium, repo, screenshotPath } from './support.mjs';
import { layoutProblems, pagesOf } from './layout.mjs';

const WIDTHS = [1280, 390];

/// Build `parts` of `root` (copied into a temp folder) with --drafts; returns the site.
function buildCopy(root, parts, name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `glossary-${name}-`));
  for (const part of parts) {
    const src = path.join(root, part);
    if (fs.existsSync(src)) fs.cpSync(src, path.join(tmp, part), { recursive: true });
  }
  const site = path.join(tmp, 'out');
  const result = build(tmp, site, ['--drafts']);
  if (result.status !== 0) throw new Error(`building ${name} failed:\n${result.stderr}`);
  return { site, stderr: result.stderr };
}

/// Open every page at every width; returns problems as "width page: problem".
async function checkSite(browser, site, { allColumnsVisibleAt = null, shots = [], prefix }) {
  const problems = [];
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    for (const rel of pagesOf(htmlFiles(site), site)) {
      await page.goto('file://' + path.join(site, rel));
      const found = await layoutProblems(page, { allColumnsVisible: width === allColumnsVisibleAt });
      problems.push(...found.map((p) => `${width}px ${rel}: ${p}`));
      if (shots.includes(rel)) {
        const name = `${prefix}-${rel.replace(/\/index\.html$|\.html$/, '').replace(/\//g, '-')}-${width}`;
        await page.screenshot({ path: screenshotPath(name), fullPage: true });
      }
    }
    await page.close();
  }
  return problems;
}

describe('layout of the repository content (build --drafts)', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    ({ site } = buildCopy(repo, ['content', 'templates', 'measurements', 'glossary.toml'], 'repo-layout'));
    browser = await launch();
  });
  after(async () => browser?.close());

  test('every page at 1280 and 390 px: no sideways page, every column visible at 1280, no broken image, no cut caption', async () => {
    const problems = await checkSite(browser, site, {
      allColumnsVisibleAt: 1280,
      prefix: 'repo-layout',
      shots: ['index.html', 'lessons/day-45-occupancy/index.html', 'terms/occupancy/index.html'],
    });
    assert.deepEqual(problems, []);
  });

  test('the Day 45 table shows all its columns at 1280 px and scrolls in its own box at 390 px', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto('file://' + path.join(site, 'lessons/day-45-occupancy/index.html'));
    const wide = await page.evaluate(() => {
      const box = document.querySelector('.measured-table .table-scroll');
      const cells = Array.from(box.querySelectorAll('thead th'));
      const b = box.getBoundingClientRect();
      return { columns: cells.length, visible: cells.filter((c) => c.getBoundingClientRect().right <= b.right + 1).length };
    });
    assert.equal(wide.visible, wide.columns, `${wide.visible} of ${wide.columns} columns visible`);
    await page.setViewportSize({ width: 390, height: 900 });
    // tables.js shows the hint from its resize handler, which runs after the resize is
    // dispatched: wait for it (on a loaded machine the check below could run first).
    await page
      .waitForFunction(() => document.querySelector('.measured-table .scroll-hint.is-shown'), null, { timeout: 5000 })
      .catch(() => {});
    const narrow = await page.evaluate(() => {
      const box = document.querySelector('.measured-table .table-scroll');
      const hint = box.nextElementSibling;
      return {
        scrolls: box.scrollWidth > box.clientWidth,
        overflowX: getComputedStyle(box).overflowX,
        hint: hint.classList.contains('scroll-hint') && hint.offsetParent !== null ? hint.textContent : null,
        page: document.documentElement.scrollWidth,
      };
    });
    assert.ok(wide.columns >= 9, `the Day 45 table has ${wide.columns} columns`);
    assert.ok(narrow.scrolls, `${wide.columns} columns do not fit 390 px`);
    assert.equal(narrow.overflowX, 'auto');
    assert.match(narrow.hint ?? '', new RegExp(`sideways.*${wide.columns} columns`));
    assert.ok(narrow.page <= 390, `page is ${narrow.page} px wide`);
    await page.close();
  });
  test('a two-node table\'s scroll hint counts its columns, not its header\'s node groups', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await page.goto('file://' + path.join(site, 'lessons/day-10-block-size/index.html'));
    await page
      .waitForFunction(() => document.querySelector('.measured-table .scroll-hint.is-shown'), null, { timeout: 5000 })
      .catch(() => {});
    const seen = await page.evaluate(() => {
      const box = document.querySelector('.measured-table .table-scroll');
      return {
        groups: box.querySelectorAll('thead th.node-group').length,
        header: box.querySelector('thead tr').cells.length,
        columns: box.querySelector('tbody tr').cells.length,
        hint: box.nextElementSibling.textContent,
      };
    });
    assert.ok(seen.groups >= 2, `node groups: ${seen.groups}`);
    assert.notEqual(seen.header, seen.columns, 'the first header row spans the groups');
    assert.equal(seen.hint, `Scroll the table sideways to see all ${seen.columns} columns.`);
    await page.close();
  });

  test('on a phone a draft\'s title is on the first screen; captions and provenance keep a reading width', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto('file://' + path.join(site, 'terms/memory-latency/index.html'));
    // The drafts preview's banner and the draft's own (its reasons folded) above the title:
    // both once filled 470 of the 844 px.
    const top = await page.evaluate(() => document.querySelector('h1').getBoundingClientRect().top);
    await page.screenshot({ path: screenshotPath('repo-layout-draft-banners-390x844') });
    assert.ok(top < 844 / 2, `the title starts ${top} px down an 844 px screen`);
    const reasons = await page.evaluate(() => document.querySelectorAll('.draft-banner details li').length);
    assert.ok(reasons > 0, 'the draft\'s reasons are in the page, folded');
    await page.setViewportSize({ width: 1280, height: 900 });
    const widths = await page.evaluate(() => [...document.querySelectorAll('.measured figcaption, .provenance')]
      .map((e) => e.getBoundingClientRect().width / parseFloat(getComputedStyle(e).fontSize)));
    assert.ok(widths.length >= 2, `captions and provenance lines: ${widths.length}`);
    for (const w of widths) assert.ok(w <= 48, `a caption or provenance line ${w.toFixed(1)} em wide (about 130 characters at 70 em)`);
    await page.close();
  });

  test('the index groups the terms by topic, in the fixed order, A-Z within each, at 1280 and 390 px', async () => {
    const order = ['Memory', 'Execution', 'Tensor cores', 'Tools', 'Other'];
    for (const width of WIDTHS) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'index.html'));
      const found = await page.evaluate(() => {
        const section = document.querySelector('section.topics');
        const headings = Array.from(section.querySelectorAll('h3'));
        const groups = headings.map((h) => ({
          title: h.textContent,
          names: Array.from(h.nextElementSibling.querySelectorAll('li > a')).map((a) => a.textContent),
          // Every link inside the page's width, and on screen (not clipped to nothing).
          inside: Array.from(h.nextElementSibling.querySelectorAll('li > a')).every((a) => {
            const r = a.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && r.right <= document.documentElement.clientWidth + 1;
          }),
        }));
        const az = document.getElementById('terms-az');
        return {
          groups,
          page: document.documentElement.scrollWidth,
          view: window.innerWidth,
          // The topic list comes before the A-Z index.
          beforeAz: section.getBoundingClientRect().bottom <= az.getBoundingClientRect().top + 1,
          terms: document.querySelectorAll('section.topics li').length,
          azTerms: document.querySelectorAll('.term-index dt:not(.alias)').length,
        };
      });
      const titles = found.groups.map((g) => g.title);
      assert.deepEqual(titles, order.filter((t) => titles.includes(t)), `${width}px: headings in the fixed order`);
      assert.ok(titles.length >= 4, `${width}px: ${titles.join(', ')}`);
      for (const g of found.groups) {
        // As the index sorts ASCII names: case aside, by code point.
        const key = (n) => n.toLowerCase();
        const sorted = [...g.names].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
        assert.deepEqual(g.names, sorted, `${width}px: ${g.title} is A-Z`);
        assert.ok(g.names.length > 0, `${width}px: ${g.title} lists terms`);
        assert.ok(g.inside, `${width}px: ${g.title}'s links fit the page`);
      }
      assert.equal(found.terms, found.azTerms, `${width}px: every term of the A-Z index is under a topic`);
      assert.ok(found.page <= found.view, `${width}px: the page is ${found.page} px wide in a ${found.view} px view`);
      assert.ok(found.beforeAz, `${width}px: the topic list comes before the A-Z index`);
      const shot = await page.locator('section.topics').screenshot({ path: screenshotPath(`index-topics-${width}`) });
      assert.ok(shot.length > 0);
      await page.close();
    }
  });
});

describe('layout of the realistic corpus (tests/fixtures/sites/corpus, build --drafts)', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-corpus-src-'));
    fs.cpSync(path.join(repo, 'tests/fixtures/sites/corpus'), root, { recursive: true });
    fs.cpSync(path.join(repo, 'templates'), path.join(root, 'templates'), { recursive: true });
    ({ site } = buildCopy(root, ['content', 'templates', 'glossary.toml'], 'corpus-layout'));
    browser = await launch();
  });
  after(async () => browser?.close());

  test('every page at 1280 and 390 px: no sideways page, no broken image, every table inside its box or its scroll container', async () => {
    const pages = pagesOf(htmlFiles(site), site);
    assert.ok(pages.length >= 60, `${pages.length} pages`);
    const problems = await checkSite(browser, site, {
      allColumnsVisibleAt: 1280,
      prefix: 'corpus',
      shots: ['index.html', 'terms/tensor-core/index.html', 'lessons/day-2-memory-patterns/index.html', 'guides/porting-from-cpu/index.html'],
    });
    assert.deepEqual(problems, []);
  });


  test('the corpus has figures and they load, light and dark', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const found = { light: 0, dark: 0, darkVariant: 0 };
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const rel of pagesOf(htmlFiles(site), site)) {
        if (!/<img /.test(fs.readFileSync(path.join(site, rel), 'utf8'))) continue;
        await page.goto('file://' + path.join(site, rel));
        // Figures load lazily: make each one load now, then read what it decoded to (a
        // broken file fails decode() and keeps naturalWidth 0).
        const seen = await page.evaluate(async () => {
          const images = Array.from(document.images);
          for (const i of images) {
            i.loading = 'eager';
            await i.decode().catch(() => {});
          }
          return images.map((i) => ({ src: i.currentSrc || i.src, w: i.naturalWidth }));
        });
        for (const img of seen) {
          assert.ok(img.w > 0, `${scheme} ${rel}: ${img.src} is broken`);
          found[scheme] += 1;
          if (scheme === 'dark' && /\.dark\.[a-z]+$/.test(img.src)) found.darkVariant += 1;
        }
      }
    }
    await page.close();
    assert.ok(found.light >= 2, `figures in the corpus: ${JSON.stringify(found)}`);
    assert.ok(found.darkVariant >= 1, `the dark scheme picks a dark variant: ${JSON.stringify(found)}`);
  });
});

describe('layout of the imported glossary (tests/fixtures/sites/imported, signed, plain build)', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    const fixture = process.env.GLOSSARY_IMPORTED_FIXTURE;
    assert.ok(fixture && fs.existsSync(path.join(fixture, 'glossary.toml')),
      'GLOSSARY_IMPORTED_FIXTURE must name the imported fixture written by run.sh');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-imported-src-'));
    fs.cpSync(fixture, root, { recursive: true });
    site = path.join(root, 'out');
    const result = build(root, site);
    assert.equal(result.status, 0, `the imported glossary builds:\n${result.stderr}`);
    assert.doesNotMatch(result.stderr, /error|warning/);
    browser = await launch();
  });
  after(async () => browser?.close());

  test('every page, section intro pages among them, at 1280 and 390 px', async () => {
    const pages = pagesOf(htmlFiles(site), site);
    assert.ok(pages.filter((p) => p.startsWith('sections/')).length === 4, 'four section pages');
    assert.ok(pages.length >= 43, `${pages.length} pages`);
    const problems = await checkSite(browser, site, {
      prefix: 'imported',
      shots: ['index.html', 'terms/streaming-multiprocessor/index.html', 'sections/device-hardware/index.html', 'terms/sass/index.html'],
    });
    assert.deepEqual(problems, []);
  });

  test('every old URL lands on its entry in the browser', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await page.goto('file://' + path.join(site, 'gpu-glossary/device-software/warp/index.html'));
    await page.waitForURL(/terms\/warp\/index\.html$/);
    assert.match(await page.textContent('h1'), /What is a warp\?/);
    await page.close();
  });

  test('a section page lists its terms, name and summary in the section\'s order, below its body', async () => {
    for (const width of WIDTHS) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto('file://' + path.join(site, 'sections/device-hardware/index.html'));
      const found = await page.evaluate(() => {
        const body = document.querySelector('.entry > .body');
        const list = document.querySelector('.section-members');
        const items = Array.from(list.querySelectorAll('li')).map((li) => ({
          name: li.querySelector('a').textContent,
          summary: li.querySelector('.summary')?.textContent ?? '',
        }));
        // The sidebar's group for this section, in the same order.
        const group = Array.from(document.querySelectorAll('.sidebar h3'))
          .find((h) => h.querySelector('[aria-current="page"]'));
        const sidebar = Array.from(group.nextElementSibling.querySelectorAll('a')).map((a) => a.textContent);
        return {
          below: list.getBoundingClientRect().top >= body.getBoundingClientRect().bottom - 1,
          items, sidebar,
          inside: list.getBoundingClientRect().right <= document.documentElement.clientWidth + 1,
        };
      });
      assert.ok(found.below, `${width}px: the list is below the body`);
      assert.ok(found.inside, `${width}px: the list fits the page`);
      assert.ok(found.items.length >= 5, `${width}px: ${found.items.length} items`);
      assert.deepEqual(found.items.map((i) => i.name), found.sidebar, 'the sidebar\'s order');
      for (const i of found.items) assert.ok(i.summary.length > 10, `${i.name} has its summary`);
      await page.screenshot({ path: screenshotPath(`section-members-${width}`), fullPage: true });
      await page.close();
    }
  });

  test('a long PTX line scrolls inside its code block at 390 px, never the page', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await page.goto('file://' + path.join(site, 'terms/ptx/index.html'));
    const box = await page.evaluate(() => {
      const pre = Array.from(document.querySelectorAll('.body pre'))
        .find((p) => p.textContent.includes('wmma.mma.sync'));
      const r = pre.getBoundingClientRect();
      return {
        page: document.documentElement.scrollWidth, view: window.innerWidth,
        scrolls: pre.scrollWidth > pre.clientWidth + 50, right: r.right,
      };
    });
    assert.ok(box.page <= box.view, `the page is ${box.page} px wide in a ${box.view} px view`);
    assert.ok(box.scrolls, 'the long line scrolls inside the block');
    assert.ok(box.right <= box.view, `the block ends at ${box.right} px`);
    await page.screenshot({ path: screenshotPath('ptx-long-line-390'), fullPage: false });
    await page.close();
  });

  test('in dark mode a figure without a .dark variant sits on a light panel', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto('file://' + path.join(site, 'terms/warp/index.html'));
    const seen = await page.evaluate(() => {
      const img = document.querySelector('.body figure img[src$="warp-lanes.svg"]');
      const rgb = (c) => c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
      const lum = (c) => rgb(c).reduce((a, v) => a + v, 0) / 765;
      return {
        inPicture: img.parentElement.tagName === 'PICTURE',
        panel: lum(getComputedStyle(img).backgroundColor),
        page: lum(getComputedStyle(document.body).backgroundColor),
      };
    });
    assert.equal(seen.inPicture, false, 'no dark variant');
    assert.ok(seen.page < 0.2, `a dark page (${seen.page})`);
    assert.ok(seen.panel > 0.9, `the image's panel is light (${seen.panel})`);
    await page.screenshot({ path: screenshotPath('warp-dark-1280'), fullPage: true });
    // A figure with a .dark variant keeps the page's background.
    await page.goto('file://' + path.join(site, 'terms/streaming-multiprocessor/index.html'));
    const themed = await page.evaluate(() => getComputedStyle(document.querySelector('.body picture img')).backgroundColor);
    assert.match(themed, /rgba\(0, 0, 0, 0\)|transparent/);
    await page.close();
  });

  test('captions sit under their light and dark figures', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('file://' + path.join(site, 'terms/streaming-multiprocessor/index.html'));
      const fig = await page.evaluate(async () => {
        const f = document.querySelector('.body figure');
        const img = f.querySelector('img');
        img.loading = 'eager';
        await img.decode().catch(() => {});
        const cap = f.querySelector('figcaption');
        return {
          src: img.currentSrc, w: img.naturalWidth,
          below: cap.getBoundingClientRect().top >= img.getBoundingClientRect().bottom - 1,
          link: cap.querySelector('a')?.textContent,
        };
      });
      assert.ok(fig.w > 0, `${scheme}: ${fig.src}`);
      assert.equal(/\.dark\.svg$/.test(fig.src), scheme === 'dark', fig.src);
      assert.ok(fig.below, 'the caption is under the image');
      assert.equal(fig.link, 'warp scheduler');
    }
    await page.close();
  });
});

describe('the layout checks catch each kind of fault', { skip: noChromium }, () => {
  test('markup in a summary, overflow at 390 px, a break inside an option, small chart text, a cut chart value', async () => {
    const browser = await launch();
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    const css = 'file://' + path.join(repo, 'templates/static/style.css');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-faults-')), 'faults.html');
    fs.writeFileSync(file, `<!doctype html><link rel="stylesheet" href="${css}"><main>
      <p class="definition">What <strong>launch_bounds</strong> does</p>
      <ul class="sources"><li><a style="overflow-wrap: normal; white-space: nowrap" href="https://x.example/">https://docs.example.org/cuda/a-very-long-path/that-does-not-wrap/at-all</a></li></ul>
      <p style="width: 5rem">use <code style="white-space: normal">--maxrregcount=64</code> here</p>
      <div class="chart"><svg class="bar-chart" style="min-width: 0; width: 200px" viewBox="0 0 480 40"><text class="chart-label" x="10" y="20">label</text></svg></div>
      <div class="chart"><svg class="bar-chart" width="360" height="40" viewBox="0 0 360 40"><rect class="chart-bar" x="100" y="10" width="200" height="16"></rect><text class="chart-value" x="306" y="23">7.582 ±0.013</text></svg></div>
    </main>`);
    await page.goto('file://' + file);
    const problems = await layoutProblems(page);
    await browser.close();
    const kinds = [/summary shows "launch_bounds" as emphasis/, /overflows the page by/, /option "--maxrregcount=64" breaks/, /chart text "label" is drawn at/, /chart text "7.582 ±0.013" is cut off/];
    for (const kind of kinds) {
      assert.ok(problems.some((p) => kind.test(p)), `${kind} in ${JSON.stringify(problems)}`);
    }
  });
});
