"""numlab: bit-exact low-precision floating point for NumPy.

round / encode / decode run libnum's array kernels on NumPy arrays (float32 or
float64 in; float32, or uint8/uint16/uint32 encodings, out), bit-identical to
the C++ calls; quantize / dequantize do the same for the scaled formats (OCP
MX, NVFP4, FP8 with per-tensor or per-block scales), and quantize_dequantize
both in one call (fake quantization); stats gives a tensor's statistics as rounding it into a format
(or quantizing it into a scaled one) would make them. numlab.rundb reads and writes run databases, numlab.torch
records PyTorch training runs into them (import it explicitly; it needs torch).

Formats: fp16, bf16, e5m2, e4m3, tf32, fp32, eXmY, p=..,emin=..,emax=..
Modes: ne (nearest-even), na (nearest-away), rz, ru, rd, ro (to odd), sr
(stochastic, with bits/seed/stream/first_index).
"""

from ._core import (  # noqa: F401  (the package's API)
    ConversionReport,
    __version__,
    decode,
    dequantize,
    encode,
    format_info,
    formats,
    quantize,
    quantize_dequantize,
    round,
    stats,
)
from . import rundb  # noqa: F401

__all__ = ["round", "encode", "decode", "quantize", "dequantize", "quantize_dequantize", "stats", "formats", "format_info",
           "ConversionReport", "rundb"]
