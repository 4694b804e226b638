"""Run databases (the SQLite files numlab's trainer, numlab.torch.Recorder,
`numlab inspect` and numlab-gui share; schema in rundb/SCHEMA.md) as dicts of
NumPy columns, read and written through numlab's C++ reader and writer.

    db = numlab.rundb.open("run.db")
    steps = db.steps(run=1)                  # {"step": int64[...], "loss": float64[...], ...}
    grads = db.tensor_stats(run=1, role="grad_weight")
    grads["histogram"][0]                    # uint64 counts; bin 1+i is binade hist_first_exponent+i

Columns: INTEGER columns are int64 (float64 with NaN where a value is NULL),
REAL columns float64 (NaN for NULL), TEXT columns and histograms object arrays
(None for NULL).
"""

import os

import numpy as np

from ._core import RunDatabaseError, RunReader, RunWriter

__all__ = ["open", "RunDatabase", "RunWriter", "RunDatabaseError"]


class RunDatabase:
    """One run database opened read-only; every call reads the file afresh."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._reader = RunReader(self.path)

    @staticmethod
    def tables():
        """Names of the tables table() reads."""
        return RunReader.table_names()

    def table(self, name, run=None):
        """A whole table, or only the rows of run `run`, as a dict of columns."""
        return self._reader.table(name, run)

    def runs(self):
        return self.table("runs")

    def steps(self, run=None):
        return self.table("steps", run)

    def tensor_stats(self, run=None, layer=None, role=None):
        """Tensor statistics, optionally of one layer (site) and/or role only."""
        columns = self.table("tensor_stats", run)
        keep = np.ones(len(columns["id"]), dtype=bool)
        if layer is not None:
            keep &= columns["layer"] == layer
        if role is not None:
            keep &= columns["role"] == role
        return {name: values[keep] for name, values in columns.items()}

    def events(self, run=None):
        return self.table("events", run)


def open(path):  # noqa: A001  (numlab.rundb.open reads like the built-in)
    """Opens a run database read-only; raises RunDatabaseError naming the file
    when it is missing, not a run database, newer than this numlab, or damaged."""
    return RunDatabase(path)
