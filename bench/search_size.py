#!/usr/bin/env python3
"""Largest download of one search query over a built site's sharded index (search/).

    bench/search_size.py SITE_DIR [WORDS]

Mirrors static/search.js: a query loads manifest.js, then for each word the shard whose
key is its longest prefix plus deeper shards of longer words within PREFIX_BUDGET, then
the document chunks of the ten results shown (bounded here by the ten largest chunks).
Reports the worst case over every shard key as a word, for queries of WORDS words (1).
"""
import json
import os
import sys

PREFIX_BUDGET = 256 * 1024  # as in static/search.js

site, words = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
d = os.path.join(site, "search")
text = open(os.path.join(d, "manifest.js"), encoding="utf-8").read()
manifest = json.loads(text[text.index("(") + 1 : text.rindex(")")])
shards = manifest["shards"]
chunks = sorted(
    (os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.startswith("d-")),
    reverse=True,
)


def word_cost(word):
    own = max((k for k in shards if word.startswith(k)), key=len, default=None)
    cost = shards[own] if own else 0
    spent = 0
    for k in sorted(k for k in shards if k.startswith(word) and len(k) > len(word)):
        spent += shards[k]
        if spent <= PREFIX_BUDGET:
            cost += shards[k]
    return cost


worst_word, worst = max(((k, word_cost(k)) for k in shards), key=lambda kv: kv[1], default=("", 0))
total = len(text.encode()) + words * worst + sum(chunks[:10])
print(
    f"N={manifest['n']}: {len(shards)} shards, largest {max(shards.values(), default=0) / 1024:.0f} KB; "
    f"worst {words}-word query {total / 1024:.0f} KB (manifest {len(text.encode()) / 1024:.0f} KB, "
    f"word '{worst_word}' {worst / 1024:.0f} KB each, 10 doc chunks {sum(chunks[:10]) / 1024:.0f} KB)"
)
