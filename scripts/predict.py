#!/usr/bin/env python3
"""Predict, then measure (scripts/predict.sh calls this; its header is the usage).

The question is the lesson's own paragraph, `**Predict N.M.** ...` in chapters/NN_slug/README.md.
The prediction is written down before anything is measured, and kept in <build>/predictions.json
(the first one stays: predicting again after seeing the answer would not be a prediction).
What measures the answer is the chapter's description (`--describe`: its "predictions", each with
the command lines that measure it and what to show of them: time, rate, speedup, kernel, or ncu
with its metrics); the student's executable runs them, or the solution's when the student's
kernels do not pass yet. Without a GPU (or without ncu, or its counters) the measurement recorded
in results/predictions.jsonl is shown, with its GPU and date: numbers only, the reasoning stays in
the instructors' answer key. `--record` (on a GPU, with the solutions built) writes that file:
one line per measured run, the run's own `--json` object (or ncu's totals, under "ncu") with the
prediction's id, the date and the command line added (docs/pages/tools.md). What is shown of a
run is drawn the same way from a fresh measurement and from a recorded one. Standard library only.
"""

import argparse
import datetime
import itertools
import json
import os
import re
import sys
import textwrap

import progress
from progress import NoDevice, ProgressError, Run, course_description

EXIT_OK, EXIT_USAGE, EXIT_NO_DEVICE, EXIT_ERROR = 0, 2, 3, 4
RECORDED = os.path.join("results", "predictions.jsonl")
LEFT = 34  # width of the prediction's column


class PredictError(Exception):
    """Stops with one line and an exit status."""

    def __init__(self, message, status=EXIT_ERROR):
        super().__init__(message)
        self.status = status


def question(root, folder, identifier):
    """The lesson's paragraph that asks Predict @p identifier (None: the lesson has none)."""
    path = os.path.join(root, "chapters", folder, "README.md")
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    marker = f"**Predict {identifier}.**"
    start = next((i for i, line in enumerate(lines) if marker in line), None)
    if start is None:
        return None
    paragraph = []
    for line in lines[start:]:
        text = re.sub(r"^>\s?", "", line)
        if not text.strip() or (paragraph and text.startswith("**Predict ")):
            break
        paragraph.append(text)
    return "\n".join(paragraph)


def predictions_in_lessons(root):
    found = []
    for folder in sorted(os.listdir(os.path.join(root, "chapters"))):
        path = os.path.join(root, "chapters", folder, "README.md")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                found += re.findall(r"\*\*Predict (\d+\.\d+)\.\*\*", handle.read())
    return found


def find_chapter(build_dir, number):
    try:
        chapters = course_description.read_manifest(build_dir)
    except course_description.DescriptionError as error:
        raise PredictError(f"{error} (scripts/run.sh builds it)") from None
    chapter = next((c for c in chapters if c["number"] == number), None)
    if chapter is None:
        raise PredictError(f"chapter {number} is not in the build {build_dir}", EXIT_USAGE)
    return chapter


def measurement_of(chapter, identifier):
    """The description's entry that measures Predict @p identifier."""
    try:
        description = course_description.describe(chapter["student"])
    except course_description.DescriptionError as error:
        raise PredictError(f"{error}") from None
    entry = next((p for p in description.get("predictions", []) if p.get("id") == identifier),
                 None)
    if entry is None or not entry.get("runs"):
        raise PredictError(f"chapter {chapter['number']} describes no measurement for Predict "
                           f"{identifier}")
    return entry


# ---- the prediction ---------------------------------------------------------------------------

def load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            kept = json.load(handle)
        return kept if isinstance(kept, dict) else {}
    except (OSError, ValueError):
        return {}


def save(path, kept):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(kept, handle, indent=1, sort_keys=True)
        handle.write("\n")


def ask(identifier, given):
    """The student's prediction: @p given, or a line read from the terminal (stdin)."""
    if given is None:
        if sys.stdin.isatty():
            print("Your prediction (one line, numbers with their units): ", end="", flush=True)
        given = sys.stdin.readline()
    given = given.strip()
    if not given:
        raise PredictError(f"no prediction for {identifier}: write yours down first (scripts/"
                           f"predict.sh {identifier} \"...\"); nothing is measured before",
                           EXIT_USAGE)
    return given


# ---- the measurement --------------------------------------------------------------------------

def measure_run(executable, args, entry):
    """(records, device) of one command line: ncu's totals of the entry's metrics ({"ncu":
    {metric: total}}) where it shows ncu, and the run's --json objects where it shows more.
    NoDevice without a GPU; a PredictError when ncu cannot measure (the text says why); a
    ValueError when the kernels fail their check."""
    show, records = entry.get("show", []), []
    if "ncu" in show:
        kernel = entry.get("kernel")
        extra = (["--kernel-name", f"regex:{kernel}"] if kernel else [])
        totals = {}
        for metric in entry.get("metrics", []):
            total, why = progress.Judge.ncu_total(executable, args, metric, extra)
            if total is None:
                raise PredictError(why)
            totals[metric] = total
        records.append({"ncu": totals})
    run_ = Run(executable, args)  # with the counters only, it names the GPU
    if any(what != "ncu" for what in show):
        if not run_.passed():
            raise ValueError(run_.failure())
        records += run_.results
    return records, run_.first("device") or ""


def shown(record, show):
    """[(measure, value)]: what @p show asks of one record, as text; a field the record lacks
    (one a recorded run did not keep) is left out."""
    if "ncu" in record:
        return [(metric, f"{total:,.0f}") for metric, total in record["ncu"].items()]
    what = f"{record.get('problem')}" + (f" {record['variant']}" if record.get("variant") else "")
    pairs = []
    if "time" in show and record.get("median_ms") is not None:
        pairs.append((f"{what} time", f"{record['median_ms']:.4g} ms"))
    if "rate" in show and record.get("rate_text"):
        pairs.append((f"{what} rate", f"{record['rate_text']} {record.get('unit')}"))
    if "speedup" in show and record.get("speedup_text"):
        pairs.append((f"{what} speedup", f"{record['speedup_text']} over chapter "
                                          f"{record.get('previous_chapter')}"))
    if "kernel" in show:
        for kernel in record.get("kernels", [])[-1:]:
            shared = kernel.get("static_shared_bytes", 0) + kernel.get("dynamic_shared_bytes", 0)
            pairs.append((f"{what} kernel", f"{kernel.get('name')}: "
                          f"{kernel.get('registers')} registers, {shared} B shared, "
                          f"{kernel.get('blocks_per_sm')} blocks/SM"))
    return pairs


def rows_of(records, show):
    """[(command line, measure, value)] of @p records, in order."""
    return [(" ".join(record.get("args", [])), measure_, value)
            for record in records for measure_, value in shown(record, show)]


def measure(chapter, entry, prefer_solution=False):
    """(records, device, whose) measured on this GPU, with the student's executable or else the
    solution's; each record carries its command line ("args"). NoDevice without a GPU."""
    editions = [("the solution's kernels", chapter["solution"])]
    if not prefer_solution:
        editions.insert(0, ("your kernels", chapter["student"]))
    why = ""
    for whose, executable in editions:
        if not os.path.exists(executable):
            continue
        records, device = [], ""
        try:
            for args in entry["runs"]:
                measured, seen = measure_run(executable, list(args), entry)
                device = device or seen
                records += [dict(record, args=list(args)) for record in measured]
            return records, device, whose
        except ValueError as failure:
            why = f"{whose} do not pass yet ({failure})"
    raise PredictError(why or "no executable to measure with")


def read_recorded(root):
    """Every record of results/predictions.jsonl (none when there is no such file)."""
    path = os.path.join(root, RECORDED)
    if not os.path.exists(path):
        return []
    try:
        return course_description.read_runs(
            path, ("prediction", "device", "date", "args"),
            "a recorded measurement (a run's --json object, or ncu's totals)")
    except (OSError, ValueError) as error:
        raise PredictError(str(error)) from None


def recorded(root, identifier):
    """The records of results/predictions.jsonl for @p identifier."""
    return [r for r in read_recorded(root) if r["prediction"] == identifier]


def record(root, identifier, records, device):
    """Replaces this GPU's records of @p identifier in results/predictions.jsonl by @p records."""
    kept = [r for r in read_recorded(root)
            if not (r["prediction"] == identifier and r["device"] == device)]
    today = datetime.date.today().isoformat()
    kept += [{"prediction": identifier, "device": device, "date": today, **measured}
             for measured in records]
    kept.sort(key=lambda r: ([int(x) for x in r["prediction"].split(".")], r["device"]))
    with open(os.path.join(root, RECORDED), "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in kept)


# ---- the page ---------------------------------------------------------------------------------

def side_by_side(prediction, when, heading, rows):
    left = [f"your prediction ({when})", "-" * LEFT] + textwrap.wrap(prediction, LEFT)
    right = [heading, "-" * len(heading)]
    last_run = None
    for run_, measure_, value in rows:
        if run_ != last_run:
            right.append(f"{run_}:")
            last_run = run_
        right.append(f"  {measure_}: {value}")
    for a, b in itertools.zip_longest(left, right, fillvalue=""):
        print(f"  {a:<{LEFT}} | {b}".rstrip())


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write down a prediction, then measure it.")
    parser.add_argument("id", nargs="?", help="the Predict question, e.g. 5.1")
    parser.add_argument("prediction", nargs="?", help="your prediction (else it is asked for)")
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--root", default=progress.ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--list", action="store_true", help="list the Predict questions")
    parser.add_argument("--record", action="store_true",
                        help="measure with the solution and write results/predictions.jsonl")
    args = parser.parse_args(argv)
    try:
        if args.list:
            print("\n".join(predictions_in_lessons(args.root)))
            return EXIT_OK
        if not args.id or not re.fullmatch(r"\d+\.\d+", args.id):
            raise PredictError(f"{args.id or 'nothing'} is not a Predict question: give N.M, "
                               "e.g. scripts/predict.sh 5.1 (--list shows them)", EXIT_USAGE)
        chapter = find_chapter(args.build_dir, int(args.id.split(".")[0]))
        text = question(args.root, chapter["folder"], args.id)
        if text is None:
            known = ", ".join(predictions_in_lessons(args.root)) or "none"
            raise PredictError(f"no Predict {args.id} in the lesson (the lessons have: {known})",
                               EXIT_USAGE)
        entry = measurement_of(chapter, args.id)
        if args.record:
            records, device, _ = measure(chapter, entry, prefer_solution=True)
            record(args.root, args.id, records, device)
            print(f"recorded Predict {args.id} on {device} in {RECORDED}")
            return EXIT_OK
        print(f"Predict {args.id} (chapter {chapter['number']}):")
        print(textwrap.indent(text, "  "))
        print()
        store = os.path.join(args.build_dir, "predictions.json")
        kept = load(store)
        if args.id not in kept:
            kept[args.id] = {"prediction": ask(args.id, args.prediction),
                             "date": datetime.date.today().isoformat()}
            save(store, kept)
            print(f"(kept in {store})")
        elif args.prediction:
            print(f"(your first prediction, of {kept[args.id]['date']}, is kept)")
        mine = kept[args.id]
        try:
            records, device, whose = measure(chapter, entry)
            rows = rows_of(records, entry.get("show", []))
            heading = f"measured on {device}, today, with {whose}"
            kept[args.id]["measured"] = {"device": device, "rows": rows}
            save(store, kept)
        except (NoDevice, PredictError) as why:
            found = recorded(args.root, args.id)
            reason = "no CUDA device here" if isinstance(why, NoDevice) else str(why)
            if not found:
                print(f"Not measured ({reason}), and no measurement of Predict {args.id} is "
                      f"recorded in {RECORDED}.")
                return EXIT_NO_DEVICE if isinstance(why, NoDevice) else EXIT_ERROR
            device, date = found[0]["device"], found[0]["date"]
            rows = rows_of([r for r in found if (r["device"], r["date"]) == (device, date)],
                           entry.get("show", []))
            heading = f"recorded on {device}, {date} ({reason})"
        side_by_side(mine["prediction"], mine["date"], heading, rows)
        return EXIT_OK
    except PredictError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.status
    except ProgressError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
