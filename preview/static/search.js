// Search over the site's published entries, entirely in the reader's browser.
//
// The index is split by the build (src/render/search.rs): `search/manifest.js` names the
// shards; a query loads only the shards its words fall in, then the document chunks of the
// results it shows. Files are loaded as scripts rather than with fetch() so search also
// works on a site opened from disk. No request ever leaves the site. Without JavaScript the
// search form still submits to the search page, which points at the A–Z index.
(function () {
  'use strict';

  var form = document.querySelector('form.search');
  if (!form) return;
  var root = form.getAttribute('data-root') || '';
  var input = form.querySelector('input[type="search"]');
  var panel = document.getElementById('search-results');
  var status = document.getElementById('search-status');

  // Prefix matches beyond a word's own shard are loaded up to this many bytes, so a
  // one- or two-letter query stays small however large the site is.
  var PREFIX_BUDGET = 256 * 1024;
  // The search page lists at most this many results (each may need a document chunk).
  var PAGE_LIMIT = 50;

  var manifest = null;
  var shards = {};
  var chunks = {};
  var pending = {};

  // The index scripts call these.
  window.glossarySearch = {
    manifest: function (m) { manifest = m; settle('manifest.js'); },
    shard: function (key, tokens) { shards[key] = tokens; settle(shardFile(key)); },
    docs: function (i, list) { chunks[i] = list; settle('d-' + i + '.js'); }
  };

  function settle(name) {
    var p = pending[name];
    if (p) p.resolve();
  }

  function load(name) {
    if (pending[name]) return pending[name].promise;
    var entry = {};
    entry.promise = new Promise(function (resolve, reject) {
      entry.resolve = resolve;
      var script = document.createElement('script');
      script.src = root + 'search/' + name;
      script.onerror = function () {
        delete pending[name];
        reject(new Error('the search index did not load'));
      };
      document.head.appendChild(script);
    });
    pending[name] = entry;
    return entry.promise;
  }

  function shardFile(key) {
    var bytes = new TextEncoder().encode(key);
    var hex = '';
    for (var i = 0; i < bytes.length; i++) hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
    return 's-' + hex + '.js';
  }

  // Cut words exactly as the build does (search.rs `tokens`).
  function tokens(s) {
    return s.split(/\s+/).map(function (w) {
      return w.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '').toLowerCase();
    }).filter(Boolean);
  }

  // The shards a word needs: the one whose key is its longest prefix (it holds the word
  // itself), then deeper shards of words that start with it, within PREFIX_BUDGET.
  function shardsFor(word) {
    var own = null;
    var deeper = [];
    Object.keys(manifest.shards).forEach(function (key) {
      if (word.indexOf(key) === 0 && (own === null || key.length > own.length)) own = key;
      else if (key.indexOf(word) === 0 && key.length > word.length) deeper.push(key);
    });
    var keys = own === null ? [] : [own];
    var spent = 0;
    deeper.sort().forEach(function (key) {
      spent += manifest.shards[key];
      if (spent <= PREFIX_BUDGET) keys.push(key);
    });
    return keys;
  }

  function decode(list) {
    var ids = [];
    if (!list) return ids;
    if (list.charAt(0) === '=') {
      var bin = atob(list.slice(1));
      for (var i = 0; i < bin.length; i++) {
        var byte = bin.charCodeAt(i);
        for (var b = 0; b < 8; b++) if (byte & (1 << b)) ids.push(i * 8 + b);
      }
      return ids;
    }
    var id = 0;
    list.split(',').forEach(function (gap, k) {
      id = k === 0 ? parseInt(gap, 36) : id + parseInt(gap, 36);
      ids.push(id);
    });
    return ids;
  }

  // Title/name outweighs summary, which outweighs body; a whole word outweighs a prefix.
  var WEIGHTS = [100, 10, 1];

  // Per word: entry id → its best score for that word.
  function wordScores(word, keys) {
    var scores = new Map();
    keys.forEach(function (key) {
      var tokensOf = shards[key] || {};
      Object.keys(tokensOf).forEach(function (token) {
        if (token.indexOf(word) !== 0) return;
        var whole = token === word ? 1 : 0.5;
        var rec = tokensOf[token];
        for (var f = 0; f < 3; f++) {
          var w = WEIGHTS[f] * whole;
          decode(rec[f]).forEach(function (id) {
            if (!(scores.get(id) >= w)) scores.set(id, w);
          });
        }
      });
    });
    return scores;
  }

  // Every word must match; an entry whose whole title, name or alias is the query ranks first
  // (an abbreviation like "SM" finds the entry it names). Equal scores keep id order,
  // which is name order.
  function rank(words, keysPerWord) {
    var total = null;
    words.forEach(function (word, i) {
      var s = wordScores(word, keysPerWord[i]);
      if (total === null) { total = s; return; }
      var next = new Map();
      total.forEach(function (v, id) { if (s.has(id)) next.set(id, v + s.get(id)); });
      total = next;
    });
    // The build keeps each whole name with one of its words (the rarest): look in every
    // word's own record.
    var phrase = words.join(' ');
    var named = new Set();
    words.forEach(function (word, i) {
      var rec = (shards[keysPerWord[i][0]] || {})[word];
      if (rec && rec[3] && rec[3][phrase]) decode(rec[3][phrase]).forEach(function (id) { named.add(id); });
    });
    named.forEach(function (id) {
      if (total.has(id)) total.set(id, total.get(id) + 1000);
    });
    var ids = Array.from(total.keys());
    ids.sort(function (a, b) { return total.get(b) - total.get(a) || a - b; });
    return ids;
  }

  // Ranked entry ids for `query`; loads what it needs.
  function search(query) {
    var words = tokens(query);
    if (!words.length) return Promise.resolve([]);
    return load('manifest.js').then(function () {
      var keysPerWord = words.map(shardsFor);
      var files = [];
      keysPerWord.forEach(function (keys) { keys.forEach(function (k) { files.push(load(shardFile(k))); }); });
      return Promise.all(files).then(function () {
        return keysPerWord.some(function (k) { return !k.length; }) ? [] : rank(words, keysPerWord);
      });
    });
  }

  // The documents for `ids`, loading their chunks.
  function docsFor(ids) {
    var need = {};
    ids.forEach(function (id) { need[Math.floor(id / manifest.chunk)] = true; });
    return Promise.all(Object.keys(need).map(function (c) { return load('d-' + c + '.js'); }))
      .then(function () {
        return ids.map(function (id) {
          var d = chunks[Math.floor(id / manifest.chunk)][id % manifest.chunk];
          return { name: d[0], kind: d[1], summary: d[2], url: d[3] };
        });
      });
  }
  // The summary as pages show it: the build rendered its inline Markdown and escaped
  // everything else (src/render/inline.rs). It is parsed inertly (DOMParser runs no script
  // and loads nothing) and only text and the elements inline Markdown makes are copied,
  // so nothing else in an index file could reach the page. Internal links were written
  // from the site root: this page's root goes in front.
  var INLINE = { A: 'a', CODE: 'code', EM: 'em', STRONG: 'strong', DEL: 'del' };
  var SITE_RELATIVE = /^(?![a-z][a-z0-9+.-]*:|\/\/|\/|#)/i;
  function appendSummary(into, html) {
    var parsed = new DOMParser().parseFromString('<body>' + html, 'text/html').body;
    (function copy(from, to) {
      from.childNodes.forEach(function (node) {
        if (node.nodeType === Node.TEXT_NODE) {
          to.appendChild(document.createTextNode(node.data));
          return;
        }
        if (node.nodeType !== Node.ELEMENT_NODE) return;
        var tag = INLINE[node.tagName];
        if (!tag) { copy(node, to); return; }
        var el = document.createElement(tag);
        if (tag === 'a') {
          var href = node.getAttribute('href') || '';
          if (/^\s*(javascript|data|vbscript):/i.test(href)) href = '';
          if (href) el.setAttribute('href', SITE_RELATIVE.test(href) ? root + href : href);
        }
        copy(node, el);
        to.appendChild(el);
      });
    })(parsed, into);
  }

  function resultItem(doc) {
    var li = document.createElement('li');
    var a = document.createElement('a');
    a.href = root + doc.url;
    a.textContent = doc.name;
    var kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = doc.kind;
    var summary = document.createElement('span');
    summary.className = 'summary';
    appendSummary(summary, doc.summary);
    li.appendChild(a);
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

  function showPanel(query, ids, docs) {
    panel.textContent = '';
    var note = document.createElement('p');
    note.className = 'search-count';
    note.textContent = describe(ids.length, query);
    panel.appendChild(note);
    if (docs.length) {
      var list = document.createElement('ol');
      docs.forEach(function (d) { list.appendChild(resultItem(d)); });
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
    search(query).then(function (ids) {
      return docsFor(ids.slice(0, 10)).then(function (docs) {
        if (input.value.trim() === query) showPanel(query, ids, docs);
      });
    }).catch(function (err) {
      panel.textContent = 'Search is unavailable: ' + err.message + '.';
      panel.hidden = false;
    });
  }

  input.addEventListener('input', update);
  input.addEventListener('focus', function () { load('manifest.js').catch(function () {}); });
  form.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { hidePanel(); input.blur(); }
  });
  document.addEventListener('click', function (e) {
    if (!form.contains(e.target)) hidePanel();
  });

  // On the search page, `?q=` lists the results (the first PAGE_LIMIT of them).
  var pageList = document.getElementById('search-page-results');
  var query = new URLSearchParams(window.location.search).get('q');
  if (pageList && query) {
    input.value = query;
    search(query).then(function (ids) {
      return docsFor(ids.slice(0, PAGE_LIMIT)).then(function (docs) {
        pageList.textContent = '';
        docs.forEach(function (d) { pageList.appendChild(resultItem(d)); });
        var text = describe(ids.length, query);
        if (ids.length > PAGE_LIMIT) text += ' The first ' + PAGE_LIMIT + ' are listed; add a word to narrow them.';
        document.getElementById('search-page-status').textContent = text;
      });
    }).catch(function () {});
  }
})();
