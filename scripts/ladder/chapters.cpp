#include "chapters.hpp"

#include <algorithm>

namespace ladder {
namespace {

// A function's static, so that it exists before the first chapter adds itself, whatever the order
// in which the program's static objects are initialized.
std::vector<ChapterSolutions>& added_chapters() {
  static std::vector<ChapterSolutions> chapters;
  return chapters;
}

}  // namespace

bool add_chapter(const ChapterSolutions& chapter) {
  added_chapters().push_back(chapter);
  return true;
}

std::vector<ChapterSolutions> available_chapters() {
  std::vector<ChapterSolutions> chapters = added_chapters();
  std::sort(chapters.begin(), chapters.end(),
            [](const ChapterSolutions& a, const ChapterSolutions& b) {
              return a.number != b.number ? a.number < b.number : a.variant < b.variant;
            });
  return chapters;
}

}  // namespace ladder
