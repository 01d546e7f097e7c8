// Ad-hoc: screenshot one element of a page at a width (not a test).
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const [url, width, sel, out] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: +width, height: 900 } });
await page.goto(url);
if (process.env.DARK) await page.emulateMedia({ colorScheme: 'dark' });
await page.locator(sel).first().screenshot({ path: out });
console.log(await page.evaluate((s) => { const b = document.querySelector(s); const t = b.querySelector('table'); return { box: b.clientWidth, table: t && t.scrollWidth, sw: document.documentElement.scrollWidth }; }, sel));
await browser.close();
