"""numlab.quantize / numlab.dequantize: hand-derived block scales and
element codes (OCP MX v1.0 6.3: the shared exponent is floor(log2(amax)) -
emax_elem), and agreement with the C++ num::quantize as `numlab round` prints it."""

import re
import subprocess

import numpy as np
import pytest

import numlab


def test_mxfp4_block_by_hand():
    # amax 100: floor(log2 100) = 6, E2M1's emax is 2, so the scale is 2^4 = 16,
    # E8M0 code 127 + 4 = 0x83. x / 16 = 0.00625, 0.09375, -0.1875, 0.4375, 6.25
    # round to E2M1's 0, 0, -0, 0.5, 6: codes 0x0, 0x0, 0x8, 0x1, 0x7.
    x = np.float32([0.1, 1.5, -3, 7, 100])
    elements, scales, tensor_scale = numlab.quantize(x, "mxfp4")
    assert elements.dtype == np.uint8 and elements.shape == (5,)
    assert elements.tolist() == [0x0, 0x0, 0x8, 0x1, 0x7]
    assert scales.dtype == np.uint32 and scales.tolist() == [0x83]
    assert tensor_scale == 1.0
    values = numlab.dequantize(elements, scales, "mxfp4")
    assert values.dtype == np.float32
    assert values.tolist() == [0.0, 0.0, 0.0, 8.0, 96.0]
    assert np.signbit(values[2])
    # Packed: two elements per byte, element 2k in the low nibble.
    packed, _, _, report = numlab.quantize(x, "mxfp4", packed=True, counts=True)
    assert packed.tolist() == [0x00, 0x8 | 0x1 << 4, 0x7]
    assert numlab.dequantize(packed, scales, "mxfp4", packed=True, shape=(5,)).tolist() == values.tolist()
    # 0.1, 1.5 and -3 become zero only because of the block's scale.
    assert report["blocks"] == 1 and report["inexact"] == 5 and report["block_underflow"] == 3
    assert report["flags"] == ("underflow", "inexact")


def test_mxfp8_codes_by_hand():
    # amax 3: floor(log2 3) = 1, E4M3's emax 8: scale 2^-7 (code 120). x * 128 =
    # 128 = 2^7 (exponent field 14: 0x70), 64 (0x68), 384 = 1.5 * 2^8 (0x7C).
    elements, scales, _ = numlab.quantize(np.float32([1.0, 0.5, 3.0]), "mxfp8")
    assert scales.tolist() == [120]
    assert elements.tolist() == [0x70, 0x68, 0x7C]
    assert numlab.dequantize(elements, scales, "mxfp8").tolist() == [1.0, 0.5, 3.0]


def test_two_dimensional_blocks_clip_at_the_edges():
    # 2x2 blocks over a 3x3 matrix: four blocks, the right and bottom ones clipped.
    # Scale exponents floor(log2 amax) - 8: 8 -> -5, 0.5 -> -9, 32 -> -3, 64 -> -2.
    x = np.float32([[1, 2, 0.25], [4, 8, 0.5], [16, 32, 64]])
    elements, scales, _ = numlab.quantize(x, "e4m3/mx-floor/2x2")
    assert elements.shape == (3, 3)
    assert scales.tolist() == [127 - 5, 127 - 9, 127 - 3, 127 - 2]
    # Powers of two well inside E4M3's range come back exactly.
    assert np.array_equal(numlab.dequantize(elements, scales, "e4m3/mx-floor/2x2"), x)


def test_nan_in_a_block_gives_a_nan_scale():
    x = np.float32([1.0, np.nan, 2.0])
    elements, scales, _ = numlab.quantize(x, "mxfp8")
    assert scales.tolist() == [0xFF]  # E8M0's NaN
    assert np.isnan(numlab.dequantize(elements, scales, "mxfp8")).all()


def cli_codes(numlab_binary, values, format, mode, seed):
    """(element codes, scale codes) from the C++ quantize, as `numlab round` prints them."""
    out = subprocess.run(
        [str(numlab_binary), "round", "--format", format, "--mode", mode, "--seed", str(seed), "--"]
        + [float(v).hex() for v in values],
        capture_output=True, text=True, check=True).stdout
    elements, scales = [], []
    for line in out.splitlines():
        m = re.match(r"^\S+\s+" + mode + r"\s+\d+\s+(0x[0-9a-f]+)\s+\S+\s+(0x[0-9a-f]+)\s", line)
        if m:
            scales.append(int(m.group(1), 16))
            elements.append(int(m.group(2), 16))
    assert len(elements) == len(values), out
    return elements, scales


@pytest.mark.parametrize("format", ["mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4", "mxint8", "nvfp4"])
@pytest.mark.parametrize("mode,seed", [("ne", 0), ("rz", 0), ("sr", 7)])
def test_matches_the_cpp_quantize(numlab_binary, format, mode, seed):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(24) * np.exp2(rng.integers(-12, 12, 24))).astype(np.float32)
    elements, scales, _ = numlab.quantize(x, format, mode, seed=seed)
    cpp_elements, cpp_scales = cli_codes(numlab_binary, x, format, mode, seed)
    assert elements.tolist() == cpp_elements
    # The CLI prints each value's block scale: 24 values lie in one block of 32
    # (MX) or in two of 16 (NVFP4).
    block = 16 if format == "nvfp4" else 32
    assert [scales[i // block] for i in range(len(x))] == cpp_scales


def test_bad_arguments_raise_with_the_cli_messages(numlab_binary):
    x = np.float32([1.0, 2.0])
    with pytest.raises(ValueError) as error:
        numlab.quantize(x, "e2m1/")
    cli = subprocess.run([str(numlab_binary), "round", "--format", "e2m1/", "1"], capture_output=True, text=True)
    assert cli.returncode != 0
    assert str(error.value).split("format: ", 1)[1] in cli.stderr
    with pytest.raises(TypeError, match="quantize: values must be a float32 array"):
        numlab.quantize(np.float64([1.0]), "mxfp8")
    with pytest.raises(ValueError, match="1-D or 2-D"):
        numlab.quantize(np.zeros((2, 2, 2), np.float32), "mxfp8")
    with pytest.raises(ValueError, match="expected nan-scale or keep"):
        numlab.quantize(x, "mxfp8", specials="drop")
    elements, scales, _ = numlab.quantize(x, "mxfp4", packed=True)
    with pytest.raises(ValueError, match="need the tensor's shape"):
        numlab.dequantize(elements, scales, "mxfp4", packed=True)
    with pytest.raises(ValueError, match="^dequantize: "):
        numlab.dequantize(np.zeros(2, np.uint8), np.zeros(5, np.uint32), "mxfp8")


def test_quantize_dequantize_by_hand():
    # The mxfp4 block of test_mxfp4_block_by_hand: scale 2^4 (0x83), elements
    # 0, 0, -0, 0.5, 6 times 16.
    x = np.float32([0.1, 1.5, -3, 7, 100])
    values, scales, tensor_scale, report = numlab.quantize_dequantize(x, "mxfp4", counts=True)
    assert values.dtype == np.float32 and values.shape == (5,)
    assert values.tolist() == [0.0, 0.0, 0.0, 8.0, 96.0] and np.signbit(values[2])
    assert scales.tolist() == [0x83] and tensor_scale == 1.0
    assert report["block_underflow"] == 3


@pytest.mark.parametrize("format", ["mxfp8", "mxfp6-e3m2", "mxfp4", "mxint8", "nvfp4", "nvfp4-2d", "fp8-tensor",
                                    "fp8-block"])
@pytest.mark.parametrize("mode,seed", [("ne", 0), ("rd", 0), ("sr", 11)])
def test_quantize_dequantize_equals_the_two_calls(format, mode, seed):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((48, 160)) * np.exp2(rng.integers(-20, 20, (48, 160)))).astype(np.float32)
    x[3, 5], x[40, 150] = np.inf, np.nan
    elements, scales, tensor_scale = numlab.quantize(x, format, mode, seed=seed)
    expected = numlab.dequantize(elements, scales, format, tensor_scale=tensor_scale)
    values, fused_scales, fused_tensor_scale = numlab.quantize_dequantize(x, format, mode, seed=seed)
    assert values.shape == x.shape
    assert values.view(np.uint32).tolist() == expected.view(np.uint32).tolist()
    assert fused_scales.tolist() == scales.tolist() and fused_tensor_scale == tensor_scale


def test_quantize_dequantize_errors_name_the_call():
    with pytest.raises(ValueError, match="^quantize_dequantize format: "):
        numlab.quantize_dequantize(np.float32([1.0]), "e2m1/")
    with pytest.raises(TypeError, match="quantize_dequantize: values must be a float32 array"):
        numlab.quantize_dequantize(np.float64([1.0]), "mxfp8")
