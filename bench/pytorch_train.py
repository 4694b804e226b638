#!/usr/bin/env python3
"""Images per second of fp32 training steps in PyTorch, for the same models,
batch sizes and synthetic inputs as bench/train_bench.cpp: the tutorial conv
model (batch 32, 1x28x28) and ResNet-8 (batch 128, 3x32x32), Adam eps 1e-4.

Usage: pytorch_train.py [--threads N] [--seconds S]
Prints one line per model: "<name> <images/s by wall time> <images/s by
process CPU time>" (the second is robust to other load on a shared machine
and equals the first on an idle one with --threads 1).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class TutorialConv(nn.Module):
    """conv3x3x32 (no bias) -> ReLU -> conv3x3x32 (no bias) -> dense 10, 'same' padding."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1, bias=False)
        self.conv2 = nn.Conv2d(32, 32, 3, padding=1, bias=False)
        self.fc = nn.Linear(32 * 28 * 28, 10)

    def forward(self, x):
        x = self.conv2(F.relu(self.conv1(x)))
        return self.fc(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv_a = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn_a = nn.BatchNorm2d(cout)
        self.conv_b = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn_b = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn_a(self.conv_a(x)))
        y = self.bn_b(self.conv_b(y))
        return F.relu(y + self.shortcut(x))


class ResNet(nn.Module):
    """He et al.'s CIFAR ResNet of depth 6N+2, as lab::make_resnet builds it."""

    def __init__(self, depth=8, channels=3, classes=10):
        super().__init__()
        n = (depth - 2) // 6
        self.stem = nn.Sequential(nn.Conv2d(channels, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        layers, cin = [], 16
        for stage in range(3):
            cout = 16 << stage
            for b in range(n):
                layers.append(BasicBlock(cin, cout, 2 if stage > 0 and b == 0 else 1))
                cin = cout
        self.blocks = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def images_per_second(model, batch, shape, seconds):
    torch.manual_seed(1)
    x = torch.randn(batch, *shape)
    y = torch.randint(0, 10, (batch,))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)

    def step():
        opt.zero_grad(set_to_none=False)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):  # warm-up
        step()
    steps, start, cpu_start = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        step()
        steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return f"{steps * batch / wall:.1f} {steps * batch / cpu:.1f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"tutorial_conv_b32 {images_per_second(TutorialConv(), 32, (1, 28, 28), args.seconds)}")
    print(f"resnet8_b128 {images_per_second(ResNet(8), 128, (3, 32, 32), args.seconds)}")


if __name__ == "__main__":
    main()
