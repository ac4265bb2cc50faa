// One chapter's solutions as the ladder runs them: every launcher the chapter has, each with its
// default launch choice, and those of its "going further" variant, namespace chNN::dispatch (the
// chapter at its best), when it has one.
//
// scripts/ladder/CMakeLists.txt compiles this file once per chapter, with that chapter's
// solutions/NN_slug/kernels.cuh as <kernels.cuh>, its namespace (ch01, ...) as
// COURSE_LADDER_NAMESPACE and its number as COURSE_LADDER_CHAPTER. Each copy adds its chapter to
// ladder::available_chapters() when the program starts, so a chapter needs no source of its own.
// The chapter's launchers live in chapters/NN_slug/launch.cuh, which the build names as
// COURSE_LADDER_LAUNCH; it comes after the kernels it launches.
#include <kernels.cuh>
#include COURSE_LADDER_LAUNCH

#include "chapters.hpp"

#include <functional>
#include <type_traits>
#include <utility>

namespace {

// What a stand-in returns: a launcher call that reaches a stand-in means the chapter has no
// launcher of that name.
struct NoLauncher {};

// Stand-ins for the four launchers. A chapter need not carry every problem (chapter 2 has no
// conv1d). A name looked up in `chapter` finds the chapter's own launcher and the stand-in alike,
// and overload resolution prefers the chapter's: a function over a template with arguments that
// match equally well.
namespace stand_ins {
template <typename... Arguments>
NoLauncher matmul(Arguments...) {
  return {};
}
template <typename... Arguments>
NoLauncher minplus(Arguments...) {
  return {};
}
template <typename... Arguments>
NoLauncher conv2d(Arguments...) {
  return {};
}
template <typename... Arguments>
NoLauncher conv1d(Arguments...) {
  return {};
}
// A chapter whose matmul is not FP32 says so with a function of this name (chapter 6: TF32).
template <typename... None>
constexpr course::Arithmetic matmul_arithmetic(None...) {
  return course::Arithmetic::fp32;
}
}  // namespace stand_ins

namespace chapter {
using namespace stand_ins;
using namespace COURSE_LADDER_NAMESPACE;
}  // namespace chapter

}  // namespace

// The variant's namespace, opened here so that it exists (empty) in chapters without one: there
// every name below finds only the stand-ins.
namespace COURSE_LADDER_NAMESPACE::dispatch {}

namespace {

namespace chapter_dispatch {
using namespace stand_ins;
using namespace COURSE_LADDER_NAMESPACE::dispatch;
}  // namespace chapter_dispatch

template <typename Launcher>
struct Offered;

// Launcher is one of course::ProductLauncher, Conv2dLauncher, Conv1dLauncher.
template <typename... Arguments>
struct Offered<std::function<void(Arguments...)>> {
  // @p call as the launcher when it reaches the chapter's own launcher; empty when it reaches a
  // stand-in.
  template <typename Call>
  static std::function<void(Arguments...)> from(Call call) {
    if constexpr (std::is_same_v<std::invoke_result_t<Call, Arguments...>, NoLauncher>) {
      return {};
    } else {
      return call;
    }
  }
};

// The launchers that lookup finds in namespace @p Names (chapter or chapter_dispatch). Each call
// names the launcher itself, so a launcher that offers a choice takes its default.
#define COURSE_LADDER_LAUNCHERS(Names)                                   \
  [] {                                                                   \
    course::ProblemSet set;                                              \
    set.matmul = Offered<course::ProductLauncher>::from(                 \
        [](auto... arguments) { return Names::matmul(arguments...); });  \
    set.minplus = Offered<course::ProductLauncher>::from(                \
        [](auto... arguments) { return Names::minplus(arguments...); }); \
    set.conv2d = Offered<course::Conv2dLauncher>::from(                  \
        [](auto... arguments) { return Names::conv2d(arguments...); });  \
    set.conv1d = Offered<course::Conv1dLauncher>::from(                  \
        [](auto... arguments) { return Names::conv1d(arguments...); });  \
    set.arithmetic = Names::matmul_arithmetic();                         \
    return set;                                                          \
  }()

// Every chapter has a matrix product: a chapter whose matmul reaches only the stand-in has lost
// its launchers (a launch file the build did not name), and would drop out of the ladder unseen.
template <typename... Arguments>
constexpr bool reaches_chapter(std::function<void(Arguments...)>*) {
  return !std::is_same_v<decltype(chapter::matmul(std::declval<Arguments>()...)), NoLauncher>;
}
static_assert(reaches_chapter(static_cast<course::ProductLauncher*>(nullptr)),
              "the chapter's launchers were not found: is chapters/NN_slug/launch.cuh there, "
              "and was the build folder configured again since it was added?");

bool add_launchers() {
  ladder::add_chapter({COURSE_LADDER_CHAPTER, COURSE_LADDER_LAUNCHERS(chapter), ""});
  const course::ProblemSet dispatch = COURSE_LADDER_LAUNCHERS(chapter_dispatch);
  if (!dispatch.empty())
    ladder::add_chapter({COURSE_LADDER_CHAPTER, dispatch, "dispatch"});
  return true;
}

[[maybe_unused]] const bool kAdded = add_launchers();

}  // namespace
