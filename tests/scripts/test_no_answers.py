#!/usr/bin/env python3
"""tests/scripts/no_answers.py finds an exercise's answer wherever a student reads it (the lesson,
the appendix, hints below level 3, the bug hunt, tests/), and nowhere else: level 3 hints are not
answers. That code the student is given and the vocabulary every lesson names are not answers
either shows on the course itself: exercises.no_answers would report its lessons otherwise."""

import os
import sys
import tempfile
import unittest

import support  # noqa: F401  (puts the repository's scripts on the path)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import no_answers  # noqa: E402

SOLUTION = """\
__global__ void kernel(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // EXERCISE 9.1 begin
  const int mirrored = n - 1 - i;  // the element this thread reads
  __syncthreads();
  out[i] = in[mirrored] * 2.0f;
  // EXERCISE 9.1 end
}
"""
STUDENT = """\
__global__ void kernel(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // EXERCISE 9.1 begin
  out[i] = 0.0f;  // replace: read the mirrored element of in, times two
  // EXERCISE 9.1 end
}
"""
HINTS = """\
# Chapter 9: hints

## Exercise 9.1: the mirror

### Level 1
Which element does thread i read?

### Level 2
The first thread reads the last element.

### Level 3
`const int mirrored = n - 1 - i;`
"""


class NoAnswers(unittest.TestCase):
    def tree(self, files):
        root = tempfile.mkdtemp()
        base = {"solutions/09_mirror/kernels.cuh": SOLUTION,
                "chapters/09_mirror/kernels.cuh": STUDENT,
                "chapters/09_mirror/HINTS.md": HINTS,
                "chapters/09_mirror/README.md": "# Mirror\nEach thread reads one element.\n",
                "tests/test_mirror.cu": "// compares the kernel with a CPU loop\n"}
        base.update(files)
        for relative, text in base.items():
            path = os.path.join(root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return root

    def test_clean_tree_passes(self):
        self.assertEqual(no_answers.leaks(self.tree({})), [])
        self.assertEqual(no_answers.main(["--root", self.tree({})]), 0)

    def test_answer_in_lesson_is_caught_whatever_its_spacing(self):
        root = self.tree({"chapters/09_mirror/README.md": "Read `in[ n-1-i ]`: mirrored = n-1 - i\n"})
        found = no_answers.leaks(root)
        self.assertEqual([(f, line, ex) for f, line, ex, _ in found],
                         [("chapters/09_mirror/README.md", 1, "9.1")])
        self.assertEqual(no_answers.main(["--root", root]), 1)

    def test_answer_in_level_2_hint_is_caught_not_in_level_3(self):
        moved = HINTS.replace("The first thread reads the last element.",
                              "Thread i reads in[mirrored] * 2.0f.")
        found = no_answers.leaks(self.tree({"chapters/09_mirror/HINTS.md": moved}))
        self.assertEqual([(f, ex) for f, _, ex, _ in found], [("chapters/09_mirror/HINTS.md", "9.1")])

    def test_bug_hunt_and_tests_are_read(self):
        root = self.tree({"chapters/09_mirror/bug_hunt.cuh": "out[i] = in[mirrored] * 2.0f;\n",
                          "tests/cpu/expect.cpp": "expected[i] = in[mirrored] * 2.0f;\n"})
        found = sorted((f, ex) for f, _, ex, _ in no_answers.leaks(root))
        self.assertEqual(found, [("chapters/09_mirror/bug_hunt.cuh", "9.1"),
                                 ("tests/cpu/expect.cpp", "9.1")])

    def test_a_call_of_three_plain_names_is_an_answer(self):
        solution = SOLUTION.replace("__syncthreads();", "__syncthreads();\n  wait_for(index, n, true);")
        root = self.tree({"solutions/09_mirror/kernels.cuh": solution,
                          "chapters/09_mirror/README.md": "Then `wait_for(index, n, true)`.\n"})
        self.assertEqual([ex for _, _, ex, _ in no_answers.leaks(root)], ["9.1"])

    def test_root_without_solutions_is_refused(self):
        self.assertEqual(no_answers.main(["--root", tempfile.mkdtemp()]), 2)


if __name__ == "__main__":
    unittest.main()
