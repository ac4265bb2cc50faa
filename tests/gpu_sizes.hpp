// The sizes every chapter's GPU tests run, from the course design.
#pragma once

namespace course::testing {

/// Square sizes around warp and tile boundaries.
constexpr int kAwkwardSizes[] = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257};

/// A product shape m x n x k.
struct ProductShape {
  int m, n, k;
};
/// Non-square products (m != n != k), thin and wide.
constexpr ProductShape kNonSquareShapes[] = {{1, 257, 3},   {257, 1, 65}, {33, 65, 17},
                                             {65, 33, 129}, {7, 129, 1},  {130, 63, 200},
                                             {2, 3, 1000}};

/// An image h x w.
struct ImageShape {
  int h, w;
};
/// Images, some smaller than the masks.
constexpr ImageShape kImageShapes[] = {{1, 1}, {2, 3}, {7, 5}, {37, 29}, {33, 65}, {129, 127}};

/// A mask mk x ml.
struct MaskShape {
  int mk, ml;
};
/// Masks from 1 x 1 to the default 13 x 13, square and not.
constexpr MaskShape kMaskShapes[] = {{1, 1}, {3, 5}, {5, 3}, {3, 3}, {13, 13}};

/// conv1d sizes: n samples and m taps, m = 1, m = n, m > n, n = 1 included.
struct Conv1dShape {
  int n, m;
};
constexpr Conv1dShape kConv1dShapes[] = {{1, 1},   {1, 7},   {7, 1},      {100, 37},   {37, 100},
                                         {64, 64}, {257, 3}, {1000, 127}, {5000, 1023}};

}  // namespace course::testing
