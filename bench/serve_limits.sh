#!/usr/bin/env bash
# `glossary serve` under the loads issue 29's review tried (src/serve/limits.rs has the
# bounds and why): how fast a GET is answered while 1,000 idle connections are open, and
# how much the server's memory grows while a client streams a 256 MB request header.
#
#   bench/serve_limits.sh                         # on this repository's own content
#   ROOT=/dev/shm/glossary-10000 bench/serve_limits.sh
#   BIN=/path/to/target/debug/glossary bench/serve_limits.sh
#
# Settings (environment):
#   ROOT     the project served (this repository)
#   BIN      the glossary binary (target/release/glossary, built if missing)
#   IDLE     idle connections held open (1000)
#   GETS     timed GETs, each on a new connection (200)
#   HEADER   bytes of the oversized header streamed (268435456 = 256 MB)
#
# Prints the numbers and PASS/FAIL against the review's targets: a GET answered in under
# 50 ms (its worst) with IDLE idle connections open, and RSS within 100 MB of idle while
# the header is sent. RSS comes from /proc/PID/status (VmRSS, and VmHWM for the peak).
# Tests (tests/serve.rs) check the same behaviour without timing it. Run by hand, never
# in CI.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=${ROOT:-.}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=${BIN:-$TARGET/release/glossary}
IDLE=${IDLE:-1000}
GETS=${GETS:-200}
HEADER=${HEADER:-268435456}

if [ ! -x "$BIN" ]; then
  cargo build --release --bin glossary >&2
fi
# This script and the server each hold one descriptor an idle connection.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

python3 - "$BIN" "$ROOT" "$IDLE" "$GETS" "$HEADER" <<'EOF'
import socket, statistics, subprocess, sys, threading, time

bin_, root, idle, gets, header = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
server = subprocess.Popen([bin_, "serve", "--port", "0", "--root", root],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    addr = None
    for line in server.stdout:
        if "at http://" in line:
            host, port = line.split("at http://")[1].split("/")[0].rsplit(":", 1)
            addr = (host, int(port))
            break
    if addr is None:
        sys.exit("serve exited before printing its address")
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()

    def status(field):
        with open(f"/proc/{server.pid}/status") as f:
            for l in f:
                if l.startswith(field + ":"):
                    return int(l.split()[1]) / 1024  # MB
    def fds():
        import os
        return len(os.listdir(f"/proc/{server.pid}/fd"))

    def get(path="/"):
        t = time.perf_counter()
        s = socket.create_connection(addr)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {addr[0]}:{addr[1]}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(1 << 16):
            data += chunk
        s.close()
        code = int(data.split(b" ", 2)[1])
        return code, (time.perf_counter() - t) * 1000

    for _ in range(20):
        get()  # warm up
    rss_idle = status("VmRSS")
    quiet = [get()[1] for _ in range(gets)]

    conns = [socket.create_connection(addr) for _ in range(idle)]
    deadline = time.time() + 20
    while fds() < idle and time.time() < deadline:
        time.sleep(0.05)
    held = fds()
    rss_conns = status("VmRSS")
    loaded = []
    for _ in range(gets):
        code, ms = get()
        assert code == 200, code
        loaded.append(ms)
    still = fds()
    for c in conns:
        c.close()
    time.sleep(0.5)

    def q(xs, p):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(p * len(xs)))]
    print(f"GET / ({gets} times, a new connection each), ms: median / p99 / max")
    print(f"  no other connections:     {statistics.median(quiet):6.2f} / {q(quiet, .99):6.2f} / {max(quiet):6.2f}")
    print(f"  {idle} idle connections:   {statistics.median(loaded):6.2f} / {q(loaded, .99):6.2f} / {max(loaded):6.2f}"
          f"   (server held {held} descriptors before, {still} after)")
    print(f"  RSS idle {rss_idle:.1f} MB, with {idle} idle connections {rss_conns:.1f} MB")

    # The 256 MB header, streamed while VmRSS is sampled.
    rss_before = status("VmRSS")
    hwm_before = status("VmHWM")
    samples = []
    stop = threading.Event()
    def sample():
        while not stop.is_set():
            samples.append(status("VmRSS"))
            time.sleep(0.005)
    sampler = threading.Thread(target=sample)
    sampler.start()
    s = socket.create_connection(addr)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Filler: ")
    chunk = b"a" * (1 << 16)
    sent = 0
    t = time.perf_counter()
    try:
        while sent < header:
            sent += s.send(chunk)
    except OSError:
        pass
    took = time.perf_counter() - t
    answer = b""
    try:
        s.settimeout(2)
        while part := s.recv(4096):
            answer += part
    except OSError:
        pass
    s.close()
    time.sleep(1)
    stop.set()
    sampler.join()
    rss_after = status("VmRSS")
    hwm = status("VmHWM")
    peak = max(samples + [hwm if hwm > hwm_before else rss_before])
    line = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "(reset before the answer was read)"
    print(f"{header >> 20} MB header: {sent / (1 << 20):.2f} MB went out before the server closed"
          f" ({took * 1000:.0f} ms); answer: {line}")
    print(f"  RSS before {rss_before:.1f} MB, peak during {peak:.1f} MB, after {rss_after:.1f} MB"
          f" (growth {peak - rss_before:.1f} MB)")
    code, _ = get()
    ok_latency = max(loaded) < 50
    ok_memory = peak - rss_before < 100
    print(f"{'PASS' if ok_latency else 'FAIL'}: worst GET with {idle} idle connections {max(loaded):.2f} ms (< 50 ms)")
    print(f"{'PASS' if ok_memory else 'FAIL'}: RSS growth under the header {peak - rss_before:.1f} MB (< 100 MB)")
    print(f"{'PASS' if code == 200 else 'FAIL'}: still serving afterwards ({code})")
finally:
    server.kill()
    server.wait()
EOF
