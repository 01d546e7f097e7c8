#!/usr/bin/env python3
"""glossary's three sublime-syntax grammars (src/render/highlight/syntaxes/) as TextMate
grammars (tmLanguage JSON), for the highlighters that read only those (giallo,
syntaxmate): the same regexes and the same scopes, so each highlighter's output maps onto
the site's hl-* classes by the same table.

    python3 bench/highlighters/to_tmlanguage.py   # writes bench/highlighters/grammars/

It knows the constructs these grammars use, not sublime-syntax at large:
- `match` with `scope` or `captures`: a TextMate match rule;
- `match` that pushes an anonymous context with a `meta_scope` and one popping match: a
  begin/end rule named by the meta_scope (which in both formats covers the begin and end
  text too); an anonymous context's other matches become its patterns;
- CUDA's named contexts that are pushed (`string`, `launch`, `template-header`) are
  written by hand below as begin/end rules with the same scopes;
- a preprocessor line's continuation (`\\` at the end) keeps it open: its end is
  `(?<!\\\\)(?=\\n)` (both engines hand the grammar each line with its newline; `$`
  would also match after that newline, at the end of the text);
- a pop on `(?=\\n)` becomes `$` (TextMate's end of line), and the CUDA word list's
  `(?x)` regex is written compact (its comments and spaces dropped), for engines
  without extended mode.
"""
import json
import pathlib
import re

import yaml

HERE = pathlib.Path(__file__).resolve().parent
SYNTAXES = HERE.parent.parent / "src" / "render" / "highlight" / "syntaxes"


def compact(regex):
    if not regex.startswith("(?x)"):
        return regex
    out = []
    for line in regex[4:].splitlines():
        line = re.sub(r"(?<!\\)#.*$", "", line)
        out.append(re.sub(r"\s+", "", line))
    return "".join(out)


def end_of_line(regex):
    return "$" if regex == "(?=\\n)" else regex


def rule(item, lang):
    if "include" in item:
        return {"include": "#" + item["include"]}
    m = compact(item["match"])
    push = item.get("push")
    if isinstance(push, list):
        meta = next(p["meta_scope"] for p in push if "meta_scope" in p)
        pops = [p for p in push if p.get("pop")]
        others = [p for p in push if "match" in p and not p.get("pop")]
        assert len(pops) == 1, item
        r = {"begin": m, "end": end_of_line(pops[0]["match"]), "name": meta}
        if any(o["match"] == r"\\\n" for o in others):
            # A line continuation: the line does not end the context where it ends in `\`
            # (whether or not the engine hands the newline to the grammar).
            r["end"] = "(?<!\\\\)(?=\\n)"
            others = [o for o in others if o["match"] != r"\\\n"]
        if others:
            r["patterns"] = [rule(o, lang) for o in others]
        return r
    if push is not None:
        return NAMED[lang][push]
    r = {"match": m}
    if "scope" in item:
        r["name"] = item["scope"]
    if "captures" in item:
        r["captures"] = {str(k): {"name": v} for k, v in item["captures"].items()}
    return r


# CUDA's pushed named contexts, as begin/end rules with the scopes the sublime-syntax gives.
NAMED = {
    "cuda": {
        "string": {
            "begin": '"',
            "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.cuda"}},
            "end": '(")|$',
            "endCaptures": {"1": {"name": "punctuation.definition.string.end.cuda"}},
            "name": "string.quoted.double.cuda",
            "patterns": [{"match": "\\\\.", "name": "constant.character.escape.cuda"}],
        },
        "launch": {
            "begin": "<<<",
            "beginCaptures": {"0": {"name": "punctuation.section.launch.begin.cuda"}},
            "end": ">>>",
            "endCaptures": {"0": {"name": "punctuation.section.launch.end.cuda"}},
            "patterns": [{"include": "#code"}],
        },
        "template-header": {
            "begin": "\\b(template)\\b\\s*(<)",
            "beginCaptures": {"1": {"name": "storage.type.template.cuda"}},
            "end": ">",
            "patterns": [
                {"match": "\\b(?:typename|class)\\b", "name": "storage.type.cuda"},
                {"include": "#template-nested"},
                {"include": "#code"},
            ],
        },
    },
}
REPOSITORY_EXTRA = {
    "cuda": {
        "template-nested": {
            "begin": "<",
            "end": ">",
            "patterns": [{"include": "#template-nested"}, {"include": "#code"}],
        }
    }
}
# Contexts reached only through a hand-written rule above.
SKIP = {"string", "launch", "template-header", "template-params", "template-params-nested"}


def convert(name):
    src = yaml.safe_load((SYNTAXES / f"{name}.sublime-syntax").read_text())
    contexts = src["contexts"]
    repo = {}
    for ctx, items in contexts.items():
        if ctx == "main" or ctx in SKIP:
            continue
        repo[ctx] = {"patterns": [rule(i, name) for i in items]}
    repo.update(REPOSITORY_EXTRA.get(name, {}))
    grammar = {
        "name": name,
        "scopeName": src["scope"],
        "fileTypes": src.get("file_extensions", []),
        "patterns": [rule(i, name) for i in contexts["main"]],
        "repository": repo,
    }
    # The template header: a `match` that pushes the named context.
    out = HERE / "grammars" / f"{name}.tmLanguage.json"
    out.write_text(json.dumps(grammar, indent=1) + "\n")
    print(f"wrote {out.relative_to(HERE.parent.parent)}")


for n in ["cuda", "ptx", "sass"]:
    convert(n)
