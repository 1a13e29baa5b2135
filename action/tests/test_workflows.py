"""What actionlint does not check in the workflows this repository ships (.github/workflows and
action/examples), and a check that the offline actionlint does catch a real problem."""

import os
import re
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ACTION_DIR = os.path.join(ROOT, "action")


class Workflows(unittest.TestCase):
    """What actionlint does not check in the workflows we ship."""

    def files(self):
        for folder in (os.path.join(ROOT, ".github", "workflows"), os.path.join(ACTION_DIR, "examples")):
            for name in sorted(os.listdir(folder)):
                if name.endswith((".yml", ".yaml")):
                    with open(os.path.join(folder, name), encoding="utf-8") as handle:
                        yield name, handle.read()

    def test_third_party_actions_are_pinned_by_commit_and_no_pull_request_target(self):
        seen = 0
        for name, text in self.files():
            self.assertNotIn("pull_request_target", text, name)
            for line in text.splitlines():
                match = re.match(r"^\s*-?\s*uses:\s*(\S+)", line)
                if not match:
                    continue
                seen += 1
                ref = match.group(1)
                if ref == "./action" or ref.startswith("cartograph-dev/cartograph/action@"):
                    continue
                self.assertRegex(ref, r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$", f"{name}: {ref} is not pinned by commit")
        self.assertGreater(seen, 10)

    def test_top_level_permissions_are_explicit_everywhere(self):
        for name, text in self.files():
            self.assertRegex(text, r"(?m)^permissions:", f"{name} sets no top-level permissions")
            self.assertNotIn("write-all", text, name)

    def test_actionlint_is_not_blind(self):
        bad = os.path.join(tempfile.mkdtemp(prefix="lint-"), "bad.yml")
        with open(bad, "w", encoding="utf-8") as handle:
            handle.write("on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n")
        completed = subprocess.run(["node", os.path.join(HERE, "lint.mjs"), "lint-file", bad], capture_output=True, text=True)
        self.assertEqual(completed.returncode, 1)
        self.assertIn("potentially untrusted", completed.stderr)
