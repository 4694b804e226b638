#!/usr/bin/env python3
"""Rounding 16M fp32 values to fp16 through the Python module against the
same C++ call, beside NumPy's own astype(np.float16), in one run.

The C++ figures come from convert_bench (BM_libnum_fp16_ne_round and
BM_libnum_fp16_ne_bits at 16M elements, 1 thread, output reused) and from
allocating_round_bench (the same round_array call into an output allocated
anew in every call, as numlab.round without out= must: plainly, and with the
huge-page hint NumPy gives every large array), run from here between the
Python rounds so that both see the same machine load. The data has the same
distribution as convert_bench's (magnitudes log-uniform over 2^-30 .. 2^10,
random signs). Times are per call, in ms: CPU time of the calling thread
(robust on a shared machine; the kernels run on the caller's thread at
threads=1) and wall time, each the minimum over the repetitions.

Usage: PYTHONPATH=build/python python3 bench/python_round_bench.py [--build build] [--rounds 5]
"""

import argparse
import json
import pathlib
import subprocess
import time

import numpy as np

import numlab

N = 1 << 24


def time_call(call, repeat):
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.thread_time(), time.perf_counter()
        call()
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu) * 1e3, min(wall) * 1e3


def cpp_times(binary):
    out = subprocess.run(
        [str(binary), "--benchmark_filter=BM_libnum_fp16_ne_(round|bits)/16777216/1$",
         "--benchmark_format=json", "--benchmark_min_time=0.5"],
        capture_output=True, text=True, check=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        assert b["time_unit"] == "ns"
        kind = "round" if "round" in b["name"] else "bits"
        times[kind] = (b["cpu_time"] / 1e6, b["real_time"] / 1e6)
    return times


def allocating_cpp_times(binary):
    out = subprocess.run(
        [str(binary), "--benchmark_filter=BM_round_array_new_output", "--benchmark_format=json",
         "--benchmark_min_time=0.5"],
        capture_output=True, text=True, check=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        scale = {"ms": 1.0, "ns": 1e-6}[b["time_unit"]]
        times[b["name"]] = (b["cpu_time"] * scale, b["real_time"] * scale)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    binary = pathlib.Path(args.build) / "bench" / "convert_bench"
    allocating_binary = pathlib.Path(args.build) / "bench" / "allocating_round_bench"
    rng = np.random.default_rng(2024)
    values = (np.where(rng.integers(0, 2, N) == 1, -1.0, 1.0) * np.exp2(rng.uniform(-30, 10, N))).astype(np.float32)
    out = np.empty_like(values)
    calls = {
        "numlab.round(x, 'fp16', out=y)": lambda: numlab.round(values, "fp16", out=out),
        "numlab.round(x, 'fp16')": lambda: numlab.round(values, "fp16"),
        "numlab.encode(x, 'fp16')": lambda: numlab.encode(values, "fp16"),
        "x.astype(np.float16)": lambda: values.astype(np.float16),
        # What a new result array costs by itself: NumPy's allocation (already
        # madvised to huge pages) is free; the kernel clearing the fresh pages
        # on first write is not. The same writes into a reused array beside it.
        "np.empty_like(x).fill(0) (new array, first write)": lambda: np.empty_like(values).fill(0),
        "y.fill(0) (reused array)": lambda: out.fill(0),
    }
    fresh = "C++ round_array, new output (huge-page hint, as NumPy)"
    fresh_plain = "C++ round_array, new output (plain new[])"
    cpp_names = ["C++ round_array", "C++ encode_array", fresh, fresh_plain]
    best = {name: (float("inf"), float("inf")) for name in list(calls) + cpp_names}

    def keep(name, times):
        best[name] = tuple(min(a, b) for a, b in zip(best[name], times))

    for _ in range(args.rounds):
        cpp = cpp_times(binary)
        keep("C++ round_array", cpp["round"])
        keep("C++ encode_array", cpp["bits"])
        allocating = allocating_cpp_times(allocating_binary)
        keep(fresh, allocating["BM_round_array_new_output_hugepages"])
        keep(fresh_plain, allocating["BM_round_array_new_output"])
        for name, call in calls.items():
            keep(name, time_call(call, args.repeat))

    reference = {"numlab.round(x, 'fp16', out=y)": "C++ round_array", "numlab.round(x, 'fp16')": "C++ round_array",
                 "numlab.encode(x, 'fp16')": "C++ encode_array", "x.astype(np.float16)": "C++ encode_array"}
    # A call that returns a new array against the C++ call that allocates too.
    allocating_reference = {"numlab.round(x, 'fp16')": fresh}
    print("| call (16M fp32 -> fp16, nearest-even, 1 thread) | CPU ms | wall ms | CPU time / C++ (reused output) "
          "| CPU time / C++ (new output) |")
    print("|---|---:|---:|---:|---:|")
    for name, (cpu, wall) in best.items():
        ratio = f"{cpu / best[reference[name]][0]:.2f}x" if name in reference else "—"
        fresh_ratio = f"{cpu / best[allocating_reference[name]][0]:.2f}x" if name in allocating_reference else "—"
        print(f"| {name} | {cpu:.1f} | {wall:.1f} | {ratio} | {fresh_ratio} |")


if __name__ == "__main__":
    main()
