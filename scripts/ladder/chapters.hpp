/// @file chapters.hpp
/// @brief How a chapter joins the ladder: each compiled copy of chapter.cu adds its chapter's own
/// description (chNN::describe(), course::Chapter) built with the solution kernels.
#pragma once

#include "course/driver.hpp"

namespace ladder {

/// Adds @p chapter to the chapters the ladder runs (ladder.cpp); returns true. Each copy of
/// chapter.cu calls it once when the program starts.
bool add_chapter(const course::Chapter& chapter);

}  // namespace ladder
