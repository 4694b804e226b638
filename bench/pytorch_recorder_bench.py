#!/usr/bin/env python3
"""Cost of numlab.torch.Recorder on examples/pytorch_amp_recipe.py: the same
training steps unrecorded and recorded every N steps, alternated in one run.

Time per step is process CPU time of the training loop (torch on 1 thread; the
run-database writer thread included), robust on a shared machine; wall time is
printed beside it. Creating the database and the final commit are outside.
Each round trains a fresh model for --steps steps both ways; the table gives
the median over the rounds.

With --before FILE, each recorded configuration also runs with the Recorder
of another version of numlab/torch.py, in the same rounds, e.g.
    git show 31a676d:python/numlab/torch.py > /tmp/torch_before.py

Usage: PYTHONPATH=build/python python3 bench/pytorch_recorder_bench.py [--rounds 5] [--steps 100] [--every 10]
       [--before FILE]
"""

import argparse
import importlib.util
import os
import pathlib
import statistics
import sys
import tempfile

import torch

import numlab.torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import pytorch_amp_recipe as recipe  # noqa: E402


def recorder_of(path):
    """The Recorder class of the numlab/torch.py version at `path`, loaded
    inside the numlab package so that its relative imports resolve."""
    spec = importlib.util.spec_from_file_location("numlab._torch_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Recorder


def timed(steps, options):
    """(CPU ms, wall ms) per step of the training loop (recorder set-up and close excluded)."""
    _, cpu, wall = recipe.train(steps, options)
    return cpu * 1e3, wall * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--before", help="another version of numlab/torch.py to measure beside this one")
    args = parser.parse_args()
    torch.set_num_threads(1)
    variants = {"": numlab.torch.Recorder}
    if args.before:
        variants[", before"] = recorder_of(args.before)
    results = {"off": []}
    with tempfile.TemporaryDirectory() as folder:
        timed(10, None)  # warm-up: allocator, autocast caches
        for r in range(args.rounds):
            results["off"].append(timed(args.steps, None))
            for every in (args.every, 1):
                for suffix, recorder in variants.items():
                    path = os.path.join(folder, f"run-{r}-{every}{len(suffix)}.db")
                    numlab.torch.Recorder = recorder  # what the example instantiates
                    try:
                        results.setdefault(f"every {every}{suffix}", []).append(
                            timed(args.steps, {"path": path, "format": "fp16", "every": every}))
                    finally:
                        numlab.torch.Recorder = variants[""]
    # Also paired by round (each recorded run over the unrecorded run of its
    # own round), which follows the machine's load as it drifts.
    base = statistics.median(c for c, _ in results["off"])
    print("| recording | CPU ms/step | wall ms/step | CPU time added | added, paired by round |")
    print("|---|---:|---:|---:|---:|")
    for name, times in results.items():
        cpu = statistics.median(c for c, _ in times)
        wall = statistics.median(w for _, w in times)
        paired = statistics.median(c / off for (c, _), (off, _) in zip(times, results["off"]))
        added = "—" if name == "off" else f"{(cpu / base - 1) * 100:+.1f}%"
        added_paired = "—" if name == "off" else f"{(paired - 1) * 100:+.1f}%"
        print(f"| {name} | {cpu:.2f} | {wall:.2f} | {added} | {added_paired} |")


if __name__ == "__main__":
    main()
