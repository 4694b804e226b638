"""numlab.rundb: a database written through RunWriter reads back, column by
column, through numlab.rundb.open and through `numlab inspect`."""

import subprocess

import numpy as np
import pytest

import numlab


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "run.db"
    activations = np.array([0.5, -3.0, 1e-9, 0.0, 70000.0], dtype=np.float32)
    with numlab.rundb.RunWriter(path) as db:
        run = db.begin_run("python", config_yaml="source: test\n")
        db.add_step(run, 0, loss=2.5, loss_scale=1024.0)
        db.add_step(run, 1, loss=2.25, loss_scale=512.0, skipped=True, skip_reason="inf in grad")
        db.add_tensor_stats(run, 0, "fc1", "linear", "activation", numlab.stats(activations, "fp16"))
        db.add_event(run, 1, "skipped", "inf in grad", layer="fc1")
        db.finish_run(run, "finished")
    return path, run, activations


def test_written_rows_read_back_as_numpy_columns(database):
    path, run, activations = database
    db = numlab.rundb.open(path)
    runs = db.runs()
    assert runs["id"].tolist() == [run] and runs["name"].tolist() == ["python"]
    assert runs["status"].tolist() == ["finished"]
    steps = db.steps(run)
    assert steps["step"].dtype == np.int64 and steps["step"].tolist() == [0, 1]
    assert steps["loss"].tolist() == [2.5, 2.25] and steps["loss_scale"].tolist() == [1024.0, 512.0]
    assert steps["skipped"].tolist() == [0, 1] and np.isnan(steps["lr"]).all()
    stats = db.tensor_stats(run, layer="fc1", role="activation")
    assert stats["count"].tolist() == [5] and stats["zeros"].tolist() == [1]
    assert stats["underflows"].tolist() == [1] and stats["overflows"].tolist() == [1]
    assert stats["max_abs"].tolist() == [70000.0] and stats["format"].tolist() == ["fp16"]
    histogram = stats["histogram"][0]
    np.testing.assert_array_equal(histogram, numlab.stats(activations, "fp16")["histogram"])
    assert stats["hist_first_exponent"].tolist() == [-24]
    assert db.tensor_stats(run, role="grad_input")["id"].size == 0
    assert db.events(run)["kind"].tolist() == ["skipped"]
    assert "formats" in db.tables() and db.table("formats")["name"].tolist() == ["fp16"]


def test_numlab_inspect_reads_what_python_wrote(database, numlab_binary):
    path, _, _ = database
    summary = subprocess.run([str(numlab_binary), "inspect", str(path)], capture_output=True, text=True, check=True)
    assert "python" in summary.stdout and "finished" in summary.stdout
    csv = subprocess.run([str(numlab_binary), "inspect", str(path), "--csv", "tensor_stats"], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    header = csv[0].split(",")
    row = dict(zip(header, csv[1].split(",")))
    assert row["layer"] == "fc1" and row["count"] == "5" and row["overflows"] == "1"


def test_opening_something_else_names_the_file(tmp_path):
    missing = tmp_path / "missing.db"
    with pytest.raises(numlab.rundb.RunDatabaseError, match="missing.db"):
        numlab.rundb.open(missing)
    text = tmp_path / "notes.db"
    text.write_text("not a database")
    with pytest.raises(numlab.rundb.RunDatabaseError, match="notes.db"):
        numlab.rundb.open(text)
    with pytest.raises(numlab.rundb.RunDatabaseError, match="no table 'bogus'"):
        numlab.rundb.open(_empty_database(tmp_path)).table("bogus")


def _empty_database(tmp_path):
    path = tmp_path / "empty.db"
    numlab.rundb.RunWriter(path).close()
    return path


def test_writer_rejects_unknown_names(tmp_path):
    with numlab.rundb.RunWriter(tmp_path / "w.db") as db:
        run = db.begin_run("r")
        with pytest.raises(ValueError, match="add_event kind: unknown event kind 'boom'"):
            db.add_event(run, 0, "boom", "x")
        with pytest.raises(ValueError, match="finish_run status: unknown run status 'done'"):
            db.finish_run(run, "done")
    with pytest.raises(ValueError, match="the writer is closed"):
        db.add_step(run, 0)


def test_scale_stats_histories_read_as_float64_arrays(tmp_path, numlab_binary):
    """rundb-synth's delayed scaling: each row's amax heads its history, whose
    largest value over e4m3's maximum 448 is the decode scale (schema v3)."""
    synth = numlab_binary.parent / "rundb-synth"
    if not synth.exists():
        pytest.skip("rundb-synth is not built")
    path = tmp_path / "scaled.db"
    subprocess.run([str(synth), str(path), "--steps", "40", "--stats-every", "10", "--layers", "1", "--runs", "2",
                    "--scale-stats", "mxfp8", "--amax-history", "3", "--coordinate", "seed=1,2"], check=True)
    db = numlab.rundb.open(path)
    rows = db.table("scale_stats", run=1)
    assert len(rows["id"]) == 4 * 3  # 4 stats steps x 3 roles
    assert set(rows["scaled_format"]) == {"mxfp8"}
    for amax, history, scale in zip(rows["amax"], rows["amax_history"], rows["scale"]):
        assert history.dtype == np.float64 and 1 <= len(history) <= 3
        assert history[0] == amax and scale == max(history) / 448
    coordinates = db.table("run_coordinates")
    assert coordinates["run_id"].tolist() == [1, 2] and coordinates["value"].tolist() == ["1", "2"]


def test_a_list_of_tensor_stats_is_written_at_once(tmp_path):
    path = tmp_path / "many.db"
    values = [np.array([1.0, 2.0 ** -30, 1e6], dtype=np.float32), np.array([0.0, -0.5], dtype=np.float32)]
    with numlab.rundb.RunWriter(path) as db:
        run = db.begin_run("many")
        with pytest.raises(ValueError, match="each must be"):
            db.add_tensor_stats_many(run, 0, [("fc1", "linear", "activation")])
        db.add_tensor_stats_many(run, 3, [("fc1", "linear", "activation", numlab.stats(values[0], "fp16")),
                                          ("fc2", "linear", "grad_input", numlab.stats(values[1], "bf16"))])
        db.finish_run(run)
    stats = numlab.rundb.open(path).tensor_stats(run)
    assert stats["layer"].tolist() == ["fc1", "fc2"] and stats["step"].tolist() == [3, 3]
    assert stats["role"].tolist() == ["activation", "grad_input"] and stats["format"].tolist() == ["fp16", "bf16"]
    assert stats["count"].tolist() == [3, 2] and stats["underflows"].tolist() == [1, 0]
    assert stats["overflows"].tolist() == [1, 0] and stats["zeros"].tolist() == [0, 1]
