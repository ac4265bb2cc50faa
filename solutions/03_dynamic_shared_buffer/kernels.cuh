/// @file
/// @brief Chapter 3: one `extern __shared__` buffer, sized at launch and carved into arrays.
///
/// Chapter 2's kernels with their sizes chosen at run time. Each kernel's arrays are laid out once,
/// by a BufferPlan, in a `..._layout()` function that the kernel uses to carve its buffer and the
/// launcher uses for the bytes to ask for.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/semiring.cuh"

/// Chapter 3: the dynamic shared buffer.
namespace ch03 {

inline constexpr int kMaxTile = 32;   ///< the widest tile: 32 x 32 threads, the most a block has
inline constexpr int kMaxBlock = 32;  ///< the widest conv2d block, for the same reason

/// Depth along k of a product step for the tile width @p tile: the tiles of A (tile x depth) and
/// of B (depth x tile) hold two tile widths of k, so a step does 2T combines per thread between
/// its two barriers.
__host__ __device__ constexpr int product_depth(int tile) {
  return 2 * tile;
}

/// The bytes of this launch's dynamic shared buffer, as the hardware reports them.
__device__ __forceinline__ std::size_t dynamic_shared_bytes() {
  unsigned bytes = 0;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

/// Whether @p count elements from @p array end inside this launch's buffer, which starts at
/// @p buffer. A kernel asks it of every array it carved before touching any (else the whole block
/// returns without computing), so that a layout the launch does not give is never written.
template <class T>
__device__ __forceinline__ bool fits(const unsigned char* buffer, const T* array,
                                     std::size_t count) {
  return static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(array + count) - buffer) <=
         dynamic_shared_bytes();
}

/// Floats in one float4: conv1d reads its taps four at a time.
inline constexpr int kQuad = 4;

/// A size or an offset in a block's shared memory, in bytes. A block's shared memory is far below
/// 4 GiB, and 32-bit arithmetic keeps each address computation to one instruction.
using Bytes = unsigned;

/// A layout being planned: arrays placed one after another in one dynamic buffer, each at an
/// offset its type's alignment allows. Used the same way by a kernel (to carve its buffer) and by
/// its launcher (for the bytes to ask for), so the two cannot disagree.
struct BufferPlan {
  Bytes bytes = 0;  ///< where the last array placed ends: the bytes the launch must give

  /// Places an array of @p count elements of type T after the arrays placed so far and returns
  /// its offset in bytes from the start of the buffer.
  template <class T>
  __host__ __device__ constexpr Bytes place(Bytes count) {
    // EXERCISE 3.1 begin: carve the next array, at an offset its type allows
    const Bytes alignment = alignof(T);
    const Bytes offset = (bytes + alignment - 1) / alignment * alignment;
    bytes = offset + count * static_cast<Bytes>(sizeof(T));
    return offset;
    // EXERCISE 3.1 end
  }
};

/// The array of type T at @p offset bytes into @p buffer.
template <class T>
__device__ __forceinline__ T* carved(unsigned char* buffer, Bytes offset) {
  return reinterpret_cast<T*>(buffer + offset);
}

/// One tile entry: element (@p r, @p c) of the @p rows x @p cols row-major matrix @p M, or the
/// semiring's identity where (r, c) falls outside it, so that any m, n, k works.
template <typename Semiring>
__device__ float element_or_identity(const float* M, int rows, int cols, int r, int c) {
  return r < rows && c < cols ? M[static_cast<size_t>(r) * cols + c] : Semiring::identity();
}

/// Where the product's arrays lie in its dynamic buffer: offsets in bytes from its start.
struct ProductLayout {
  Bytes a_tile;  ///< A[rows of this block][step .. step + depth): tile x depth floats
  Bytes b_tile;  ///< B[step .. step + depth)[columns of this block]: depth x tile floats
  Bytes bytes;   ///< the whole buffer: the third launch parameter
};

/// The product's layout for tile width @p tile: the A tile, then the B tile.
__host__ __device__ constexpr ProductLayout product_layout(int tile) {
  const Bytes entries = static_cast<Bytes>(tile) * product_depth(tile);
  BufferPlan plan;
  const Bytes a_tile = plan.place<float>(entries);
  const Bytes b_tile = plan.place<float>(entries);
  return {a_tile, b_tile, plan.bytes};
}

/// Bytes of the product's buffer for tile width @p tile: the third launch parameter.
__host__ __device__ constexpr std::size_t product_shared_bytes(int tile) {
  return product_layout(tile).bytes;
}

/// Matrix product over @p Semiring: a block of @p tile x @p tile threads per tile of C, walking
/// along k one step of product_depth(tile) at a time, as in chapter 2.
template <typename Semiring>
__device__ __forceinline__ void product_block(const float* A, const float* B, float* C, int m,
                                              int n, int k, int tile) {
  const int depth = product_depth(tile);
  const ProductLayout layout = product_layout(tile);
  extern __shared__ __align__(16) unsigned char shared_buffer[];  // sized by the launch
  float* a_tile = carved<float>(shared_buffer, layout.a_tile);
  float* b_tile = carved<float>(shared_buffer, layout.b_tile);
  const int entries = tile * depth;  // of each tile
  if (!fits(shared_buffer, a_tile, entries) || !fits(shared_buffer, b_tile, entries))
    return;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  // No early return for threads outside C: every thread must reach every barrier, and these
  // threads still copy their share of the tiles.
  float acc = Semiring::identity();
  for (int step = 0; step < k; step += depth) {
#pragma unroll
    for (int d = 0; d < depth; d += tile) {
      a_tile[ty * depth + d + tx] = element_or_identity<Semiring>(A, m, k, row, step + d + tx);
      b_tile[(d + ty) * tile + tx] = element_or_identity<Semiring>(B, k, n, step + d + ty, col);
    }
    // Both tiles are complete before anyone reads them.
    __syncthreads();
#pragma unroll
    for (int p = 0; p < depth; ++p)
      acc = Semiring::combine(acc, a_tile[ty * depth + p], b_tile[p * tile + tx]);
    __syncthreads();  // nobody still reads the tiles when the next step overwrites them
  }
  if (row < m && col < n)
    C[static_cast<size_t>(row) * n + col] = acc;
}

/// Matrix product over @p Semiring with the tile width chosen at launch: blockDim.x.
template <typename Semiring>
__global__ void __launch_bounds__(kMaxTile* kMaxTile)
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  product_block<Semiring>(A, B, C, m, n, k, blockDim.x);  // the block is tile x tile threads
}

/// Where conv2d's arrays lie in its dynamic buffer: offsets in bytes from its start.
struct Conv2dLayout {
  Bytes mask_tile;  ///< mask[p][q] at p * ml + q: mk x ml floats
  Bytes tile;       ///< the inputs with their halo: (block + mk - 1) x (block + ml - 1)
  Bytes bytes;      ///< the whole buffer: the third launch parameter
};

/// conv2d's layout for @p block x @p block outputs and an @p mk x @p ml mask: the mask, then the
/// tile of inputs.
__host__ __device__ constexpr Conv2dLayout conv2d_layout(int block, int mk, int ml) {
  BufferPlan plan;
  const Bytes mask_tile = plan.place<float>(static_cast<Bytes>(mk) * ml);
  const Bytes tile = plan.place<float>(static_cast<Bytes>(block + mk - 1) * (block + ml - 1));
  return {mask_tile, tile, plan.bytes};
}

/// Bytes of conv2d's buffer for @p block x @p block outputs and an @p mk x @p ml mask.
__host__ __device__ constexpr std::size_t conv2d_shared_bytes(int block, int mk, int ml) {
  return conv2d_layout(block, mk, ml).bytes;
}

/// 2D convolution, zero padding, same-size output: @p block x @p block threads, one output each.
__device__ __forceinline__ void conv2d_block(const float* img, int h, int w, const float* mask,
                                             int mk, int ml, float* out, int block) {
  const int radius_y = mk / 2;           // halo rows above and below
  const int radius_x = ml / 2;           // halo columns left and right
  const int tile_rows = block + mk - 1;  // inputs per tile column
  const int tile_cols = block + ml - 1;  // inputs per tile row
  const Conv2dLayout layout = conv2d_layout(block, mk, ml);
  extern __shared__ __align__(16) unsigned char shared_buffer[];  // sized by the launch
  float* mask_tile = carved<float>(shared_buffer, layout.mask_tile);
  float* tile = carved<float>(shared_buffer, layout.tile);  // img[first_y + r][first_x + c]
  if (!fits(shared_buffer, mask_tile, mk * ml) || !fits(shared_buffer, tile, tile_rows * tile_cols))
    return;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int block_x = blockIdx.x * block;  // the block's first output column ...
  const int block_y = blockIdx.y * block;  // ... and row
  const int x = block_x + tx;
  const int y = block_y + ty;
  // EXERCISE 3.2 begin: stage the input tile with its run-time halo, and the mask
  const int first_y = block_y - radius_y;  // image row of tile row 0
  const int first_x = block_x - radius_x;  // image column of tile column 0
  // The tile is larger than the block: the block covers it in block x block patches.
  for (int r = ty; r < tile_rows; r += block) {
    const int source_y = first_y + r;
    for (int c = tx; c < tile_cols; c += block) {
      const int source_x = first_x + c;
      const bool inside = source_y >= 0 && source_y < h && source_x >= 0 && source_x < w;
      tile[r * tile_cols + c] = inside ? img[static_cast<size_t>(source_y) * w + source_x] : 0.0f;
    }
  }
  for (int i = ty * block + tx; i < mk * ml; i += block * block)
    mask_tile[i] = mask[i];
  // EXERCISE 3.2 end
  float sum = 0.0f;
  __syncthreads();  // the tile and the mask are complete before anyone reads them
  // out[y][x] sits at tile[ty + radius_y][tx + radius_x]; img[y + radius_y - p][x + radius_x - q]
  // is radius_y - p rows and radius_x - q columns away from it.
  const int center_y = ty + radius_y;
  const int center_x = tx + radius_x;
#pragma unroll
  for (int p = 0; p < mk; ++p) {
#pragma unroll
    for (int q = 0; q < ml; ++q)
      sum += mask_tile[p * ml + q] *
             tile[(center_y + radius_y - p) * tile_cols + center_x + radius_x - q];
  }
  if (x < w && y < h)
    out[static_cast<size_t>(y) * w + x] = sum;
}

/// 2D convolution with the mask size and the block width (blockDim.x) chosen at launch.
__global__ void __launch_bounds__(kMaxBlock* kMaxBlock)
    conv2d_kernel(const float* img, int h, int w, const float* mask, int mk, int ml, float* out) {
  conv2d_block(img, h, w, mask, mk, ml, out, blockDim.x);
}

inline constexpr int kConv1dThreads = 256;  ///< threads of a conv1d block
inline constexpr int kMaxTaps = 4096;       ///< the most taps: they and their segment fit in 48 KB

/// The taps rounded up to a whole number of float4, which the sum reads four at a time; the
/// taps from m on are 0 and add nothing.
__host__ __device__ constexpr int tap_span(int m) {
  return (m + kQuad - 1) / kQuad * kQuad;
}

/// Where conv1d's arrays lie in its dynamic buffer: offsets in bytes from its start.
struct Conv1dLayout {
  Bytes segment;  ///< the inputs the block's outputs read, a[first + s] at [s]: floats
  Bytes taps;     ///< b[0 .. m) and zeros up to tap_span(m), four taps per float4
  Bytes bytes;    ///< the whole buffer: the third launch parameter
};

/// conv1d's layout for @p m taps: the segment of inputs, then the taps as float4.
__host__ __device__ constexpr Conv1dLayout conv1d_layout(int m) {
  // EXERCISE 3.3 begin: the segment, then the taps as float4
  const int span = tap_span(m);
  BufferPlan plan;
  const Bytes segment = plan.place<float>(kConv1dThreads + span - 1);
  const Bytes taps = plan.place<float4>(span / kQuad);
  return {segment, taps, plan.bytes};
  // EXERCISE 3.3 end
}

/// Bytes of conv1d's buffer for @p m taps: the third launch parameter.
__host__ __device__ constexpr std::size_t conv1d_shared_bytes(int m) {
  return conv1d_layout(m).bytes;
}

/// Full 1D convolution `y[i] = sum over j of a[i - j] * b[j]`, one output per thread.
__device__ __forceinline__ void conv1d_block(const float* a, int n, const float* b, int m, float* y,
                                             float* segment, float4* taps) {
  const int span = tap_span(m);  // taps as the sum reads them: m, then zeros to a whole float4
  const int halo = span - 1;     // inputs staged before the first output's
  const int t = threadIdx.x;
  const long long first_output = static_cast<long long>(blockIdx.x) * kConv1dThreads;
  const long long i = first_output + t;
  // EXERCISE 3.4 begin: stage the segment with its run-time halo, and the taps
  const long long first = first_output - halo;  // input index of segment[0]
  for (int s = t; s < kConv1dThreads + halo; s += kConv1dThreads) {
    const long long source = first + s;
    segment[s] = source >= 0 && source < n ? a[source] : 0.0f;
  }
  float* tap = reinterpret_cast<float*>(taps);  // tap j at [j]
  for (int j = t; j < span; j += kConv1dThreads)
    tap[j] = j < m ? b[j] : 0.0f;
  // EXERCISE 3.4 end
  float sum = 0.0f;
  __syncthreads();  // the segment and the taps are complete before anyone reads them
  // a[i] sits at segment[t + halo]; a[i - j] is j places before it. Taps 4q .. 4q + 3 come in one
  // float4, the same one for every thread of the block.
  const float* input = segment + t + halo;
#pragma unroll 2  // two float4 of taps per trip: 32 registers, as many blocks per SM as chapter 2
  for (int q = 0; q < span / kQuad; ++q) {
    const float4 w = taps[q];
    sum += w.x * input[-kQuad * q];
    sum += w.y * input[-kQuad * q - 1];
    sum += w.z * input[-kQuad * q - 2];
    sum += w.w * input[-kQuad * q - 3];
  }
  if (i < static_cast<long long>(n) + m - 1)
    y[i] = sum;
}

/// Full 1D convolution with the number of taps chosen at launch.
__global__ void __launch_bounds__(kConv1dThreads)
    conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  const Conv1dLayout layout = conv1d_layout(m);
  extern __shared__ __align__(16) unsigned char shared_buffer[];  // sized by the launch
  float* segment = carved<float>(shared_buffer, layout.segment);
  float4* taps = carved<float4>(shared_buffer, layout.taps);
  const int span = tap_span(m);
  if (!fits(shared_buffer, segment, kConv1dThreads + span - 1) ||
      !fits(shared_buffer, taps, span / kQuad))
    return;
  conv1d_block(a, n, b, m, y, segment, taps);
}

/// Going further: the same code compiled for the sizes that matter (`--variant dispatch`).
namespace dispatch {
inline constexpr int kThreadsPerSm = 2048;  ///< threads an SM of compute capability 8.0, 9.0 runs

/// product_block() for the tile width @p Tile, at most 32 registers a thread (a full SM).
template <typename Semiring, int Tile>
__global__ void __launch_bounds__(Tile* Tile, kThreadsPerSm / (Tile * Tile))
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  product_block<Semiring>(A, B, C, m, n, k, Tile);
}

/// conv2d_block() compiled for Block x Block blocks and a Mask x Mask mask (the sides passed).
template <int Block, int Mask>
__global__ void __launch_bounds__(Block* Block, kThreadsPerSm / (Block * Block))
    conv2d_kernel(const float* img, int h, int w, const float* mask, int, int, float* out) {
  conv2d_block(img, h, w, mask, Mask, Mask, out, Block);
}
}  // namespace dispatch
}  // namespace ch03
