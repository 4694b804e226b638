"""numlab.stats against statistics derived from libnum's scalar core: each
value rounded on its own (scalar_reference), then counted and binned with NumPy."""

import numpy as np
import pytest

import numlab


def expected_stats(reference, values, format, mode, **options):
    info = numlab.format_info(format)
    bits, flags = reference.encode(values, format, mode, **options)
    rounded = reference.decode(bits, format).astype(np.float64)
    x = values.astype(np.float64)
    finite = np.isfinite(x)
    nonzero = finite & (x != 0)
    overflow = finite & ((flags & 4) != 0)  # inf inputs raise overflow under saturate, but are counted as infs
    underflow = nonzero & (rounded == 0)
    landed = nonzero & ~underflow & ~overflow
    binade = np.frexp(np.abs(rounded[landed]))[1] - 1
    first = info["emin"] - info["precision"] + 1
    bins = np.zeros(info["emax"] - first + 3, dtype=np.uint64)
    bins[0] = np.count_nonzero(underflow)
    bins[-1] = np.count_nonzero(overflow)
    np.add.at(bins, 1 + binade - first, 1)
    magnitudes = np.abs(x[finite])
    return {
        "count": x.size, "zeros": int(np.count_nonzero(x == 0)),
        "subnormals": int(np.count_nonzero(landed & (np.abs(rounded) < info["min_normal"]))),
        "underflows": int(np.count_nonzero(underflow)), "overflows": int(np.count_nonzero(overflow)),
        "nans": int(np.count_nonzero(np.isnan(x))), "infs": int(np.count_nonzero(np.isinf(x))),
        "min_abs": magnitudes.min(), "max_abs": magnitudes.max(),
        "min_nonzero_abs": magnitudes[magnitudes > 0].min(),
        "sum": float(np.sum(x[finite])), "hist_first_exponent": first, "histogram": bins,
    }


@pytest.fixture(scope="module")
def values():
    rng = np.random.default_rng(9)
    v = (rng.standard_normal(200000) * np.exp2(rng.uniform(-40, 20, 200000))).astype(np.float32)
    v[:50] = 0
    v[50:60] = np.inf
    v[60:70] = np.nan
    v[70:80] = 65520  # fp16's overflow threshold under nearest-even
    return v


@pytest.mark.parametrize("format", ["fp16", "bf16", "e4m3", "e5m2"])
@pytest.mark.parametrize("mode,options", [("ne", {}), ("rz", {}), ("ru", {}), ("rd", {}),
                                          ("sr", {"seed": 8, "stream": 2, "first_index": 77, "bits": 11}),
                                          ("ne", {"overflow": "saturate"})])
def test_stats_equal_counts_of_the_scalar_cores_results(reference, values, format, mode, options):
    got = numlab.stats(values, format, mode, **options)
    want = expected_stats(reference, values, format, mode, **options)
    for key, value in want.items():
        if key == "histogram":
            np.testing.assert_array_equal(got[key], value)
        elif key == "sum":
            assert got[key] == pytest.approx(value, rel=1e-12)
        else:
            assert got[key] == value, key
    assert got["format"] == format and got["mode"] == mode
    finite = values[np.isfinite(values)].astype(np.float64)
    assert got["mean"] == pytest.approx(finite.mean(), rel=1e-9)
    assert got["rms"] == pytest.approx(np.sqrt(np.mean(finite * finite)), rel=1e-9)


def test_stats_refuse_float64_rather_than_round_it_silently():
    with pytest.raises(TypeError, match="stats: values must be a float32 array, not float64"):
        numlab.stats(np.ones(4))
