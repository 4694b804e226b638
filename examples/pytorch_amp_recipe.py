#!/usr/bin/env python3
"""The PyTorch automatic-mixed-precision recipe's MLP (Linear-ReLU-Linear-ReLU-
Linear, MSE loss on random data, SGD lr 0.001) at CPU size (width 512 instead
of 4096, batch 128 instead of 512), under bf16 autocast
with a GradScaler-style dynamic loss scaler, recorded by numlab.torch.Recorder:
what its activations, gradients and weights would look like rounded into fp16.

    PYTHONPATH=build/python /usr/bin/python3 examples/pytorch_amp_recipe.py --db amp.db
    build/numlab inspect amp.db
    build/numlab-gui amp.db

torch 1.13's GradScaler runs on CUDA only, so the loss scaling here is the same
algorithm written out for the CPU (DynamicLossScaler below).
"""

import argparse
import collections
import math
import sys
import time

import torch

import numlab.torch


def make_model(in_size, out_size, num_layers):
    """The recipe's make_model, with named layers (fc1, relu1, ...) for the viewer."""
    layers = collections.OrderedDict()
    for i in range(1, num_layers):
        layers[f"fc{i}"] = torch.nn.Linear(in_size, in_size)
        layers[f"relu{i}"] = torch.nn.ReLU()
    layers[f"fc{num_layers}"] = torch.nn.Linear(in_size, out_size)
    return torch.nn.Sequential(layers)


class DynamicLossScaler:
    """torch.cuda.amp.GradScaler's algorithm and interface (scale, step, update,
    get_scale): multiply the loss by the scale; skip the update and halve the
    scale when a gradient is inf or NaN; double it after growth_interval clean steps."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._clean_steps = 0
        self._found_inf = False

    def scale(self, loss):
        return loss * self._scale

    def step(self, optimizer):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        self._found_inf = any(not torch.isfinite(g).all() for g in grads)
        if self._found_inf:
            return
        for g in grads:
            g.mul_(1.0 / self._scale)
        optimizer.step()

    def update(self):
        if self._found_inf:
            self._scale *= self._backoff_factor
            self._clean_steps = 0
        else:
            self._clean_steps += 1
            if self._clean_steps == self._growth_interval:
                self._scale *= self._growth_factor
                self._clean_steps = 0

    def get_scale(self):
        return self._scale


def make_data(batch_size, in_size, out_size, num_batches):
    data = [torch.randn(batch_size, in_size) for _ in range(num_batches)]
    targets = [torch.randn(batch_size, out_size) for _ in range(num_batches)]
    return data, targets


def train(steps, recorder_options=None, size=512, batch_size=128, num_layers=3, num_batches=50, seed=2):
    """Trains `steps` steps; records them when recorder_options (Recorder's
    keyword arguments, with `path`) are given. Returns (losses, process CPU
    seconds per step, wall seconds per step) of the training loop alone (not of
    creating or closing the recording)."""
    torch.manual_seed(seed)
    net = make_model(size, size, num_layers)
    data, targets = make_data(batch_size, size, size, num_batches)
    loss_fn = torch.nn.MSELoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.001)
    scaler = DynamicLossScaler()
    recorder = None
    if recorder_options is not None:
        options = dict(recorder_options)
        recorder = numlab.torch.Recorder(net, options.pop("path"), scaler=scaler, **options)
    losses = []
    started_cpu, started = time.process_time(), time.perf_counter()
    try:
        for step in range(steps):
            x, y = data[step % num_batches], targets[step % num_batches]
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                output = net(x)
                loss = loss_fn(output, y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            losses.append(float(loss))
            if recorder is not None:
                recorder.end_step(loss)
    except BaseException:
        if recorder is not None:
            recorder.close("failed")
        raise
    cpu_seconds = (time.process_time() - started_cpu) / max(steps, 1)
    seconds = (time.perf_counter() - started) / max(steps, 1)
    if recorder is not None:
        diverged = not all(math.isfinite(v) for v in losses)
        recorder.close("failed" if diverged else "finished")
    return losses, cpu_seconds, seconds


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="amp-recipe.db", help="run database to write")
    parser.add_argument("--steps", type=int, default=150, help="training steps (3 epochs of 50 batches)")
    parser.add_argument("--format", default="fp16", help="format the statistics assume")
    parser.add_argument("--every", type=int, default=10, help="record every N-th step")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    losses, _, seconds = train(args.steps, {"path": args.db, "format": args.format, "every": args.every})
    # The batches differ in loss more than an epoch lowers it: compare whole epochs.
    epoch = min(50, len(losses))
    first, last = sum(losses[:epoch]) / epoch, sum(losses[-epoch:]) / epoch
    print(f"{args.steps} steps, mean loss of the first and last {epoch} steps {first:.5f} -> {last:.5f}, "
          f"{seconds * 1e3:.2f} ms/step; recorded into {args.db}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
