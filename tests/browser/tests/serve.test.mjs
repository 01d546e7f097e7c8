// `glossary serve`'s page for a project that does not build, in Chromium: the first page a
// writer sees after `glossary new term` and `serve --drafts`. Styled like the site (its
// style sheet loads and applies), no sideways scroll at 390 or 1280 px, each problem
// under its file at its line, and what happened said as it was (nothing was saved). The
// screenshots land in tests/browser/out/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { fixtureSite, glossaryBin, launch, noChromium, screenshotPath, serve, tempCopy } from './support.mjs';
import { layoutProblems } from './layout.mjs';

describe('serve: a project that does not build', { skip: noChromium }, () => {
  let server;
  let browser;
  before(async () => {
    const root = tempCopy(fixtureSite(), 'serve-broken');
    const made = spawnSync(glossaryBin, ['new', 'term', 'shared-memory', '--root', root], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    server = await serve(root, ['--drafts']);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    server?.stop();
  });

  for (const width of [390, 1280]) {
    for (const scheme of ['light', 'dark']) {
      test(`at ${width} px (${scheme}): styled like the site, wraps, names each file and line`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 844 }, colorScheme: scheme });
        const response = await page.goto(server.url + 'terms/occupancy/');
        assert.equal(response.status(), 500);

        const seen = await page.evaluate(() => {
          const sheet = Array.from(document.styleSheets).find((s) => s.href?.endsWith('/static/style.css'));
          // A sheet that failed to load (404) has no rules to read: Chromium throws.
          const rules = (s) => { try { return s.cssRules.length; } catch { return 0; } };
          const box = document.getElementById('serve-error');
          const style = getComputedStyle(box);
          return {
            sheetRules: sheet ? rules(sheet) : 0,
            bodyFont: getComputedStyle(document.body).fontFamily,
            layoutMax: document.querySelector('.layout') ? getComputedStyle(document.querySelector('.layout')).maxWidth : 'no .layout',
            boxBackground: style.backgroundColor,
            boxRadius: style.borderTopLeftRadius,
            h1: document.querySelector('h1').textContent,
            lede: document.querySelector('.lede').textContent,
            files: Array.from(box.querySelectorAll('h2')).map((h) => h.textContent),
            items: Array.from(box.querySelectorAll('li')).map((li) => li.textContent),
            pre: document.querySelectorAll('pre').length,
          };
        });
        // The site's own style sheet, loaded and applied.
        assert.ok(seen.sheetRules > 50, `style.css not applied (${seen.sheetRules} rules)`);
        assert.match(seen.bodyFont, /system-ui/);
        assert.equal(seen.layoutMax, '736px');
        assert.notEqual(seen.boxBackground, 'rgba(0, 0, 0, 0)', 'the problems are on the warning panel');
        assert.equal(seen.boxRadius, '6px');
        // What happened, and where.
        assert.equal(seen.h1, 'content/terms/shared-memory.md does not build');
        assert.match(seen.lede, /^The project as serve found it does not build: 5 problems/);
        assert.doesNotMatch(seen.lede, /save/);
        assert.deepEqual(seen.files, ['content/terms/shared-memory.md']);
        assert.equal(seen.items.length, 5);
        for (const [i, line] of [2, 4, 8, 9, 12].entries()) {
          assert.match(seen.items[i], new RegExp(`^Line ${line}, column \\d+: placeholder left by glossary new term`));
          assert.match(seen.items[i], new RegExp(`content/terms/shared-memory\\.md:${line}:\\d+$`));
        }
        assert.equal(seen.pre, 0);

        // Nothing runs off the page: no sideways scroll, and no element past the edge.
        assert.deepEqual(await layoutProblems(page), []);
        const past = await page.evaluate(() => Array.from(document.querySelectorAll('body *'))
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
          .map((el) => `${el.tagName.toLowerCase()}: ${el.textContent.slice(0, 40)}`));
        assert.deepEqual(past, []);
        await page.screenshot({ path: screenshotPath(`serve-build-failed-${width}-${scheme}`), fullPage: true });
        await page.close();
      });
    }
  }
});
