"""What actionlint does not check in the workflows this repository ships (.github/workflows and
action/examples), and a check that the offline actionlint does catch a real problem."""

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ACTION_DIR = os.path.join(ROOT, "action")
sys.path.insert(0, HERE)

from action_runner import interpolate, run_job  # noqa: E402

SHARDS_EXAMPLE = os.path.join(ACTION_DIR, "examples", "architecture-shards.yml")
OURS = "cartograph-dev/cartograph/action"


def parsed(path):
    """A workflow file as JSON (lint.mjs's YAML parser, the one the harness reads action.yml with)."""
    text = subprocess.run(["node", os.path.join(HERE, "lint.mjs"), "json", path], check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def pins_of_action_yml():
    """{action name: commit} of the `uses:` steps of action.yml."""
    pins = {}
    for step in parsed(os.path.join(ACTION_DIR, "action.yml"))["runs"]["steps"]:
        if "uses" in step:
            name, commit = step["uses"].split("@")
            pins[name] = commit
    return pins


# A stand-in for the cartograph binary: logs its arguments, writes the files it is asked for.
STUB = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
for flag in ("-o", "--json", "--markdown", "--cache-stats"):
    if flag in args:
        with open(args[args.index(flag) + 1], "w") as out:
            out.write('{"writes": 1, "evicted": 0, "corrupt": 0}' if flag == "--cache-stats" else f"stub {args[0]} {flag}\n")
'''


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


class NoExpressionsInScripts(unittest.TestCase):
    def test_no_expression_inside_a_run_script(self):
        """Values reach every `run:` script through `env:`, never as `${{ }}` pasted into the script."""
        folders = (os.path.join(ROOT, ".github", "workflows"), os.path.join(ACTION_DIR, "examples"))
        seen = 0
        for folder in folders:
            for name in sorted(os.listdir(folder)):
                if not name.endswith((".yml", ".yaml")):
                    continue
                for job_name, job in (parsed(os.path.join(folder, name)).get("jobs") or {}).items():
                    for step in job.get("steps") or []:
                        if "run" in step:
                            seen += 1
                            self.assertNotIn("${{", step["run"], f"{name}: job {job_name}, step {step.get('name')}")
        self.assertGreater(seen, 5)


class ShardsExample(unittest.TestCase):
    """action/examples/architecture-shards.yml: a matrix of shards per side, merged in one job."""

    @classmethod
    def setUpClass(cls):
        cls.workflow = parsed(SHARDS_EXAMPLE)
        with open(SHARDS_EXAMPLE, encoding="utf-8") as handle:
            cls.text = handle.read()
        cls.jobs = cls.workflow["jobs"]
        cls.shards = int(cls.workflow["env"]["SHARDS"])

    def steps(self, job, uses):
        return [s for s in self.jobs[job]["steps"] if s.get("uses", "").split("@")[0] == uses]

    def test_jobs_permissions_and_trigger(self):
        self.assertEqual(self.workflow["permissions"], {"contents": "read"})
        self.assertEqual(list(self.workflow.get("on", self.workflow.get(True))), ["pull_request"])
        self.assertEqual(sorted(self.jobs), ["merge", "revisions", "shard"])
        self.assertTrue(all("permissions" not in job for job in self.jobs.values()), "no job asks for more")
        self.assertEqual(sorted(self.jobs["revisions"]["outputs"]), ["base", "head"])
        self.assertEqual(self.jobs["shard"]["needs"], "revisions")
        self.assertEqual(self.jobs["merge"]["needs"], "shard")
        [checkout] = self.steps("revisions", "actions/checkout")
        self.assertEqual(str(checkout["with"]["fetch-depth"]), "0", "git merge-base needs the history")
        self.assertIn("git merge-base", "".join(s.get("run", "") for s in self.jobs["revisions"]["steps"]))

    def test_matrix_covers_shards_1_to_n_of_both_sides(self):
        self.assertGreaterEqual(self.shards, 2)
        strategy = self.jobs["shard"]["strategy"]
        matrix = strategy["matrix"]
        self.assertEqual(sorted(matrix), ["shard", "side"], "no include/exclude: every cell of side x shard")
        self.assertEqual(matrix["side"], ["base", "head"])
        self.assertEqual(matrix["shard"], list(range(1, self.shards + 1)), "shard lists 1..N, N being SHARDS")
        self.assertTrue(strategy.get("fail-fast", True))
        [snapshot] = [s for s in self.jobs["shard"]["steps"] if "snapshot" in s.get("run", "")]
        self.assertIn('--shard "$SHARD/$SHARDS"', snapshot["run"])
        self.assertEqual(snapshot["env"]["SHARD"], "${{ matrix.shard }}")
        self.assertEqual(snapshot["env"]["SIDE"], "${{ matrix.side }}")
        self.assertEqual(snapshot["env"]["REVISION"], "${{ needs.revisions.outputs[matrix.side] }}")
        [checkout] = self.steps("shard", "actions/checkout")
        self.assertEqual(checkout["with"]["ref"], "${{ needs.revisions.outputs[matrix.side] }}")

    def test_binary_from_the_action_in_install_mode_and_pins_shared_with_action_yml(self):
        for job in ("shard", "merge"):
            [ours] = self.steps(job, OURS)
            self.assertEqual(ours["with"], {"mode": "install"}, job)
            self.assertEqual(ours["id"], "cartograph")
        pins = pins_of_action_yml()
        for job, name in (("shard", "actions/cache/restore"), ("shard", "actions/cache/save"), ("shard", "actions/upload-artifact"), ("merge", "actions/upload-artifact")):
            for step in self.steps(job, name):
                self.assertEqual(step["uses"].split("@")[1], pins[name], f"{job}: {name} is pinned to action.yml's commit")
        [download] = self.steps("merge", "actions/download-artifact")
        self.assertRegex(download["uses"], r"@[0-9a-f]{40}$")
        self.assertRegex(self.text, r"actions/download-artifact v4\.\d+\.\d+", "the pinned version is named in a comment")
        # The cache is keyed by OS, cartograph build, slice and side, and saved under the restored key.
        [restore] = self.steps("shard", "actions/cache/restore")
        [save] = self.steps("shard", "actions/cache/save")
        for part in ("runner.os", "steps.cartograph.outputs.version", "matrix.shard", "matrix.side", "env.SHARDS"):
            self.assertIn(part, restore["with"]["key"])
        self.assertEqual(save["with"]["key"], "${{ steps.cache.outputs.cache-primary-key }}")
        self.assertEqual(save["with"]["path"], restore["with"]["path"])

    def test_every_fact_file_is_uploaded_for_one_day_and_found_by_the_download(self):
        [upload] = self.steps("shard", "actions/upload-artifact")
        [download] = self.steps("merge", "actions/download-artifact")
        self.assertEqual(str(upload["with"]["retention-days"]), "1", "fact files hold repository text")
        self.assertEqual(str(download["with"]["merge-multiple"]).lower(), "true")
        names = set()
        for side in ("base", "head"):
            for shard in range(1, self.shards + 1):
                context = {"matrix": {"side": side, "shard": shard}, "runner": {"temp": "/tmp/r"}, "env": {"SHARDS": str(self.shards)}}
                name = interpolate(upload["with"]["name"], context)
                self.assertTrue(fnmatch.fnmatchcase(name, download["with"]["pattern"]), name)
                self.assertEqual(os.path.basename(interpolate(upload["with"]["path"], context)), f"{side}-{shard}.facts")
                names.add(name)
        self.assertEqual(len(names), 2 * self.shards, "one artifact per cell")

    def test_merge_job_passes_every_shard_of_each_side_to_cartograph_merge(self):
        """The merge job's own script, run with a stand-in binary: one `cartograph merge` per side
        naming shards 1..N of that side (and nothing else), then the diff of the two snapshots."""
        work = tempfile.mkdtemp(prefix="shards-example-")
        self.addCleanup(shutil.rmtree, work, True)
        stub = os.path.join(work, "cartograph")
        with open(stub, "w", encoding="utf-8") as handle:
            handle.write(STUB)
        os.chmod(stub, 0o755)
        log = os.path.join(work, "calls.jsonl")
        temp = os.path.join(work, "temp")
        downloaded = {}

        def download(with_values, context):
            os.makedirs(with_values["path"], exist_ok=True)
            for side in ("base", "head"):
                for shard in range(1, self.shards + 1):
                    with open(os.path.join(with_values["path"], f"{side}-{shard}.facts"), "w") as handle:
                        handle.write("facts")
            downloaded.update(with_values)
            return {}

        handlers = {
            OURS: lambda with_values, context: {"cartograph": stub, "version": "0.0.0"},
            "actions/download-artifact": download,
            "actions/upload-artifact": lambda with_values, context: {},
        }
        os.makedirs(os.path.join(work, "ws"))
        result = run_job(
            self.workflow, "merge", workspace=os.path.join(work, "ws"), runner_temp=temp,
            env={"PATH": os.environ["PATH"], "STUB_LOG": log}, github={"event": {"pull_request": {"number": 7}}},
            needs={"shard": {"result": "success", "outputs": {}}}, handlers=handlers,
        )
        self.assertTrue(result.success, [s.get("stderr") for s in result.steps])
        with open(log, encoding="utf-8") as handle:
            calls = [json.loads(line) for line in handle]
        facts = downloaded["path"]
        self.assertEqual(len(calls), 3)
        for call, side in zip(calls, ("base", "head")):
            self.assertEqual(call[0], "merge")
            self.assertEqual(call[1:-2], [os.path.join(facts, f"{side}-{k}.facts") for k in range(1, self.shards + 1)])
            self.assertEqual(call[-2:], ["-o", f"{side}.snapshot.json"])
        self.assertEqual(calls[2][:3], ["diff", "base.snapshot.json", "head.snapshot.json"])
        self.assertIn("stub diff --markdown", result.summary, "report.md goes to the job summary")
        [report] = [u for u in result.uses if u["with"].get("name") == "cartograph-report"]
        self.assertEqual(sorted(os.listdir(report["with"]["path"])), ["pr-number", "report.json", "report.md"], "the action's artifact layout")
        with open(os.path.join(report["with"]["path"], "pr-number"), encoding="utf-8") as handle:
            self.assertEqual(handle.read().strip(), "7")
