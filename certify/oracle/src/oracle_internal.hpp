// The seam between the CPU check (oracle_row.cpp, built for the baseline ISA)
// and the AVX-512 code (oracle_avx512.cpp).
#pragma once

#include <cstdint>

#include "certify/oracle.hpp"

namespace certify::detail {

/// oracle_row's work, on a CPU already known to have AVX-512 F.
void oracle_row_avx512(format16 f, operation op, direction d, row_operands row, std::uint16_t* bits,
                       std::uint8_t* flags);

}  // namespace certify::detail
