#include "chapters.hpp"

namespace ladder {

// COURSE_LADDER_HAVE_CHNN is defined by scripts/ladder/CMakeLists.txt for each chapter whose
// solutions exist, so the ladder builds at every stage of the course.
std::vector<ChapterSolutions> available_chapters() {
  std::vector<ChapterSolutions> chapters;
#ifdef COURSE_LADDER_HAVE_CH01
  chapters.push_back(chapter_01_solutions());
#endif
#ifdef COURSE_LADDER_HAVE_CH02
  chapters.push_back(chapter_02_solutions());
#endif
#ifdef COURSE_LADDER_HAVE_CH03
  chapters.push_back(chapter_03_solutions());
#endif
#ifdef COURSE_LADDER_HAVE_CH04
  chapters.push_back(chapter_04_solutions());
#endif
  return chapters;
}

}  // namespace ladder
