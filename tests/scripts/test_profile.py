#!/usr/bin/env python3
"""Tests of scripts/profile.sh and what it reads (label cpu: no GPU, no ncu needed).

- A recorded ncu table (tests/scripts/data/ncu_sample.csv, written by `ncu --csv --page raw` on an
  H100) parses, and what the table shows of it agrees with the raw fields read another way; the
  roofline is drawn from it where matplotlib is installed. The roofline's chapter labels share a
  place where points coincide and stand clear of each other and of the markers; its TF32 ceiling
  is the peak the executables report, and there is none without a tensor-core run.
- The whole script against stand-ins for ncu and for a chapter's executable (which prints its
  `--json` line): the record is the run's object with the main kernel's metrics, the main kernel
  is the longest, its last launch is reported, the files are written; and each failure (no ncu,
  no GPU, no permission for the counters, nothing built, a bad chapter, a file that is not a
  profile) gives one line and its exit status. The recorded profile (results/profile.jsonl) is
  read by the CTest test readme.profile_table.
"""

import csv
import io
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from support import ROOT, write_executable
import profile_kernels as course_profile  # scripts/ is on the path through support
import profile_table
import roofline

SAMPLE = os.path.join(ROOT, "tests", "scripts", "data", "ncu_sample.csv")

# A chapter executable stand-in: its description, and one --json object per run.
FAKE_EXECUTABLE = textwrap.dedent("""\
    #!/usr/bin/env python3
    import json, os, sys
    if "--describe" in sys.argv:
        print('{"schema": 1, "problems": [{"name": "matmul", "offered": true}, '
              '{"name": "minplus", "offered": false}, {"name": "conv2d", "offered": true}, '
              '{"name": "conv1d", "offered": false}]}')
        sys.exit(0)
    if os.environ.get("FAKE_NO_DEVICE"):
        print("error: no CUDA device available (no CUDA-capable device is detected); this "
              "executable needs an NVIDIA GPU", file=sys.stderr)
        sys.exit(3)
    problem = sys.argv[sys.argv.index("--problem") + 1]
    sizes = "64x32x16" if problem == "matmul" else "40x30 mask 3x5"
    flops = 2 * 64 * 32 * 16 if problem == "matmul" else 2 * 40 * 30 * 3 * 5
    kernels = [{"name": "pad_kernel", "symbol": "_Z10pad_kernelPf"},
               {"name": "main_kernel<course::PlusTimes>",
                "symbol": "_Z11main_kernelIN6course9PlusTimesEEvPKfi"}]
    print(json.dumps({"device": "Stand-in GPU", "chapter": 9, "edition": "solution",
                      "problem": problem, "variant": "", "sizes": sizes, "flops": flops,
                      "peak": "tf32" if problem == "matmul" else "fp32",
                      "peak_flops": 4.94715e14 if problem == "matmul" else 6.69e13,
                      "operation": "FLOP", "operations": flops, "operations_per_fma_slot": 2,
                      "kernels": kernels, "verdict": "UNCHECKED"}))
""")

# An ncu stand-in: --query-metrics lists every base name the script asks for; a profile runs the
# program, then prints a raw table with a pre-pass and two launches of the main kernel.
FAKE_NCU = textwrap.dedent("""\
    #!/usr/bin/env python3
    import os, subprocess, sys
    if os.environ.get("FAKE_NO_PERMISSION"):
        print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
              "GPU Performance Counters on the target device 0.")
        sys.exit(1)
    if "--query-metrics" in sys.argv:
        print('"Metric Name","Metric Type","Metric Unit","Metric Description"')
        for name in os.environ["FAKE_METRICS"].split(","):
            print(f'"{name}","Counter","","stand-in"')
        sys.exit(0)
    at = sys.argv.index("--metrics")
    metrics = sys.argv[at + 1].split(",")
    result = subprocess.run(sys.argv[at + 2:])  # the program
    if result.returncode != 0:
        sys.exit(result.returncode)
    def value(metric, launch):  # numbers with grouped digits, as ncu may print them
        if metric == "gpu__time_duration.sum":
            return f"{[1000.0, 2000000.0, 4000000.0][launch]:,}"
        if metric == "device__attribute_display_name":
            return "Stand-in GPU"
        for reason, ratio in (("barrier", 3.5), ("long_scoreboard", 1.25), ("", 0.5)):
            if metric.startswith("smsp__average_warps_issue_stalled_" + reason):
                return str(ratio)
        return f"{1000.0 * (launch + 1):,}"
    names = ["void pad_kernel(float*)", "void main_kernel<course::PlusTimes>(const float*, int)",
             "void main_kernel<course::PlusTimes>(const float*, int)"]
    if "--print-kernel-base" in sys.argv and sys.argv[sys.argv.index("--print-kernel-base")
                                                        + 1] == "mangled":  # symbols, not names
        names = ["_Z10pad_kernelPf"] + ["_Z11main_kernelIN6course9PlusTimesEEvPKfi"] * 2
    lines = [["ID", "Kernel Name"] + metrics, [""] * (len(metrics) + 2)]  # names, units
    lines += [[str(launch), name] + [value(m, launch) for m in metrics]
              for launch, name in enumerate(names)]
    for fields in lines:
        print(",".join(f'"{f}"' for f in fields))
""")


class RecordedSample(unittest.TestCase):
    """What ncu really printed, on a GPU."""

    def setUp(self):
        with open(SAMPLE, encoding="utf-8") as handle:
            self.text = handle.read()
        self.launches = course_profile.parse_ncu(self.text)
        self.main = max(self.launches, key=lambda l: l["gpu__time_duration.sum"])
        self.record = {"device": self.main["device__attribute_display_name"], "chapter": 4,
                       "edition": "solution", "problem": "matmul", "flops": 2 * 1024 ** 3,
                       "operation": "FLOP", "operations": 2 * 1024 ** 3,
                       "operations_per_fma_slot": 2, "peak": "fp32", "ncu": self.main}
        self.shown = profile_table.measures(self.record)

    def raw_field(self, metric, launch_index):
        """@p metric of a launch, read with the csv module alone."""
        rows = list(csv.reader(io.StringIO("\n".join(
            line for line in self.text.splitlines() if line.startswith('"')))))
        column = rows[0].index(metric)
        return float(rows[2:][launch_index][column].replace(",", ""))

    def test_parses_and_measures(self):
        self.assertGreaterEqual(len(self.launches), 1)
        index, shown, work = self.launches.index(self.main), self.shown, 2 * 1024 ** 3
        seconds = self.raw_field("gpu__time_duration.sum", index) * 1e-9
        self.assertAlmostEqual(shown["rate"], work / seconds, delta=work / seconds * 1e-9)
        dram = (self.raw_field("dram__bytes_read.sum", index)
                + self.raw_field("dram__bytes_write.sum", index))
        self.assertAlmostEqual(shown["intensity_dram"], work / dram, delta=work / dram * 1e-9)
        self.assertGreater(shown["peak_compute"], 1e12)   # an FP32 roof of a GPU: TFLOP/s
        self.assertGreater(shown["peak_dram"], 1e11)      # and its DRAM: over 100 GB/s
        self.assertGreater(shown["peak_l2"], shown["peak_dram"])
        (first, _), (second, _) = shown["stalls"]
        self.assertGreaterEqual(first, second)
        line = profile_table.table([self.record]).splitlines()[-1]
        self.assertIn(f"| {seconds * 1e3:.3f} ms |", line)

    def test_counts_in_the_executables_operation(self):
        """The rate, the roofline's intensities and its compute roof are in the operation the
        run's executable counts (`operation`, `operations`, `operations_per_fma_slot`), whatever
        the problem: the table computes no unit of its own; FLOP per byte stays `flops`'s."""
        index = self.launches.index(self.main)
        seconds = self.raw_field("gpu__time_duration.sum", index) * 1e-9
        dram = (self.raw_field("dram__bytes_read.sum", index)
                + self.raw_field("dram__bytes_write.sum", index))
        counted = dict(self.record, operation="widget", operations=1024 ** 3 / 2,
                       operations_per_fma_slot=3)
        shown = profile_table.measures(counted)
        self.assertAlmostEqual(shown["rate"], 1024 ** 3 / 2 / seconds, delta=1e-9 * shown["rate"])
        self.assertAlmostEqual(shown["intensity_dram"], 1024 ** 3 / 2 / dram, delta=1e-12)
        self.assertAlmostEqual(shown["flops_per_byte_dram"], 2 * 1024 ** 3 / dram, delta=1e-12)
        self.assertAlmostEqual(shown["peak_compute"], 1.5 * self.shown["peak_compute"],
                               delta=1e-9 * shown["peak_compute"])
        line = profile_table.table([counted]).splitlines()[-1]
        self.assertIn("widget/s |", line)
        self.assertIn(f"| {profile_table._num(2 * 1024 ** 3 / dram)}, ", line)

    def test_draws_a_roofline(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed")
        with tempfile.TemporaryDirectory() as folder:
            written = course_profile.draw([self.record], folder)
            self.assertEqual(sorted(os.path.basename(p) for p in written),
                             ["roofline_matmul.png", "roofline_matmul.svg"])
            with open(os.path.join(folder, "roofline_matmul.svg"), encoding="utf-8") as svg:
                self.assertIn("<svg", svg.read())

    def test_the_tensor_ceiling_is_the_executables_peak(self):
        """The TF32 roof is the `peak_flops` a tensor-core run reported, whatever clock ncu saw;
        a profile without such a run draws none."""
        mine = [dict(self.shown, peak_compute=6.7e13)]
        tensor = dict(self.record, chapter=6, peak="tf32", peak_flops=4.94715e14)
        self.assertEqual(roofline.ceilings_of([self.record, tensor], "matmul", mine),
                         [(6.7e13, "FP32 peak (FMA)"), (4.94715e14, "TF32 tensor-core peak")])
        self.assertEqual(roofline.ceilings_of([self.record], "matmul", mine),
                         [(6.7e13, "FP32 peak (FMA)")])


class RooflineLabels(unittest.TestCase):
    """Where roofline.place_labels puts the chapters' labels (fractions of the axes)."""

    def boxes(self, placed):
        """Each label's box, from where it is anchored and how wide its text is."""
        boxes = []
        for x, y, text, ha in placed:
            width = roofline.CHAR * len(text)
            left = x - {"left": 0, "center": width / 2, "right": width}[ha]
            boxes.append((left, left + width, y - roofline.LINE / 2, y + roofline.LINE / 2))
        return boxes

    def test_points_at_one_place_share_a_label(self):
        placed = roofline.place_labels([(0.5, 0.5), (0.3, 0.2), (0.501, 0.499)], [],
                                       ["2", "1", "3"])
        self.assertEqual([text for _, _, text, _ in placed], ["ch 2, 3", "ch 1"])

    def test_labels_stand_clear_of_labels_and_markers(self):
        # Two points a label's height apart, a third just right of the first, a hollow marker
        # left of the second: every label still has a place of its own.
        points = [(0.5, 0.5), (0.5, 0.52), (0.53, 0.5)]
        placed = roofline.place_labels(points, [(0.45, 0.52)], ["1", "2", "3"])
        boxes = self.boxes(placed)
        markers = [(x - roofline.MARK_X, x + roofline.MARK_X, y - roofline.MARK_Y,
                    y + roofline.MARK_Y) for x, y in points + [(0.45, 0.52)]]
        for index, box in enumerate(boxes):
            for other in boxes[index + 1:] + markers:
                self.assertFalse(box[0] < other[1] and other[0] < box[1]
                                 and box[2] < other[3] and other[2] < box[3], (placed, other))
        self.assertEqual([ha for _, _, _, ha in placed], ["center", "center", "left"])


class WholeScript(unittest.TestCase):
    """scripts/profile.sh against stand-ins."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        self.build = os.path.join(self.folder, "build")
        os.makedirs(self.build)
        executable = os.path.join(self.build, "ch09_fake_solution")
        write_executable(executable, FAKE_EXECUTABLE)
        with open(os.path.join(self.build, "course_chapters.json"), "w") as manifest:
            json.dump({"schema": 1, "chapters": [
                {"label": "ch09", "number": 9, "folder": "09_fake", "student": executable,
                 "solution": executable, "student_targets": ["ch09_fake"]}]}, manifest)
        ncu = os.path.join(self.folder, "ncu")
        write_executable(ncu, FAKE_NCU)
        metrics = [course_profile.base_name(m) for m in course_profile.ALL_METRICS]
        self.env = dict(os.environ, NCU=ncu, FAKE_METRICS=",".join(metrics))

    def run_script(self, *args, **env):
        """profile.sh with @p args, in the stand-ins' environment with @p env added."""
        return subprocess.run(["bash", os.path.join(ROOT, "scripts", "profile.sh"),
                               "--build-dir", self.build, "--results",
                               os.path.join(self.folder, "results"), "--no-plot", *args],
                              capture_output=True, text=True, env=dict(self.env, **env))

    def recorded_rows(self):
        return course_profile.read_records(os.path.join(self.folder, "results", "profile.jsonl"))

    def write_readme(self, text):
        readme = os.path.join(self.folder, "README.md")
        with open(readme, "w") as handle:
            handle.write(text)
        return readme

    def test_profiles_every_problem(self):
        result = self.run_script("9", "--solution")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = self.recorded_rows()
        self.assertEqual([r["problem"] for r in rows], ["matmul", "conv2d"])
        matmul = rows[0]
        # The run's own --json object, as the executable printed it, with ncu's metrics added.
        self.assertEqual((matmul["flops"], matmul["peak_flops"]), (2 * 64 * 32 * 16, 4.94715e14))
        # ncu names the kernel by its symbol; the table by the name its executable reports.
        self.assertEqual(matmul["ncu"]["Kernel Name"], "_Z11main_kernelIN6course9PlusTimesEEvPKfi")
        self.assertEqual(matmul["ncu"]["gpu__time_duration.sum"], 4000000.0)  # the last launch
        shown = profile_table.measures(matmul)
        self.assertAlmostEqual(shown["rate"], 2 * 64 * 32 * 16 / 4e-3, delta=1e-3)
        self.assertEqual([name for _, name in shown["stalls"]], ["barrier", "long_scoreboard"])
        self.assertIn("| 9 (solution) | matmul | `main_kernel<course::PlusTimes>` | 4.000 ms |",
                      result.stdout)

    def test_a_record_needs_the_executables_arithmetic(self):
        """A record without the operation its arithmetic is counted in is not read as a profile
        (the table would have to make one up)."""
        recorded = os.path.join(ROOT, "results", "profile.jsonl")
        with open(recorded, encoding="utf-8") as handle:
            first = json.loads(handle.readline())
        for field in ("operation", "operations", "operations_per_fma_slot"):
            with self.subTest(field):
                path = os.path.join(self.folder, "old.jsonl")
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(json.dumps({k: v for k, v in first.items() if k != field}) + "\n")
                result = self.run_script("--from", path)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn("not a profile record", result.stderr.splitlines()[-1])
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)

    def test_records_and_checks_the_readme(self):
        self.assertEqual(self.run_script("--solution", "9").returncode, 0)
        recorded = os.path.join(self.folder, "results", "profile.jsonl")
        brought = os.path.join(self.folder, "brought_back.jsonl")
        with open(recorded) as source, open(brought, "w") as handle:
            handle.writelines(source.readlines()[:1])  # the first record
        readme = self.write_readme("# Course\n<!-- profile:begin -->\nold\n"
                                   "<!-- profile:end -->\nend\n")
        # The recorded profile itself, then one from another machine: that one replaces
        # results/profile.jsonl, which the README's table is checked against.
        for path, problem in ((recorded, "conv2d"), (brought, "matmul")):
            record = self.run_script("--from", path, "--update-readme", "--readme", readme)
            self.assertEqual(record.returncode, 0, record.stderr)
            with open(readme) as handle:
                text = handle.read()
            self.assertIn(f"| 9 (solution) | {problem} |", text)
            self.assertTrue(text.endswith("<!-- profile:end -->\nend\n"))
        self.assertEqual(len(self.recorded_rows()), 1)
        self.assertNotIn("conv2d", text)
        check = ["--from", recorded, "--check", "--readme", readme]
        self.assertEqual(self.run_script(*check).returncode, 0)
        self.write_readme(text.replace("matmul", "conv1d"))
        result = self.run_script(*check)
        self.assertEqual(result.returncode, 1)
        self.assertIn("differs", result.stderr)

    def test_no_solutions_to_profile(self):
        """A build without solutions/ (a student's hand-out): --solution is refused in one line,
        and the student's own kernels are profiled."""
        student = os.path.join(self.build, "ch09_fake_solution")  # the stand-in serves both
        with open(os.path.join(self.build, "course_chapters.json"), "w") as manifest:
            json.dump({"schema": 1, "chapters": [
                {"label": "ch09", "number": 9, "folder": "09_fake", "student": student,
                 "solution": "", "student_targets": ["ch09_fake"]}]}, manifest)
        result = self.run_script("9", "--solution")
        self.assertEqual(result.returncode, 7, result.stderr)
        self.assertIn("this build has no solutions to profile", result.stderr.splitlines()[-1])
        self.assertEqual(self.run_script("9").returncode, 0)

    def test_failures(self):
        """Each failure ends with one line that says what went wrong, and its exit status."""
        cases = [  # what, arguments, environment added, exit status, the last line says, lines
            ("no ncu", ["9"], {"NCU": "", "PATH": "/usr/bin:/bin"}, 5, "ncu) not found", 1),
            ("no permission", ["9"], {"FAKE_NO_PERMISSION": "1"}, 6, "ERR_NVGPUCTRPERM", 1),
            ("no GPU", ["9"], {"FAKE_NO_DEVICE": "1"}, 3, "no CUDA device", 2),
            ("not built", ["--build-dir", self.folder, "9"], {}, 7, "cmake --build build)", 1),
            ("not a chapter", ["nine"], {}, 2, "'nine' is not a chapter", 1),
            ("no such chapter", ["4"], {}, 2, "no chapter 4", 1),
            ("not a profile", ["--from", os.path.join(ROOT, "results", "ladder.csv")], {},
             1, "ladder.csv:1: not a profile record", 1),
        ]
        ncu_found = shutil.which("ncu", path="/usr/bin:/bin") or os.path.exists(
            "/usr/local/cuda/bin/ncu")
        for what, args, env, status, message, lines in cases:
            with self.subTest(what):
                if what == "no ncu" and ncu_found:
                    self.skipTest("this machine has ncu where the script looks")
                result = self.run_script(*args, **env)
                self.assertEqual(result.returncode, status, result.stderr)
                self.assertIn(message, result.stderr.splitlines()[-1])
                self.assertEqual(len(result.stderr.strip().splitlines()), lines, result.stderr)



if __name__ == "__main__":
    unittest.main()
