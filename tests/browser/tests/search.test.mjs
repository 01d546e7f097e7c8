// Search in the browser, opened from disk: results are right at 10,000 entries (a rare and
// a common word, the expected answer computed here from the corpus files), an abbreviation
// ranks the entry that has it as an alias first, and results show the summary rendered as
// the entry's page shows it.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { build, corpusBin, launch, noChromium, releaseBin, repo, screenshotPath } from './support.mjs';

/// Cut words as the build and search.js do (src/render/search.rs `tokens`).
function tokens(s) {
  return s.split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '').toLowerCase())
    .filter(Boolean);
}

/// One synthetic entry as the index sees it, read from its file: name, title and summary
/// from the front matter, and the body's text (a link keeps its text, an inline code span
/// is not prose, a code block is).
function readEntry(file) {
  const text = fs.readFileSync(file, 'utf8');
  const [, front, body] = text.split(/^---$/m);
  const field = (key) => {
    const m = front.match(new RegExp(`^${key}: "((?:[^"\\\\]|\\\\.)*)"$`, 'm'));
    assert.ok(m, `${file}: no ${key}`);
    return JSON.parse(`"${m[1]}"`);
  };
  const prose = body.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`[^`\n]+`/g, ' ');
  const slug = path.basename(file, '.md');
  return {
    name: field('name'),
    url: `terms/${slug}/index.html`,
    heading: new Set(tokens(`${field('title')} ${field('name')}`)),
    summary: new Set(tokens(field('summary'))),
    body: new Set(tokens(prose)),
  };
}

/// Where `word` matches an entry as search.js matches it (any word starting with it):
/// 2 heading, 1 summary, 0 body, -1 nowhere.
function matchOf(entry, word) {
  const has = (set) => [...set].some((t) => t.startsWith(word));
  return has(entry.heading) ? 2 : has(entry.summary) ? 1 : has(entry.body) ? 0 : -1;
}

async function searchBox(page, query) {
  await page.fill('#search-input', query);
  await page.waitForFunction((q) => document.querySelector('#search-results .search-count')?.textContent.includes(`“${q}”`), query);
  return {
    count: await page.locator('#search-results .search-count').textContent(),
    names: await page.locator('#search-results li > a').allTextContents(),
  };
}

describe('search over the 10,000-entry synthetic corpus', { skip: noChromium }, () => {
  const N = 10000;
  let browser;
  let tmp;
  let site;
  let entries;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-search-10k-'));
    const root = path.join(tmp, 'corpus');
    const wrote = spawnSync(corpusBin, ['write', '--n', String(N), '--glossary', root,
      '--templates', path.join(repo, 'templates')], { encoding: 'utf8' });
    assert.equal(wrote.status, 0, `glossary-corpus write failed:\n${wrote.stderr}`);
    site = path.join(tmp, 'site');
    const built = spawnSync(releaseBin, ['build', '--root', root, '--out', site], { encoding: 'utf8' });
    assert.equal(built.status, 0, `build failed:\n${built.stderr}`);
    const dir = path.join(root, 'content', 'terms');
    entries = fs.readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => readEntry(path.join(dir, f)));
    assert.equal(entries.length, N);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('a rare word (one entry\'s number) finds that entry first and exactly the entries that hold it', async () => {
    // The number in one entry's name: its own page has it in the name, the few entries
    // that link to it in their body. Above 4000, so no synthetic GB/s value starts with it.
    const owner = entries.find((e) => Number(e.name.split(' ').pop()) >= 5000);
    const word = owner.name.split(' ').pop();
    const expected = entries.filter((e) => matchOf(e, word) >= 0);
    assert.ok(expected.length >= 1 && expected.length <= 10, `a rare word: ${expected.length}`);

    const page = await browser.newPage();
    await page.goto('file://' + path.join(site, 'index.html'));
    const { count, names } = await searchBox(page, word);
    assert.equal(count, `${expected.length} ${expected.length === 1 ? 'entry matches' : 'entries match'} “${word}”.`);
    assert.equal(names[0], owner.name, 'the entry named by it first');
    assert.deepEqual([...names].sort(), expected.map((e) => e.name).sort());
    await page.close();
  });

  test('a common word finds every entry that holds it, summary matches first in name order', async () => {
    const word = 'scheduler';
    const matching = entries.filter((e) => matchOf(e, word) >= 0);
    const inSummary = entries.filter((e) => matchOf(e, word) === 1);
    assert.ok(matching.length > N / 2 && inSummary.length >= 10,
      `a common word: ${matching.length} entries, ${inSummary.length} in the summary`);
    // Equal scores rank by id, and ids follow the names' order (then the page's URL).
    const byName = (a, b) => {
      const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
      return x < y ? -1 : x > y ? 1 : a.url < b.url ? -1 : 1;
    };
    const firstTen = inSummary.sort(byName).slice(0, 10).map((e) => e.name);

    const page = await browser.newPage();
    await page.goto('file://' + path.join(site, 'index.html'));
    const { count, names } = await searchBox(page, word);
    assert.equal(count, `${matching.length} entries match “${word}”.`);
    assert.deepEqual(names, firstTen);
    await page.screenshot({ path: screenshotPath('search-10k-common-word') });
    await page.close();
  });
});

describe('search ranks abbreviations and shows rendered summaries', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    const fixture = process.env.GLOSSARY_SEARCH_FIXTURE;
    assert.ok(fixture && fs.existsSync(path.join(fixture, 'glossary.toml')),
      'GLOSSARY_SEARCH_FIXTURE must name the search fixture written by run.sh');
    site = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-search-fixture-')), 'site');
    const built = build(fixture, site);
    assert.equal(built.status, 0, `build failed:\n${built.stderr}`);
    browser = await launch();
  });
  after(async () => browser?.close());

  test('"SM" ranks the entry with the alias SM first, then the name holding it, then summaries', async () => {
    const page = await browser.newPage();
    await page.goto('file://' + path.join(site, 'terms', 'occupancy', 'index.html'));
    for (const query of ['SM', 'sm']) {
      const { names } = await searchBox(page, query);
      assert.equal(names[0], 'streaming multiprocessor', `${query}: ${names}`);
      // "SM clock" has the word in its name and sorts first: only the alias being the
      // whole query puts the multiprocessor ahead of it.
      assert.equal(names[1], 'SM clock', `${query}: ${names}`);
      assert.ok(names.includes('occupancy') && names.includes('warp scheduler'), `${query}: ${names}`);
    }
    await page.close();
  });

  test('a result shows the summary as the entry page renders it: link, code, emphasis, escaped text', async () => {
    const page = await browser.newPage();
    // From an entry page two levels down: internal links must still lead to the entry.
    await page.goto('file://' + path.join(site, 'terms', 'occupancy', 'index.html'));
    await searchBox(page, 'multiprocessor');
    const item = page.locator('#search-results li', { hasText: 'streaming multiprocessor' }).first();
    const summary = item.locator('.summary');
    const shown = await summary.evaluate((el) => ({
      text: el.textContent,
      links: [...el.querySelectorAll('a')].map((a) => [a.textContent, a.href]),
      code: [...el.querySelectorAll('code')].map((c) => c.textContent),
      em: [...el.querySelectorAll('em')].map((c) => c.textContent),
      other: [...el.querySelectorAll('*')].map((c) => c.tagName).filter((t) => !['A', 'CODE', 'EM'].includes(t)),
    }));
    await page.screenshot({ path: screenshotPath('search-summary-markdown') });

    await page.goto('file://' + path.join(site, 'terms', 'streaming-multiprocessor', 'index.html'));
    const onPage = await page.locator('.definition').evaluate((el) => ({
      text: el.textContent,
      links: [...el.querySelectorAll('a')].map((a) => [a.textContent, a.href]),
      code: [...el.querySelectorAll('code')].map((c) => c.textContent),
      em: [...el.querySelectorAll('em')].map((c) => c.textContent),
    }));
    assert.equal(shown.text, onPage.text);
    assert.deepEqual(shown.links, onPage.links);
    assert.deepEqual(shown.code, onPage.code);
    assert.deepEqual(shown.em, onPage.em);
    assert.deepEqual(shown.other, []);
    assert.deepEqual(shown.code, ['lane<32']);
    assert.equal(shown.links.length, 1);
    assert.match(shown.links[0][1], /\/terms\/warp-scheduler\/index\.html$/);
    assert.ok(!shown.text.includes('['), `no Markdown left: ${shown.text}`);

    // The link works from the result.
    await page.goto('file://' + path.join(site, 'terms', 'occupancy', 'index.html'));
    await searchBox(page, 'multiprocessor');
    await page.locator('#search-results li .summary a', { hasText: 'warp schedulers' }).first().click();
    await page.waitForURL(/terms\/warp-scheduler\/index\.html$/);
    await page.close();
  });
});
