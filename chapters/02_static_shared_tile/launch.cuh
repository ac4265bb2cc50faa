/// @file
/// @brief Chapter 2, host side: the launchers, what they refuse, the compiled tile widths and
/// mask sides, and the exercise table. One file for both editions: include it after a
/// kernels.cuh of chapter 2 (yours or the solution's).
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/semiring.cuh"

namespace ch02 {

/// The exercises of this chapter, for the hint printed when a check fails.
inline constexpr course::Exercise kExercises[] = {
    {"2.1", "matmul", "one tile entry, the identity outside the matrix"},
    {"2.1", "minplus", "one tile entry, the identity outside the matrix"},
    {"2.2", "matmul", "store this step's elements in the tiles, then a barrier"},
    {"2.2", "minplus", "store this step's elements in the tiles, then a barrier"},
    {"2.3", "matmul", "the reduction over the tiles in shared memory, then a barrier"},
    {"2.3", "minplus", "the reduction over the tiles in shared memory, then a barrier"},
    {"2.4", "conv2d", "stage the input tile with its halo, and the mask, in shared memory"},
    {"2.5", "conv2d", "barrier, then the sum over the mask from shared memory"},
};

/// Tile widths of the matrix product compiled into this chapter (`--tile`), the default first.
/// A block of T x T threads computes a T x T tile of C.
inline constexpr int kTiles[] = {32, 16};
/// Square mask sides compiled into conv2d (`--mask`), the default first.
inline constexpr int kMaskSides[] = {13, 1, 3, 5, 7, 9, 11};

/// The values of @p list separated by ", ", for error messages.
template <std::size_t Count>
std::string list_text(const int (&list)[Count]) {
  return course::join(std::vector<int>(std::begin(list), std::end(list)), ", ");
}

/// Launches product_kernel for @p Semiring with the tile width @p tile, which must be kTiles[Index]
/// or a later entry of kTiles: each entry is its own compiled kernel.
template <typename Semiring, std::size_t Index = 0>
void launch_product_tile(const float* A, const float* B, float* C, int m, int n, int k, int tile,
                         cudaStream_t stream) {
  if constexpr (Index < std::size(kTiles)) {
    constexpr int kTile = kTiles[Index];
    if (tile != kTile) {
      launch_product_tile<Semiring, Index + 1>(A, B, C, m, n, k, tile, stream);
      return;
    }
    const auto kernel = product_kernel<Semiring, kTile>;
    const dim3 block(kTile, kTile);
    const dim3 grid = course::grid_2d(n, m, block);  // x walks columns
    kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
  } else {
    course::require(false, "tile width " + std::to_string(tile) +
                               " is not compiled in chapter 2 (it has " + list_text(kTiles) +
                               "); chapter 3 chooses the tile width at run time");
  }
}

/// Launches product_kernel for @p Semiring with the tile width @p tile.
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  // The loop over k steps past k by up to two tiles (the next step's fetch): keep that in an int.
  course::require(k <= INT_MAX - 2 * kTiles[0], "k = " + std::to_string(k) +
                                                    " is too large: at most " +
                                                    std::to_string(INT_MAX - 2 * kTiles[0]));
  launch_product_tile<Semiring>(A, B, C, m, n, k, tile, stream);
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one T x T tile of C per block
/// through shared memory. @p tile selects T from kTiles (the default: the first, 32).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, tile);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one T x T tile of C per block through shared
/// memory. @p tile selects T from kTiles (the default: the first, 32).
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, stream, tile);
}

/// Launches conv2d_kernel for the mask side @p side, which must be kMaskSides[Index] or a later
/// entry of kMaskSides: each entry is its own compiled kernel.
template <std::size_t Index = 0>
void launch_conv2d_mask(const float* img, int h, int w, const float* mask, int side, float* out,
                        cudaStream_t stream) {
  if constexpr (Index < std::size(kMaskSides)) {
    constexpr int kSide = kMaskSides[Index];
    if (side != kSide) {
      launch_conv2d_mask<Index + 1>(img, h, w, mask, side, out, stream);
      return;
    }
    const auto kernel = conv2d_kernel<kSide>;
    const dim3 block(kConvBlock, kConvBlock);
    const dim3 grid = course::grid_2d(w, h, block);
    kernel<<<grid, block, 0, stream>>>(img, h, w, mask, out);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
  } else {
    course::require(false, "a " + std::to_string(side) + "x" + std::to_string(side) +
                               " mask is not compiled in chapter 2 (it has square sides " +
                               list_text(kMaskSides) +
                               "); chapter 3 takes any odd mask size at run time");
  }
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out, one
/// 32 x 32 tile of outputs per block through shared memory. The mask must be square with a side
/// in kMaskSides.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  course::require(mk >= 1 && ml >= 1 && mk % 2 == 1 && ml % 2 == 1, "the mask sides must be odd");
  course::require(mk == ml, "a " + std::to_string(mk) + "x" + std::to_string(ml) +
                                " mask is not compiled in chapter 2 (its masks are square); "
                                "chapter 3 takes any odd mask size at run time");
  launch_conv2d_mask(img, h, w, mask, mk, out, stream);
}

}  // namespace ch02
