// Search over the site's published entries, entirely in the reader's browser.
//
// The index is `search-index.js`, written by the build; it is loaded on first use, as a
// script rather than with fetch() so search also works on a site opened from disk. No
// request ever leaves the site. Without JavaScript the search form still submits to the
// search page, which lists every entry.
(function () {
  'use strict';

  var form = document.querySelector('form.search');
  if (!form) return;
  var root = form.getAttribute('data-root') || '';
  var input = form.querySelector('input[type="search"]');
  var panel = document.getElementById('search-results');
  var status = document.getElementById('search-status');
  var docs = null;
  var loading = null;

  function loadIndex() {
    if (docs) return Promise.resolve(docs);
    if (loading) return loading;
    loading = new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = root + 'search-index.js';
      script.onload = function () {
        docs = (window.glossarySearchIndex || []).map(function (d) {
          return {
            doc: d,
            // Aliases (abbreviations, other names) count as the name does.
            title: (d.title + ' ' + d.name + ' ' + (d.aliases || []).join(' ')).toLowerCase(),
            summary: d.summary.toLowerCase(),
            text: d.text.toLowerCase()
          };
        });
        resolve(docs);
      };
      script.onerror = function () {
        loading = null;
        reject(new Error('the search index did not load'));
      };
      document.head.appendChild(script);
    });
    return loading;
  }

  // Every term must match somewhere; a title match outweighs a summary match, which
  // outweighs a body match, and the whole phrase matching earns a bonus at each level.
  function score(entry, terms, phrase) {
    var total = 0;
    for (var i = 0; i < terms.length; i++) {
      var t = terms[i];
      if (entry.title.indexOf(t) >= 0) total += 100;
      else if (entry.summary.indexOf(t) >= 0) total += 10;
      else if (entry.text.indexOf(t) >= 0) total += 1;
      else return 0;
    }
    if (terms.length > 1) {
      if (entry.title.indexOf(phrase) >= 0) total += 300;
      else if (entry.summary.indexOf(phrase) >= 0) total += 30;
      else if (entry.text.indexOf(phrase) >= 0) total += 3;
    }
    return total;
  }

  function search(query) {
    var phrase = query.toLowerCase().replace(/\s+/g, ' ').trim();
    var terms = phrase.split(' ').filter(Boolean);
    if (!terms.length) return [];
    return docs
      .map(function (e) { return { entry: e, score: score(e, terms, phrase) }; })
      .filter(function (r) { return r.score > 0; })
      .sort(function (a, b) {
        return b.score - a.score || a.entry.doc.name.localeCompare(b.entry.doc.name);
      })
      .map(function (r) { return r.entry.doc; });
  }

  function resultItem(doc) {
    var li = document.createElement('li');
    var a = document.createElement('a');
    a.href = root + doc.url;
    a.textContent = doc.name;
    var aliases = null;
    if (doc.aliases && doc.aliases.length) {
      aliases = document.createElement('span');
      aliases.className = 'aliases';
      aliases.textContent = ' (' + doc.aliases.join(', ') + ')';
    }
    var kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = doc.kind;
    var summary = document.createElement('span');
    summary.className = 'summary';
    // The build renders the summary's inline Markdown (raw HTML in it is escaped there);
    // its site links start at the root, so they are re-rooted for this page.
    summary.innerHTML = doc.summary_html;
    summary.querySelectorAll('a[href]').forEach(function (link) {
      var href = link.getAttribute('href');
      if (!/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(href)) link.setAttribute('href', root + href);
    });
    li.appendChild(a);
    if (aliases) li.appendChild(aliases);
    li.appendChild(document.createTextNode(' '));
    li.appendChild(kind);
    li.appendChild(document.createElement('br'));
    li.appendChild(summary);
    return li;
  }

  function describe(n, query) {
    return n === 0 ? 'No entry matches “' + query + '”.'
      : n + (n === 1 ? ' entry matches' : ' entries match') + ' “' + query + '”.';
  }

  function showPanel(query) {
    var results = search(query);
    panel.textContent = '';
    var note = document.createElement('p');
    note.className = 'search-count';
    note.textContent = describe(results.length, query);
    panel.appendChild(note);
    if (results.length) {
      var list = document.createElement('ol');
      results.slice(0, 10).forEach(function (d) { list.appendChild(resultItem(d)); });
      panel.appendChild(list);
    }
    panel.hidden = false;
    status.textContent = note.textContent;
  }

  function hidePanel() {
    panel.hidden = true;
    status.textContent = '';
  }

  function update() {
    var query = input.value.trim();
    if (!query) { hidePanel(); return; }
    loadIndex().then(function () {
      if (input.value.trim() === query) showPanel(query);
    }, function (err) {
      panel.textContent = 'Search is unavailable: ' + err.message + '.';
      panel.hidden = false;
    });
  }

  input.addEventListener('input', update);
  input.addEventListener('focus', function () { loadIndex().catch(function () {}); });
  form.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { hidePanel(); input.blur(); }
  });
  document.addEventListener('click', function (e) {
    if (!form.contains(e.target)) hidePanel();
  });

  // On the search page, `?q=` filters the full list in place.
  var pageList = document.getElementById('search-page-results');
  var query = new URLSearchParams(window.location.search).get('q');
  if (pageList && query) {
    input.value = query;
    loadIndex().then(function () {
      var results = search(query);
      pageList.textContent = '';
      results.forEach(function (d) { pageList.appendChild(resultItem(d)); });
      document.getElementById('search-page-status').textContent = describe(results.length, query);
    }, function () {});
  }
})();
