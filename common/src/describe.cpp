#include "course/describe.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

namespace course {
namespace {

constexpr const char* kNotOffered = "-";

// "32 (default), 16 or 8": the default is the first entry of every list the chapters give.
template <typename Value>
std::string choices(const std::vector<Value>& values) {
  std::ostringstream out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0)
      out << (i + 1 == values.size() ? " or " : ", ");
    out << values[i];
    if (i == 0 && values.size() > 1)
      out << " (default)";
  }
  return out.str();
}

std::string problem_list(const std::vector<Problem>& problems) {
  std::string text;
  for (Problem problem : problems)
    text += (text.empty() ? "" : ", ") + std::string(problem_name(problem));
  return text;
}

}  // namespace

ChapterSupport describe_support(int chapter, const ProblemSet& problems,
                                const ChapterFlags& flags) {
  ChapterSupport support;
  support.chapter = chapter;
  for (Problem problem : kAllProblems) {
    if (problems.offers(problem))
      support.problems.push_back(problem);
  }

  support.products = kNotOffered;
  if (problems.offers(Problem::matmul) || problems.offers(Problem::minplus)) {
    std::string text = "m, n, k from 1";
    if (!flags.tiles.empty())
      text += "; tile width " + choices(flags.tiles);
    if (flags.mapping)
      text += "; thread mapping coalesced (default) or transposed";
    if (!flags.variants.empty())
      text += "; kernel variant " + choices(flags.variants);
    if (!flags.gpu_requirement.empty())
      text += "; " + flags.gpu_requirement;
    else if (problems.arithmetic == Arithmetic::tf32)
      text += "; TF32 tensor cores, compute capability 8.0 or newer";
    support.products = text;
  }

  support.conv2d = kNotOffered;
  if (problems.offers(Problem::conv2d)) {
    std::string text = "image from 1x1; mask ";
    if (flags.mask_sides.empty()) {
      text +=
          "any odd KxL up to " + std::to_string(kMaxMaskSide) + "x" + std::to_string(kMaxMaskSide);
    } else {
      std::vector<int> sides = flags.mask_sides;
      std::sort(sides.begin(), sides.end());
      text += "square only, compiled in: ";
      for (std::size_t i = 0; i < sides.size(); ++i)
        text += (i ? ", " : "") + std::to_string(sides[i]) + "x" + std::to_string(sides[i]);
    }
    if (!flags.blocks.empty())
      text += "; block width " + choices(flags.blocks);
    support.conv2d = text;
  }

  support.conv1d = kNotOffered;
  if (problems.offers(Problem::conv1d)) {
    std::string text = "n from 1; taps ";
    if (!flags.tap_counts.empty()) {
      std::vector<int> counts = flags.tap_counts;
      std::sort(counts.begin(), counts.end());
      text += "compiled in: " + join(counts, ", ");
    } else {
      text += "from 1";
      if (flags.max_taps > 0)
        text += " to " + std::to_string(flags.max_taps);
    }
    text += "; n + taps - 1 at most " + std::to_string(INT_MAX);
    support.conv1d = text;
  }
  return support;
}

std::string support_help(const ChapterSupport& support) {
  std::ostringstream out;
  const auto line = [&](const char* what, const std::string& text) {
    out << "  ";
    out.width(18);
    out.setf(std::ios::left, std::ios::adjustfield);
    out << what << (text == kNotOffered ? "not in this chapter" : text) << "\n";
  };
  out << "What chapter " << support.chapter
      << " takes (the README's table of chapters shows every chapter):\n";
  line("problems", problem_list(support.problems));
  line("matmul, minplus", support.products);
  line("conv2d", support.conv2d);
  line("conv1d", support.conv1d);
  return out.str();
}

std::string support_table_header() {
  return "| chapter | problems | matmul, minplus | conv2d | conv1d |\n"
         "| ---: | --- | --- | --- | --- |\n";
}

std::string support_table_row(const ChapterSupport& support) {
  std::ostringstream out;
  out << "| " << support.chapter << " | " << problem_list(support.problems) << " | "
      << support.products << " | " << support.conv2d << " | " << support.conv1d << " |\n";
  return out.str();
}

std::string exercise_list(const std::vector<Exercise>& exercises) {
  std::ostringstream out;
  for (const Exercise& exercise : exercises)
    out << exercise.id << "\t" << exercise.problem << "\t" << exercise.task << "\n";
  return out.str();
}

}  // namespace course
