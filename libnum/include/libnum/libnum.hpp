// Everything of libnum's scalar core in one include.
#pragma once

#include "arithmetic.hpp"
#include "codec.hpp"
#include "compare.hpp"
#include "convert.hpp"
#include "environment.hpp"
#include "format.hpp"
#include "philox.hpp"
#include "rounding.hpp"
#include "small_float.hpp"
#include "text.hpp"
