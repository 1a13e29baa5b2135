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


class ToolCache(unittest.TestCase):
    """The runner's tool cache (@actions/tool-cache's layout): a verified copy is used, anything
    else is refused and removed; nothing is kept where the tool cache cannot be written."""

    VERSION = "v1.2.0"
    TRIPLE = "x86_64-unknown-linux-musl"

    def setUp(self):
        import hashlib
        import io
        import tarfile

        self.root = tempfile.mkdtemp(prefix="toolcache-test-")
        self.saved = {k: os.environ.get(k) for k in ("RUNNER_TOOL_CACHE", "RUNNER_ARCH", "RUNNER_TEMP")}
        self.tool_cache = os.path.join(self.root, "tool-cache")
        os.makedirs(self.tool_cache)
        os.environ.update({"RUNNER_TOOL_CACHE": self.tool_cache, "RUNNER_ARCH": "X64", "RUNNER_TEMP": os.path.join(self.root, "temp")})
        self.asset = f"cartograph-{self.VERSION}-{self.TRIPLE}.tar.gz"
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
            for name, data in (("cartograph", b"#!/bin/sh\necho cartograph 1.2.0\n"), ("cartograph-ask", b"ask")):
                info = tarfile.TarInfo(f"cartograph-{self.VERSION}-{self.TRIPLE}/{name}")
                info.size = len(data)
                info.mode = 0o755
                tf.addfile(info, io.BytesIO(data))
        self.download = os.path.join(self.root, self.asset)
        with open(self.download, "wb") as handle:
            handle.write(buffer.getvalue())
        self.expected = hashlib.sha256(buffer.getvalue()).hexdigest()
        self.bin_dir = os.path.join(self.root, "bin")
        os.makedirs(self.bin_dir)
        self.found = install._extract(self.download, self.bin_dir)
        self.folder = os.path.join(self.tool_cache, "cartograph", "1.2.0", "x64")

    def tearDown(self):
        import shutil

        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(self.root, ignore_errors=True)

    def keep(self):
        install.to_tool_cache(self.VERSION, self.asset, self.download, self.bin_dir, self.found)

    def lookup(self):
        return install.from_tool_cache(self.VERSION, self.asset, self.expected, "")

    def test_a_kept_copy_is_found_in_the_tool_cache_layout(self):
        self.assertIsNone(self.lookup(), "nothing kept yet")
        self.keep()
        self.assertTrue(os.path.isfile(self.folder + ".complete"))
        self.assertEqual(self.lookup(), self.folder)

    def test_a_copy_without_its_marker_is_not_used(self):
        self.keep()
        os.remove(self.folder + ".complete")
        self.assertIsNone(self.lookup())

    def test_every_tampering_is_refused_and_the_copy_removed(self):
        def binary(folder):
            with open(os.path.join(folder, "cartograph"), "ab") as handle:
                handle.write(b"\n# tampered\n")

        def archive(folder):
            with open(os.path.join(folder, self.asset), "ab") as handle:
                handle.write(b"x")

        def planted(folder):
            os.remove(os.path.join(folder, "cartograph-ask"))
            with open(os.path.join(folder, "cartograph-ask.exe"), "wb") as handle:
                handle.write(b"planted")

        def missing(folder):
            os.remove(os.path.join(folder, "cartograph-ask"))

        def symlink(folder):
            os.remove(os.path.join(folder, "cartograph"))
            os.symlink(os.path.join(self.bin_dir, "cartograph"), os.path.join(folder, "cartograph"))

        for tamper in (binary, archive, planted, missing, symlink):
            with self.subTest(tamper.__name__):
                self.keep()
                self.assertEqual(self.lookup(), self.folder)
                tamper(self.folder)
                self.assertIsNone(self.lookup())
                self.assertFalse(os.path.exists(self.folder) or os.path.exists(self.folder + ".complete"), "the bad copy is removed")

    def test_no_tool_cache_or_an_unusable_one_keeps_nothing(self):
        os.environ.pop("RUNNER_TOOL_CACHE")
        self.keep()
        self.assertIsNone(self.lookup())
        not_a_dir = os.path.join(self.root, "a-file")
        open(not_a_dir, "w").close()
        os.environ["RUNNER_TOOL_CACHE"] = not_a_dir
        self.keep()
        self.assertIsNone(self.lookup())
        self.assertEqual(os.listdir(self.tool_cache), [])
