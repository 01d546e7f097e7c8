// Issue 53: no unsigned file runs on a page, whatever its name, bytes or the content type
// a host gives it. A signed page in static/ loads a signed script, a signed script edited
// since, and inert files whose bytes are also script (notes.txt, CNAME), as scripts and as
// a stylesheet; only the signed, unedited script may run. Tried against a plain static
// host that sends no `nosniff` (Python's http.server) and against `glossary serve`; the
// build's own pages keep running their own scripts under the same policy.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';

import { build, launch, noChromium, serve, tempCopy } from './support.mjs';

function fixture() {
  const dir = process.env.GLOSSARY_STATIC_SCRIPTS_FIXTURE;
  if (!dir || !fs.existsSync(path.join(dir, 'glossary.toml'))) {
    throw new Error('GLOSSARY_STATIC_SCRIPTS_FIXTURE must name the fixture written by run.sh');
  }
  return dir;
}

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/// Python's http.server over `dir`: no nosniff, no CSP header, a .txt as text/plain.
async function plainHost(dir) {
  const port = await freePort();
  const proc = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(url + 'CNAME');
      if (r.ok) {
        assert.equal(r.headers.get('x-content-type-options'), null, 'the plain host sends no nosniff');
        return { url, stop: () => proc.kill() };
      }
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill();
  throw new Error('http.server did not start');
}

/// What ran on the signed page, and what the policy blocked.
async function visit(browser, url) {
  const page = await browser.newPage();
  const console = [];
  page.on('console', (m) => console.push(m.text()));
  await page.goto(url + 'page.html');
  await page.waitForLoadState('load');
  const seen = await page.evaluate(() => ({ ran: window.ran, blocked: window.blocked }));
  const style = await page.evaluate(() => getComputedStyle(document.body).display);
  await page.close();
  return { ...seen, console, style };
}

function checkSigned(seen, where) {
  assert.deepEqual(seen.ran, ['app.js'], `${where}: only the signed script ran: ${JSON.stringify(seen)}`);
  for (const file of ['notes.txt', 'CNAME']) {
    assert.ok(seen.blocked.some((u) => u.endsWith('/' + file)), `${where}: ${file} blocked: ${JSON.stringify(seen)}`);
  }
}

describe('unsigned files run on no page', { skip: noChromium }, () => {
  let browser;
  let site;
  before(async () => {
    browser = await launch();
    const root = tempCopy(fixture(), 'static-scripts');
    site = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-static-scripts-out-')), 'site');
    const b = build(root, site);
    assert.equal(b.status, 0, b.stdout + b.stderr);
    assert.match(b.stdout, /refused static\/late\.js/);
  });
  after(async () => {
    await browser?.close();
  });

  test('on a plain static host (no nosniff), the signed page runs only its signed script', async () => {
    // The files are there, served as a host serves them: the policy, not a 404, stops them.
    assert.ok(fs.existsSync(path.join(site, 'notes.txt')) && fs.existsSync(path.join(site, 'CNAME')));
    assert.ok(!fs.existsSync(path.join(site, 'late.js')), 'the edited script is not published');
    assert.match(fs.readFileSync(path.join(site, '_headers'), 'utf8'), /X-Content-Type-Options: nosniff/);
    const host = await plainHost(site);
    try {
      checkSigned(await visit(browser, host.url), 'http.server');
      // The build's own pages still run their own scripts (search.js and its index).
      const page = await browser.newPage();
      const refused = [];
      page.on('console', (m) => { if (/^(Loading|Executing).*violates/.test(m.text())) refused.push(m.text()); });
      await page.goto(host.url + 'terms/occupancy/index.html');
      await page.fill('#search-input', 'warp slots');
      await page.locator('#search-results li a').first().waitFor();
      assert.deepEqual(refused, []);
      await page.close();
    } finally {
      host.stop();
    }
  });

  test('under glossary serve, the same', async () => {
    const server = await serve(tempCopy(fixture(), 'static-scripts-serve'));
    try {
      checkSigned(await visit(browser, server.url), 'serve');
      // An entry's page runs the build's scripts and serve's live reload under the policy.
      const page = await browser.newPage();
      const refused = [];
      page.on('console', (m) => { if (/^(Loading|Executing).*violates/.test(m.text())) refused.push(m.text()); });
      await page.goto(server.url + 'terms/occupancy/');
      assert.equal(await page.locator('script[src="/__livereload.js"]').count(), 1);
      await page.fill('#search-input', 'warp slots');
      await page.locator('#search-results li a').first().waitFor();
      assert.deepEqual(refused, []);
      await page.close();
    } finally {
      server.stop();
    }
  });
});
