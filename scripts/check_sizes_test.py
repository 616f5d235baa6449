"""Tests of scripts/check_sizes: the tree passes; small trees at the limits
pass (a 60-line function, a 70-line table, a 61-line function in a test,
braces in literals and comments, a 600-line file), and each a line over
fails naming the fault (a 61-line function, a method defined in its class,
a 601-line file). Run by ctest (source_sizes).
usage: python3 scripts/check_sizes_test.py [ROOT]"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_sizes")
ROOT = os.path.join(HERE, "..")


def function_text(name, body_lines):
    """A function whose signature spans two lines: body_lines + 3 lines."""
    return (f"int {name}(int a,\n        int b) {{\n" + "  a += b;  // {\n" * body_lines +
            "}\n")


def comment_lines(n):
    return "".join(f"// line {i}\n" for i in range(n))


def run_check(root):
    r = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return r.returncode, r.stdout


class Tree(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def put(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def assert_fault(self, line):
        code, out = run_check(self.root)
        self.assertEqual(code, 1, out)
        self.assertIn(line, out.splitlines())

    def test_the_tree_passes(self):
        code, out = run_check(ROOT)
        self.assertEqual(code, 0, out)

    def test_the_limits_pass(self):
        self.put("engine/src/at_limit.cc",
                 "namespace x {\n"
                 "struct S { int f() const { return 1; } };\n" +
                 function_text("sixty", 57) +
                 "const char* kText = \"}}}{\"; const char kBrace = '}';  /* } */\n"
                 "const int kTable[] = {\n" + "".join(f"  {i},\n" for i in range(70)) + "};\n"
                 "}  // namespace x\n")
        self.put("engine/src/at_limit_test.cc", function_text("sixty_one", 58))
        self.put("cli/long.h", comment_lines(600))
        self.put("engine/src/long_test.cc", comment_lines(700))
        code, out = run_check(self.root)
        self.assertEqual(code, 0, out)

    def test_a_function_a_line_over_fails(self):
        self.put("engine/src/over.cc", function_text("sixty_one", 58))
        self.assert_fault("engine/src/over.cc:1: function sixty_one has 61 lines (at most 60)")

    def test_a_method_defined_in_its_class_a_line_over_fails(self):
        self.put("generators/src/inline.h",
                 "class C {\n public:\n" + function_text("method", 58) + "};\n")
        self.assert_fault("generators/src/inline.h:3: function method has 61 lines (at most 60)")

    def test_a_file_a_line_over_fails(self):
        self.put("bench/long.cc", comment_lines(601))
        self.assert_fault("bench/long.cc:1: 601 lines (at most 600 outside tests)")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        ROOT = sys.argv.pop(1)
    unittest.main()
