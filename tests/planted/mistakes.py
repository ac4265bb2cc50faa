#!/usr/bin/env python3
"""Mistakes a student could make, planted in copies of the solutions, and the criterion of
scripts/progress.py that must catch each (tests/planted/CMakeLists.txt builds them).

  mistakes.py list                      each mistake's name and chapter folder, one a line
  mistakes.py plant NAME SOLUTION OUT   writes SOLUTION with mistake NAME planted to OUT; fails
                                        (exit 1, one line) when the mistake no longer applies
  mistakes.py check NAME SOLUTION       the same, writing nothing (a CPU test: the table keeps up
                                        with the solutions)
  mistakes.py judge NAME EXE MANIFEST   EXE (the planted build) judged as a student's chapter by
                                        progress.py's criteria of MANIFEST's chapter: each must
                                        fail, and hold for the solution in its place (the
                                        control). Prints "SKIPPED: ..." with no GPU, or where a
                                        criterion cannot be measured here, and "FAIL: ..." (exit
                                        1) when the mistake is not caught.

A mistake is edits of the solution's text, made here so that no answer is written out in tests/:
each edit is a regular expression and its replacement, applied to an exercise region (the text
between its `// EXERCISE N.M begin` and `end` lines) or to the whole file, and must match.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

# A float4 read as four 32-bit loads (volatile, so the compiler cannot merge them again).
SCALAR_LOADS = r"""\1
/// Planted: a float4 read from shared memory as four 32-bit loads.
__device__ __forceinline__ float4 planted_scalar_loads(const float* p) {
  const volatile float* v = p;
  return make_float4(v[0], v[1], v[2], v[3]);
}
"""

# name: chapter folder, [(region or None, pattern, replacement, how many (0: all))], and the
# criteria (checks the chapter describes) that must catch it.
MISTAKES = {
    "ch01_out_of_bounds_read": {
        "folder": "01_global_memory",
        "edits": [("1.9", r"(const long long last = )[^;]*;", r"\1i;", 1)],
        "catch": ["memcheck"],
        "why": "conv1d reads taps past the end of b"},
    "ch02_missing_barrier": {
        "folder": "02_static_shared_tile",
        "edits": [("2.3", r"\n[^\n]*__syncthreads\(\);[^\n]*", "", 1)],
        "catch": ["racecheck"],
        "why": "the product's next step overwrites the tiles while others still read them"},
    "ch04_32_bit_shared_loads": {
        "folder": "04_register_blocking",
        "edits": [(None, r"(namespace ch04 \{)", SCALAR_LOADS, 1),
                  ("4.4", r"\*reinterpret_cast<const float4\s*\*>\((.*)\);",
                   r"planted_scalar_loads(\1);", 0)],
        "catch": ["sass-LDS.128"],
        "why": "x and y read from shared memory one float at a time"},
    "ch04_spilling_kernel": {
        "folder": "04_register_blocking",
        "edits": [("4.2", r"#pragma unroll\b", "#pragma unroll 1", 0)],
        "catch": ["no-spills"],
        "why": "the outer product's loops not unrolled: v is indexed at run time, in local memory"},
    "ch04_prefetch_nothing": {
        "folder": "04_register_blocking",
        # Step 3's loop made step 2's (loads and stores in the same trip), which is in the
        # file already, outside every exercise region.
        "replace_region": ("4.6", r"float4_product_kernel\(.*?\n(  for \(int k0 .*?\n  \})\n",
                           [(r"\bLayout\b", "QuadGroups")]),
        "edits": [],
        "catch": ["prefetch", "rate"],
        "expect_held": ["rate"],  # step 2 runs within a few % of step 3: the rate cannot tell
        "why": "each batch loaded in the trip that stores it: nothing travels while the block "
               "multiplies"},
    "ch05_copies_through_registers": {
        "folder": "05_warp_tiling_pipeline",
        "edits": [(None, r"#if __CUDA_ARCH__ >= 800(\n[^\n]*__cvta_generic_to_shared)",
                   r"#if 0\1", 1)],
        # Its rate stayed above the rate criterion's bar (80% of the solution's) on an H200
        # (2026-11-28): the machine code is what shows it.
        "catch": ["sass-LDGSTS"],
        "why": "the pipeline's copies made synchronous loads and stores through registers"},
    "ch06_unswizzled_layout": {
        "folder": "06_tensor_cores",
        "edits": [("6.7", r"return [^;]*;", "return row * kBatch + chunk * kQuad;", 1)],
        "catch": ["bank-conflicts"],
        "why": "the chunks of a row kept in order: a bijection, but 8 rows' chunk in one bank"},
    "ch08_multicast_to_itself": {
        "folder": "08_persistent_clusters",
        "edits": [("8.3", r"static_cast<std::uint16_t>\([^;]*\)\};",
                   "static_cast<std::uint16_t>(1u << rank)};", 1)],
        # Each block's full barrier waits for the whole tile of A and receives only its own
        # share: the consumers' wait gives up with a trap, which the sanitizer's run reports.
        "catch": ["memcheck"],
        "why": "each block's share of A's tile copied into its own shared memory only"},
}


class Unplantable(Exception):
    pass


def region_span(text, region):
    begin = re.search(rf"// EXERCISE {re.escape(region)} begin[^\n]*\n", text)
    end = re.search(rf"\n[ \t]*// EXERCISE {re.escape(region)} end", text)
    if not begin or not end or end.start() < begin.end():
        raise Unplantable(f"no exercise region {region}")
    return begin.end(), end.start()


def plant(name, text):
    mistake = MISTAKES[name]
    if "replace_region" in mistake:
        region, source, fixes = mistake["replace_region"]
        found = re.search(source, text, re.DOTALL)
        if not found:
            raise Unplantable(f"{source!r} does not match")
        body = found.group(1)
        for pattern, replacement in fixes:
            body = re.sub(pattern, replacement, body)
        start, end = region_span(text, region)
        text = text[:start] + body + text[end:]
    for region, pattern, replacement, count in mistake["edits"]:
        start, end = region_span(text, region) if region else (0, len(text))
        changed, made = re.subn(pattern, replacement, text[start:end], count=count)
        if not made:
            raise Unplantable(f"{pattern!r} does not match" + (f" in region {region}"
                                                                if region else ""))
        text = text[:start] + changed + text[end:]
    return text


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def progress_run(manifest_entry, student, checks, folder):
    """progress.py on the chapter of @p manifest_entry with @p student as its student executable,
    only @p checks: (exit status, output)."""
    build = os.path.join(folder, os.path.basename(student) + ".build")
    os.makedirs(build, exist_ok=True)
    entry = dict(manifest_entry, student=student)
    with open(os.path.join(build, "course_chapters.json"), "w", encoding="utf-8") as handle:
        json.dump({"schema": 1, "chapters": [entry]}, handle)
    command = [sys.executable, os.path.join(ROOT, "scripts", "progress.py"), "--build-dir",
               build] + [f"--check={c}" for c in checks] + [entry["label"]]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=7200)
    return done.returncode, done.stdout + done.stderr


def criterion_lines(output, criterion):
    """The lines that report @p criterion failing or not measured (the first one in full)."""
    return [line.strip() for line in output.splitlines()
            if re.match(rf"\s+{re.escape(criterion)}: ", line)]


def judge(name, executable, manifest):
    mistake = MISTAKES[name]
    if not os.path.exists(executable):
        print(f"SKIPPED: {os.path.basename(executable)} is not built (the planted mistakes are "
              "built on request: cmake --build BUILD --target planted_mistakes)")
        return 0
    with open(manifest, encoding="utf-8") as handle:
        entries = json.load(handle)["chapters"]
    entry = next(e for e in entries if e["folder"] == mistake["folder"])
    described = {}
    description = subprocess.run([executable, "--describe"], capture_output=True, text=True,
                                 check=False)
    for check in json.loads(description.stdout).get("checks", []):
        described[check["id"]] = check
    print(f"planted mistake {name}: {mistake['why']}")
    caught, held, skipped = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for criterion in mistake["catch"]:
            for edition, student in (("planted", executable), ("control", entry["solution"])):
                if criterion in described:
                    status, output = progress_run(entry, student, [criterion], folder)
                    lines = criterion_lines(output, criterion)
                    text = lines[0] if lines else f"nothing reported against it (exit {status})"
                    without_gpu = "No CUDA device here" in output
                    held_on_cpu = re.search(rf"holds on the CPU: .*\b{re.escape(criterion)}\b",
                                            output)
                    if lines and re.match(rf"{re.escape(criterion)}: not measured", text):
                        skipped.append(text)
                        break
                    if without_gpu and not lines and not held_on_cpu:
                        skipped.append(f"{criterion} needs a GPU (no CUDA device here)")
                        break
                    failed = bool(lines) and status in (1, 3)
                else:
                    print(f"FAIL: the chapter describes no check {criterion!r}")
                    return 1
                print(f"  {criterion} on the {edition}: {'fails' if failed else 'holds'}: {text}")
                if edition == "planted":
                    (caught if failed else held).append(criterion)
                elif failed:
                    print(f"FAIL: {criterion} fails the solution too, so it says nothing of the "
                          "mistake")
                    return 1
    expect_held = mistake.get("expect_held", [])
    missed = [c for c in held if c not in expect_held]
    if skipped and not caught:
        print("SKIPPED: " + "; ".join(skipped))
        return 0
    if missed or not caught:
        print(f"FAIL: {', '.join(missed) or 'nothing'} did not catch planted mistake {name}")
        return 1
    if held:
        print(f"note: {', '.join(held)} did not catch it (expected: it cannot tell)")
    if skipped:
        print(f"note: not judged here: {'; '.join(skipped)}")
    print(f"PASS: {', '.join(caught)} caught planted mistake {name}")
    return 0


def main(argv):
    if argv == ["list"]:
        print("\n".join(f"{name} {mistake['folder']}" for name, mistake in MISTAKES.items()))
        return 0
    if len(argv) < 3 or argv[0] not in ("plant", "check", "judge") or argv[1] not in MISTAKES:
        print(f"usage: mistakes.py plant|check|judge NAME ... (NAME: {', '.join(MISTAKES)})")
        return 2
    command, name = argv[0], argv[1]
    if command == "judge":
        return judge(name, argv[2], argv[3])
    try:
        text = plant(name, read(argv[2]))
    except Unplantable as why:
        print(f"FAIL: planted mistake {name} no longer applies to {argv[2]}: {why}")
        return 1
    if command == "plant":
        os.makedirs(os.path.dirname(argv[3]), exist_ok=True)
        with open(argv[3], "w", encoding="utf-8") as handle:
            handle.write(text)
    print(f"planted mistake {name} applies to {os.path.relpath(argv[2], ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
