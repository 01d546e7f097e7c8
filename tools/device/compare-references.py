#!/usr/bin/env python3
"""Set the nvcc reference programs' medians (tools/device/references.sh output) beside the
records `glossary verify` wrote in the same device call, row by row.

Each reference prints lines "<experiment> <label> median <X> ms ..."; each is compared with
the medians of every kept run of that experiment captured on the same GPU unit (by UUID;
the reference ran in one of those device calls). Prints the ratio to the latest run, the
range of ratios over all of them, and whether the latest is within the tolerance (default
2%); exits 1 if any row is outside it or has no record.

    tools/device/compare-references.py REFS_DIR GPU_UUID [--tolerance 0.02]
"""
import argparse, glob, json, os, re, sys

LINE = re.compile(r"^(\S+)\s+(\S+)\s+median\s+([0-9.]+)\s+ms")


def runs_of(experiment, uuid):
    """Every kept run (latest and history) of an experiment captured on this GPU unit."""
    # Every node's records (h100 and h200 alike); the UUID below keeps this unit's.
    paths = [p for p in glob.glob(f"measurements/{experiment}/records/*.json")
             if not p.endswith(".failed.json")]
    paths += glob.glob(f"measurements/{experiment}/records/history/*/*.json")
    runs = {}
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        if r.get("gpu", {}).get("uuid") == uuid:
            runs[r["captured_at"]] = r
    return [runs[k] for k in sorted(runs)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("refs_dir")
    ap.add_argument("uuid")
    ap.add_argument("--tolerance", type=float, default=0.02)
    a = ap.parse_args()
    bad = 0
    for log in sorted(glob.glob(os.path.join(a.refs_dir, "*.txt"))):
        for line in open(log):
            m = LINE.match(line.strip())
            if not m:
                continue
            exp, label, ref_ms = m.group(1), m.group(2), float(m.group(3))
            runs = runs_of(exp, a.uuid)
            meds = [c["timing"]["median_ms"] for r in runs for c in r["configs"]
                    if c["label"] == label and c.get("timing")]
            if not meds:
                print(f"{exp:24} {label:12} nvcc {ref_ms:.4f} ms  no record on {a.uuid}")
                bad += 1
                continue
            ours = meds[-1]
            ratio = ours / ref_ms
            ratios = [m / ref_ms for m in meds]
            ok = abs(ratio - 1) <= a.tolerance
            bad += not ok
            print(f"{exp:16} {label:10} nvcc {ref_ms:.4f} ms  verify {ours:.4f} ms  "
                  f"ratio {ratio:.4f} (all {len(meds)} runs {min(ratios):.4f}-{max(ratios):.4f})  "
                  f"{'within' if ok else 'OUTSIDE'} {a.tolerance:.0%}")
    sys.exit(1 if bad else 0)


main()
