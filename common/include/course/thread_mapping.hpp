/// @file thread_mapping.hpp
/// @brief The launch choice of chapter 1's products: which threads compute which outputs.
#pragma once

namespace course {

/// How consecutive threads of a warp map onto the output of a matrix product (chapter 1's
/// coalescing experiment, the trailing choice of its product launchers).
enum class ThreadMapping {
  coalesced,   ///< consecutive threads compute consecutive columns: loads of B and stores coalesce
  transposed,  ///< consecutive threads compute consecutive rows: every access is strided
};

}  // namespace course
