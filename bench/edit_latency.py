#!/usr/bin/env python3
"""How long an edit takes to reach the browser in `glossary serve`, as an author sees it.

Starts `glossary serve --drafts` on a project (a benchmark corpus from `glossary-corpus
write`), waits for its first build, then for each of K entries:

  1. body edit, first: a new sentence in a signed entry's body (its signatures stop
     covering it, so it also leaves the published set: search index, sitemap, feed);
  2. body edit, repeat: another sentence in the same, now draft, entry;
  3. name change: the entry's name (what the A-Z index lists) becomes one that sorts
     elsewhere in the index.

Each edit writes the file in place (open, write, close, as most editors save) and then
polls over HTTP every ~1 ms until the new text is served: the entry's page for a body
edit, the A-Z index (`/`) for a name change. The delay from just before the write to the
response that shows it is the edit's latency; the server's settle wait, rebuild and
swap are all inside it. A second connection long-polls the live-reload endpoint, as
every served page does, and the script checks that it fires for each edit (reporting
when). After each edit the script waits until serve reports its deferred work done
(the pages listing the entry, the search index, sitemap and feed); the entry is
restored after its three edits.

Prints median, min and max per kind, in milliseconds. The project is left as it was.

    python3 bench/edit_latency.py --root /dev/shm/glossary-10000 --bin target/release/glossary
"""

import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path


class Server:
    """A `glossary serve --drafts` process on a free port."""

    def __init__(self, binary, root, start_timeout):
        self.proc = subprocess.Popen(
            [binary, "serve", "--root", str(root), "--port", "0", "--drafts"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.lines = []
        started = time.perf_counter()
        port = None
        while port is None:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("glossary serve exited before serving:\n" + "".join(self.lines))
            self.lines.append(line)
            m = re.search(r"serving .* at http://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
            if time.perf_counter() - started > start_timeout:
                self.stop()
                sys.exit("glossary serve did not start in time")
        self.port = port
        self.start_s = time.perf_counter() - started
        # Keep reading its output so it never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stdout:
            self.lines.append(line)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Client:
    """One keep-alive HTTP connection."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def get(self, path):
        for attempt in range(2):
            try:
                self.conn.request("GET", path)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (http.client.HTTPException, ConnectionError):
                # The server closed the kept-alive connection: open another once.
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise


class LiveReloadPoll:
    """One long poll of `/__livereload`, as the page `key` served at `generation` makes
    it; remembers when it answered with a new generation."""

    def __init__(self, port, generation, key):
        self.fired = None
        self.url = f"/__livereload?since={generation}&page={urllib.parse.quote(key, safe='')}"
        self.generation = generation
        self.thread = threading.Thread(target=self._run, args=(port,), daemon=True)
        self.thread.start()

    def _run(self, port):
        client = Client(port)
        try:
            status, body = client.get(self.url)
        except OSError:
            return
        if status == 200 and int(body) != self.generation:
            self.fired = time.perf_counter()


def served_generation(client, url):
    _, body = client.get(url)
    m = re.search(rb'data-served="(\d+)"', body)
    if not m:
        sys.exit(f"{url} carries no live-reload script")
    return int(m.group(1))


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def wait_for(client, url, needle, t0, timeout, interval):
    """Poll `url` until its body contains `needle`; seconds from t0, or None."""
    needle = needle.encode()
    while True:
        status, body = client.get(url)
        now = time.perf_counter()
        if status == 200 and needle in body:
            return now - t0
        if now - t0 > timeout:
            return None
        time.sleep(interval)


def wait_idle(server, since_line, timeout):
    """Wait until serve has finished the rebuilds after output line `since_line`: a
    rebuild's line says when deferred work follows, and a "caught up" line ends it."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        lines = server.lines[since_line:]
        done = [i for i, l in enumerate(lines) if "files written in" in l]
        if done:
            last = done[-1]
            if "follow" not in lines[last] or any("caught up" in l for l in lines[last:]):
                time.sleep(0.05)
                if len(server.lines) == since_line + len(lines):
                    return
        time.sleep(0.02)
    sys.exit("serve did not finish its rebuilds in time:\n" + "".join(server.lines[since_line:]))


def body_with(text, sentence):
    """The entry text with `sentence` as a new last paragraph."""
    return text.rstrip("\n") + f"\n\n{sentence}\n"


def renamed(text, name):
    out, n = re.subn(r'^name: .*$', f'name: "{name}"', text, count=1, flags=re.M)
    if n == 0:
        # No `name:` field: the index lists the title.
        out, n = re.subn(r'^title: .*$', f'title: "{name}"', text, count=1, flags=re.M)
    if n == 0:
        sys.exit("entry has neither name nor title in its front matter")
    return out


def pick_entries(root, k):
    terms = sorted((root / "content" / "terms").glob("*.md"))
    if len(terms) < k:
        sys.exit(f"{root} has {len(terms)} terms, fewer than {k}")
    step = len(terms) / k
    # Spread over the alphabet, away from the ends.
    return [terms[int(step * i + step / 2)] for i in range(k)]


def summary(values):
    ms = [v * 1000 for v in values]
    return f"median {statistics.median(ms):7.1f}  min {min(ms):7.1f}  max {max(ms):7.1f}  (n={len(ms)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, type=Path, help="the glossary project")
    ap.add_argument("--bin", default="target/release/glossary", help="the glossary binary")
    ap.add_argument("--edits", type=int, default=7, help="entries to edit (K)")
    ap.add_argument("--interval-ms", type=float, default=1.0, help="poll interval")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds to wait per edit")
    ap.add_argument("--start-timeout", type=float, default=600.0)
    ap.add_argument("--settle-timeout", type=float, default=300.0,
                    help="seconds to wait for serve's deferred work after an edit")
    ap.add_argument("--log", type=Path, help="write serve's output here")
    args = ap.parse_args()

    root = args.root.resolve()
    entries = pick_entries(root, args.edits)
    originals = {p: p.read_text(encoding="utf-8") for p in entries}
    server = Server(args.bin, root, args.start_timeout)
    print(f"serve started in {server.start_s:.1f} s on port {server.port}", file=sys.stderr)
    poll = Client(server.port)
    interval = args.interval_ms / 1000
    results = {"body edit, first": [], "body edit, repeat": [], "name change": []}
    reload_delays = {k: [] for k in results}
    catch_up = []
    missed = []
    try:
        for n, path in enumerate(entries):
            slug = path.stem
            page = f"/terms/{slug}/"
            text = originals[path]
            with_b = body_with(text, f"Probe sentence {n}b for the edit benchmark.")
            steps = [
                ("body edit, first", body_with(text, f"Probe sentence {n}a for the edit benchmark."),
                 page, f"terms/{slug}/index.html", f"Probe sentence {n}a"),
                ("body edit, repeat", with_b, page, f"terms/{slug}/index.html", f"Probe sentence {n}b"),
                ("name change", renamed(with_b, f"Aaa probe {n}"), "/", "index.html", f"Aaa probe {n}"),
            ]
            for kind, new_text, url, key, needle in steps:
                # The page as open in a browser: its generation, and its live-reload poll.
                reload = LiveReloadPoll(server.port, served_generation(poll, url), key)
                time.sleep(0.05)
                line = len(server.lines)
                t0 = time.perf_counter()
                write(path, new_text)
                took = wait_for(poll, url, needle, t0, args.timeout, interval)
                if took is None:
                    missed.append(f"{kind} of {slug}: not served within {args.timeout} s")
                    continue
                results[kind].append(took)
                reload.thread.join(timeout=args.timeout)
                if reload.fired is None:
                    missed.append(f"{kind} of {slug}: live reload did not fire")
                else:
                    reload_delays[kind].append(reload.fired - t0)
                # Let deferred work finish before the next edit.
                wait_idle(server, line, args.settle_timeout)
                catch_up.append(time.perf_counter() - t0)
            line = len(server.lines)
            write(path, text)
            wait_idle(server, line, args.settle_timeout)
    finally:
        for p, t in originals.items():
            if p.read_text(encoding="utf-8") != t:
                write(p, t)
        server.stop()

    n_terms = len(list((root / "content" / "terms").glob("*.md")))
    print(f"glossary serve --drafts, {n_terms} terms, {args.edits} entries, poll every {args.interval_ms} ms, "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("from the write to the page showing it (ms):")
    for kind, values in results.items():
        if values:
            print(f"  {kind:18}  {summary(values)}")
    print("from the write to the live-reload poll's answer (ms):")
    for kind, values in reload_delays.items():
        if values:
            print(f"  {kind:18}  {summary(values)}")
    if catch_up:
        print(f"from the write to serve's deferred work done (ms): {summary(catch_up)}")
    for l in server.lines:
        if "files written in" in l or "caught up" in l:
            print(f"  serve: {l.strip()}")
    for m in missed:
        print(f"MISSED: {m}")
    if args.log:
        args.log.write_text("".join(server.lines))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
