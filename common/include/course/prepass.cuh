/// @file prepass.cuh
/// @brief The pre-pass of the product kernels from chapter 4 on: each operand is copied into
/// scratch memory padded to whole tiles with the semiring's identity, transposed where the kernel
/// wants it, and changed element by element where a chapter asks (chapter 6 rounds to TF32), so
/// that the product's loop reads whole float4s with no bounds checks.
///
/// A launcher first plans every copy (plan_pad(): the padded shape and the grid, refused here if
/// too large), then copies (pad_operand()), so that a refused size allocates nothing:
/// @code
///   const course::PaddedSizes padded = course::padded_sizes<kTile, kTile, kBatch>(m, n, k);
///   const course::PadPlan a_plan =
///       course::plan_pad(m, k, padded.m, padded.k, course::PadLayout::transposed);
///   const course::PadPlan b_plan = course::plan_pad(k, n, padded.k, padded.n);
///   ... every other grid ...
///   const course::PaddedOperand at = course::pad_operand<Semiring>(A, a_plan, s);
///   const course::PaddedOperand bp = course::pad_operand<Semiring>(B, b_plan, s);
///   kernel<<<grid, block, 0, s>>>(at.data(), bp.data(), ..., bp.pitch(), ...);
/// @endcode
/// The scratch is allocated on the stream (cudaMallocAsync) and freed on it (cudaFreeAsync) when
/// the PaddedOperand goes out of scope, after the kernels queued behind the copy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "course/cuda_check.hpp"
#include "course/launch.cuh"

namespace course {

/// The pre-pass's element hook when nothing is to change: each element is copied as it is. A
/// chapter passes its own functor (a default-constructible type with
/// `__device__ float operator()(float) const`) to change each copied element; the padding is the
/// semiring's identity and does not go through it.
struct KeepValue {
  /// @p x unchanged.
  __device__ float operator()(float x) const { return x; }
};

/// Side of the square tile that one pre-pass block copies (through shared memory when it
/// transposes): 32 x 32 elements.
inline constexpr int kPrepassTile = 32;
/// Rows of that tile that the pre-pass block's 32 x 8 threads copy per pass.
inline constexpr int kPrepassRowsPerPass = 8;

/// Pre-pass kernel: `dst[c][r] = Element(src[r][c])` for r < rows, c < cols (src is rows x cols,
/// row-major), and `Semiring::identity()` elsewhere in the padded_cols x padded_rows result. A
/// 32 x 32 tile through shared memory keeps both the reads of src and the writes of dst coalesced;
/// the +1 column avoids bank conflicts.
template <class Semiring, class Element>
__global__ void transpose_pad_kernel(const float* __restrict__ src, int rows, int cols,
                                     float* __restrict__ dst, int padded_rows, int padded_cols) {
  __shared__ float tile[kPrepassTile][kPrepassTile + 1];
  const int col_base = blockIdx.x * kPrepassTile;  // columns of src, rows of dst
  const int row_base = blockIdx.y * kPrepassTile;  // rows of src, columns of dst
  for (int r = threadIdx.y; r < kPrepassTile; r += kPrepassRowsPerPass) {
    const int row = row_base + r;
    const int col = col_base + threadIdx.x;
    tile[r][threadIdx.x] = (row < rows && col < cols)
                               ? Element{}(src[static_cast<std::size_t>(row) * cols + col])
                               : Semiring::identity();
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kPrepassTile; r += kPrepassRowsPerPass) {
    const int col = col_base + r;            // the row of dst
    const int row = row_base + threadIdx.x;  // the column of dst
    if (col < padded_cols && row < padded_rows)
      dst[static_cast<std::size_t>(col) * padded_rows + row] = tile[threadIdx.x][r];
  }
}

/// Pre-pass kernel: `dst[r][c] = Element(src[r][c])` for r < rows, c < cols (src is rows x cols,
/// row-major), and `Semiring::identity()` elsewhere in the padded_rows x padded_cols result. A
/// block of 32 x 8 threads covers 32 x 32 elements, a warp one row of 32 at a time.
template <class Semiring, class Element>
__global__ void pad_kernel(const float* __restrict__ src, int rows, int cols,
                           float* __restrict__ dst, int padded_rows, int padded_cols) {
  const int col = blockIdx.x * kPrepassTile + threadIdx.x;
  for (int r = threadIdx.y; r < kPrepassTile; r += kPrepassRowsPerPass) {
    const int row = blockIdx.y * kPrepassTile + r;
    if (row < padded_rows && col < padded_cols) {
      dst[static_cast<std::size_t>(row) * padded_cols + col] =
          (row < rows && col < cols) ? Element{}(src[static_cast<std::size_t>(row) * cols + col])
                                     : Semiring::identity();
    }
  }
}

/// @p value rounded up to a multiple of @p step; throws std::invalid_argument naming @p name when
/// the result no longer fits an int.
inline int round_up_checked(int value, int step, const char* name) {
  const long long rounded = ceil_div(value, step) * step;
  require(rounded <= 0x7fffffffLL,
          std::string(name) + " is too large to pad to a multiple of " + std::to_string(step));
  return static_cast<int>(rounded);
}

/// A product's sizes rounded up to whole tiles.
struct PaddedSizes {
  int m;  ///< rows of A and C, a multiple of the tile's rows
  int n;  ///< columns of B and C, a multiple of the tile's columns
  int k;  ///< the reduction length, a multiple of the k-steps per batch
};

/// @p m, @p n, @p k rounded up to multiples of TileRows, TileCols and Batch (the padding that a
/// chapter's product kernel reads without bounds checks); refuses sizes that would pass INT_MAX.
template <int TileRows, int TileCols, int Batch>
PaddedSizes padded_sizes(int m, int n, int k) {
  static_assert(TileRows > 0 && TileCols > 0 && Batch > 0, "padding multiples are positive");
  return {round_up_checked(m, TileRows, "m"), round_up_checked(n, TileCols, "n"),
          round_up_checked(k, Batch, "k")};
}

/// How a padded operand is laid out.
enum class PadLayout {
  as_is,       ///< the source's rows stay rows: padded_rows x padded_cols
  transposed,  ///< the source's rows become columns: padded_cols x padded_rows
};

/// One operand's pre-pass, planned before anything is allocated.
struct PadPlan {
  int rows = 0;                         ///< rows of the source
  int cols = 0;                         ///< columns of the source
  int padded_rows = 0;                  ///< the source's rows, padded
  int padded_cols = 0;                  ///< the source's columns, padded
  PadLayout layout = PadLayout::as_is;  ///< whether the copy is transposed
  dim3 grid;                            ///< the copy's grid, one block per 32 x 32 elements

  /// Floats between consecutive rows of the padded copy.
  int pitch() const { return layout == PadLayout::transposed ? padded_rows : padded_cols; }
  /// Bytes of the padded copy.
  std::size_t bytes() const {
    return static_cast<std::size_t>(padded_rows) * static_cast<std::size_t>(padded_cols) *
           sizeof(float);
  }
};

/// The block of every pre-pass kernel: 32 x 8 threads.
inline dim3 prepass_block() {
  return dim3(kPrepassTile, kPrepassRowsPerPass);
}

/// Plans the copy of a @p rows x @p cols source into @p padded_rows x @p padded_cols (laid out
/// as @p layout); throws std::invalid_argument when the grid cannot cover it.
inline PadPlan plan_pad(int rows, int cols, int padded_rows, int padded_cols,
                        PadLayout layout = PadLayout::as_is) {
  require(rows >= 1 && cols >= 1 && padded_rows >= rows && padded_cols >= cols,
          "pre-pass: the padded shape must contain the source");
  return {rows,        cols,   padded_rows,
          padded_cols, layout, grid_2d(padded_cols, padded_rows, dim3(kPrepassTile, kPrepassTile))};
}

/// An operand as the product kernel reads it: the padded copy in scratch memory, or the source
/// itself when it already has the padded shape. The scratch is freed in stream order when this
/// object goes out of scope (move-only).
class PaddedOperand {
 public:
  /// The source itself, read with pitch @p pitch; nothing to free.
  PaddedOperand(const float* data, int pitch) : data_(data), pitch_(pitch) {}
  /// A copy in @p scratch (from cudaMallocAsync on @p stream), freed there when destroyed.
  PaddedOperand(float* scratch, int pitch, cudaStream_t stream)
      : data_(scratch), pitch_(pitch), scratch_(scratch), stream_(stream) {}
  PaddedOperand(const PaddedOperand&) = delete;
  PaddedOperand& operator=(const PaddedOperand&) = delete;
  /// Takes over @p other's scratch.
  PaddedOperand(PaddedOperand&& other) noexcept
      : data_(other.data_), pitch_(other.pitch_), scratch_(other.scratch_), stream_(other.stream_) {
    other.scratch_ = nullptr;
  }
  PaddedOperand& operator=(PaddedOperand&&) = delete;
  /// Frees the scratch on its stream: the memory is reused only after the kernels queued before
  /// are done. An error here is a sticky one, reported by the next checked CUDA call.
  ~PaddedOperand() {
    if (scratch_ != nullptr)
      static_cast<void>(cudaFreeAsync(scratch_, stream_));
  }

  /// Where the product reads the operand.
  const float* data() const { return data_; }
  /// Floats between its rows.
  int pitch() const { return pitch_; }
  /// Whether the pre-pass copied it (false: the source is read as it is).
  bool copied() const { return scratch_ != nullptr; }

 private:
  const float* data_ = nullptr;
  int pitch_ = 0;
  float* scratch_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

/// Runs the pre-pass that @p plan describes on @p src, on stream @p s, with each copied element
/// passed through Element and the padding set to `Semiring::identity()`. A source that already has
/// the padded shape (as_is, no padding, 16-byte aligned) with Element = KeepValue is not copied.
template <class Semiring, class Element = KeepValue>
PaddedOperand pad_operand(const float* src, const PadPlan& plan, cudaStream_t s) {
  const bool ready = plan.layout == PadLayout::as_is && std::is_same_v<Element, KeepValue> &&
                     plan.rows == plan.padded_rows && plan.cols == plan.padded_cols &&
                     reinterpret_cast<std::uintptr_t>(src) % sizeof(float4) == 0;
  if (ready)
    return PaddedOperand(src, plan.cols);
  float* scratch = nullptr;
  COURSE_CUDA_CHECK(cudaMallocAsync(&scratch, plan.bytes(), s));
  PaddedOperand padded(scratch, plan.pitch(), s);  // freed even if the launch below throws
  const dim3 block = prepass_block();
  if (plan.layout == PadLayout::transposed) {
    const auto kernel = transpose_pad_kernel<Semiring, Element>;
    kernel<<<plan.grid, block, 0, s>>>(src, plan.rows, plan.cols, scratch, plan.padded_rows,
                                       plan.padded_cols);
    COURSE_CHECK_LAUNCH(kernel, plan.grid, block, 0, s);
  } else {
    const auto kernel = pad_kernel<Semiring, Element>;
    kernel<<<plan.grid, block, 0, s>>>(src, plan.rows, plan.cols, scratch, plan.padded_rows,
                                       plan.padded_cols);
    COURSE_CHECK_LAUNCH(kernel, plan.grid, block, 0, s);
  }
  return padded;
}

}  // namespace course
