"""Reading the pinned checksums and choosing the release to install (action/scripts/install.py)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))

import install  # noqa: E402
from runner import ActionError  # noqa: E402

TARGETS = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "aarch64-pc-windows-msvc",
]


class PinnedReleases(unittest.TestCase):
    def pins(self, versions):
        lines = ["# comment", ""]
        for number, version in enumerate(versions):
            for target in TARGETS:
                extension = "zip" if "windows" in target else "tar.gz"
                lines.append(f"{number:064x}  cartograph-{version}-{target}.{extension}")
        path = os.path.join(tempfile.mkdtemp(prefix="pins-"), "checksums.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        return install.read_checksums(path)

    def test_every_target_parses_with_release_and_pre_release_versions(self):
        for target in TARGETS:
            for version in ("v1.2.0", "v1.3.0-rc1"):
                extension = "zip" if "windows" in target else "tar.gz"
                self.assertEqual(install.parse_asset(f"cartograph-{version}-{target}.{extension}"), (version, target))
        self.assertIsNone(install.parse_asset("cartograph-v1.0.0-sparc-sun-solaris.tar.gz"))
        self.assertIsNone(install.parse_asset("evil-v1.0.0-x86_64-apple-darwin.tar.gz"))

    def test_pinned_picks_the_newest_release_for_each_runner(self):
        pins = self.pins(["v0.9.0", "v0.10.0", "v0.11.0-rc1"])
        self.assertEqual(len(pins), 18)
        for target in TARGETS:
            self.assertEqual(install.choose_version("pinned", pins, target), "v0.10.0")
        self.assertEqual(install.choose_version("0.9.0", pins, TARGETS[0]), "v0.9.0")

    def test_nothing_pinned_is_an_error_that_says_what_to_do(self):
        with self.assertRaisesRegex(ActionError, "version: source"):
            install.choose_version("pinned", {}, TARGETS[0])

    def test_a_malformed_line_is_refused(self):
        path = os.path.join(tempfile.mkdtemp(prefix="pins-"), "checksums.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("abc  cartograph-v1.0.0-x86_64-apple-darwin.tar.gz\n")
        with self.assertRaisesRegex(ActionError, "line 1"):
            install.read_checksums(path)
