"""numlab.torch.Recorder on a real CUDA mixed-precision run: fp16 autocast and
torch.amp.GradScaler on an NVIDIA GPU. tests/python/test_torch.py checks the
recorder on the CPU with Debian's torch 1.13 and a GradScaler stand-in; this
checks it with the GPU's own autocast and GradScaler, each point against
something the recorder does not compute:

1. every recorded row equals numlab.stats of the very tensor hooks of our own
   copied (fp16 activations and gradients of the GPU, fp32 weights);
2. each step's loss scale equals the scale GradScaler had when the step began;
3. a step is marked skipped exactly when the optimizer left the weights
   unchanged (GradScaler skips optimizer.step on inf/NaN gradients); the
   initial scale 2^24 makes the first steps' fp16 gradients overflow, so
   skipped and taken steps both occur;
4. the run database reads back through numlab.rundb (the C++ reader).

Not part of the CI suite (no GPU there). Run with numlab's Python package on
PYTHONPATH (its _core built for this python): python3 torch_recorder_check.py DB
Prints one line per check and exits 1 on any failure.
"""

import collections
import sys

import numpy as np
import torch

import numlab
import numlab.rundb
import numlab.torch

STEPS, EVERY, WIDTH = 40, 3, 256


def make_model():
    layers = collections.OrderedDict()
    for i in (1, 2):
        layers[f"fc{i}"] = torch.nn.Linear(WIDTH, WIDTH)
        layers[f"relu{i}"] = torch.nn.ReLU()
    layers["fc3"] = torch.nn.Linear(WIDTH, 8)
    return torch.nn.Sequential(layers).cuda()


def cpu_copy(tensor):
    return tensor.detach().float().cpu().numpy().copy()


def main(path):
    torch.manual_seed(2)
    net = make_model()
    data = torch.randn(4, 64, WIDTH, device="cuda")
    targets = torch.randn(4, 64, 8, device="cuda")
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0 ** 24, growth_interval=5)
    recorder = numlab.torch.Recorder(net, path, format="fp16", every=EVERY, scaler=scaler)
    seen, scales, skipped = {}, [], []

    def keep(site, role, tensor):
        if recorder.recording and tensor is not None:
            seen[(recorder.step_index, site, role)] = cpu_copy(tensor)

    for name, module in net.named_modules():
        if any(True for _ in module.children()):
            continue
        module.register_forward_hook(lambda m, i, out, name=name: keep(name, "activation", out))
        module.register_full_backward_hook(lambda m, gin, gout, name=name: keep(name, "grad_input", gin[0]))
        for pname, p in module.named_parameters(recurse=False):
            p.register_hook(lambda g, site=f"{name}.{pname}": keep(site, "grad_weight", g))

    activation_dtypes = set()
    with recorder:
        for step in range(STEPS):
            scales.append(float(scaler.get_scale()))
            before = [p.detach().clone() for p in net.parameters()]
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                out = net(data[step % 4])
                activation_dtypes.add(out.dtype)
                loss = torch.nn.functional.mse_loss(out.float(), targets[step % 4])
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            skipped.append(all(torch.equal(b, p.detach()) for b, p in zip(before, net.parameters())))
            if recorder.recording:
                for name, p in net.named_parameters():
                    seen[(recorder.step_index, name, "weight")] = cpu_copy(p)
            recorder.end_step(loss)

    failures = 0

    def check(what, ok, detail=""):
        nonlocal failures
        print(f"{'ok  ' if ok else 'FAIL'} {what}{(': ' + detail) if detail else ''}")
        failures += 0 if ok else 1

    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, activations {sorted(map(str, activation_dtypes))}")
    db = numlab.rundb.open(path)
    rows = db.tensor_stats()
    check("rows recorded = tensors our hooks saw", len(rows["id"]) == len(seen) > 0, f"{len(rows['id'])} rows")
    check("recorded steps", sorted(set(rows["step"].tolist())) == list(range(0, STEPS, EVERY)))
    mismatched = []
    columns = ("count", "zeros", "subnormals", "underflows", "overflows", "nans", "infs", "min_abs", "max_abs",
               "mean", "rms", "hist_first_exponent")
    for i in range(len(rows["id"])):
        key = (int(rows["step"][i]), rows["layer"][i], rows["role"][i])
        want = numlab.stats(seen[key], "fp16")
        bad = [c for c in columns if not (rows[c][i] == want[c] or (np.isnan(rows[c][i]) and np.isnan(want[c])))]
        if bad or not np.array_equal(rows["histogram"][i], want["histogram"]):
            mismatched.append((key, bad))
    check("every row equals numlab.stats of the same tensor", not mismatched, str(mismatched[:3]))
    underflows = int(np.sum(rows["underflows"]))
    print(f"     fp16 underflows counted over the recorded tensors: {underflows}")
    steps = db.steps()
    check("steps", steps["step"].tolist() == list(range(STEPS)))
    check("loss scale = GradScaler's scale at the step's start", steps["loss_scale"].tolist() == scales,
          f"{scales[:8]} ...")
    recorded_skips = [bool(s) for s in steps["skipped"].tolist()]
    check("skipped = the optimizer left the weights unchanged", recorded_skips == skipped,
          f"recorded {np.flatnonzero(recorded_skips).tolist()}, weights unchanged at {np.flatnonzero(skipped).tolist()}")
    check("both skipped and taken steps occurred", any(skipped) and not all(skipped))
    check("run finished", db.runs()["status"].tolist() == ["finished"])
    print("all checks agree" if failures == 0 else "SOME CHECKS FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
