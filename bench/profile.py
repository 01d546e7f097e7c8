#!/usr/bin/env python3
"""Where a build's time goes: the samples of `perf script` counted by part of the build.

    perf record -e cpu-clock -F 2000 --call-graph dwarf,16384 -o perf.data \\
        target/pgo/glossary build --root CORPUS --out /dev/shm/out
    perf script -i perf.data | bench/profile.py

Each sample is counted once, for the innermost of the parts below among the functions on
its stack (a block highlighted while a body is rendered counts as highlighting, not
Markdown), so the shares add up to 100%. A sample none of them claims is "the rest"
(allocator, copies, thread start-up outside them). The patterns are matched against the
function's path, generic parameters removed; the first part listed wins when one function
matches two.
"""
import re
import sys
from collections import Counter

# (label, pattern over one frame's function path), most specific first.
PARTS = [
    ("highlighting (syntaxmate and the spans around it)", r"^syntaxmate::|^glossary::render::highlight"),
    ("front matter and other YAML through serde_norway", r"^serde_norway::|^unsafe_libyaml_norway::"),
    ("verifying two signatures per entry", r"^curve25519_dalek::|^ed25519_dalek::|^sha2::sha512|^glossary::trust::sshsig"),
    ("the build cache's digests, tags and writes", r"^glossary::build_cache"),
    ("Tera rendering the templates", r"^tera::"),
    ("the link check over every generated page", r"^glossary::site::(site_links|body_links)"),
    ("the search words and index", r"^glossary::site::(words|search|tokens)"),
    ("feed, sitemap, index pages, charts", r"^glossary::site::(feed|sitemap|index_page|home)|^glossary::render::chart"),
    ("Markdown: pulldown-cmark and the page's HTML", r"^pulldown_cmark|^glossary::render::(markdown|inline|escape|links|code_span|raw_html|html_depth)"),
    ("making each page's template context", r"^glossary::render::(pages|entry_lists|navigation|tables|captions|figures)|^serde_json::value"),
    ("assessing each entry (claims, citations, values, the digest of what it shows)", r"^glossary::pipeline::assess|^glossary::render::(values|calls)|^glossary::pipeline::project::check_citations|^glossary::measure"),
    # SHA-256 itself is left to the frame that called it (the gate's digests, the cache's).
    ("the gate: sign-offs against the digests, the log", r"^glossary::review::(gate|digest|log)"),
    ("sign-off files: reading and parsing", r"^glossary::review::(signatures|signature_file)|^glossary::trust::file"),
    ("writing the files", r"^glossary::pipeline::output|^glossary::atomic"),
    ("loading: walking content/, reading files, checks", r"^glossary::content::|^glossary::config::|^walkdir::|^glossary::visible|^glossary::link_scheme|^glossary::names"),
]
COMPILED = [(label, re.compile(p)) for label, p in PARTS]
REST = "the rest (allocator, copies, closures and threads outside these parts)"


def function_path(frame):
    """`addr symbol+0xoff (dso)` -> the symbol's path without generic parameters."""
    parts = frame.strip().split(" ", 1)
    if len(parts) < 2:
        return ""
    sym = re.sub(r"\+0x[0-9a-f]+.*$", "", parts[1]).strip()
    sym = re.sub(r" \(inlined\)$", "", sym)
    # <A as B>::f is counted as A's: the implementing type says which part it is.
    if sym.startswith("<") and " as " in sym:
        sym = sym[1 : sym.index(" as ")] + "::" + sym.rsplit(">::", 1)[-1]
    # f<T>: keep the path, drop what is inside angle brackets.
    depth, out = 0, []
    for ch in sym:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out).lstrip(":")


def part_of(frames):
    for frame in frames:  # innermost first
        path = function_path(frame)
        for label, pattern in COMPILED:
            if pattern.search(path):
                return label
    return REST


def main():
    counts = Counter()
    total = 0
    for sample in sys.stdin.read().split("\n\n"):
        lines = [l for l in sample.split("\n") if l.strip()]
        if len(lines) < 2:
            continue
        total += 1
        counts[part_of(lines[1:])] += 1
    if not total:
        sys.exit("no samples on standard input (perf script's output)")
    print(f"{total} samples")
    print()
    print("| part | share |")
    print("|---|--:|")
    for label, n in sorted(counts.items(), key=lambda kv: (kv[0] == REST, -kv[1])):
        print(f"| {label} | {100 * n / total:.1f}% |")


if __name__ == "__main__":
    main()
