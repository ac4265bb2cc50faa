#include "chapters.hpp"

#include <algorithm>

namespace ladder {
namespace {

// A function's static, so that it exists before the first chapter adds itself, whatever the order
// in which the program's static objects are initialized.
std::vector<course::Chapter>& added_chapters() {
  static std::vector<course::Chapter> chapters;
  return chapters;
}

}  // namespace

bool add_chapter(const course::Chapter& chapter) {
  added_chapters().push_back(chapter);
  return true;
}

std::vector<ChapterSolutions> available_chapters() {
  std::vector<course::Chapter> chapters = added_chapters();
  std::sort(chapters.begin(), chapters.end(),
            [](const course::Chapter& a, const course::Chapter& b) { return a.number < b.number; });
  std::vector<ChapterSolutions> solutions;
  for (const course::Chapter& chapter : chapters) {
    solutions.push_back(
        {chapter.number, course::launchers_at_defaults(chapter), "", chapter.gpu_refusal});
    if (!chapter.best_variant.empty()) {
      solutions.push_back({chapter.number,
                           course::launchers_at_defaults(chapter, chapter.best_variant),
                           chapter.best_variant, chapter.gpu_refusal});
    }
  }
  return solutions;
}

}  // namespace ladder
