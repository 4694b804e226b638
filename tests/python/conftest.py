"""Shared set-up of the Python tests: the numlab package, the numlab CLI and
the scalar reference program come from the build tree in NUMLAB_BUILD_DIR
(default: build/ at the top of the source tree); NUMLAB_BINARY names another
numlab program to compare with."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("NUMLAB_BUILD_DIR", SOURCE_DIR / "build"))
if os.environ.get("NUMLAB_PYTHON_INSTALLED") != "1":
    sys.path.insert(0, str(BUILD_DIR / "python"))


@pytest.fixture(scope="session")
def numlab_binary():
    path = pathlib.Path(os.environ.get("NUMLAB_BINARY", BUILD_DIR / "numlab"))
    if not path.exists():
        pytest.fail(f"{path} is missing: build the numlab target first")
    return path


class ScalarReference:
    """libnum's scalar core, element by element (tests/python/scalar_reference.cpp)."""

    def __init__(self, path):
        self.path = path

    def encode(self, values, format="fp16", mode="ne", bits=32, seed=0, stream=0, first_index=0,
               overflow="ieee", tininess="after"):
        """(encodings as uint32, flag bits per element as uint8) of values rounded once."""
        values = np.ascontiguousarray(values)
        kind = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}[values.dtype]
        out = subprocess.run(
            [str(self.path), "encode", kind, format, mode, str(bits), str(seed), str(stream), str(first_index),
             overflow, tininess],
            input=values.tobytes(), capture_output=True, check=True).stdout
        n = values.size
        return np.frombuffer(out[:4 * n], "<u4"), np.frombuffer(out[4 * n:], np.uint8)

    def decode(self, codes, format):
        codes = np.ascontiguousarray(codes, dtype="<u4")
        out = subprocess.run([str(self.path), "decode", format], input=codes.tobytes(),
                             capture_output=True, check=True).stdout
        return np.frombuffer(out, "<f4")


@pytest.fixture(scope="session")
def reference():
    path = BUILD_DIR / "tests" / "scalar_reference"
    if not path.exists():
        pytest.fail(f"{path} is missing: build the scalar_reference target first")
    return ScalarReference(path)
