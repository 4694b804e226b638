#!/usr/bin/env bash
# Builds numlab twice (plain, then with AddressSanitizer + UBSan) and runs the
# default test suite (everything not labelled `slow`) in both builds.
# Slow, exhaustive checks: scripts/test.sh --slow (adds `ctest -L slow`).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
slow=0
[ "${1:-}" = "--slow" ] && slow=1

configure_build_test() {
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DNUMLAB_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest -LE slow -j "$jobs" --output-on-failure)
  if [ "$slow" = 1 ]; then
    (cd "$dir" && ctest -L slow --output-on-failure)
  fi
}

# ctest runs the Python package's pytest suite too (test python_tests); its
# PyTorch recorder tests need python3-torch and are skipped without it.
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "test.sh: python3-torch is not installed: the PyTorch recorder tests will be skipped" \
       "(bash scripts/install-deps.sh installs it)" >&2
fi

configure_build_test build -DCMAKE_BUILD_TYPE=Release
# The sanitized build skips benchmarks and the GUI's screenshots are still tested.
# -O1 -g1, not RelWithDebInfo's -O2 -g: AddressSanitizer's own advice for
# speed, and line tables are all a sanitizer report needs; with -O2 -g the
# instrumented compiles took three times as long (a lab test file: 36.5 s
# against 11.4 s on the 2-core CI-sized machine), most of the CI's time.
# Without --slow it runs no slow test, so it leaves their programs out (the
# plain build still compiles them).
slow_programs=OFF
[ "$slow" = 1 ] && slow_programs=ON
configure_build_test build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUMLAB_SANITIZE=ON -DNUMLAB_BUILD_BENCH=OFF \
  -DNUMLAB_BUILD_SLOW_TESTS=$slow_programs \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
