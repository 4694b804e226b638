"""numlab.stats of a scaled format (num::compute_scaled_stats): hand-derived
block scales, flushes and saturations (OCP MX v1.0 6.3: the shared exponent
is floor(log2(amax)) - emax_elem), statistics counted with NumPy from
quantize_dequantize's output, and agreement with `numlab round --stats`."""

import math
import re
import subprocess

import numpy as np
import pytest

import numlab


def test_mxfp4_flush_and_saturation_by_hand():
    # amax 7: floor(log2 7) = 2, E2M1's emax is 2: scale 2^0 (E8M0 127). 7 is
    # beyond E2M1's max 6 and saturates; 0.25 is the midpoint of 0 and 0.5 and
    # rounds to the even 0, although alone (scale 2^-4) it would be 4; -1.5 is exact.
    s = numlab.stats(np.float32([7, 0.25, -1.5]), "mxfp4")
    assert s["format"] == "mxfp4" and s["mode"] == "ne"
    assert (s["elements"], s["blocks"], s["inexact"]) == (3, 1, 2)
    assert (s["block_underflow"], s["underflow_to_zero"], s["saturated"]) == (1, 0, 1)
    assert (s["finite"], s["nonzero_finite"]) == (3, 3)
    assert s["block_underflow_fraction"] == pytest.approx(1 / 3)
    assert s["saturation_fraction"] == pytest.approx(1 / 3)
    assert s["scale_binades"] == {0: 1} and s["zero_scale_blocks"] == 0
    assert s["amax_over_scale"].tolist() == [7.0]
    assert s["signal_energy"] == 49 + 0.0625 + 2.25
    assert s["noise_energy"] == 1 + 0.0625
    assert s["snr_db"] == pytest.approx(10 * math.log10(51.3125 / 1.0625))
    # E2M1 has no infinity to overflow to: IEEE overflow is refused, as by the CLI.
    with pytest.raises(ValueError, match="^stats: quantize: element format e2m1 has no infinity or NaN"):
        numlab.stats(np.float32([7]), "mxfp4", overflow="ieee")


def test_two_dimensional_blocks_in_row_major_order_by_hand():
    # 2x2 blocks over a 3x3 matrix. Block amaxes 6, 0.75, 56, 104 give scale
    # exponents floor(log2 amax) - 8 (E4M3's emax): -6, -9, -3, -2, and
    # amax / scale = 2^8 x amax's significand: 384, 384, 448, 416. Every
    # quotient is an E4M3 number, so nothing changes.
    x = np.float32([[1, 3, 0.25], [4, 6, 0.75], [16, 56, 104]])
    s = numlab.stats(x, "e4m3/mx-floor/2x2")
    assert s["blocks"] == 4 and s["elements"] == 9
    assert s["scale_binades"] == {-6: 1, -9: 1, -3: 1, -2: 1}
    assert s["amax_over_scale"].tolist() == [384, 384, 448, 416]
    assert s["inexact"] == 0 and s["snr_db"] == math.inf
    # The same values as one row are one block of 32, with amax 104.
    row = numlab.stats(x.ravel(), "e4m3/mx-floor/32")
    assert row["blocks"] == 1 and row["scale_binades"] == {-2: 1}


def scale_values(format, scales):
    """Decode scales of the E8M0 rules (MX): 2^(code - 127)."""
    assert format.startswith("mx") or "/mx-" in format
    return np.exp2(scales.astype(np.float64) - 127)


def counted_stats(x, format, mode, block_cols, **options):
    """The statistics counted with NumPy from quantize_dequantize: of the
    tensor, and of every value quantized alone (its own block and scale)."""
    y, scales, _ = numlab.quantize_dequantize(x, format, mode, **options)
    alone = np.array([numlab.quantize_dequantize(np.float32([v]), format, mode, **options)[0][0] for v in x])
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    finite = np.isfinite(x64)
    nonzero = finite & (x64 != 0)
    flushed = nonzero & (y64 == 0)
    scale = scale_values(format, scales)
    block = np.arange(x.size) // block_cols
    amax = np.array([np.abs(x64[block == b]).max() for b in range(scales.size)])
    binades = {}
    for k in np.floor(np.log2(scale)).astype(int):
        binades[int(k)] = binades.get(int(k), 0) + 1
    return {
        "elements": x.size, "blocks": scales.size, "inexact": int(np.count_nonzero(finite & (y64 != x64))),
        "block_underflow": int(np.count_nonzero(flushed & (alone != 0))),
        "underflow_to_zero": int(np.count_nonzero(flushed & (alone == 0))),
        # Whether |x| / scale overflows depends on the mode's rounding at the
        # top of the range: hand-checked above; here quantize's own report.
        "saturated": numlab.quantize(x, format, mode, counts=True, **options)[3]["saturated"],
        "finite": int(np.count_nonzero(finite)), "nonzero_finite": int(np.count_nonzero(nonzero)),
        "amax": float(np.abs(x64[finite]).max(initial=0.0)),
        "scale_binades": binades, "amax_over_scale": amax / scale,
        "signal_energy": float(np.sum(x64[finite] ** 2)),
        "noise_energy": float(np.sum((x64[finite] - y64[finite]) ** 2)),
    }


@pytest.mark.parametrize("format", ["mxfp8", "mxfp4", "mxfp6-e3m2"])
@pytest.mark.parametrize("mode,options", [("ne", {}), ("rz", {}), ("sr", {"seed": 3, "stream": 1, "bits": 9})])
def test_stats_equal_what_numpy_counts(format, mode, options):
    rng = np.random.default_rng(17)
    # Blocks of 32 whose values span 2^-30 .. 2^10 around a per-block magnitude,
    # so that small values are flushed by their block's scale and a few saturate.
    x = (rng.standard_normal(32 * 40) * np.exp2(rng.integers(-30, 10, 32 * 40))).astype(np.float32)
    got = numlab.stats(x, format, mode, **options)
    want = counted_stats(x, format, mode, 32, **options)
    assert want["block_underflow"] > 0, "the data must exercise the flush count"
    for key, value in want.items():
        if key == "amax_over_scale":
            np.testing.assert_array_equal(got[key], value)
        elif key.endswith("energy"):
            assert got[key] == pytest.approx(value, rel=1e-12), key
        else:
            assert got[key] == value, key
    assert got["block_underflow_fraction"] == pytest.approx(want["block_underflow"] / want["nonzero_finite"])
    assert got["snr_db"] == pytest.approx(10 * math.log10(want["signal_energy"] / want["noise_energy"]))


def cli_stats(numlab_binary, tmp_path, values, format, mode):
    """The lines of `numlab round --stats` for a scaled format, as {label: text}."""
    path = tmp_path / "values.f32"
    path.write_bytes(values.astype("<f4").tobytes())
    out = subprocess.run([str(numlab_binary), "round", "--format", format, "--mode", mode, "--stats", str(path),
                          "--raw"], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^\s+(blocks|block underflow|underflow to zero|saturated|NaN-scale blocks|SNR)\s+(\S+)", line)
        if m:
            rows[m.group(1)] = m.group(2)
    binades = dict((int(k), int(n)) for k, n in re.findall(r"^\s+(-?\d+)\s+(\d+)$", out, re.MULTILINE))
    return rows, binades


@pytest.mark.parametrize("format", ["mxfp8", "mxint8", "nvfp4", "fp8-block"])
def test_stats_equal_the_cli_stats(numlab_binary, tmp_path, format):
    rng = np.random.default_rng(23)
    x = (rng.standard_normal(4096) * np.exp2(rng.integers(-24, 8, 4096))).astype(np.float32)
    x[5] = np.nan
    got = numlab.stats(x, format)
    rows, binades = cli_stats(numlab_binary, tmp_path, x, format, "ne")
    assert int(rows["blocks"]) == got["blocks"]
    assert int(rows["block underflow"]) == got["block_underflow"]
    assert int(rows["underflow to zero"]) == got["underflow_to_zero"]
    assert int(rows["saturated"]) == got["saturated"]
    assert int(rows["NaN-scale blocks"]) == got["nan_scale_blocks"] == 1
    assert float(rows["SNR"]) == pytest.approx(got["snr_db"], rel=1e-3)
    assert binades == got["scale_binades"]


def test_scaled_only_arguments_are_refused_for_element_formats():
    with pytest.raises(ValueError, match=r"^stats margin: only for a scaled format \(fp16 is a per-element format\)$"):
        numlab.stats(np.float32([1.0]), "fp16", margin=1)
    with pytest.raises(ValueError, match="stats format: "):
        numlab.stats(np.float32([1.0]), "e2m1/no-such-rule")
    with pytest.raises(ValueError, match="must be a 1-D or 2-D array"):
        numlab.stats(np.zeros((2, 2, 2), np.float32), "mxfp8")


@pytest.mark.parametrize("format", ["mxfp8", "nvfp4", "fp8-block"])
def test_amax_is_numpys_largest_finite_magnitude(format):
    rng = np.random.default_rng(23)
    x = (rng.standard_normal(32 * 16) * np.exp2(rng.integers(-20, 20, 32 * 16))).astype(np.float32)
    x[[5, 77, 300]] = [np.inf, -np.inf, np.nan]  # not finite: never the amax
    x[123] = -3.0e7  # the largest finite magnitude (the others stay below 2^19 x 6), negative
    assert numlab.stats(x, format)["amax"] == float(np.max(np.abs(x[np.isfinite(x)]))) == 3.0e7
    assert numlab.stats(np.float32([0, -0.0, np.nan]), format)["amax"] == 0.0
