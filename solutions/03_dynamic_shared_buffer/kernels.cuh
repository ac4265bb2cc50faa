/// @file
/// @brief Chapter 3: one `extern __shared__` buffer, sized at launch and carved into arrays.
///
/// Chapter 2's algorithms, with the sizes chosen at run time. A kernel declares one unsized
/// `extern __shared__` buffer; the launcher says how many bytes it holds (the third launch
/// parameter), and the kernel carves it into its arrays, each at an offset aligned for the way it
/// is read. The same carving function runs on the host without a buffer to add up those bytes, so
/// the size the launcher asks for and the layout the kernel uses cannot disagree. Above 48 KB per
/// block a kernel must opt in with cudaFuncSetAttribute(); a request beyond what the device allows
/// is refused with both numbers in the message.
///
/// The matrix product takes any tile width that is a multiple of 4 up to 32, conv2d any odd mask
/// up to 63 x 63 and any block width up to 32, conv1d any mask length up to kMaxTaps.
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

/// The exercises of this chapter, for the hint printed when a check fails.
inline constexpr course::Exercise kExercises[] = {
    {"3.1", "matmul", "carve the buffer into the A tile (16-byte aligned) and the B tile"},
    {"3.1", "minplus", "carve the buffer into the A tile (16-byte aligned) and the B tile"},
    {"3.2", "matmul", "one tile entry, the identity outside the matrix"},
    {"3.2", "minplus", "one tile entry, the identity outside the matrix"},
    {"3.3", "conv2d", "carve the buffer into the mask (16-byte aligned rows) and the tile"},
    {"3.4", "conv2d", "stage the input tile with its halo, and the mask, in shared memory"},
    {"3.5", "conv1d", "carve the buffer into the reversed mask and the input segment"},
    {"3.6", "conv1d", "stage the reversed mask and the input segment with its halo"},
};

/// Tile widths of the matrix product offered by `--tile`, the default first. The kernel takes any
/// multiple of kQuad up to kMaxTile; these are the ones worth comparing.
inline constexpr int kTiles[] = {32, 16, 8};
/// Block widths of conv2d offered by `--block`, the default first. The kernel takes any width up
/// to kMaxBlock.
inline constexpr int kBlocks[] = {32, 16, 8};
/// The widest tile and block: kMaxTile x kMaxTile = 1024 threads, the most a block can have.
inline constexpr int kMaxTile = 32;
/// Floats from one row of the product's B tile to the next, whatever the tile width: a constant,
/// so that the distance between the B elements a thread reads is known when compiling. The widest
/// row plus 16 floats: at T = 16 a warp stores two rows, which then fall in different banks.
inline constexpr int kBPitch = kMaxTile + 16;
/// The widest conv2d block, for the same reason.
inline constexpr int kMaxBlock = 32;
/// Floats in one float4: the kernels read the A tile and the masks four values at a time.
inline constexpr int kQuad = 4;
/// Alignment of an array that is read as float4: 16 bytes.
inline constexpr std::size_t kQuadAlignment = alignof(float4);
/// Inputs a conv2d thread fetches from global memory before it stores any of them in the tile.
inline constexpr int kCopiesInFlight = 4;
/// Whole float4 in a row of the widest mask: conv2d_kernel's switch has a case for each count.
inline constexpr int kMaxRowQuads = course::kMaxMaskSide / kQuad;
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
/// Dynamic shared memory every block may use without opting in.
inline constexpr std::size_t kDefaultSharedLimit = 48 * 1024;

static_assert(kTiles[0] <= kMaxTile && kBlocks[0] <= kMaxBlock, "defaults within the limits");
static_assert(kConv1dRun % kQuad == 0, "the segment is read as float4");

// ---------------------------------------------------------------------------------------------
// Carving one buffer
// ---------------------------------------------------------------------------------------------

/// @p offset rounded up to the next multiple of @p alignment (a power of two).
__host__ __device__ constexpr std::size_t align_up(std::size_t offset, std::size_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

/// @p count rounded up to a multiple of kQuad (a whole number of float4).
__host__ __device__ constexpr int round_up_to_quad(int count) {
  return (count + kQuad - 1) / kQuad * kQuad;
}

/// Hands out the arrays of one dynamic shared buffer in order, each at the next offset aligned
/// for its type (or for the alignment asked for). Built without a buffer it only measures:
/// take() returns nullptr and bytes() adds up the layout; the launchers size the buffer this way.
/// Built on the kernel's buffer it returns each array's address, or nullptr for an array that
/// would end beyond the buffer's capacity.
class SharedCarver {
 public:
  /// A carver that only measures.
  __host__ __device__ constexpr SharedCarver() {}
  /// A carver over @p capacity bytes at @p base.
  __host__ __device__ constexpr SharedCarver(unsigned char* base, std::size_t capacity)
      : base_(base), capacity_(capacity) {}

  /// The next array of @p count elements of T, starting at a multiple of @p alignment bytes.
  template <typename T>
  __host__ __device__ constexpr T* take(int count, std::size_t alignment = alignof(T)) {
    const std::size_t start = align_up(used_, alignment);
    used_ = start + static_cast<std::size_t>(count) * sizeof(T);
    if (base_ == nullptr || used_ > capacity_)
      return nullptr;
    return reinterpret_cast<T*>(base_ + start);
  }

  /// Bytes from the start of the buffer to the end of the last array taken.
  __host__ __device__ constexpr std::size_t bytes() const { return used_; }

 private:
  unsigned char* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

/// The size of this launch's dynamic shared buffer (the third launch parameter), as the hardware
/// reports it: the kernel checks its layout against it instead of trusting the launcher.
__device__ __forceinline__ std::size_t dynamic_shared_bytes() {
  unsigned bytes = 0;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Matrix product
// ---------------------------------------------------------------------------------------------

/// The arrays of product_kernel's buffer.
struct ProductBuffer {
  float* a_tile = nullptr;  ///< tile x tile: A[row of the block + r][step + c] at r * tile + c
  float* b_tile = nullptr;  ///< tile rows: B[step + r][column of the block + c] at r * kBPitch + c
  /// Whether every array fitted in the buffer.
  __host__ __device__ constexpr bool complete() const {
    return a_tile != nullptr && b_tile != nullptr;
  }
};

/// Carves product_kernel's buffer for tile width @p tile. The kernel reads a row of the A tile
/// four floats at a time, so the A tile starts on a 16-byte boundary (and tile is a multiple of
/// 4, so every row does too). The B tile has tile rows of kBPitch floats, of which the first tile
/// are used. Run without a buffer it sizes the launch: product_shared_bytes().
__host__ __device__ constexpr ProductBuffer carve_product_buffer(SharedCarver& carver, int tile) {
  ProductBuffer buffer;
  // EXERCISE 3.1 begin: carve the buffer into the A tile (16-byte aligned) and the B tile
  buffer.a_tile = carver.take<float>(tile * tile, kQuadAlignment);
  buffer.b_tile = carver.take<float>(tile * kBPitch);
  // EXERCISE 3.1 end
  return buffer;
}

/// Bytes of product_kernel's buffer for tile width @p tile: the third launch parameter.
__host__ __device__ constexpr std::size_t product_shared_bytes(int tile) {
  SharedCarver sizing;
  carve_product_buffer(sizing, tile);
  return sizing.bytes();
}

/// One tile entry: element (@p r, @p c) of the @p rows x @p cols row-major matrix @p M, or the
/// semiring's identity where (r, c) falls outside it, so that any m, n, k works.
template <typename Semiring>
__device__ float element_or_identity(const float* M, int rows, int cols, int r, int c) {
  // EXERCISE 3.2 begin: one tile entry, the identity outside the matrix
  return r < rows && c < cols ? M[static_cast<size_t>(r) * cols + c] : Semiring::identity();
  // EXERCISE 3.2 end
}

/// Matrix product over @p Semiring: a block of tile x tile threads computes a tile x tile tile of
/// C, thread (x, y) the element in row y and column x of it, where tile = blockDim.x is chosen at
/// launch. The block walks along k one step of tile at a time. At each step every thread stores
/// one element of A's tile and one of B's in the dynamic buffer (the semiring's identity where
/// the tile sticks out of the matrix), the block waits until both tiles are complete, every thread
/// combines its row of the A tile with its column of the B tile, and the block waits again before
/// the next step overwrites the tiles. Chapter 2's compiler knew the tile's shape: it unrolled the
/// loop over the tile, folded every shared-memory offset into its load instruction and read four A
/// values with one 16-byte load. Here the width is a run-time value, so the kernel keeps what it
/// can constant: it reads its row of the A tile as float4 itself (one broadcast serves four
/// steps), the B tile's rows are kBPitch floats apart whatever the width, and the loop is written
/// for the widest tile with an exit at the width, so the compiler can still unroll it.
template <typename Semiring>
__global__ void __launch_bounds__(kMaxTile* kMaxTile)
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int tile = blockDim.x;  // chosen at launch: the block is tile x tile threads
  extern __shared__ __align__(16) unsigned char shared_buffer[];
  SharedCarver carver(shared_buffer, dynamic_shared_bytes());
  const ProductBuffer buffer = carve_product_buffer(carver, tile);
  // A launch with fewer bytes than the layout needs leaves C unwritten (the check then fails)
  // instead of reaching past the buffer. Every thread of the block takes the same branch.
  if (!buffer.complete())
    return;
  float* a_tile = buffer.a_tile;
  float* b_tile = buffer.b_tile;
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
    b_tile[ty * kBPitch + tx] = b_next;
    __syncthreads();  // both tiles are complete before anyone reads them
    // Ask for the next step's elements now; they arrive while the block computes this step.
    a_next = element_or_identity<Semiring>(A, m, k, row, step + tile + tx);
    b_next = element_or_identity<Semiring>(B, k, n, step + tile + ty, col);
    const float4* a_row = reinterpret_cast<const float4*>(a_tile + ty * tile);
    const float* b_column = b_tile + tx;
    // A loop to the run-time width could not be unrolled; this one counts to kMaxTile and stops
    // at the width. Unrolled, every offset below is a constant, one compare per four steps.
#pragma unroll
    for (int p = 0; p < kMaxTile; p += kQuad) {
      if (p >= tile)
        break;
      const float4 a = a_row[p / kQuad];  // a_tile[ty][p .. p + 3]
      const float* b = b_column + p * kBPitch;
      acc = Semiring::combine(acc, a.x, b[0]);
      acc = Semiring::combine(acc, a.y, b[kBPitch]);
      acc = Semiring::combine(acc, a.z, b[2 * kBPitch]);
      acc = Semiring::combine(acc, a.w, b[3 * kBPitch]);
    }
    __syncthreads();  // nobody still reads the tiles when the next step overwrites them
  }
  if (row < m && col < n)
    C[static_cast<size_t>(row) * n + col] = acc;
}

// ---------------------------------------------------------------------------------------------
// conv2d
// ---------------------------------------------------------------------------------------------

/// Floats per row of the staged mask: @p ml rounded up to a whole number of float4, so that
/// every row starts on a 16-byte boundary and can be read four entries at a time.
__host__ __device__ constexpr int mask_pitch(int ml) {
  return round_up_to_quad(ml);
}

/// The arrays of conv2d_kernel's buffer.
struct Conv2dBuffer {
  float* mask_tile = nullptr;  ///< mk rows of mask_pitch(ml) floats: mask[p][q] at p * pitch + q
  float* tile = nullptr;  ///< (block + mk - 1) x (block + ml - 1) inputs around the block's outputs
  /// Whether every array fitted in the buffer.
  __host__ __device__ constexpr bool complete() const {
    return mask_tile != nullptr && tile != nullptr;
  }
};

/// Carves conv2d_kernel's buffer for @p block x @p block outputs and an @p mk x @p ml mask. The
/// mask is read four entries at a time, so its rows are mask_pitch(ml) floats and it starts on a
/// 16-byte boundary; it comes first, since the most strictly aligned array first wastes no
/// padding. Run without a buffer it sizes the launch: conv2d_shared_bytes().
__host__ __device__ constexpr Conv2dBuffer carve_conv2d_buffer(SharedCarver& carver, int block,
                                                               int mk, int ml) {
  Conv2dBuffer buffer;
  // EXERCISE 3.3 begin: carve the buffer into the mask (16-byte aligned rows) and the tile
  buffer.mask_tile = carver.take<float>(mk * mask_pitch(ml), kQuadAlignment);
  buffer.tile = carver.take<float>((block + mk - 1) * (block + ml - 1));
  // EXERCISE 3.3 end
  return buffer;
}

/// @p sum plus the products of the four mask entries @p weights with the inputs they meet: .x with
/// inputs[0], .y with inputs[-1], .z with inputs[-2], .w with inputs[-3] (as the mask column
/// grows, the input column falls).
__device__ __forceinline__ float add_quad(float sum, float4 weights, const float* inputs) {
  sum += weights.x * inputs[0];
  sum += weights.y * inputs[-1];
  sum += weights.z * inputs[-2];
  sum += weights.w * inputs[-3];
  return sum;
}

/// Bytes of conv2d_kernel's buffer for @p block x @p block outputs and an @p mk x @p ml mask: the
/// third launch parameter. 63 x 63 with 32 x 32 blocks: 63 * 64 * 4 + 94 * 94 * 4 = 51472 bytes,
/// above the 48 KB default.
__host__ __device__ constexpr std::size_t conv2d_shared_bytes(int block, int mk, int ml) {
  SharedCarver sizing;
  carve_conv2d_buffer(sizing, block, mk, ml);
  return sizing.bytes();
}

/// 2D convolution, zero padding, same-size output, with an mk x ml mask: a block of block x block
/// threads computes as many outputs, thread (x, y) out[y][x]; the block width (blockDim.x) and
/// the mask are chosen at launch. The block first stages what its outputs need in its dynamic
/// buffer: the input tile with a halo of mk / 2 rows and ml / 2 columns on each side
/// ((block + mk - 1) x (block + ml - 1) inputs, zero outside the image, more inputs than threads,
/// so each thread copies several, kCopiesInFlight loads at a time) and the mask, each row on a
/// 16-byte boundary. After a barrier every thread sums over the mask from shared memory. A warp
/// reads four mask elements at a time (one 16-byte broadcast) and consecutive tile elements (32
/// different banks when block = 32). Chapter 2's compiler unrolled both loops whole, knowing their
/// trip counts; here the staging fetches its inputs in rounds by hand, and the sum over a mask row
/// jumps into a sequence unrolled for the widest row (a switch whose cases fall through).
__global__ void __launch_bounds__(kMaxBlock* kMaxBlock)
    conv2d_kernel(const float* img, int h, int w, const float* mask, int mk, int ml, float* out) {
  const int block = blockDim.x;          // chosen at launch: the block is block x block threads
  const int radius_y = mk / 2;           // halo rows above and below
  const int radius_x = ml / 2;           // halo columns left and right
  const int tile_cols = block + ml - 1;  // inputs per tile row
  const int pitch = mask_pitch(ml);
  extern __shared__ __align__(16) unsigned char shared_buffer[];
  SharedCarver carver(shared_buffer, dynamic_shared_bytes());
  const Conv2dBuffer buffer = carve_conv2d_buffer(carver, block, mk, ml);
  // A launch with fewer bytes than the layout needs leaves out unwritten (the check then fails)
  // instead of reaching past the buffer. Every thread of the block takes the same branch.
  if (!buffer.complete())
    return;
  float* tile = buffer.tile;  // img[first_y + r][first_x + c] at tile[r * tile_cols + c]
  float* mask_tile = buffer.mask_tile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int block_x = blockIdx.x * block;  // the block's first output column ...
  const int block_y = blockIdx.y * block;  // ... and row
  const int x = block_x + tx;
  const int y = block_y + ty;
  // EXERCISE 3.4 begin: stage the input tile with its halo, and the mask, in shared memory
  const int tile_size = (block + mk - 1) * tile_cols;  // inputs in the tile
  const int first_y = block_y - radius_y;              // image row of tile row 0
  const int first_x = block_x - radius_x;              // image column of tile column 0
  const int threads = block * block;
  const int thread = ty * block + tx;
  // The tile is larger than the block: thread t copies its inputs t, t + threads, ... (counted
  // row by row). A loop of load-then-store would wait for each load in turn, since its trip
  // count is not a constant the compiler could unroll; so the copies go in rounds of
  // kCopiesInFlight: all the loads of a round, then all its stores.
  for (int round = thread; round < tile_size; round += kCopiesInFlight * threads) {
    float inputs[kCopiesInFlight];
#pragma unroll
    for (int j = 0; j < kCopiesInFlight; ++j) {
      const int i = round + j * threads;
      const int source_y = first_y + i / tile_cols;
      const int source_x = first_x + i % tile_cols;
      const bool inside =
          i < tile_size && source_y >= 0 && source_y < h && source_x >= 0 && source_x < w;
      inputs[j] = inside ? img[static_cast<size_t>(source_y) * w + source_x] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kCopiesInFlight; ++j) {
      const int i = round + j * threads;
      if (i < tile_size)
        tile[i] = inputs[j];
    }
  }
  for (int i = thread; i < mk * ml; i += threads)
    mask_tile[(i / ml) * pitch + i % ml] = mask[i];
  // EXERCISE 3.4 end
  float sum = 0.0f;
  __syncthreads();  // the tile and the mask are complete before anyone reads them
  // out[y][x] sits at tile[ty + radius_y][tx + radius_x]; img[y + radius_y - p][x + radius_x - q]
  // is radius_y - p rows and radius_x - q columns away from it.
  const int center_y = ty + radius_y;
  const int center_x = tx + radius_x;
  // A mask row is `quads` whole float4 and then 1 or 3 single entries (ml is odd).
  const int quads = ml / kQuad;
  static_assert(kMaxRowQuads == 15, "the switch below has a case for 1 to kMaxRowQuads quads");
  for (int p = 0; p < mk; ++p) {
    const float* mask_row = mask_tile + p * pitch;
    const float4* weights = reinterpret_cast<const float4*>(mask_row);
    const float* inputs = tile + (center_y + radius_y - p) * tile_cols + center_x + radius_x;
    // A loop over the quads would have a run-time trip count and stay rolled. Instead the switch
    // jumps into the loop unrolled for the widest row: case n adds quads n - 1, ..., 0, falling
    // through from each case to the next, every offset a constant.
    // clang-format off
    switch (quads) {
      case 15: sum = add_quad(sum, weights[14], inputs - 14 * kQuad); [[fallthrough]];
      case 14: sum = add_quad(sum, weights[13], inputs - 13 * kQuad); [[fallthrough]];
      case 13: sum = add_quad(sum, weights[12], inputs - 12 * kQuad); [[fallthrough]];
      case 12: sum = add_quad(sum, weights[11], inputs - 11 * kQuad); [[fallthrough]];
      case 11: sum = add_quad(sum, weights[10], inputs - 10 * kQuad); [[fallthrough]];
      case 10: sum = add_quad(sum, weights[9], inputs - 9 * kQuad); [[fallthrough]];
      case 9: sum = add_quad(sum, weights[8], inputs - 8 * kQuad); [[fallthrough]];
      case 8: sum = add_quad(sum, weights[7], inputs - 7 * kQuad); [[fallthrough]];
      case 7: sum = add_quad(sum, weights[6], inputs - 6 * kQuad); [[fallthrough]];
      case 6: sum = add_quad(sum, weights[5], inputs - 5 * kQuad); [[fallthrough]];
      case 5: sum = add_quad(sum, weights[4], inputs - 4 * kQuad); [[fallthrough]];
      case 4: sum = add_quad(sum, weights[3], inputs - 3 * kQuad); [[fallthrough]];
      case 3: sum = add_quad(sum, weights[2], inputs - 2 * kQuad); [[fallthrough]];
      case 2: sum = add_quad(sum, weights[1], inputs - kQuad); [[fallthrough]];
      case 1: sum = add_quad(sum, weights[0], inputs); [[fallthrough]];
      default: break;
    }
    // clang-format on
    // The single entries after the quads: 1, or 3 when ml % 4 == 3.
    const int q = quads * kQuad;
    sum += mask_row[q] * inputs[-q];
    if (ml - q == 3) {
      sum += mask_row[q + 1] * inputs[-q - 1];
      sum += mask_row[q + 2] * inputs[-q - 2];
    }
  }
  if (x < w && y < h)
    out[static_cast<size_t>(y) * w + x] = sum;
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

/// Throws std::invalid_argument unless @p tile is a tile width the product kernel takes: a
/// multiple of kQuad (its A rows are read as float4) from kQuad to kMaxTile (one thread per tile
/// element, at most 1024 per block).
inline void require_valid_tile(int tile) {
  course::require(tile >= kQuad && tile <= kMaxTile && tile % kQuad == 0,
                  "tile width " + std::to_string(tile) + " is not possible: chapter 3 takes a " +
                      "multiple of " + std::to_string(kQuad) + " from " + std::to_string(kQuad) +
                      " to " + std::to_string(kMaxTile));
}

/// Launches product_kernel for @p Semiring with the tile width @p tile.
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  // The loop over k steps past k by up to two tiles (the next step's fetch): keep that in an int.
  course::require(k <= INT_MAX - 2 * kMaxTile, "k = " + std::to_string(k) +
                                                   " is too large: at most " +
                                                   std::to_string(INT_MAX - 2 * kMaxTile));
  require_valid_tile(tile);
  const auto kernel = product_kernel<Semiring>;
  const std::size_t bytes = product_shared_bytes(tile);
  prepare_dynamic_shared(kernel, bytes, "the product with tile width " + std::to_string(tile));
  const dim3 block(tile, tile);
  const dim3 grid = course::grid_2d(n, m, block);  // x walks columns
  kernel<<<grid, block, bytes, stream>>>(A, B, C, m, n, k);
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

/// Throws std::invalid_argument unless @p mk x @p ml is a mask conv2d takes: odd sides from 1 to
/// course::kMaxMaskSide.
inline void require_valid_mask(int mk, int ml) {
  const auto valid = [](int side) {
    return side >= 1 && side <= course::kMaxMaskSide && side % 2 == 1;
  };
  course::require(valid(mk) && valid(ml),
                  "a " + std::to_string(mk) + "x" + std::to_string(ml) +
                      " mask is not possible: the sides must be odd, from 1 to " +
                      std::to_string(course::kMaxMaskSide));
}

/// Throws std::invalid_argument unless @p block is a conv2d block width: 1 to kMaxBlock.
inline void require_valid_block(int block) {
  course::require(block >= 1 && block <= kMaxBlock, "block width " + std::to_string(block) +
                                                        " is not possible: chapter 3 takes 1 to " +
                                                        std::to_string(kMaxBlock));
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out, one
/// B x B tile of outputs per block through the dynamic buffer. Any odd mask up to
/// course::kMaxMaskSide per side; @p block_width chooses B at run time (the default: kBlocks[0],
/// 32).
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream, int block_width = kBlocks[0]) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  require_valid_mask(mk, ml);
  require_valid_block(block_width);
  const std::size_t bytes = conv2d_shared_bytes(block_width, mk, ml);
  prepare_dynamic_shared(conv2d_kernel, bytes,
                         "conv2d with a " + std::to_string(mk) + "x" + std::to_string(ml) +
                             " mask and " + std::to_string(block_width) + "x" +
                             std::to_string(block_width) + " blocks");
  const dim3 block(block_width, block_width);
  const dim3 grid = course::grid_2d(w, h, block);
  conv2d_kernel<<<grid, block, bytes, stream>>>(img, h, w, mask, mk, ml, out);
  COURSE_CHECK_LAUNCH(conv2d_kernel, grid, block, bytes, stream);
}

// ---------------------------------------------------------------------------------------------
// conv1d
// ---------------------------------------------------------------------------------------------

/// The arrays of conv1d_kernel's buffer for an m-tap mask, with taps = round_up_to_quad(m).
struct Conv1dBuffer {
  float* mask_tile = nullptr;  ///< taps floats: b[m - 1 - q] at q, 0 for q >= m
  float* segment = nullptr;    ///< kConv1dRun + taps inputs: a[first + s] at s, 0 outside a
  /// Whether every array fitted in the buffer.
  __host__ __device__ constexpr bool complete() const {
    return mask_tile != nullptr && segment != nullptr;
  }
};

/// Floats of conv1d's input segment for an @p m-tap mask: the block's kConv1dRun outputs need
/// kConv1dRun + m - 1 inputs; rounded up so that the last thread's last float4 read stays inside.
__host__ __device__ constexpr int segment_length(int m) {
  return kConv1dRun + round_up_to_quad(m);
}

/// Carves conv1d_kernel's buffer for an @p m-tap mask. Both arrays are read as float4, so both
/// start on a 16-byte boundary. Run without a buffer it sizes the launch: conv1d_shared_bytes().
__host__ __device__ constexpr Conv1dBuffer carve_conv1d_buffer(SharedCarver& carver, int m) {
  Conv1dBuffer buffer;
  // EXERCISE 3.5 begin: carve the buffer into the reversed mask and the input segment
  buffer.mask_tile = carver.take<float>(round_up_to_quad(m), kQuadAlignment);
  buffer.segment = carver.take<float>(segment_length(m), kQuadAlignment);
  // EXERCISE 3.5 end
  return buffer;
}

/// Bytes of conv1d_kernel's buffer for an @p m-tap mask: the third launch parameter.
/// 127 taps: (128 + 1152) * 4 = 5120 bytes; kMaxTaps: (4096 + 5120) * 4 = 36864 bytes.
__host__ __device__ constexpr std::size_t conv1d_shared_bytes(int m) {
  SharedCarver sizing;
  carve_conv1d_buffer(sizing, m);
  return sizing.bytes();
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
  extern __shared__ __align__(16) unsigned char shared_buffer[];
  SharedCarver carver(shared_buffer, dynamic_shared_bytes());
  const Conv1dBuffer buffer = carve_conv1d_buffer(carver, m);
  // A launch with fewer bytes than the layout needs leaves y unwritten (the check then fails)
  // instead of reaching past the buffer. Every thread of the block takes the same branch.
  if (!buffer.complete())
    return;
  float* mask_tile = buffer.mask_tile;
  float* segment = buffer.segment;
  const long long run_start = static_cast<long long>(blockIdx.x) * kConv1dRun;  // first output
  const long long length = static_cast<long long>(n) + m - 1;
  // EXERCISE 3.6 begin: stage the reversed mask and the input segment with its halo
  for (int q = threadIdx.x; q < taps; q += kConv1dThreads)
    mask_tile[q] = q < m ? b[m - 1 - q] : 0.0f;
  const long long first = run_start - (m - 1);  // input index of segment[0]
  const int needed = kConv1dRun + m - 1;        // inputs the run's outputs read
  for (int s = threadIdx.x; s < segment_length(m); s += kConv1dThreads) {
    const long long source = first + s;
    segment[s] = s < needed && source >= 0 && source < n ? a[source] : 0.0f;
  }
  // EXERCISE 3.6 end
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

}  // namespace ch03
