"""numlab.torch.Recorder on real PyTorch training: 20 recorded steps read back
through the C++ reader (numlab.rundb), `numlab inspect` and numlab-gui, every
row equal to numlab.stats of the very tensor the hooks saw."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="python3-torch is not installed: skipping the PyTorch recorder tests "
                    "(bash scripts/install-deps.sh installs it)")
import numlab  # noqa: E402
import numlab.torch  # noqa: E402
from conftest import BUILD_DIR  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
import pytorch_amp_recipe as recipe  # noqa: E402

STEPS, EVERY = 20, 5


class SeenTensors:
    """Copies of what the recorder's hooks see, taken by hooks of our own."""

    def __init__(self, model, recorder):
        self.recorder = recorder
        self.rows = {}
        for name, module in model.named_modules():
            if any(True for _ in module.children()):
                continue
            module.register_forward_hook(lambda m, i, out, name=name: self.keep(name, "activation", out))
            module.register_full_backward_hook(lambda m, gin, gout, name=name: self.keep(name, "grad_input", gin[0]))
            for pname, p in module.named_parameters(recurse=False):
                p.register_hook(lambda g, site=f"{name}.{pname}": self.keep(site, "grad_weight", g))

    def keep(self, site, role, tensor):
        if self.recorder.recording and tensor is not None:
            self.rows[(self.recorder.step_index, site, role)] = tensor.detach().float().numpy().copy()


def train_recorded(path, scaler):
    torch.manual_seed(2)
    net = recipe.make_model(32, 16, 3)
    data, targets = recipe.make_data(8, 32, 16, 4)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    recorder = numlab.torch.Recorder(net, path, format="fp16", every=EVERY, scaler=scaler)
    seen = SeenTensors(net, recorder)
    with recorder:
        for step in range(STEPS):
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                loss = torch.nn.functional.mse_loss(net(data[step % 4]), targets[step % 4])
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            if recorder.recording:
                for name, p in net.named_parameters():
                    seen.rows[(recorder.step_index, name, "weight")] = p.detach().numpy().copy()
            recorder.end_step(loss)
    return seen.rows


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("torch") / "recorded.db"
    seen = train_recorded(path, recipe.DynamicLossScaler(init_scale=2.0 ** 10))
    return path, seen


def test_every_recorded_row_equals_numlab_stats_of_the_same_tensor(recorded):
    path, seen = recorded
    db = numlab.rundb.open(path)
    rows = db.tensor_stats()
    assert len(rows["id"]) == len(seen) > 0
    assert sorted(set(rows["step"].tolist())) == list(range(0, STEPS, EVERY))
    assert set(rows["role"].tolist()) == {"activation", "grad_input", "grad_weight", "weight"}
    for i in range(len(rows["id"])):
        key = (int(rows["step"][i]), rows["layer"][i], rows["role"][i])
        want = numlab.stats(seen[key], "fp16")
        for column in ("count", "zeros", "subnormals", "underflows", "overflows", "nans", "infs",
                       "min_abs", "max_abs", "mean", "rms", "hist_first_exponent"):
            assert rows[column][i] == want[column], (key, column)
        np.testing.assert_array_equal(rows["histogram"][i], want["histogram"])


def test_steps_hold_loss_and_loss_scale(recorded):
    path, _ = recorded
    db = numlab.rundb.open(path)
    steps = db.steps()
    assert steps["step"].tolist() == list(range(STEPS))
    assert np.all(np.isfinite(steps["loss"])) and steps["loss_scale"].tolist() == [1024.0] * STEPS
    assert db.runs()["status"].tolist() == ["finished"]


def test_numlab_inspect_reads_the_recording(recorded, numlab_binary):
    path, _ = recorded
    out = subprocess.run([str(numlab_binary), "inspect", str(path), "--layer", "fc1"], capture_output=True,
                         text=True, check=True).stdout
    assert "fc1" in out


class ShrinkingScaler(recipe.DynamicLossScaler):
    """Reports inf gradients at steps 3 and 7, as GradScaler would on an overflow."""

    def __init__(self):
        super().__init__(init_scale=256.0)
        self.calls = 0

    def step(self, optimizer):
        super().step(optimizer)
        self._found_inf = self.calls in (3, 7)
        self.calls += 1


def test_a_shrinking_scale_marks_the_step_skipped(tmp_path):
    train_recorded(tmp_path / "skips.db", ShrinkingScaler())
    steps = numlab.rundb.open(tmp_path / "skips.db").steps()
    assert np.flatnonzero(steps["skipped"]).tolist() == [3, 7]
    assert steps["loss_scale"][:9].tolist() == [256.0] * 4 + [128.0] * 4 + [64.0]


def test_a_failing_run_is_marked_failed(tmp_path):
    net = recipe.make_model(4, 4, 2)
    with pytest.raises(RuntimeError):
        with numlab.torch.Recorder(net, tmp_path / "f.db", every=1):
            net(torch.ones(3, 5))  # wrong width
    assert numlab.rundb.open(tmp_path / "f.db").runs()["status"].tolist() == ["failed"]


def test_bad_arguments_fail_before_anything_is_written(tmp_path):
    net = recipe.make_model(4, 4, 2)
    with pytest.raises(ValueError, match="unknown format 'fp12'"):
        numlab.torch.Recorder(net, tmp_path / "a.db", format="fp12")
    with pytest.raises(ValueError, match="Recorder every: must be at least 1"):
        numlab.torch.Recorder(net, tmp_path / "b.db", every=0)
    with pytest.raises(ValueError, match="Recorder format: mxfp8 is a scaled format"):
        numlab.torch.Recorder(net, tmp_path / "c.db", format="mxfp8")
    assert not any((tmp_path / name).exists() for name in ("a.db", "b.db", "c.db"))


def test_numlab_gui_renders_the_recording(recorded, tmp_path):
    gui = BUILD_DIR / "numlab-gui"
    if not gui.exists():
        pytest.skip("numlab-gui is not built")
    path, _ = recorded
    shot = tmp_path / "histograms.png"
    subprocess.run([str(gui), "--screenshot", str(shot), "--view", "histograms", "--role", "activation",
                    "--step", "15", str(path)], check=True, capture_output=True, timeout=300,
                   env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class Residual(torch.nn.Module):
    """fc(x) + x: fc's input also feeds the sum, so its tensor's gradient is
    more than what fc sends back."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Linear(6, 6)
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x):
        h = self.stem(x)
        return self.fc(h) + h


def test_grad_input_is_the_modules_own_share_as_full_backward_hooks_see_it(tmp_path):
    torch.manual_seed(5)
    net = Residual()
    shares = {}
    for name in ("stem", "fc"):
        getattr(net, name).register_full_backward_hook(
            lambda m, gin, gout, name=name: shares.__setitem__(name, gin[0].detach().numpy().copy()))
    x = torch.randn(4, 6, requires_grad=True)
    with numlab.torch.Recorder(net, tmp_path / "r.db", every=1) as recorder:
        net(x).square().sum().backward()
        recorder.end_step(0.0)
    rows = numlab.rundb.open(tmp_path / "r.db").tensor_stats()
    recorded = {rows["layer"][i]: i for i in range(len(rows["id"])) if rows["role"][i] == "grad_input"}
    assert sorted(recorded) == ["fc", "stem"]
    for name, i in recorded.items():
        want = numlab.stats(shares[name], "fp16")
        assert rows["mean"][i] == want["mean"] and rows["rms"][i] == want["rms"], name
        np.testing.assert_array_equal(rows["histogram"][i], want["histogram"])


def test_an_in_place_module_gets_no_grad_input_row(tmp_path):
    # As the Recorder's docstring says: ReLU(inplace=True) overwrites the view
    # it was handed, so only the last Linear's grad_input is recorded (the
    # first Linear's input needs no gradient).
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(inplace=True), torch.nn.Linear(4, 2))
    with numlab.torch.Recorder(net, tmp_path / "inplace.db", every=1) as recorder:
        net(torch.randn(3, 4)).sum().backward()
        recorder.end_step(0.0)
    db = numlab.rundb.open(tmp_path / "inplace.db")
    assert db.tensor_stats(role="grad_input")["layer"].tolist() == ["2"]
    assert sorted(db.tensor_stats(role="activation")["layer"].tolist()) == ["0", "1", "2"]
