"""numlab.round / encode / decode against libnum's scalar core (through
scalar_reference) and against NumPy's own float16 conversion: all 2^16 fp16
patterns, the midpoints between neighbouring fp16 values, and random fp32, in
every rounding mode and overflow behaviour."""

import sys
import threading
import time

import numpy as np
import pytest

import numlab

FORMATS = ["fp16", "bf16", "e5m2", "e4m3", "tf32"]
DETERMINISTIC_MODES = ["ne", "na", "rz", "ru", "rd", "ro"]


def all_fp16_values():
    return np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)


def fp16_midpoints():
    """The exact midpoints between neighbouring finite fp16 values (ties)."""
    positive = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    middle = (positive[:-1] + positive[1:]) / 2
    return np.concatenate([middle, -middle]).astype(np.float32)


def random_fp32(n=1 << 16, seed=2024):
    rng = np.random.default_rng(seed)
    patterns = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with np.errstate(over="ignore"):  # magnitudes beyond fp32's range become inf on purpose
        magnitudes = np.exp2(rng.uniform(-150, 130, size=n)).astype(np.float32)
    signs = np.where(rng.integers(0, 2, size=n) == 1, -1, 1).astype(np.float32)
    return np.concatenate([patterns, magnitudes * signs])


@pytest.fixture(scope="module")
def inputs():
    return np.concatenate([all_fp16_values(), fp16_midpoints(), random_fp32()])


def report_from_reference(values, bits, flags, format):
    """What a ConversionReport must say, derived from the scalar core's results."""
    info = numlab.format_info(format)
    magnitude = bits & ~np.uint32(1 << (info["bits"] - 1))
    fraction_bits = info["precision"] - 1
    exponent_field = magnitude >> np.uint32(fraction_bits)
    with np.errstate(invalid="ignore"):
        wide = np.asarray(values, np.float64)
    nonzero_finite = np.isfinite(wide) & (wide != 0)
    return {
        "flag_bits": int(np.bitwise_or.reduce(flags)) if flags.size else 0,
        "inexact": int(np.count_nonzero(flags & 1)),
        "overflowed": int(np.count_nonzero(flags & 4)),
        "underflow_to_zero": int(np.count_nonzero(nonzero_finite & (magnitude == 0))),
        "became_subnormal": int(np.count_nonzero((exponent_field == 0) & (magnitude != 0))),
    }


def check_against_reference(reference, values, format, mode, **options):
    expected_bits, expected_flags = reference.encode(values, format, mode, **options)
    codes, report = numlab.encode(values, format, mode, counts=True, **options)
    assert codes.dtype == {8: np.uint8, 16: np.uint16}.get(numlab.format_info(format)["bits"], np.uint32)
    np.testing.assert_array_equal(codes.astype(np.uint32), expected_bits)
    expected = report_from_reference(values, expected_bits, expected_flags, format)
    assert {key: getattr(report, key) for key in expected} == expected
    rounded, round_report = numlab.round(values, format, mode, counts=True, **options)
    np.testing.assert_array_equal(rounded.view(np.uint32), reference.decode(expected_bits, format).view(np.uint32))
    assert round_report.flag_bits == report.flag_bits


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("mode", DETERMINISTIC_MODES)
def test_every_deterministic_mode_matches_the_scalar_core(reference, inputs, format, mode):
    check_against_reference(reference, inputs, format, mode)


@pytest.mark.parametrize("format", ["fp16", "e4m3", "e5m2"])
@pytest.mark.parametrize("overflow", ["saturate", "nan"])
@pytest.mark.parametrize("mode", ["ne", "rz", "ru", "sr"])
def test_overflow_behaviours_match_the_scalar_core(reference, inputs, format, overflow, mode):
    check_against_reference(reference, inputs, format, mode, overflow=overflow, seed=5)


@pytest.mark.parametrize("format", ["fp16", "bf16", "e4m3"])
@pytest.mark.parametrize("bits,seed,stream,first_index",
                         [(32, 0, 0, 0), (8, 1234, 0, 0), (3, 99, 7, 1 << 40), (13, 2**64 - 1, 2**64 - 1, 12345)])
def test_stochastic_rounding_draws_word_first_index_plus_i(reference, inputs, format, bits, seed, stream, first_index):
    check_against_reference(reference, inputs, format, "sr", bits=bits, seed=seed, stream=stream,
                            first_index=first_index)


@pytest.mark.parametrize("mode", ["ne", "ro", "sr"])
def test_tininess_before_rounding_matches_the_scalar_core(reference, inputs, mode):
    check_against_reference(reference, inputs, "fp16", mode, tininess="before", seed=3)


@pytest.mark.parametrize("mode", DETERMINISTIC_MODES + ["sr"])
def test_float64_inputs_round_once(reference, mode):
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.standard_normal(50000) * np.exp2(rng.uniform(-30, 20, 50000)),
                             fp16_midpoints().astype(np.float64) * (1 + 2.0 ** -40)])
    check_against_reference(reference, values, "fp16", mode, seed=11)


def test_fp16_nearest_even_equals_numpys_float16():
    """An oracle independent of libnum: NumPy's own fp32 -> fp16 conversion."""
    values = np.concatenate([all_fp16_values(), fp16_midpoints(), random_fp32()])
    with np.errstate(over="ignore"):
        expected = values.astype(np.float16)
    codes = numlab.encode(values, "fp16", "ne")
    not_nan = ~np.isnan(values)
    np.testing.assert_array_equal(codes[not_nan], expected.view(np.uint16)[not_nan])
    assert np.all(np.isnan(codes.view(np.float16)[~not_nan]))


@pytest.mark.parametrize("format", ["fp16", "bf16", "e5m2", "e4m3"])
def test_decode_every_pattern_matches_the_scalar_core(reference, format):
    width = numlab.format_info(format)["bits"]
    codes = np.arange(1 << width, dtype={8: np.uint8, 16: np.uint16}[width])
    np.testing.assert_array_equal(numlab.decode(codes, format).view(np.uint32),
                                  reference.decode(codes, format).view(np.uint32))


def test_decode_all_fp16_patterns_equals_numpy():
    codes = np.arange(1 << 16, dtype=np.uint16)
    decoded = numlab.decode(codes, "fp16")
    expected = codes.view(np.float16).astype(np.float32)
    not_nan = ~np.isnan(expected)
    np.testing.assert_array_equal(decoded.view(np.uint32)[not_nan], expected.view(np.uint32)[not_nan])
    assert np.all(np.isnan(decoded[~not_nan]))


def test_shapes_layouts_and_in_place_rounding():
    rng = np.random.default_rng(1)
    grid = rng.standard_normal((64, 48)).astype(np.float32)
    expected = numlab.round(grid.copy(), "bf16", "rz")
    assert expected.shape == (64, 48) and expected.dtype == np.float32
    strided = numlab.round(grid[:, ::3], "bf16", "rz")   # a strided view is copied once
    np.testing.assert_array_equal(strided, expected[:, ::3])
    in_place = grid.copy()
    result = numlab.round(in_place, "bf16", "rz", out=in_place)
    assert result is in_place
    np.testing.assert_array_equal(in_place, expected)
    assert numlab.round(np.float32(1.0009765625) + np.zeros(()), "fp16", "rz").shape == ()
    assert numlab.encode([1.0, 2.0], "e4m3").tolist() == [0x38, 0x40]


def test_stochastic_rounding_is_independent_of_threads_and_chunking():
    values = np.random.default_rng(3).standard_normal(1 << 19).astype(np.float32)
    whole = numlab.encode(values, "fp16", "sr", seed=42, threads=4)
    first = numlab.encode(values[:1000], "fp16", "sr", seed=42)
    rest = numlab.encode(values[1000:], "fp16", "sr", seed=42, first_index=1000)
    np.testing.assert_array_equal(whole, np.concatenate([first, rest]))


def test_half_word_draws_take_each_words_halves_in_turn():
    """draws="half-word": element i takes the low (i even) or high (i odd) half
    of word i // 2 as the top bits of its word. Stochastic rounding with
    bits=16 reads a word's top 16 bits, so on equal inputs element 2k + 1
    rounds as full-word element k does (the high half of word k)."""
    values = np.full(4096, 1.0 + 2.0 ** -11, dtype=np.float32)  # halfway between fp16 1 and 1 + 2^-10
    full = numlab.encode(values[:2048], "fp16", "sr", bits=16, seed=9)
    half = numlab.encode(values, "fp16", "sr", bits=16, seed=9, draws="half-word")
    np.testing.assert_array_equal(half[1::2], full)
    assert not np.array_equal(half[0::2], full)  # the low halves are other draws
    assert 0.4 < np.mean(half == 0x3C01) < 0.6   # rounded up about half the time
    with pytest.raises(ValueError, match="17"):
        numlab.round(values, "fp16", "sr", bits=17, draws="half-word")
    with pytest.raises(ValueError, match="round draws: random draws 'quarter' is not one of"):
        numlab.round(values, "fp16", "sr", draws="quarter")


def test_the_report_says_how_many_threads_ran():
    """libnum gives a thread its own share only past its parallel threshold:
    8 fork-joins' cost (8 x 2.3 us) over the kernel's cost per element
    (0.52 ns for fp16 stochastic rounding): 35,384 elements. 2^19 of them
    split across the two threads asked for; 1,000 stay on the caller's."""
    values = np.random.default_rng(5).standard_normal(1 << 19).astype(np.float32)
    _, one = numlab.encode(values, "fp16", "sr", counts=True)
    _, two = numlab.encode(values, "fp16", "sr", counts=True, threads=2)
    _, short = numlab.round(values[:1000], "fp16", "sr", counts=True, threads=2)
    assert (one.threads, two.threads, short.threads) == (1, 2, 1)
    assert "threads=2" in repr(two)


def test_the_kernel_runs_without_the_gil():
    """While one thread rounds, another keeps running Python code. The
    worker makes four calls (about 0.2 s), so that a main thread the OS
    schedules rarely (a loaded 2-core machine) still gets to run inside
    the window."""
    values = np.random.default_rng(4).standard_normal(1 << 24).astype(np.float32)
    out = np.empty_like(values)
    started = threading.Event()
    call = []

    def convert():
        started.set()
        begin = time.perf_counter()
        for _ in range(4):
            numlab.round(values, "fp16", "sr", out=out)
        call.extend([begin, time.perf_counter()])

    # A long switch interval keeps the interpreter from forcing the worker to
    # hand over the GIL between its Python statements: only the call itself can.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.25)
    try:
        worker = threading.Thread(target=convert)
        worker.start()
        started.wait()
        ticks = []
        while worker.is_alive():
            ticks.append(time.perf_counter())
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    begin, end = call
    during = [t for t in ticks if begin < t < end]
    assert during, "the main thread did not run during the kernel's call: the GIL was held"


# fp32 +qNaN, -qNaN with payload 1, an sNaN with payload 1, and 1.0.
NAN_INPUTS = np.array([0x7FC00000, 0xFFC00001, 0x7F800001, 0x3F800000], dtype=np.uint32).view(np.float32)


@pytest.mark.parametrize("format,nans,expected", [
    # fp16: a converted NaN keeps its sign and the payload's top 10 bits
    # (0x400001 >> 13 = 0x200, the quiet bit); an sNaN is quieted.
    ("fp16", "first-operand", [0x7E00, 0xFE00, 0x7E00, 0x3C00]),
    ("fp16", "x86", [0x7E00, 0xFE00, 0x7E00, 0x3C00]),
    # Arm's default NaN: sign 0, quiet bit only; CUDA's canonical: all bits but the sign.
    ("fp16", "arm-dn", [0x7E00, 0x7E00, 0x7E00, 0x3C00]),
    ("fp16", "cuda", [0x7FFF, 0x7FFF, 0x7FFF, 0x3C00]),
    ("bf16", "cuda", [0x7FFF, 0x7FFF, 0x7FFF, 0x3F80]),
    # E4M3 has one NaN per sign, S.1111.111; CUDA drops the sign.
    ("e4m3", "first-operand", [0x7F, 0xFF, 0x7F, 0x38]),
    ("e4m3", "cuda", [0x7F, 0x7F, 0x7F, 0x38]),
])
def test_nan_conventions_give_hand_derived_encodings(format, nans, expected):
    codes, report = numlab.encode(NAN_INPUTS, format, nans=nans, counts=True)
    assert codes.tolist() == expected
    assert report.nan == 3
    assert report.flags == ("invalid",)  # the sNaN, under every convention


def test_cuda_keeps_the_sign_of_an_overflows_nan_in_e4m3():
    # E4M3 has no inf: -1000 and -inf become S.1111.111 with S = 1, as an
    # H100's __nv_cvt_float_to_fp8 with __NV_NOSAT gives (tests/device), while
    # a NaN input gives the canonical 0x7F.
    values = np.array([-1000.0, -np.inf, 1000.0, np.nan], dtype=np.float32)
    assert numlab.encode(values, "e4m3", nans="cuda").tolist() == [0xFF, 0xFF, 0x7F, 0x7F]
    assert numlab.encode(values, "e4m3", nans="arm-dn").tolist() == [0x7F, 0x7F, 0x7F, 0x7F]


def test_nan_convention_reaches_rounded_float32_values():
    # fp16's canonical NaN 0x7FFF widened: 0x7F800000 | 0x3FF << 13 = 0x7FFFE000.
    rounded = numlab.round(NAN_INPUTS, "fp16", nans="cuda")
    assert rounded.view(np.uint32).tolist() == [0x7FFFE000, 0x7FFFE000, 0x7FFFE000, 0x3F800000]
    default = numlab.round(NAN_INPUTS, "fp16")
    assert default.view(np.uint32).tolist() == [0x7FC00000, 0xFFC00000, 0x7FC00000, 0x3F800000]


def cli_message(numlab_binary, *args):
    import subprocess
    result = subprocess.run([str(numlab_binary), *args], capture_output=True, text=True)
    assert result.returncode == 2
    return result.stderr.strip()


@pytest.mark.parametrize("argument,value,cli_option", [
    ("format", "fp17", "--format"),
    ("format", "p=40,emin=-1,emax=1", "--format"),
    ("mode", "nearest", "--mode"),
    ("nans", "riscv", "--nans"),
])
def test_bad_arguments_raise_the_clis_messages(numlab_binary, argument, value, cli_option):
    with pytest.raises(ValueError) as raised:
        numlab.round(np.ones(3, np.float32), **{argument: value})
    cli = cli_message(numlab_binary, "round", "1", cli_option, value)
    cli_text = cli.split(f"round {cli_option}: ", 1)[1]
    assert str(raised.value) == f"round {argument}: {cli_text}"


def test_bad_values_raise_clear_errors():
    with pytest.raises(ValueError, match=r"round overflow: unknown overflow behaviour 'wrap'"):
        numlab.round(np.ones(3, np.float32), overflow="wrap")
    with pytest.raises(ValueError, match=r"encode bits: stochastic random bits must be in \[1, 32\] \(got 40\)"):
        numlab.encode(np.ones(3, np.float32), mode="sr", bits=40)
    with pytest.raises(TypeError, match=r"round: values must be a float32 or float64 array, not int64"):
        numlab.round(np.arange(3))
    with pytest.raises(TypeError, match=r"decode: codes must be a uint8, uint16 or uint32 array, not int16"):
        numlab.decode(np.arange(3, dtype=np.int16))
    with pytest.raises(ValueError, match=r"round out: has 2 elements, values have 3"):
        numlab.round(np.ones(3, np.float32), out=np.empty(2, np.float32))
    with pytest.raises(ValueError, match=r"round_array: input and output overlap"):
        buffer = np.ones(4, np.float32)
        numlab.round(buffer[:3], out=buffer[1:])


def test_formats_lists_the_built_in_formats_with_their_ranges():
    formats = {f["name"]: f for f in numlab.formats()}
    assert list(formats) == ["fp16", "bf16", "e5m2", "e4m3", "tf32", "fp32"]
    assert formats["fp16"]["max"] == 65504.0 and formats["fp16"]["min_subnormal"] == 2.0 ** -24
    assert formats["e4m3"]["max"] == 448.0 and not formats["e4m3"]["infinities"]
    assert formats["e5m2"]["max"] == 57344.0 and formats["bf16"]["precision"] == 8
    assert formats["tf32"]["bits"] == 19 and formats["bf16"]["epsilon"] == 2.0 ** -7
    assert numlab.format_info("e3m2")["max"] == 14.0  # IEEE-like: the top exponent holds inf and NaN
