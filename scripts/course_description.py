"""The chapters of a build, as the tools read them: the list from <build>/course_chapters.json
(which CMake writes), and everything about a chapter from its executable's `--describe` (one JSON
object; docs/pages/tools.md documents its fields). `validate()` says what is wrong with a
description. `read_runs()` reads a file of recorded runs (the runs' `--json` objects, one per
line, as the profile and the predictions keep them). Standard library only.
"""

import json
import os
import re
import subprocess

MANIFEST = "course_chapters.json"
PROBLEMS = ("matmul", "minplus", "conv2d", "conv1d")
PEAKS = ("fp32", "tf32", "minplus", "none")
CHECK_TOOLS = ("memcheck", "racecheck", "synccheck", "spills", "sass", "ncu", "rate")
SHOW = ("time", "rate", "speedup", "kernel", "ncu")
SASS_ORDERS = ("prefetch",)  # what a sass check's "order" may ask for (scripts/progress.py)


class DescriptionError(Exception):
    """A manifest or a description that is missing or malformed; the message says what to do."""


def read_runs(path, fields, what):
    """The objects of the JSON-lines file @p path, one per non-empty line, in order; a ValueError
    that names the line when one is not a JSON object with every key of @p fields (@p what says
    what a line should be)."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    runs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            run = json.loads(line)
        except ValueError:
            run = None
        missing = ([key for key in fields if run.get(key) in (None, "")]
                   if isinstance(run, dict) else ["a JSON object"])
        if missing:
            raise ValueError(f"{path}:{number}: not {what}: missing {', '.join(missing)}")
        runs.append(run)
    return runs


def read_manifest(build_dir):
    """The chapters of @p build_dir (a build folder or its course_chapters.json), in order: dicts
    with label, number, folder, student, solution and student_targets."""
    path = build_dir if build_dir.endswith(".json") else os.path.join(build_dir, MANIFEST)
    try:
        with open(path, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except OSError as error:
        raise DescriptionError(f"{path}: {error.strerror}: configure the course first") from error
    except ValueError as error:
        raise DescriptionError(f"{path}: not JSON ({error}): configure the build again") from error
    chapters = manifest.get("chapters") if isinstance(manifest, dict) else None
    if not chapters:
        raise DescriptionError(f"{path}: no chapters")
    return sorted(chapters, key=lambda chapter: chapter["number"])


def describe(executable, timeout=60):
    """The description that @p executable prints with --describe (with no GPU visible)."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    try:
        done = subprocess.run([executable, "--describe"], capture_output=True, text=True,
                              timeout=timeout, env=env, check=False)
    except OSError as error:
        raise DescriptionError(f"{executable}: {error.strerror}: build it first") from error
    except subprocess.TimeoutExpired as error:
        raise DescriptionError(f"{executable} --describe ran past {timeout} s") from error
    if done.returncode != 0:
        raise DescriptionError(f"{executable} --describe exited {done.returncode}: "
                               f"{done.stderr.strip()}")
    try:
        return json.loads(done.stdout)
    except ValueError as error:
        raise DescriptionError(f"{executable} --describe printed no JSON object ({error})") \
            from error


def _strings(value):
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def validate(description):
    """What is wrong with @p description (a list of one-line messages; empty when nothing is)."""
    d, wrong = description, []

    def need(condition, message):
        if not condition:
            wrong.append(message)
        return condition

    if not need(isinstance(d, dict) and d.get("schema") == 1, "not a description of schema 1"):
        return wrong
    number = d.get("chapter")
    need(isinstance(number, int) and number >= 1, f"chapter {number!r} is not a number from 1")
    need(d.get("label") == f"ch{number:02d}" if isinstance(number, int) else False,
         f"label {d.get('label')!r} does not match chapter {number!r}")
    slug = d.get("slug", "")
    need(isinstance(slug, str) and re.fullmatch(rf"{number:02d}_[a-z0-9_]+", slug or "-"),
         f"slug {slug!r} is not NN_name")
    edition = d.get("edition")
    need(edition in ("student", "solution"), f"edition {edition!r}")
    folder = "solutions" if edition == "solution" else "chapters"
    need(d.get("kernels_file") == f"{folder}/{slug}/kernels.cuh",
         f"kernels_file {d.get('kernels_file')!r} is not {folder}/{slug}/kernels.cuh")
    need(isinstance(d.get("title"), str) and d.get("title"), "no title")
    gpu = d.get("gpu", {})
    need(isinstance(gpu, dict) and isinstance(gpu.get("requirement"), str)
         and isinstance(gpu.get("needs_sm90a"), bool)
         and (gpu.get("min_compute_capability") is None
              or re.fullmatch(r"\d+\.\d", str(gpu.get("min_compute_capability")))),
         f"gpu {gpu!r}")

    problems = d.get("problems", [])
    need([p.get("name") for p in problems] == list(PROBLEMS),
         "problems are not matmul, minplus, conv2d, conv1d in that order")
    offered = [p.get("name") for p in problems if p.get("offered") is True]
    need(offered, "no problem offered")
    for problem in problems:
        name, is_offered = problem.get("name"), problem.get("offered")
        need(problem.get("peak") in PEAKS and (problem.get("peak") == "none") != bool(is_offered),
             f"{name}: peak {problem.get('peak')!r} for offered={is_offered}")
        need(isinstance(problem.get("unit"), str) and "/s" in problem.get("unit", ""),
             f"{name}: unit {problem.get('unit')!r}")
        need(is_offered or problem.get("reason"), f"{name}: not offered, and no reason given")

    flags = []
    for option in d.get("options", []):
        flag = option.get("flag", "")
        flags.append(flag)
        need(re.fullmatch("--[a-z][a-z0-9-]*", flag), f"option flag {flag!r}")
        values = option.get("values")
        need(_strings(values), f"{flag}: values {values!r}")
        need(not values or option.get("default") in values,
             f"{flag}: default {option.get('default')!r} is not one of its values")
        need(_strings(option.get("problems")) and option.get("problems")
             and set(option.get("problems")) <= set(offered),
             f"{flag}: problems {option.get('problems')!r} are not offered problems")
        need(isinstance(option.get("help"), str) and option.get("help")
             and "\n" not in option.get("help"), f"{flag}: help is not one line")
    need(len(set(flags)) == len(flags), "an option is listed twice")
    values = [value for o in d.get("options", []) for value in o.get("values") or []]
    need(d.get("best_variant") in [""] + values,
         f"best_variant {d.get('best_variant')!r} is not a value of the chapter's options")

    sizes = d.get("sizes", {})
    default = sizes.get("default", {})
    need(all(isinstance(default.get(key), int) and default.get(key) >= 1
             for key in ("m", "n", "k", "height", "width", "mask_rows", "mask_cols",
                         "signal_length", "taps")), f"default sizes {default!r}")
    for key in ("taps", "mask_sides"):
        value = sizes.get(key)
        need(value is None or (isinstance(value, list) and value
                               and all(isinstance(v, int) and v >= 1 for v in value)),
             f"sizes.{key} {value!r}")
    need(sizes.get("max_taps") is None or isinstance(sizes.get("max_taps"), int),
         f"sizes.max_taps {sizes.get('max_taps')!r}")

    ids = []
    for exercise in d.get("exercises", []):
        ident = exercise.get("id", "")
        ids.append(ident)
        need(re.fullmatch(rf"{number}\.\d+", ident or "-"), f"exercise id {ident!r}")
        need(_strings(exercise.get("problems")) and exercise.get("problem")
             in exercise.get("problems", []) and set(exercise.get("problems", [])) <= set(offered),
             f"exercise {ident}: problems {exercise.get('problems')!r}")
        need(isinstance(exercise.get("task"), str) and exercise.get("task"),
             f"exercise {ident}: no task")
    need(ids and len(set(ids)) == len(ids), "no exercises, or an id listed twice")

    need(d.get("bugs"), "no planted bug")
    for bug in d.get("bugs", []):
        need(re.fullmatch("[A-Za-z0-9._-]+", bug.get("name", "-")) and bug.get("summary")
             and bug.get("problems") and set(bug.get("problems", [])) <= set(offered),
             f"planted bug {bug!r}")

    check_ids, checked = [], set()
    for check in d.get("checks", []):
        ident, tool = check.get("id", ""), check.get("tool")
        check_ids.append(ident)
        need(tool in CHECK_TOOLS, f"check {ident}: tool {tool!r}")
        need(_strings(check.get("problems")) and check.get("problems")
             and set(check.get("problems")) <= set(offered),
             f"check {ident}: problems {check.get('problems')!r} are not offered problems")
        checked.update(check.get("problems", []))
        need(_strings(check.get("args")) and (tool == "sass" or check.get("args")),
             f"check {ident}: args {check.get('args')!r}")
        args = check.get("args", [])
        asked = args[args.index("--problem") + 1].split(",") if "--problem" in args[:-1] else []
        need(tool == "sass" or (asked and set(asked) <= set(check.get("problems", []))),
             f"check {ident}: its --problem names none of its problems, or others")
        need(isinstance(check.get("hint"), str) and check.get("hint"), f"check {ident}: no hint")
        if tool == "sass":
            need(bool(check.get("instruction")) != bool(check.get("order"))
                 and check.get("kernel"), f"check {ident}: a sass check needs an instruction "
                 "or an order, not both, and a kernel")
            need(check.get("order") in (None, *SASS_ORDERS), f"check {ident}: order "
                 f"{check.get('order')!r} is not one of {', '.join(SASS_ORDERS)}")
        if tool == "ncu":
            need(check.get("metric") and isinstance(check.get("max_ratio"), (int, float))
                 and check.get("max_ratio") >= 1, f"check {ident}: metric and max_ratio >= 1")
        if tool == "rate":
            grades = check.get("grades", [])
            need(grades and grades == sorted(grades) and 0 < grades[0] and grades[-1] <= 1,
                 f"check {ident}: grades {grades!r}")
    need(len(set(check_ids)) == len(check_ids), "a check id is listed twice")
    for problem in offered:
        tools = {c.get("tool") for c in d.get("checks", []) if problem in c.get("problems", [])}
        need({"memcheck", "rate"} <= tools, f"{problem}: no memcheck or no rate check")

    for prediction in d.get("predictions", []):
        ident = prediction.get("id", "")
        need(re.fullmatch(rf"{number}\.\d+", ident or "-"), f"prediction id {ident!r}")
        runs = prediction.get("runs", [])
        need(runs and all(_strings(run) for run in runs) and prediction.get("args") == runs[0],
             f"prediction {ident}: runs {runs!r}")
        need(prediction.get("show") and set(prediction.get("show")) <= set(SHOW),
             f"prediction {ident}: show {prediction.get('show')!r}")
        need("ncu" not in prediction.get("show", []) or prediction.get("metrics"),
             f"prediction {ident}: shows ncu but names no metric")
    return wrong


def command_lines(description):
    """Every command line the description asks tools to run: the checks' and the predictions'."""
    lines = [(f"check {c['id']}", c["args"]) for c in description.get("checks", []) if c["args"]]
    for prediction in description.get("predictions", []):
        lines += [(f"prediction {prediction['id']}", run) for run in prediction["runs"]]
    return lines
