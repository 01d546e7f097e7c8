import fs from 'node:fs';

// Layout checks run in the page, at any width, on any built site: what a reader would see
// go wrong. Each returns a list of problems ("" when none), so one run reports them all.

/// Everything wrong with the layout of the page open in `page`. `allColumnsVisible`: every
/// table must fit its box without scrolling (the shipped content at 1280 px).
export async function layoutProblems(page, { allColumnsVisible = false } = {}) {
  // Images must have loaded (or failed) before naturalWidth means anything.
  await page.evaluate(() => Promise.all(Array.from(document.images)
    .filter((img) => !img.complete)
    .map((img) => new Promise((done) => { img.onload = done; img.onerror = done; }))));
  return page.evaluate((allColumnsVisible) => {
    const problems = [];
    const width = window.innerWidth;
    const doc = document.documentElement;
    if (doc.scrollWidth > width) {
      const wide = Array.from(document.querySelectorAll('body *'))
        .filter((el) => el.getBoundingClientRect().right > width + 1)
        .filter((el) => !el.closest('.table-scroll, pre'))
        .slice(0, 3)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      problems.push(`page scrolls sideways: scrollWidth ${doc.scrollWidth} > ${width} (widest: ${wide.join(', ')})`);
    }
    for (const img of document.images) {
      if (!(img.naturalWidth > 0)) problems.push(`broken image ${img.getAttribute('src')}`);
    }
    const scrollsX = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    document.querySelectorAll('table').forEach((table, t) => {
      // The box a table's columns must lie in: its scroll container, else its parent.
      let box = table.parentElement;
      while (box && box !== document.body && !scrollsX(box)) box = box.parentElement;
      const scroller = box && box !== document.body ? box : null;
      const container = scroller || table.parentElement;
      const c = container.getBoundingClientRect();
      const right = scroller ? c.left + scroller.scrollWidth : c.right;
      const name = `table ${t + 1} (${(table.querySelector('th, td')?.textContent || '').trim().slice(0, 20)})`;
      for (const cell of table.rows[0]?.cells || []) {
        const r = cell.getBoundingClientRect();
        if (r.right > right + 1 || r.left < c.left - 1) {
          problems.push(`${name}: column "${cell.textContent.trim()}" lies outside its box`);
        }
      }
      if (scroller) {
        const overflows = scroller.scrollWidth > scroller.clientWidth + 1;
        if (overflows && allColumnsVisible) {
          problems.push(`${name}: needs sideways scrolling (${scroller.scrollWidth} > ${scroller.clientWidth} px)`);
        }
        // A table that scrolls says so: the script's hint line, shown.
        const hint = scroller.nextElementSibling;
        if (overflows && !(hint && hint.classList.contains('scroll-hint') && hint.offsetParent !== null)) {
          problems.push(`${name}: scrolls sideways without a visible cue`);
        }
      } else if (table.getBoundingClientRect().right > width + 1) {
        problems.push(`${name}: wider than the page and not in a scrolling box`);
      }
    });
    // Captions wrap; none is cut off.
    document.querySelectorAll('caption, figcaption').forEach((cap) => {
      if (cap.scrollWidth > cap.clientWidth + 1 || cap.closest('.table-scroll')) {
        problems.push(`caption clipped: "${cap.textContent.trim().slice(0, 40)}"`);
      }
      if (cap.getBoundingClientRect().right > width + 1) {
        problems.push(`caption runs off the page: "${cap.textContent.trim().slice(0, 40)}"`);
      }
    });
    // Label columns never break inside a word: each word of a label cell is on one line.
    const labels = document.querySelectorAll('td.label, th.label, .body td:first-child, .body th:first-child');
    for (const cell of labels) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.data.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) problems.push(`label "${m[0]}" breaks across lines`);
        }
      }
    }
    // Nothing reaches past the viewport's right edge, even where an ancestor clips it (a
    // long URL in a source list): only tables, code blocks and charts scroll, in their box.
    const inScroller = (el) => el.closest('.table-scroll, pre, .chart');
    for (const el of document.querySelectorAll('main a, main code, main p, main li, main h1, main h2, main figcaption, main img, main svg')) {
      if (inScroller(el)) continue;
      const over = el.getBoundingClientRect().right - width;
      if (over > 1) {
        problems.push(`${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('src') || '').trim().slice(0, 40)}" overflows the page by ${Math.round(over)} px`);
      }
    }
    // Markup in summaries: emphasis holding `_` is an identifier that Markdown read as
    // emphasis (`__launch_bounds__` written bare shows as bold "launch_bounds").
    for (const el of document.querySelectorAll('.definition :is(strong, em), .summary :is(strong, em), .lede :is(strong, em)')) {
      if (el.textContent.includes('_') && !el.querySelector('code')) {
        problems.push(`summary shows "${el.textContent}" as emphasis: an identifier needs backticks`);
      }
    }
    // A command-line option (`--drafts`, `-O3`) in code never breaks across lines.
    for (const code of document.querySelectorAll('code')) {
      if (code.closest('pre')) continue;
      const t = code.textContent.trim();
      if (!(code.classList.contains('opt') || /^-{1,2}[A-Za-z0-9]\S*$/.test(t))) continue;
      const tops = new Set(Array.from(code.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) problems.push(`option "${t}" breaks across lines`);
    }
    // Chart text stays legible: at least 12 px as drawn, whatever the chart's scale.
    for (const text of document.querySelectorAll('svg.bar-chart text, svg.line-chart text')) {
      // The scale of the text's transform, rotated or not (a y-axis title is turned 90°).
      const m = text.getScreenCTM();
      const px = parseFloat(getComputedStyle(text).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
      if (px < 11.5) {
        problems.push(`chart text "${text.textContent.trim().slice(0, 20)}" is drawn at ${px.toFixed(1)} px (under 12)`);
      }
    }
    // Chart text is never cut: each label's and value's box lies inside its chart as the
    // reader sees it, the SVG and the part of the chart's box on screen (a chart that
    // scrolls sideways would hide the value at the end of its longest bar).
    for (const svg of document.querySelectorAll('svg.bar-chart, svg.line-chart')) {
      const s = svg.getBoundingClientRect();
      const box = (svg.closest('.chart') || svg).getBoundingClientRect();
      const left = Math.max(s.left, box.left, 0);
      const right = Math.min(s.right, box.right, width);
      for (const text of svg.querySelectorAll('text')) {
        const r = text.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.left < left - 0.5 || r.right > right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5) {
          problems.push(`chart text "${text.textContent.trim().slice(0, 20)}" is cut off: ${r.left.toFixed(1)}..${r.right.toFixed(1)} px outside the chart's ${left.toFixed(1)}..${right.toFixed(1)}`);
        }
      }
    }
    // Links work from disk: an internal link names a file, never a folder.
    for (const a of document.querySelectorAll('a[href]')) {
      const href = a.getAttribute('href');
      if (/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(href)) continue;
      const path = href.split(/[?#]/)[0];
      if (path === '' || path.endsWith('/') || !/\.[a-z0-9]+$/i.test(path)) {
        problems.push(`link "${href}" names a folder (opened from disk it shows a listing)`);
      }
    }
    return problems;
  }, allColumnsVisible);
}

/// Every page of a site folder, as paths relative to it: not the 404 page, nor the redirect
/// pages at old URLs (they navigate away at once; their own test reads them).
export function pagesOf(files, site) {
  return files
    .filter((f) => !fs.readFileSync(f, 'utf8').includes('<meta http-equiv="refresh"'))
    .map((f) => f.slice(site.length + 1))
    .filter((f) => f !== '404.html');
}
