/// @file
/// @brief Chapter 3: one `extern __shared__` buffer, sized at launch and carved into arrays.
///
/// Chapter 2's algorithms, with the sizes chosen at run time. A kernel declares one unsized
/// `extern __shared__` buffer; the launcher says how many bytes it holds (the third launch
/// parameter), and the kernel carves it into its arrays by offset arithmetic, each array starting
/// where the one before it ends. Above 48 KB per block a kernel must opt in with
/// cudaFuncSetAttribute(); a request beyond what the device allows is refused with both numbers in
/// the message. The loops are chapter 2's, with run-time trip counts.
///
/// The matrix product takes any tile width up to 32, conv2d any odd mask up to 63 x 63 and any
/// block width up to 32, conv1d any mask length up to kMaxTaps. At the end,
/// going further: the launchers of namespace ch03::dispatch (`--variant dispatch`) send the sizes
/// they have compiled instances for to those, and every other size to the kernels above.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <string>

#include "course/cli.hpp"
#include "course/cuda_check.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/semiring.cuh"

/// Chapter 3: the dynamic shared buffer.
namespace ch03 {

/// The exercises of this chapter, for the hint printed when a check fails. 3.5 is optional: until
/// it is done, `--variant dispatch` runs the kernels of the main part.
inline constexpr course::Exercise kExercises[] = {
    {"3.1", "matmul", "carve the buffer into the A tile and the B tile"},
    {"3.1", "minplus", "carve the buffer into the A tile and the B tile"},
    {"3.2", "matmul", "size the buffer, opt in above 48 KB, launch with it"},
    {"3.2", "minplus", "size the buffer, opt in above 48 KB, launch with it"},
    {"3.3", "conv2d", "stage the input tile with its run-time halo, and the mask"},
    {"3.4", "conv1d", "carve the buffer into the reversed mask and the input segment"},
    {"3.5", "matmul", "optional, --variant dispatch: the tile width to a compiled kernel"},
    {"3.5", "minplus", "optional, --variant dispatch: the tile width to a compiled kernel"},
};

/// Tile widths of the matrix product offered by `--tile`, the default first. The kernel takes any
/// width up to kMaxTile; these are the ones worth comparing.
inline constexpr int kTiles[] = {32, 16, 8};
/// Block widths of conv2d offered by `--block`, the default first. The kernel takes any width up
/// to kMaxBlock.
inline constexpr int kBlocks[] = {32, 16, 8};
/// The widest tile and block: kMaxTile x kMaxTile = 1024 threads, the most a block can have.
inline constexpr int kMaxTile = 32;
/// The widest conv2d block, for the same reason.
inline constexpr int kMaxBlock = 32;
/// Dynamic shared memory every block may use without opting in.
inline constexpr std::size_t kDefaultSharedLimit = 48 * 1024;

static_assert(kTiles[0] <= kMaxTile && kBlocks[0] <= kMaxBlock, "defaults within the limits");

/// The size of this launch's dynamic shared buffer (the third launch parameter), as the hardware
/// reports it: a kernel checks its layout against it instead of trusting the launcher.
__device__ __forceinline__ std::size_t dynamic_shared_bytes() {
  unsigned bytes = 0;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

/// One tile entry: element (@p r, @p c) of the @p rows x @p cols row-major matrix @p M, or the
/// semiring's identity where (r, c) falls outside it, so that any m, n, k works.
template <typename Semiring>
__device__ float element_or_identity(const float* M, int rows, int cols, int r, int c) {
  return r < rows && c < cols ? M[static_cast<size_t>(r) * cols + c] : Semiring::identity();
}

/// Bytes of the product's buffer for tile width @p tile, the third launch parameter: the A tile
/// and the B tile, tile x tile floats each. T = 32: 8192 bytes.
__host__ __device__ constexpr std::size_t product_shared_bytes(int tile) {
  return 2 * static_cast<std::size_t>(tile) * tile * sizeof(float);
}

/// Matrix product over @p Semiring: a block of tile x tile threads computes a tile x tile tile of
/// C, thread (x, y) the element in row y and column x of it. The block walks along k one step of
/// tile at a time. At each step every thread stores one element of A's tile and one of B's in
/// shared memory (the semiring's identity where the tile sticks out of the matrix), the block
/// waits until both tiles are complete, every thread combines its row of the A tile with its
/// column of the B tile, and the block waits again before the next step overwrites the tiles.
/// Each thread fetches its elements of the next step from global memory right after the first
/// barrier, so those loads are in flight while the block computes from shared memory.
/// The tile width is an argument: product_kernel passes the one chosen at launch, blockDim.x, and
/// dispatch::product_kernel, at the end of this file, a constant.
template <typename Semiring>
__device__ __forceinline__ void product_block(const float* A, const float* B, float* C, int m,
                                              int n, int k, int tile) {
  extern __shared__ __align__(16) float shared_buffer[];  // sized by the launch
  // EXERCISE 3.1 begin: carve the buffer into the A tile and the B tile
  // Point a_tile at the start of the buffer and b_tile just past the A tile, tile * tile floats
  // further: two arrays carved out of one buffer by offset arithmetic. As written both start at
  // the beginning, so the B tile overwrites the A tile.
  float* a_tile = shared_buffer;
  float* b_tile = shared_buffer;
  // EXERCISE 3.1 end
  // A launch with fewer bytes than these two tiles leaves C unwritten (the check then fails)
  // instead of reaching past the buffer. Every thread of the block takes the same branch.
  if (dynamic_shared_bytes() < product_shared_bytes(tile))
    return;
  const int tx = threadIdx.x;  // column within the tile
  const int ty = threadIdx.y;  // row within the tile
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  // No early return for threads outside C: every thread must reach every barrier, and these
  // threads still copy their share of the tiles.
  float acc = Semiring::identity();
  // This thread's share of the first step: A[row][tx] and B[ty][col].
  float a_next = element_or_identity<Semiring>(A, m, k, row, tx);
  float b_next = element_or_identity<Semiring>(B, k, n, ty, col);
  for (int step = 0; step < k; step += tile) {
    a_tile[ty * tile + tx] = a_next;
    b_tile[ty * tile + tx] = b_next;
    __syncthreads();  // both tiles are complete before anyone reads them
    // Ask for the next step's elements now; they arrive while the block computes this step.
    a_next = element_or_identity<Semiring>(A, m, k, row, step + tile + tx);
    b_next = element_or_identity<Semiring>(B, k, n, step + tile + ty, col);
#pragma unroll
    for (int p = 0; p < tile; ++p)
      acc = Semiring::combine(acc, a_tile[ty * tile + p], b_tile[p * tile + tx]);
    __syncthreads();  // nobody still reads the tiles when the next step overwrites them
  }
  if (row < m && col < n)
    C[static_cast<size_t>(row) * n + col] = acc;
}

/// Matrix product over @p Semiring with the tile width chosen at launch: blockDim.x. One kernel
/// for every width (product_block()).
template <typename Semiring>
__global__ void __launch_bounds__(kMaxTile* kMaxTile)
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  product_block<Semiring>(A, B, C, m, n, k, blockDim.x);  // the block is tile x tile threads
}

/// Bytes of conv2d's buffer for @p block x @p block outputs and an @p mk x @p ml mask, the third
/// launch parameter: the mask, mk x ml floats, then the input tile with its halo,
/// (block + mk - 1) x (block + ml - 1) floats. 63 x 63 with 32 x 32 blocks:
/// (63 * 63 + 94 * 94) * 4 = 51220 bytes, above the 48 KB default.
__host__ __device__ constexpr std::size_t conv2d_shared_bytes(int block, int mk, int ml) {
  return (static_cast<std::size_t>(mk) * ml +
          static_cast<std::size_t>(block + mk - 1) * (block + ml - 1)) *
         sizeof(float);
}

/// 2D convolution, zero padding, same-size output, with an mk x ml mask: a block of
/// block x block threads computes as many outputs, thread (x, y) out[y][x]. The block
/// first stages what its outputs need in shared memory: the input tile with a halo of mk / 2 rows
/// and ml / 2 columns on each side ((block + mk - 1) x (block + ml - 1) inputs, zero outside the
/// image, more inputs than threads, so each thread copies several) and the mask. After a barrier
/// every thread sums over the mask from shared memory. A warp reads one mask element (a
/// broadcast) and 32 consecutive tile elements (32 different banks when block = 32) at a time.
/// The sizes are arguments: conv2d_kernel passes those chosen at launch,
/// dispatch::conv2d_kernel, at the end of this file, constants.
__device__ __forceinline__ void conv2d_block(const float* img, int h, int w, const float* mask,
                                             int mk, int ml, float* out, int block) {
  const int radius_y = mk / 2;                            // halo rows above and below
  const int radius_x = ml / 2;                            // halo columns left and right
  const int tile_cols = block + ml - 1;                   // inputs per tile row
  extern __shared__ __align__(16) float shared_buffer[];  // sized by the launch
  float* mask_tile = shared_buffer;                       // mask[p][q] at p * ml + q
  float* tile = shared_buffer + mk * ml;  // img[first_y + r][first_x + c] at r * tile_cols + c
  // A launch with fewer bytes than this layout leaves out unwritten (the check then fails)
  // instead of reaching past the buffer. Every thread of the block takes the same branch.
  if (dynamic_shared_bytes() < conv2d_shared_bytes(block, mk, ml))
    return;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int block_x = blockIdx.x * block;  // the block's first output column ...
  const int block_y = blockIdx.y * block;  // ... and row
  const int x = block_x + tx;
  const int y = block_y + ty;
  // EXERCISE 3.3 begin: stage the input tile with its run-time halo, and the mask
  // Copy img[first_y + r][first_x + c] into tile[r * tile_cols + c] for every r below
  // block + mk - 1 and every c below tile_cols, where first_y = block_y - radius_y and first_x =
  // block_x - radius_x; store 0 where the source lies outside the image (zero padding). The tile
  // is larger than the block: cover it in block x block patches, as chapter 2's staging did with
  // its constants (r from ty in steps of block, c from tx in steps of block). Then copy mask[i]
  // (i < mk * ml, row-major) into mask_tile[i]; the block's threads share the entries (i from
  // ty * block + tx in steps of block * block).
  // EXERCISE 3.3 end
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

/// 2D convolution with the mask size and the block width chosen at launch: the block is
/// blockDim.x x blockDim.x threads. One kernel for every mask and width (conv2d_block()).
__global__ void __launch_bounds__(kMaxBlock* kMaxBlock)
    conv2d_kernel(const float* img, int h, int w, const float* mask, int mk, int ml, float* out) {
  conv2d_block(img, h, w, mask, mk, ml, out, blockDim.x);
}

// ---------------------------------------------------------------------------------------------
// Launchers: check the sizes, size the buffer, opt in above 48 KB, launch
// ---------------------------------------------------------------------------------------------

/// Whether a block asking for @p bytes of dynamic shared memory must opt in first.
constexpr bool needs_opt_in(std::size_t bytes) {
  return bytes > kDefaultSharedLimit;
}

/// Throws std::invalid_argument, naming both numbers and @p what, when @p bytes of shared memory
/// per block exceed @p device_limit (the device's cudaDevAttrMaxSharedMemoryPerBlockOptin). A pure
/// host function, so the refusal is testable without a GPU.
inline void require_shared_fits(std::size_t bytes, std::size_t device_limit,
                                const std::string& what) {
  course::require(bytes <= device_limit,
                  what + " needs " + std::to_string(bytes) +
                      " bytes of shared memory per block, but this device allows at most " +
                      std::to_string(device_limit) +
                      " (cudaDevAttrMaxSharedMemoryPerBlockOptin); choose a smaller size");
}

/// Gets @p kernel ready for a launch with @p bytes of dynamic shared memory: refuses a size
/// beyond the device's limit (require_shared_fits()) and opts in above kDefaultSharedLimit by
/// raising the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize. These kernels have no static
/// shared memory, so the whole limit is theirs.
template <typename... Args>
void prepare_dynamic_shared(void (*kernel)(Args...), std::size_t bytes, const std::string& what) {
  int device = 0;
  COURSE_CUDA_CHECK(cudaGetDevice(&device));
  int device_limit = 0;
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&device_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  require_shared_fits(bytes, static_cast<std::size_t>(device_limit), what);
  if (needs_opt_in(bytes)) {
    COURSE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
  }
}

/// The signature of every product kernel of this chapter.
using ProductKernel = void (*)(const float* A, const float* B, float* C, int m, int n, int k);

/// Launches @p kernel, a product kernel for @p Semiring (product_kernel unless another is given),
/// with the tile width @p tile: 1 to kMaxTile (one thread per tile element, at most 1024 per
/// block).
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile,
                    ProductKernel kernel = product_kernel<Semiring>) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  // The loop over k steps past k by up to two tiles (the next step's fetch): keep that in an int.
  course::require(k <= INT_MAX - 2 * kMaxTile, "k = " + std::to_string(k) +
                                                   " is too large: at most " +
                                                   std::to_string(INT_MAX - 2 * kMaxTile));
  course::require(tile >= 1 && tile <= kMaxTile, "tile width " + std::to_string(tile) +
                                                     " is not possible: chapter 3 takes 1 to " +
                                                     std::to_string(kMaxTile));
  const dim3 block(tile, tile);
  const dim3 grid = course::grid_2d(n, m, block);  // x walks columns
  // EXERCISE 3.2 begin: size the buffer, opt in above 48 KB, launch with it
  // The buffer holds product_shared_bytes(tile) bytes. Get the kernel ready for that size with
  // prepare_dynamic_shared(kernel, bytes, what), which opts in above 48 KB (`what` names the
  // launch in its error message), then pass the size as the third launch parameter.
  // As written the launch asks for no buffer: the kernel finds it too small and leaves C
  // unwritten.
  const std::size_t bytes = 0;
  kernel<<<grid, block, bytes, stream>>>(A, B, C, m, n, k);
  // EXERCISE 3.2 end
  COURSE_CHECK_LAUNCH(kernel, grid, block, bytes, stream);
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one T x T tile of C per block
/// through the dynamic buffer. @p tile chooses T at run time (the default: kTiles[0], 32).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, tile);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one T x T tile of C per block through the dynamic
/// buffer. @p tile chooses T at run time (the default: kTiles[0], 32).
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, stream, tile);
}

/// The signature of every conv2d kernel of this chapter.
using Conv2dKernel = void (*)(const float* img, int h, int w, const float* mask, int mk, int ml,
                              float* out);

/// Launches @p kernel, a conv2d kernel, with @p block_width squared threads per block: odd mask
/// sides from 1 to course::kMaxMaskSide, block widths from 1 to kMaxBlock.
inline void launch_conv2d(Conv2dKernel kernel, const float* img, int h, int w, const float* mask,
                          int mk, int ml, float* out, cudaStream_t stream, int block_width) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  const auto valid = [](int side) {
    return side >= 1 && side <= course::kMaxMaskSide && side % 2 == 1;
  };
  course::require(valid(mk) && valid(ml),
                  "a " + std::to_string(mk) + "x" + std::to_string(ml) +
                      " mask is not possible: the sides must be odd, from 1 to " +
                      std::to_string(course::kMaxMaskSide));
  course::require(block_width >= 1 && block_width <= kMaxBlock,
                  "block width " + std::to_string(block_width) +
                      " is not possible: chapter 3 takes 1 to " + std::to_string(kMaxBlock));
  const std::size_t bytes = conv2d_shared_bytes(block_width, mk, ml);
  prepare_dynamic_shared(kernel, bytes,
                         "conv2d with a " + std::to_string(mk) + "x" + std::to_string(ml) +
                             " mask and " + std::to_string(block_width) + "x" +
                             std::to_string(block_width) + " blocks");
  const dim3 block(block_width, block_width);
  const dim3 grid = course::grid_2d(w, h, block);
  kernel<<<grid, block, bytes, stream>>>(img, h, w, mask, mk, ml, out);
  COURSE_CHECK_LAUNCH(kernel, grid, block, bytes, stream);
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out, one
/// B x B tile of outputs per block through the dynamic buffer. Any odd mask up to
/// course::kMaxMaskSide per side; @p block_width chooses B at run time (the default: kBlocks[0],
/// 32).
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream, int block_width = kBlocks[0]) {
  launch_conv2d(conv2d_kernel, img, h, w, mask, mk, ml, out, stream, block_width);
}

// ---------------------------------------------------------------------------------------------
// conv1d
// ---------------------------------------------------------------------------------------------

/// Floats in one float4: conv1d reads its mask and its segment four values at a time.
inline constexpr int kQuad = 4;
/// Threads per conv1d block.
inline constexpr int kConv1dThreads = 256;
/// Consecutive conv1d outputs per thread: a thread slides a window of 8 inputs over the segment.
inline constexpr int kOutputsPerThread = kQuad;
/// conv1d outputs per block: the run of outputs a block computes from one segment.
inline constexpr int kConv1dRun = kConv1dThreads * kOutputsPerThread;
/// The longest conv1d mask. The whole mask lives in the buffer next to a segment of
/// kConv1dRun + kMaxTaps inputs: (4096 + 5120) * 4 B = 36 KB, under the default 48 KB, with room
/// for 6 blocks per SM on a 228 KB SM. Longer filters are the domain of the FFT.
inline constexpr int kMaxTaps = 4096;

static_assert(kConv1dRun % kQuad == 0, "the segment is read as float4");

/// @p count rounded up to a multiple of kQuad (a whole number of float4).
__host__ __device__ constexpr int round_up_to_quad(int count) {
  return (count + kQuad - 1) / kQuad * kQuad;
}

/// Floats of conv1d's input segment for an @p m-tap mask: the block's kConv1dRun outputs need
/// kConv1dRun + m - 1 inputs; rounded up so that the last thread's last float4 read stays inside.
__host__ __device__ constexpr int segment_length(int m) {
  return kConv1dRun + round_up_to_quad(m);
}

/// Bytes of conv1d's buffer for an @p m-tap mask, the third launch parameter: the reversed mask,
/// round_up_to_quad(m) floats, then the segment, segment_length(m) floats.
/// 127 taps: (128 + 1152) * 4 = 5120 bytes; kMaxTaps: (4096 + 5120) * 4 = 36864 bytes.
__host__ __device__ constexpr std::size_t conv1d_shared_bytes(int m) {
  return (static_cast<std::size_t>(round_up_to_quad(m)) + segment_length(m)) * sizeof(float);
}

/// Throws std::invalid_argument unless @p m is a mask length conv1d takes: 1 to kMaxTaps.
inline void require_valid_taps(int m) {
  course::require(m >= 1 && m <= kMaxTaps,
                  "a mask of " + std::to_string(m) + " taps is not possible: chapter 3 keeps the " +
                      "whole mask in shared memory and takes 1 to " + std::to_string(kMaxTaps));
}

/// Full 1D convolution y[i] = sum over j of a[i - j] * b[j], i < n + m - 1, with the mask length
/// chosen at launch: block i0 computes the run of kConv1dRun outputs from i0 * kConv1dRun, each
/// thread kOutputsPerThread consecutive ones. The block stages the mask, reversed, and the
/// segment of inputs its run needs (the run plus a halo of m - 1 before it, zero outside a). A
/// convolution is a correlation with the reversed mask: output first + m - 1 + u is the dot
/// product of the mask with segment[u .. u + m). A thread slides a window of two float4 along
/// the segment: per four taps it reads one new float4 of inputs and one of the mask (a
/// broadcast), and makes 16 multiply-adds from them, where chapter 1 made one per two loads.
__global__ void __launch_bounds__(kConv1dThreads)
    conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  const int taps = round_up_to_quad(m);  // mask length in whole float4, zeros at the end
  extern __shared__ __align__(16) float shared_buffer[];  // sized by the launch
  // EXERCISE 3.4 begin: carve the buffer into the reversed mask and the input segment
  // Point mask_tile at the start of the buffer and segment just past the mask, taps floats
  // further. Both are read as float4, so both must start on a 16-byte boundary: the buffer does,
  // and taps is a multiple of 4 floats. As written both start at the beginning, so the segment
  // overwrites the mask.
  float* mask_tile = shared_buffer;
  float* segment = shared_buffer;
  // EXERCISE 3.4 end
  // A launch with fewer bytes than this layout leaves y unwritten (the check then fails) instead
  // of reaching past the buffer. Every thread of the block takes the same branch.
  if (dynamic_shared_bytes() < conv1d_shared_bytes(m))
    return;
  const long long run_start = static_cast<long long>(blockIdx.x) * kConv1dRun;  // first output
  const long long length = static_cast<long long>(n) + m - 1;
  for (int q = threadIdx.x; q < taps; q += kConv1dThreads)
    mask_tile[q] = q < m ? b[m - 1 - q] : 0.0f;
  const long long first = run_start - (m - 1);  // input index of segment[0]
  const int needed = kConv1dRun + m - 1;        // inputs the run's outputs read
  for (int s = threadIdx.x; s < segment_length(m); s += kConv1dThreads) {
    const long long source = first + s;
    segment[s] = s < needed && source >= 0 && source < n ? a[source] : 0.0f;
  }
  __syncthreads();  // the mask and the segment are complete before anyone reads them
  // Thread t computes outputs run_start + 4t + r, r = 0..3: output u of the run is the sum over q
  // of mask_tile[q] * segment[u + q]. For taps q .. q + 3 the thread needs segment[4t + q ..
  // 4t + q + 6]: the float4 it already holds and the next one.
  const float4* window = reinterpret_cast<const float4*>(segment) + threadIdx.x;
  const float4* mask_quads = reinterpret_cast<const float4*>(mask_tile);
  float y0 = 0.0f, y1 = 0.0f, y2 = 0.0f, y3 = 0.0f;
  float4 low = window[0];
  for (int quad = 0; quad < taps / kQuad; ++quad) {
    const float4 high = window[quad + 1];
    const float4 tap = mask_quads[quad];
    y0 = fmaf(tap.x, low.x, fmaf(tap.y, low.y, fmaf(tap.z, low.z, fmaf(tap.w, low.w, y0))));
    y1 = fmaf(tap.x, low.y, fmaf(tap.y, low.z, fmaf(tap.z, low.w, fmaf(tap.w, high.x, y1))));
    y2 = fmaf(tap.x, low.z, fmaf(tap.y, low.w, fmaf(tap.z, high.x, fmaf(tap.w, high.y, y2))));
    y3 = fmaf(tap.x, low.w, fmaf(tap.y, high.x, fmaf(tap.z, high.y, fmaf(tap.w, high.z, y3))));
    low = high;
  }
  const long long i = run_start + kOutputsPerThread * threadIdx.x;
  const float results[kOutputsPerThread] = {y0, y1, y2, y3};
#pragma unroll
  for (int r = 0; r < kOutputsPerThread; ++r) {
    if (i + r < length)
      y[i + r] = results[r];
  }
}

/// Full convolution of the n-sample signal @p a with the m-tap mask @p b into the n + m - 1
/// samples of @p y, one run of kConv1dRun outputs per block through the dynamic buffer, whose
/// size follows m. Any m from 1 to kMaxTaps, more taps than samples included.
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream) {
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  require_valid_taps(m);
  const std::size_t bytes = conv1d_shared_bytes(m);
  prepare_dynamic_shared(conv1d_kernel, bytes, "conv1d with a " + std::to_string(m) + "-tap mask");
  const dim3 block(kConv1dThreads);
  const dim3 grid = course::grid_1d(static_cast<long long>(n) + m - 1, kConv1dRun);
  conv1d_kernel<<<grid, block, bytes, stream>>>(a, n, b, m, y);
  COURSE_CHECK_LAUNCH(conv1d_kernel, grid, block, bytes, stream);
}

// ---------------------------------------------------------------------------------------------
// Going further: dispatch to compiled sizes (--variant dispatch)
// ---------------------------------------------------------------------------------------------

/// The run-time sizes sent to kernels compiled for them, as production code does: a `switch` over
/// the sizes it has compiled instances for, each instance the code of the main part with its sizes
/// as template parameters, so that the compiler unrolls its loops and folds its offsets as it did
/// in chapter 2. Every other size goes to the kernels of the main part, so the launchers take
/// exactly what theirs take. conv1d has no variant here: `--variant dispatch` runs ch03::conv1d.
namespace dispatch {

/// Square mask sides that conv2d has compiled instances for, with kBlock x kBlock blocks: those
/// of chapter 2, the default first.
inline constexpr int kMaskSides[] = {13, 1, 3, 5, 7, 9, 11};
/// The conv2d block width of the compiled instances: the default.
inline constexpr int kBlock = kBlocks[0];
/// Threads an SM of compute capability 8.0 or 9.0 runs at once.
inline constexpr int kThreadsPerSm = 2048;

/// product_block() compiled for the tile width @p Tile: every width of ch03::kTiles has one.
/// The bounds ask for kThreadsPerSm / (Tile * Tile) blocks per SM, so the compiler keeps each
/// thread to at most 32 registers (65536 / 2048): with 34, only one block of 1024 threads fits.
template <typename Semiring, int Tile>
__global__ void __launch_bounds__(Tile* Tile, kThreadsPerSm / (Tile * Tile))
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  product_block<Semiring>(A, B, C, m, n, k, Tile);
}

/// conv2d_block() compiled for Block x Block blocks and a Mask x Mask mask; @p mk and @p ml are
/// Mask, as the launcher checked.
template <int Block, int Mask>
__global__ void __launch_bounds__(Block* Block, kThreadsPerSm / (Block * Block))
    conv2d_kernel(const float* img, int h, int w, const float* mask, int mk, int ml, float* out) {
  (void)mk;
  (void)ml;
  conv2d_block(img, h, w, mask, Mask, Mask, out, Block);
}

/// Launches the product over @p Semiring for the tile width @p tile: the compiled instance when
/// there is one, ch03::product_kernel otherwise.
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile) {
  // EXERCISE 3.5 begin: optional, --variant dispatch: the tile width to a compiled kernel
  // Optional. For each width of ch03::kTiles (32, 16, 8), launch the instance compiled for it,
  // product_kernel<Semiring, width>, by passing it as the last argument of
  // ch03::launch_product<Semiring>(A, B, C, m, n, k, stream, tile, kernel); a `switch (tile)`
  // with one case per width does it. Every other width (the tests use 4, 12 and 24) goes to the
  // kernel of the main part: ch03::launch_product<Semiring> without the last argument. As written
  // every width goes there: the results are right, at the plain kernel's speed, and the report
  // names ch03::product_kernel.
  ch03::launch_product<Semiring>(A, B, C, m, n, k, stream, tile);
  // EXERCISE 3.5 end
}

/// ch03::matmul through the compiled instances: the same results, and for the widths of
/// ch03::kTiles the speed of kernels compiled for them. @p tile as for ch03::matmul.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, tile);
}

/// ch03::minplus through the compiled instances. @p tile as for ch03::minplus.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, stream, tile);
}

/// The conv2d kernel compiled for kBlock x kBlock blocks and a @p side x @p side mask, or nullptr
/// when there is none: kMaskSides[Index] or a later entry of kMaskSides.
template <std::size_t Index = 0>
Conv2dKernel compiled_conv2d_kernel(int side) {
  if constexpr (Index < sizeof(kMaskSides) / sizeof(kMaskSides[0])) {
    return side == kMaskSides[Index] ? conv2d_kernel<kBlock, kMaskSides[Index]>
                                     : compiled_conv2d_kernel<Index + 1>(side);
  } else {
    (void)side;
    return nullptr;
  }
}

/// ch03::conv2d through the compiled instances: a square mask of kMaskSides with kBlock x kBlock
/// blocks runs the instance compiled for it, every other mask and block width ch03::conv2d_kernel.
/// @p block_width as for ch03::conv2d.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream, int block_width = kBlocks[0]) {
  Conv2dKernel kernel = block_width == kBlock && mk == ml ? compiled_conv2d_kernel(mk) : nullptr;
  if (kernel == nullptr)
    kernel = ch03::conv2d_kernel;
  launch_conv2d(kernel, img, h, w, mask, mk, ml, out, stream, block_width);
}

}  // namespace dispatch

}  // namespace ch03
