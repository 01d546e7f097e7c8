// Ad-hoc: screenshot pages of a built site at 1280 and 390 px (not a test).
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const [site, out, ...pages] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
for (const width of [1280, 390]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  for (const p of pages) {
    await page.goto('file://' + site + '/' + p);
    const name = p.replace(/\/index\.html$|\.html$/, '').replace(/\//g, '-') || 'index';
    await page.screenshot({ path: `${out}/${name}-${width}.png`, fullPage: process.env.FULL === '1' });
    const sw = await page.evaluate(() => document.documentElement.scrollWidth);
    console.log(width, p, 'scrollWidth', sw);
  }
  await page.close();
}
await browser.close();
