#include "course/describe.hpp"

#include "course/json.hpp"
#include "course/report.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
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

// "; tile width 32 (default), 16 or 8" for every option that changes one of @p problems.
std::string option_clauses(const ChapterFlags& flags, std::initializer_list<Problem> problems) {
  std::string text;
  for (const ChapterOption& option : flags.options) {
    const bool applies = std::any_of(problems.begin(), problems.end(), [&](Problem problem) {
      return std::find(option.problems.begin(), option.problems.end(), problem) !=
             option.problems.end();
    });
    if (applies)
      text += "; " + option.name + " " + choices(option.values);
  }
  return text;
}

}  // namespace

ChapterSupport describe_support(const Chapter& chapter, const ProblemSet& problems) {
  const ChapterFlags& flags = chapter.flags;
  ChapterSupport support;
  support.chapter = chapter.number;
  for (Problem problem : kAllProblems) {
    if (problems.offers(problem))
      support.problems.push_back(problem);
  }

  support.products = kNotOffered;
  if (problems.offers(Problem::matmul) || problems.offers(Problem::minplus)) {
    support.products =
        "m, n, k from 1" + option_clauses(flags, {Problem::matmul, Problem::minplus});
    if (!chapter.gpu.text.empty())
      support.products += "; " + chapter.gpu.text;
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
    support.conv2d = text + option_clauses(flags, {Problem::conv2d});
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
    support.conv1d = text + option_clauses(flags, {Problem::conv1d});
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

std::string exercise_list(const std::vector<Exercise>& exercises) {
  std::ostringstream out;
  for (const Exercise& exercise : exercises)
    out << exercise.id << "\t" << exercise.problem << "\t" << exercise.task << "\n";
  return out.str();
}

namespace {

// Which peak a problem's rate is measured against (course::arithmetic_peak), by name.
std::string peak_key(Problem problem, Arithmetic arithmetic) {
  if (problem == Problem::minplus)
    return "minplus";
  return problem == Problem::matmul && arithmetic == Arithmetic::tf32 ? "tf32" : "fp32";
}

std::vector<std::string> names(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (Problem problem : problems)
    out.push_back(problem_name(problem));
  return out;
}

void options(JsonWriter& json, const ChapterFlags& flags) {
  json.key("options").begin_array();
  for (const ChapterOption& option : flags.options) {
    json.begin_object().member("flag", option.flag).member("name", option.name);
    json.key("values").strings(option.values).member("default", option.values.front());
    json.key("problems").strings(names(option.problems)).member("help", option.help);
    json.end_object();
  }
  if (flags.signal_demo) {
    json.begin_object().member("flag", "--signal-csv").member("name", "signal demo file");
    json.key("values").strings({}).member("default", "").key("problems").strings({"conv1d"});
    json.member("help",
                "conv1d demo: filter two tones with a 10-tap moving average and write CSV to FILE");
    json.end_object();
  }
  json.end_array();
}

void sizes(JsonWriter& json, const ChapterFlags& flags) {
  const Options defaults;
  json.key("sizes").begin_object().key("default").begin_object();
  json.member("m", defaults.m).member("n", defaults.n).member("k", defaults.k);
  json.member("height", defaults.height).member("width", defaults.width);
  json.member("mask_rows", defaults.mask_rows).member("mask_cols", defaults.mask_cols);
  json.member("signal_length", defaults.signal_length);
  json.member("taps", flags.tap_counts.empty() ? defaults.taps : flags.tap_counts.front());
  json.end_object().key("taps");
  flags.tap_counts.empty() ? json.null() : json.numbers(flags.tap_counts);
  json.key("max_taps");
  flags.max_taps > 0 ? json.value(flags.max_taps) : json.null();
  json.key("mask_sides");
  flags.mask_sides.empty() ? json.null() : json.numbers(flags.mask_sides);
  json.member("max_mask_side", kMaxMaskSide).end_object();
}

void exercises(JsonWriter& json, const std::vector<Exercise>& list) {
  json.key("exercises").begin_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i; ++j)
      seen = seen || std::string(list[j].id) == list[i].id;
    if (seen)
      continue;
    std::vector<std::string> problems;
    for (const Exercise& other : list) {
      if (std::string(other.id) == list[i].id)
        problems.push_back(other.problem);
    }
    json.begin_object().member("id", list[i].id).member("problem", list[i].problem);
    json.key("problems").strings(problems).member("task", list[i].task).end_object();
  }
  json.end_array();
}

void bugs(JsonWriter& json, const std::vector<PlantedBug>& list) {
  json.key("bugs").begin_array();
  for (const PlantedBug& bug : list) {
    json.begin_object().member("name", bug.name).member("tool", bug.tool);
    json.member("summary", bug.summary).key("problems");
    std::vector<Problem> problems;
    for (Problem problem : kAllProblems) {
      if (bug.launchers.offers(problem))
        problems.push_back(problem);
    }
    json.strings(names(problems)).end_object();
  }
  json.end_array();
}

void checks(JsonWriter& json, const std::vector<Check>& list) {
  json.key("checks").begin_array();
  for (const Check& check : list) {
    json.begin_object().member("id", check.id).member("tool", check.tool);
    json.key("problems").strings(check.problems).key("args").strings(check.args);
    json.member("hint", check.hint);
    if (!check.instruction.empty())
      json.member("instruction", check.instruction);
    if (!check.order.empty())
      json.member("order", check.order);
    if (!check.kernel.empty())
      json.member("kernel", check.kernel);
    if (!check.metric.empty())
      json.member("metric", check.metric).member("max_ratio", check.max_ratio);
    if (check.tool == "rate") {  // the grades `--against` gives stars at (course::grade_rate())
      json.key("grades").begin_array();
      for (double grade : kRateGrades)
        json.value(grade);
      json.end_array();
    }
    json.end_object();
  }
  json.end_array();
}

void predictions(JsonWriter& json, const std::vector<Prediction>& list) {
  json.key("predictions").begin_array();
  for (const Prediction& prediction : list) {
    json.begin_object().member("id", prediction.id).key("args");
    json.strings(prediction.runs.empty() ? std::vector<std::string>{} : prediction.runs.front());
    json.key("runs").begin_array();
    for (const std::vector<std::string>& run : prediction.runs)
      json.strings(run);
    json.end_array().key("show").strings(prediction.show);
    json.key("metrics").strings(prediction.metrics);
    if (!prediction.kernel.empty())
      json.member("kernel", prediction.kernel);
    json.end_object();
  }
  json.end_array();
}

// "chapters/05_warp_tiling_pipeline/kernels.cuh" -> "05_warp_tiling_pipeline".
std::string slug_of(const std::string& kernels_file) {
  const std::size_t first = kernels_file.find('/');
  const std::size_t last = kernels_file.rfind('/');
  if (first == std::string::npos || last <= first)
    return "";
  return kernels_file.substr(first + 1, last - first - 1);
}

}  // namespace

std::string describe_json(const Chapter& chapter, const ProblemSet& launchers) {
  JsonWriter json;
  char label[8];
  std::snprintf(label, sizeof label, "ch%02d", chapter.number);
  json.begin_object().member("schema", 1).member("chapter", chapter.number);
  json.member("slug", slug_of(chapter.kernels_file)).member("label", label);
  json.member("title", chapter.title).member("edition", chapter.solution ? "solution" : "student");
  json.member("kernels_file", chapter.kernels_file);
  json.key("gpu").begin_object().member("requirement", chapter.gpu.text);
  json.key("min_compute_capability");
  chapter.gpu.min_compute_capability.empty() ? json.null()
                                             : json.value(chapter.gpu.min_compute_capability);
  json.member("needs_sm90a", chapter.gpu.needs_sm90a).end_object();
  json.key("problems").begin_array();
  for (Problem problem : kAllProblems) {
    const bool offered = launchers.offers(problem);
    json.begin_object().member("name", problem_name(problem)).member("offered", offered);
    json.member("unit", rate_unit(problem));
    json.member("peak", offered ? peak_key(problem, launchers.arithmetic) : "none");
    json.member("reason", offered ? "" : chapter.missing_reasons[static_cast<int>(problem)]);
    json.end_object();
  }
  json.end_array();
  options(json, chapter.flags);
  json.member("best_variant", chapter.best_variant);
  sizes(json, chapter.flags);
  const ChapterSupport support = describe_support(chapter, launchers);
  json.key("support").begin_object().member("problems", problem_list(support.problems));
  json.member("products", support.products).member("conv2d", support.conv2d);
  json.member("conv1d", support.conv1d).end_object();
  exercises(json, chapter.exercises);
  bugs(json, chapter.bugs);
  checks(json, chapter.checks);
  predictions(json, chapter.predictions);
  json.end_object();
  return json.text();
}

}  // namespace course
