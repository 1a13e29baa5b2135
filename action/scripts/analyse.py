"""The analyse stage: produce report.json and report.md in the report folder, and the state the
publish stage needs.

- `pr`: the pull request's base (the merge base, by default) and head commits are fetched into the
  checkout's object store (shallow clones deepened as needed) and diffed by revision: nothing is
  checked out and nothing from either tree runs. Optional ASK when a key is given, not on forks.
- `drift`: the checked-out branch is diffed against a baseline: the latest release tag, a revision,
  or a committed snapshot file.
- every analysis of a tree uses the fact cache when the install step made one (`cache` input): the
  directory restored by actions/cache, bounded by `cache-max-mib`; what it did (hits, misses,
  entries written) is summed over the runs and decides whether the cache is worth saving.
- `post`: the fork-safe second half. The report comes from a downloaded artifact (untrusted); the PR
  number keeps its digits only and the PR's head SHA must equal the triggering run's head SHA.
"""

import json
import os
import re
import shutil

import runner
from github_api import ApiError, GitHub
from runner import ActionError

_SHA = re.compile(r"^[0-9a-f]{40}$")
_UNTRUSTED_MD_CAP = 4 * 1024 * 1024


def report_dir():
    path = os.path.join(runner.runner_temp(), "report")
    os.makedirs(path, exist_ok=True)
    return path


def _git(args, cwd, check=True):
    return runner.run(["git", *args], cwd=cwd, check=check)


def _has_commit(repo, sha):
    return _git(["cat-file", "-e", f"{sha}^{{commit}}"], repo, check=False).returncode == 0


def _is_shallow(repo):
    out = _git(["rev-parse", "--is-shallow-repository"], repo, check=False).stdout.strip()
    return out == "true"


def fetch_commit(repo, sha, fallback_ref=None):
    """Makes `sha` present in the object store (depth 1: only its tree is read)."""
    if _has_commit(repo, sha):
        return
    base = ["fetch", "--no-tags", "--no-recurse-submodules", "--quiet", "--depth=1", "origin"]
    if _git([*base, sha], repo, check=False).returncode == 0 and _has_commit(repo, sha):
        return
    if fallback_ref:
        _git([*base, f"+{fallback_ref}:refs/cartograph/fetched"], repo, check=False)
    if not _has_commit(repo, sha):
        raise ActionError(f"commit {sha[:12]} could not be fetched from origin")


def merge_base(repo, base, head):
    """The merge base of the two commits, deepening a shallow clone step by step; None when the
    histories share no commit."""
    for deepen in (50, 200, 1000, 0):
        found = _git(["merge-base", base, head], repo, check=False)
        if found.returncode == 0 and _SHA.match(found.stdout.strip()):
            return found.stdout.strip()
        if not _is_shallow(repo):
            return None
        more = ["--unshallow"] if deepen == 0 else [f"--deepen={deepen}"]
        _git(["fetch", "--no-tags", "--no-recurse-submodules", "--quiet", *more, "origin", base, head], repo, check=False)
    found = _git(["merge-base", base, head], repo, check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def sarif_path():
    """Where the `sarif` input asks for the SARIF log: a path inside the workspace, or None."""
    wanted = runner.get("sarif")
    if not wanted:
        return None
    parts = wanted.replace("\\", "/").split("/")
    if os.path.isabs(wanted) or ".." in parts:
        raise ActionError("input `sarif` must be a path inside the workspace, such as cartograph.sarif")
    return os.path.join(os.environ.get("GITHUB_WORKSPACE") or os.getcwd(), wanted)


_CACHE_COUNTERS = ("hits", "misses", "disk_hits", "writes", "corrupt", "evicted")


def cache_max_mib():
    """The input as a whole number of MiB, or None when it is empty: cartograph's own bound then
    applies (512 MiB, or twice what the run used, whichever is larger)."""
    text = runner.get("cache-max-mib", "").strip()
    if not text:
        return None
    if not re.match(r"^[0-9]{1,7}$", text) or int(text) < 1:
        raise ActionError("input `cache-max-mib` must be a whole number of MiB, at least 1")
    return int(text)


def cache_options(label):
    """`--cache DIR --cache-max-mib N --cache-stats FILE` for one cartograph run, or [] when the
    cache is off. Each run writes its own stats file; cache_stats() sums them."""
    directory = os.environ.get("CARTOGRAPH_CACHE_DIR", "").strip()
    if not directory:
        return []
    stats = os.path.join(runner.runner_temp(), "cache-stats")
    os.makedirs(stats, exist_ok=True)
    bound = cache_max_mib()
    limit = [] if bound is None else ["--cache-max-mib", str(bound)]
    return ["--cache", directory, *limit, "--cache-stats", os.path.join(stats, f"{label}.json")]


def reset_cache_stats():
    shutil.rmtree(os.path.join(runner.runner_temp(), "cache-stats"), ignore_errors=True)


def cache_stats():
    """The counters of every cartograph run of this step, summed ({} when the cache is off or no
    run wrote any). Numbers only; anything else in a stats file is ignored."""
    folder = os.path.join(runner.runner_temp(), "cache-stats")
    total = {}
    if not os.path.isdir(folder):
        return total
    for name in sorted(os.listdir(folder)):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                doc = json.load(handle)
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or doc.get("schema") != "cache-stats":
            continue
        for key in _CACHE_COUNTERS:
            value = doc.get(key, 0)
            total[key] = total.get(key, 0) + (value if isinstance(value, int) and value >= 0 else 0)
    return total


def run_diff(cartograph, repo, base, head, fail_on):
    """Runs `cartograph diff`; returns whether the fail-on gate was met. With the `sarif` input,
    also writes the findings as SARIF 2.1.0 for github/codeql-action/upload-sarif."""
    out = report_dir()
    argv = [cartograph, "diff", base, head, "--json", os.path.join(out, "report.json"), "--markdown", os.path.join(out, "report.md")]
    sarif = sarif_path()
    if sarif:
        os.makedirs(os.path.dirname(sarif) or ".", exist_ok=True)
        argv += ["--sarif", sarif]
    if fail_on:
        argv += ["--fail-on", fail_on]
    argv += cache_options("diff")
    runner.log(f"cartograph diff {base} {head}" + (f" --fail-on {fail_on}" if fail_on else ""))
    completed = runner.run(argv, cwd=repo, check=False)
    if completed.returncode not in (0, 1):
        detail = (completed.stderr or "").strip().splitlines()
        raise ActionError(runner.redact_paths(detail[-1] if detail else "cartograph diff failed"))
    return completed.returncode == 1


def run_ask(ask_binary, key):
    """Adds explanations to the report with `cartograph-ask` (key via env only). Failures keep the
    plain report and warn; they never fail the job."""
    out = report_dir()
    if not ask_binary or not os.path.isfile(ask_binary):
        found = shutil.which("cartograph-ask")
        if not found:
            runner.annotate("notice", "ASK skipped: cartograph-ask is not installed with this version")
            return "skipped: not installed"
        ask_binary = found
    json_in = os.path.join(out, "report.json")
    json_tmp = os.path.join(out, "report.ask.json")
    md_tmp = os.path.join(out, "report.ask.md")
    argv = [ask_binary, "attach", json_in, "-o", json_tmp, "--markdown", md_tmp, "--api-key-env", "CARTOGRAPH_ASK_API_KEY"]
    for name, option in (("ask-provider", "--provider"), ("ask-model", "--model"), ("ask-base-url", "--base-url")):
        value = runner.get(name)
        if value:
            argv += [option, value]
    env = runner.scrubbed_env({"CARTOGRAPH_ASK_API_KEY": key})
    completed = runner.run(argv, cwd=out, env=env, check=False)
    if completed.returncode != 0 or not os.path.isfile(json_tmp) or not os.path.isfile(md_tmp):
        runner.annotate("warning", "ASK failed; the report is posted without explanations")
        return "failed"
    os.replace(json_tmp, json_in)
    os.replace(md_tmp, os.path.join(out, "report.md"))
    return "ran"


def _pull_request(event):
    pr = event.get("pull_request") or {}
    if not pr:
        raise ActionError("mode `pr` needs a pull_request event (use `drift` on schedule, `post` on workflow_run)")
    return pr


def analyse_pr(cartograph, ask_binary):
    event = runner.event()
    pr = _pull_request(event)
    number = int(pr.get("number") or event.get("number") or 0)
    base_sha = (pr.get("base") or {}).get("sha", "")
    head_sha = (pr.get("head") or {}).get("sha", "")
    if not (_SHA.match(base_sha) and _SHA.match(head_sha)):
        raise ActionError("the pull_request event has no base and head SHAs")
    head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name", "")
    base_repo = ((pr.get("base") or {}).get("repo") or {}).get("full_name", "") or os.environ.get("GITHUB_REPOSITORY", "")
    fork = head_repo != base_repo
    repo = runner.workspace()
    if _git(["rev-parse", "--git-dir"], repo, check=False).returncode != 0:
        raise ActionError("the working directory is not a git checkout: run actions/checkout first")
    fetch_commit(repo, head_sha, f"refs/pull/{number}/head")
    fetch_commit(repo, base_sha)
    compare = runner.get("compare", "merge-base")
    if compare not in ("merge-base", "base-tip"):
        raise ActionError("input `compare` must be merge-base or base-tip")
    base = base_sha
    if compare == "merge-base":
        found = merge_base(repo, base_sha, head_sha)
        if found:
            base = found
        else:
            runner.annotate("warning", "no merge base found; comparing with the base branch tip")
    gate = run_diff(cartograph, repo, f"rev:{base}", f"rev:{head_sha}", runner.get("fail-on"))
    key = os.environ.get("CARTOGRAPH_ASK_API_KEY", "").strip()
    ask = "not requested"
    if key and fork:
        ask = "skipped: fork pull request"
        runner.log("ASK skipped on a pull request from a fork")
    elif key:
        ask = run_ask(ask_binary, key)
    out = report_dir()
    with open(os.path.join(out, "pr-number"), "w", encoding="utf-8") as handle:
        handle.write(f"{number}\n")
    return {
        "mode": "pr",
        "pr": number,
        "fork": fork,
        "base": base,
        "head": head_sha,
        "gate": gate,
        "ask": ask,
    }


def _release_tags(repo, pattern):
    tags = set()
    local = _git(["tag", "--list", pattern], repo, check=False)
    tags.update(t.strip() for t in local.stdout.splitlines() if t.strip())
    remote = _git(["ls-remote", "--tags", "--refs", "origin", f"refs/tags/{pattern}"], repo, check=False)
    for line in remote.stdout.splitlines():
        ref = line.split("\t")[-1].strip()
        if ref.startswith("refs/tags/"):
            tags.add(ref[len("refs/tags/") :])
    # A release is a tag whose version part is numbers only: v1.2.0 or release-1.2.0, not v1.3.0-rc1.
    releases = [t for t in tags if re.match(r"^\D*\d+(\.\d+)*$", t)]
    return sorted(releases, key=lambda t: ([int(n) for n in re.findall(r"\d+", t)], t))


def analyse_drift(cartograph):
    repo = runner.workspace()
    if _git(["rev-parse", "--git-dir"], repo, check=False).returncode != 0:
        raise ActionError("the working directory is not a git checkout: run actions/checkout first")
    head = _git(["rev-parse", "HEAD"], repo).stdout.strip()
    baseline = runner.get("baseline", "latest-tag")
    if baseline == "latest-tag":
        tags = _release_tags(repo, runner.get("tag-pattern", "v*"))
        if not tags:
            runner.annotate("notice", "drift: no release tag yet, so there is no baseline to compare with")
            return {"mode": "drift", "skipped": "no release tag", "head": head, "gate": False}
        tag = tags[-1]
        if not _has_commit(repo, f"refs/tags/{tag}"):
            _git(["fetch", "--no-tags", "--quiet", "--depth=1", "origin", f"+refs/tags/{tag}:refs/tags/{tag}"], repo)
        base, label = f"rev:refs/tags/{tag}", tag
    elif baseline.startswith("snapshot:"):
        path = baseline[len("snapshot:") :]
        if os.path.isabs(path) or ".." in path.replace("\\", "/").split("/"):
            raise ActionError("a snapshot baseline must be a path inside the repository")
        if not os.path.isfile(os.path.join(repo, path)):
            raise ActionError(f"snapshot baseline {path} is not in the checkout")
        base, label = f"snapshot:{path}", path
    else:
        rev = baseline[len("rev:") :] if baseline.startswith("rev:") else baseline
        if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], repo, check=False).returncode != 0:
            _git(["fetch", "--no-tags", "--quiet", "--depth=1", "origin", rev], repo, check=False)
            if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], repo, check=False).returncode != 0:
                rev = "FETCH_HEAD"
        resolved = _git(["rev-parse", "--verify", f"{rev}^{{commit}}"], repo).stdout.strip()
        base, label = f"rev:{resolved}", baseline[len("rev:") :] if baseline.startswith("rev:") else baseline
    gate = run_diff(cartograph, repo, base, f"rev:{head}", runner.get("fail-on"))
    return {"mode": "drift", "baseline": label, "head": head, "gate": gate}


def _digits(text, limit=10):
    digits = "".join(ch for ch in text if ch.isdigit())[:limit]
    return int(digits) if digits else 0


def analyse_post(token):
    """Reads a downloaded report artifact and checks it belongs to an open PR at the run's head."""
    source = runner.get("report-dir")
    if not source:
        raise ActionError("mode `post` needs `report-dir`, the folder the report artifact was downloaded to")
    source = os.path.join(runner.workspace(), source) if not os.path.isabs(source) else source
    markdown_path = os.path.join(source, "report.md")
    if not os.path.isfile(markdown_path):
        runner.annotate("notice", "no report in the downloaded artifact; nothing to post")
        return {"mode": "post", "skipped": "no report", "gate": False}
    event = runner.event()
    run = event.get("workflow_run") or {}
    expected = runner.get("head-sha") or run.get("head_sha", "")
    if not _SHA.match(expected or ""):
        raise ActionError("mode `post` needs the triggering run's head SHA (workflow_run event or `head-sha`)")
    if run and run.get("event") not in (None, "pull_request"):
        raise ActionError("the triggering run was not a pull_request run")
    number_text = runner.get("pr-number")
    if not number_text:
        number_file = os.path.join(source, "pr-number")
        if os.path.isfile(number_file):
            with open(number_file, encoding="utf-8", errors="replace") as handle:
                number_text = handle.read(64)
    number = _digits(number_text)
    if number <= 0:
        raise ActionError("the report artifact names no pull request number")
    api = GitHub(token)
    repo_name = os.environ.get("GITHUB_REPOSITORY", "")
    try:
        pr = api.get(f"/repos/{repo_name}/pulls/{number}") or {}
    except ApiError as error:
        raise ActionError(f"pull request #{number} could not be read ({error.status})") from None
    actual = ((pr.get("head") or {}).get("sha") or "").lower()
    if actual != expected.lower():
        raise ActionError(f"pull request #{number} is not at the head the report was made for; not posting it")
    out = report_dir()
    with open(markdown_path, "rb") as handle:
        raw = handle.read(_UNTRUSTED_MD_CAP)
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as handle:
        handle.write(raw.decode("utf-8", errors="replace"))
    json_path = os.path.join(source, "report.json")
    if os.path.isfile(json_path) and os.path.getsize(json_path) <= 64 * 1024 * 1024:
        shutil.copyfile(json_path, os.path.join(out, "report.json"))
    base_sha = ((pr.get("base") or {}).get("sha") or "")[:40]
    return {
        "mode": "post",
        "pr": number,
        "fork": False,
        "base": base_sha if _SHA.match(base_sha) else "",
        "head": expected.lower(),
        "gate": False,
        "source_run_url": run.get("html_url", "") if str(run.get("html_url", "")).startswith("https://") else "",
    }


def rule_violations(json_path):
    """The number of rule-violation findings of a diff document (a number only, even from an
    artifact); 0 when there is none or no document."""
    try:
        with open(json_path, encoding="utf-8") as handle:
            by_kind = (json.load(handle).get("summary") or {}).get("findings_by_kind") or {}
    except (OSError, ValueError, AttributeError):
        return 0
    value = by_kind.get("rule-violation", 0) if isinstance(by_kind, dict) else 0
    return value if isinstance(value, int) and value >= 0 else 0


def counts(json_path):
    """Finding counts by severity from a diff document (numbers only, even from an artifact)."""
    result = {"high": 0, "medium": 0, "low": 0, "info": 0}
    changes = 0
    try:
        with open(json_path, encoding="utf-8") as handle:
            summary = json.load(handle).get("summary") or {}
    except (OSError, ValueError, AttributeError):
        return result, None
    by_severity = summary.get("findings_by_severity") or {}
    for key in result:
        value = by_severity.get(key, 0)
        result[key] = value if isinstance(value, int) and value >= 0 else 0
    for key in ("nodes_added", "nodes_removed", "nodes_changed", "edges_added", "edges_removed", "edges_changed"):
        value = summary.get(key, 0)
        changes += value if isinstance(value, int) and value >= 0 else 0
    return result, changes
