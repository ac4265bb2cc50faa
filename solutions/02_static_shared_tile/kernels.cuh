/// @file
/// @brief Chapter 2: a `__shared__` tile whose shape is fixed at compile time.
///
/// Each block copies the inputs it needs into shared memory once, waits at a barrier, and then
/// computes from shared memory, where every element it copied is reused by many threads. The
/// matrix product walks along k one T x T tile of A and of B at a time: load, barrier, compute,
/// barrier. conv2d stages its input tile with the halo around it, and the mask, then computes.
/// Tile widths and mask sizes are template parameters: each one the executable offers is a
/// separately compiled kernel, and the launchers refuse the others. From this chapter on matmul
/// and minplus share one product kernel, a template over the semiring it combines with
/// (course::PlusTimes or course::MinPlus, common/include/course/semiring.cuh).
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

/// Chapter 2: static shared tiles.
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
/// Outputs per side of a conv2d block, one per thread: a block is 32 x 32 threads, a warp is one
/// row of outputs.
constexpr int kConvBlock = 32;
/// Threads of a conv2d block.
constexpr int kConvThreads = kConvBlock * kConvBlock;
/// Threads of a product block for the tile width @p tile: one per tile element.
__host__ __device__ constexpr int product_threads(int tile) {
  return tile * tile;
}
/// The warp size: a warp must cover whole rows of a product tile (see product_kernel).
constexpr int kWarp = 32;

/// The values of @p list separated by ", ", for error messages.
template <std::size_t Count>
std::string list_text(const int (&list)[Count]) {
  return course::join(std::vector<int>(std::begin(list), std::end(list)), ", ");
}

/// One tile entry: element (@p r, @p c) of the @p rows x @p cols row-major matrix @p M, or the
/// semiring's identity where (r, c) falls outside it, so that any m, n, k works.
template <typename Semiring>
__device__ float element_or_identity(const float* M, int rows, int cols, int r, int c) {
  // EXERCISE 2.1 begin: one tile entry, the identity outside the matrix
  return r < rows && c < cols ? M[static_cast<size_t>(r) * cols + c] : Semiring::identity();
  // EXERCISE 2.1 end
}

/// Matrix product over @p Semiring: a block of Tile x Tile threads computes a Tile x Tile tile of
/// C, thread (x, y) the element in row y and column x of it. The block walks along k one step of
/// Tile at a time. At each step every thread stores one element of A's tile and one of B's in
/// shared memory (the semiring's identity where the tile sticks out of the matrix), the block
/// waits until both tiles are complete, every thread combines its row of the A tile with its
/// column of the B tile, and the block waits again before the next step overwrites the tiles.
/// Each thread fetches its elements of the next step from global memory right after the first
/// barrier, so those loads are in flight while the block computes from shared memory.
/// A warp spans whole tile rows (one for T = 32, two for T = 16), so its loads of A and B are
/// coalesced; in shared memory it reads one A element per tile row (a broadcast) and consecutive
/// B elements (distinct banks, or the same words twice: a broadcast) at a time.
template <typename Semiring, int Tile>
__global__ void __launch_bounds__(product_threads(Tile))
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(product_threads(Tile) <= 1024,
                "one thread per tile element: at most 1024 per block");
  static_assert(Tile % kWarp == 0 || kWarp % Tile == 0,
                "a warp covers whole tile rows, or a tile row is whole warps");
  __shared__ float a_tile[Tile][Tile];  // A[rows of this block][step .. step + Tile)
  __shared__ float b_tile[Tile][Tile];  // B[step .. step + Tile)[columns of this block]
  const int tx = threadIdx.x;           // column within the tile
  const int ty = threadIdx.y;           // row within the tile
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  // No early return for threads outside C: every thread must reach every barrier, and these
  // threads still copy their share of the tiles.
  float acc = Semiring::identity();
  // This thread's share of the first step: A[row][tx] and B[ty][col].
  float a_next = element_or_identity<Semiring>(A, m, k, row, tx);
  float b_next = element_or_identity<Semiring>(B, k, n, ty, col);
  for (int step = 0; step < k; step += Tile) {
    // EXERCISE 2.2 begin: store this step's elements in the tiles, then a barrier
    a_tile[ty][tx] = a_next;
    b_tile[ty][tx] = b_next;
    __syncthreads();  // both tiles are complete before anyone reads them
    // EXERCISE 2.2 end
    // Ask for the next step's elements now; they arrive while the block computes this step.
    a_next = element_or_identity<Semiring>(A, m, k, row, step + Tile + tx);
    b_next = element_or_identity<Semiring>(B, k, n, step + Tile + ty, col);
    // EXERCISE 2.3 begin: the reduction over the tiles in shared memory, then a barrier
#pragma unroll
    for (int p = 0; p < Tile; ++p)
      acc = Semiring::combine(acc, a_tile[ty][p], b_tile[p][tx]);
    __syncthreads();  // nobody still reads the tiles when the next step overwrites them
    // EXERCISE 2.3 end
  }
  if (row < m && col < n)
    C[static_cast<size_t>(row) * n + col] = acc;
}

/// 2D convolution, zero padding, same-size output, with a Mask x Mask mask: a block of
/// kConvBlock x kConvBlock threads computes as many outputs, thread (x, y) out[y][x]. The block
/// first stages what its outputs need in shared memory: the input tile with a halo of Mask / 2 on
/// every side ((kConvBlock + Mask - 1) squared inputs, zero outside the image, more inputs than
/// threads, so each thread copies several) and the mask. After a barrier every thread sums over
/// the mask from shared memory. A warp reads one mask element (a broadcast) and 32 consecutive
/// tile elements (32 different banks) at a time.
template <int Mask>
__global__ void __launch_bounds__(kConvThreads)
    conv2d_kernel(const float* img, int h, int w, const float* mask, float* out) {
  static_assert(Mask >= 1 && Mask % 2 == 1, "the mask side is odd");
  constexpr int kRadius = Mask / 2;                    // halo width on each side
  constexpr int kTileSide = kConvBlock + 2 * kRadius;  // inputs per side of the staged tile
  __shared__ float tile[kTileSide][kTileSide];         // img[first_y + r][first_x + c] at [r][c]
  __shared__ float mask_tile[Mask][Mask];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int block_x = blockIdx.x * kConvBlock;  // the block's first output column ...
  const int block_y = blockIdx.y * kConvBlock;  // ... and row
  const int x = block_x + tx;
  const int y = block_y + ty;
  // EXERCISE 2.4 begin: stage the input tile with its halo, and the mask, in shared memory
  const int first_y = block_y - kRadius;  // image row of tile row 0
  const int first_x = block_x - kRadius;  // image column of tile column 0
  // The tile is larger than the block: the block covers it in kConvBlock x kConvBlock patches.
  for (int r = ty; r < kTileSide; r += kConvBlock) {
    const int source_y = first_y + r;
    for (int c = tx; c < kTileSide; c += kConvBlock) {
      const int source_x = first_x + c;
      const bool inside = source_y >= 0 && source_y < h && source_x >= 0 && source_x < w;
      tile[r][c] = inside ? img[static_cast<size_t>(source_y) * w + source_x] : 0.0f;
    }
  }
  for (int i = ty * kConvBlock + tx; i < Mask * Mask; i += kConvThreads)
    mask_tile[i / Mask][i % Mask] = mask[i];
  // EXERCISE 2.4 end
  float sum = 0.0f;
  // EXERCISE 2.5 begin: barrier, then the sum over the mask from shared memory
  __syncthreads();  // the tile and the mask are complete before anyone reads them
  // out[y][x] sits at tile[ty + kRadius][tx + kRadius]; img[y + kRadius - p][x + kRadius - q]
  // is kRadius - p rows and kRadius - q columns away from it.
  const int center_y = ty + kRadius;
  const int center_x = tx + kRadius;
#pragma unroll
  for (int p = 0; p < Mask; ++p) {
#pragma unroll
    for (int q = 0; q < Mask; ++q)
      sum += mask_tile[p][q] * tile[center_y + kRadius - p][center_x + kRadius - q];
  }
  // EXERCISE 2.5 end
  if (x < w && y < h)
    out[static_cast<size_t>(y) * w + x] = sum;
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
