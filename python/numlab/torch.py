"""Records PyTorch training into a numlab run database, for numlab-gui and
`numlab inspect` (pure Python over numlab's statistics and run-database writer).

    recorder = numlab.torch.Recorder(model, "run.db", format="fp16", every=10, scaler=scaler)
    for x, y in batches:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer); scaler.update(); optimizer.zero_grad()
        recorder.end_step(loss)
    recorder.close()

Every `every`-th step (0, every, 2*every, ...) each leaf module's output
(role activation) and the gradient of its first input (grad_input), and each
parameter (weight) and its gradient as backward produces it (grad_weight, at
site "<module>.<parameter>"), are summarised by numlab.stats as rounding them
into `format` would make them: underflows, overflows, subnormals and the
binade histogram, whatever dtype the tensor has (bf16 and fp16 tensors widen to
fp32 exactly). Every step's loss is recorded, and with a scaler its loss scale
and whether the step was skipped (the scale went down, as torch's GradScaler
does on inf/NaN gradients). A module that modifies its input in place
(nn.ReLU(inplace=True)) gets no grad_input row: the view it was handed no
longer carries the gradient (full backward hooks raise an error there
instead). The hooks are attached only for a recorded step (end_step attaches and detaches them), so call end_step between
steps, never inside one.

A module's grad_input is what torch's full backward hook would pass as
grad_input[0]: the gradient that this module alone sends to its first input.
The recorder takes it more cheaply: a forward pre-hook hands the module a view
of that input (`view_as`, no copy) and a tensor hook on the view receives the
gradient flowing back through it, so torch does not wrap the module's inputs
and outputs in Python autograd functions on every call.
"""

import math
import time

import numpy as np
import torch

from ._core import stats as _stats
from .rundb import RunWriter

__all__ = ["Recorder"]


def _values(tensor):
    """A tensor's values as a C-contiguous float32 NumPy array (exact for fp16/bf16/fp32)."""
    return tensor.detach().to(device="cpu", dtype=torch.float32).contiguous().numpy()


class Recorder:
    """Hooks on `model` that write one run into the run database at `path`."""

    def __init__(self, model, path, format="fp16", every=10, *, scaler=None, mode="ne", run_name=None):
        if every < 1:
            raise ValueError(f"Recorder every: must be at least 1 (got {every})")
        # ValueError for a format or mode numlab does not know.
        if "histogram" not in _stats(np.zeros(0, dtype=np.float32), format, mode):
            raise ValueError(f"Recorder format: {format} is a scaled format; the run database's tensor "
                             "statistics are those of per-element formats (fp16, bf16, e4m3, ...)")
        self.format = format
        self.mode = mode
        self.every = every
        self.scaler = scaler
        self.step_index = 0
        self._db = RunWriter(path)
        config = (f"source: numlab.torch.Recorder\nmodel: {type(model).__name__}\n"
                  f"format: {format}\nmode: {mode}\nevery: {every}\n")
        self.run = self._db.begin_run(run_name or type(model).__name__, config_yaml=config)
        self._started = time.monotonic()
        self._scale_in_force = self._current_scale()
        self._closed = False
        self._modules = [(name or type(m).__name__.lower(), type(m).__name__.lower(), m)
                         for name, m in model.named_modules() if not any(True for _ in m.children())]
        self._parameters = [(f"{site}.{parameter_name}", op, parameter) for site, op, module in self._modules
                            for parameter_name, parameter in module.named_parameters(recurse=False)]
        self._handles = []
        self._pending = []  # this step's (site, op, role, stats), written by end_step
        if self.recording:
            self._attach_hooks()

    def _attach_hooks(self):
        """The hooks, for a recorded step only: an unrecorded step then runs
        exactly as without a recorder."""
        for site, op, module in self._modules:
            self._handles.append(module.register_forward_pre_hook(self._on_input(site, op)))
            self._handles.append(module.register_forward_hook(self._on_output(site, op)))
        for site, op, parameter in self._parameters:
            self._handles.append(parameter.register_hook(self._on_parameter_gradient(site, op)))

    def _detach_hooks(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    @property
    def recording(self):
        """Whether the current step's tensors are being recorded."""
        return self.step_index % self.every == 0

    def _record(self, site, op, role, tensor):
        # Gathered and written in end_step, all in one transaction: a commit
        # per tensor cost more than the statistics themselves.
        self._pending.append((site, op, role, _stats(_values(tensor), self.format, self.mode)))

    def _write_pending(self):
        if self._pending:
            self._db.add_tensor_stats_many(self.run, self.step_index, self._pending)
            self._pending = []

    def _on_input(self, site, op):
        def hook(module, inputs):
            first = inputs[0] if inputs else None
            if not (isinstance(first, torch.Tensor) and first.requires_grad):
                return None  # no gradient flows to it: full backward hooks see None too
            view = first.view_as(first)
            view.register_hook(lambda gradient: self._record(site, op, "grad_input", gradient))
            return (view,) + tuple(inputs[1:])
        return hook

    def _on_output(self, site, op):
        def hook(module, inputs, output):
            if isinstance(output, torch.Tensor) and output.is_floating_point():
                self._record(site, op, "activation", output)
        return hook

    def _on_parameter_gradient(self, site, op):
        def hook(gradient):
            self._record(site, op, "grad_weight", gradient)
        return hook

    def _current_scale(self):
        return float(self.scaler.get_scale()) if self.scaler is not None else None

    def end_step(self, loss):
        """Ends the current step: records its loss (a tensor or a number), loss
        scale and skip, and on recorded steps the weights after the update."""
        if self.recording:
            for site, op, parameter in self._parameters:
                self._record(site, op, "weight", parameter)
        self._write_pending()
        value = float(loss.detach()) if isinstance(loss, torch.Tensor) else float(loss)
        scale_after = self._current_scale()
        skipped = scale_after is not None and scale_after < self._scale_in_force
        self._db.add_step(self.run, self.step_index, loss=value, loss_scale=self._scale_in_force, skipped=skipped,
                          skip_reason="inf or NaN in the scaled gradients" if skipped else "",
                          wall_time=time.monotonic() - self._started)
        if skipped:
            self._db.add_event(self.run, self.step_index, "skipped",
                               f"loss scale {self._scale_in_force:g} -> {scale_after:g}")
        if not math.isfinite(value):
            self._db.add_event(self.run, self.step_index, "nan", f"loss is {value}")
        self._scale_in_force = scale_after
        was_recording = self.recording
        self.step_index += 1
        if was_recording and not self.recording:
            self._detach_hooks()
        elif self.recording and not was_recording:
            self._attach_hooks()

    def close(self, status="finished"):
        """Removes the hooks and marks the run `status` (finished, failed,
        interrupted); writes everything queued."""
        if self._closed:
            return
        self._closed = True
        self._write_pending()  # a step that ended without end_step keeps what it recorded
        self._detach_hooks()
        self._db.finish_run(self.run, status)
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close("finished")
        else:
            self.close("interrupted" if issubclass(kind, KeyboardInterrupt) else "failed")
