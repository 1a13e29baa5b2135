"""Runs every test_*.py here (the action harness, the workflow checks, the Markdown safety tests)
and ends with one `harness: N passed, N failed` line. Exit 1 on any failure or when nothing ran."""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    started = time.monotonic()
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    outcome = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(outcome.failures) + len(outcome.errors)
    skipped = len(outcome.skipped)
    print(f"harness: took {time.monotonic() - started:.1f} s")
    print(f"harness: {outcome.testsRun - failed - skipped} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or outcome.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
