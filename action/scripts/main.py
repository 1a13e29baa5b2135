"""Entry point of the Cartograph GitHub Action's steps: `main.py install|analyse|publish|gate`.

action.yml runs these four stages in order (with actions/upload-artifact between analyse and
publish). Inputs come through CARTOGRAPH_* environment variables; stages hand state to each other
through a JSON file in $RUNNER_TEMP. Exit codes: 0 done, 1 the `fail-on` gate was met (gate stage
only), 2 an error the workflow author must fix. In `mode: install` only the install stage works
(the binary for a job's own `cartograph` commands, as in examples/architecture-shards.yml); the
others say so in one log line each.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import analyse  # noqa: E402
import install  # noqa: E402
import publish  # noqa: E402
import runner  # noqa: E402
from runner import ActionError  # noqa: E402

_MODES = ("auto", "pr", "post", "drift", "install")
_AUTO = {"pull_request": "pr", "workflow_run": "post", "schedule": "drift", "workflow_dispatch": "drift"}


def mode():
    requested = runner.get("mode", "auto")
    if requested not in _MODES:
        raise ActionError(f"input `mode` must be one of {', '.join(_MODES)}")
    if requested != "auto":
        return requested
    event_name = os.environ.get("GITHUB_EVENT_NAME", "")
    if event_name not in _AUTO:
        raise ActionError(f"`mode: auto` does not know the {event_name or 'unnamed'} event; set `mode` to pr, post, drift or install")
    return _AUTO[event_name]


def _state_path():
    return os.path.join(runner.runner_temp(), "state.json")


def stage_install():
    current = mode()
    if current == "post":
        runner.log("mode post: no binary needed")
        return
    # In install mode the workflow runs cartograph itself and keeps its own --cache: no fact
    # cache directory, so the action's restore and save steps are skipped.
    install.install(fact_cache=current != "install")


def stage_analyse():
    current = mode()
    if current == "install":
        runner.set_output("upload", "false")
        runner.set_output("cache-save", "false")
        runner.log("mode install: no analysis; the `cartograph` output names the installed binary (also on PATH)")
        return
    cartograph = os.environ.get("CARTOGRAPH_BIN", "")
    if current != "post" and not (cartograph and os.path.isfile(cartograph)):
        raise ActionError("the cartograph binary was not installed")
    out = analyse.report_dir()
    for name in ("report.json", "report.md", "pr-number"):
        if os.path.exists(os.path.join(out, name)):
            os.remove(os.path.join(out, name))
    analyse.reset_cache_stats()
    if current == "pr":
        state = analyse.analyse_pr(cartograph, os.environ.get("CARTOGRAPH_ASK_BIN", ""))
    elif current == "drift":
        state = analyse.analyse_drift(cartograph)
    else:
        state = analyse.analyse_post(runner.get("github-token"))
    with open(_state_path(), "w", encoding="utf-8") as handle:
        json.dump(state, handle)
    json_path = os.path.join(out, "report.json")
    md_path = os.path.join(out, "report.md")
    by_severity, changes = analyse.counts(json_path)
    for severity, count in by_severity.items():
        runner.set_output(severity, count)
    runner.set_output("findings", sum(by_severity.values()))
    runner.set_output("rule-violations", analyse.rule_violations(json_path))
    sarif = analyse.sarif_path() if current != "post" else None
    runner.set_output("sarif-path", sarif if sarif and os.path.isfile(sarif) else "")
    runner.set_output("changes", changes if changes is not None else 0)
    runner.set_output("json-path", json_path if os.path.isfile(json_path) else "")
    runner.set_output("markdown-path", md_path if os.path.isfile(md_path) else "")
    runner.set_output("report-dir", out)
    runner.set_output("gate", "met" if state.get("gate") else "not-met")
    upload = current in ("pr", "drift") and not state.get("skipped") and runner.flag("upload-artifact", True)
    runner.set_output("upload", "true" if upload else "false")
    runner.set_output("artifact-name", runner.get("artifact-name", "cartograph-report"))
    report_cache()


def _count(number, one, many=None):
    return f"{number} {one if number == 1 else (many or one + 's')}"


def report_cache():
    """The fact cache's outputs and log line, and whether the save step has anything to save:
    only when this run wrote, evicted or replaced entries (a restored cache that answered every
    lookup is left as it is, and so is one no analysis ran with, as in a skipped drift run)."""
    stats = analyse.cache_stats() if os.environ.get("CARTOGRAPH_CACHE_DIR", "").strip() else {}
    if not stats:
        runner.set_output("cache-hits", "")
        runner.set_output("cache-misses", "")
        runner.set_output("cache-save", "false")
        return
    restored = os.environ.get("CARTOGRAPH_CACHE_RESTORED_KEY", "").strip()
    changed = stats["writes"] + stats["evicted"] + stats["corrupt"] > 0
    runner.set_output("cache-hits", stats["hits"])
    runner.set_output("cache-misses", stats["misses"])
    runner.set_output("cache-save", "true" if changed else "false")
    runner.log(
        f"fact cache: {_count(stats['hits'], 'hit')} ({stats['disk_hits']} from earlier runs), {_count(stats['misses'], 'miss', 'misses')}, "
        f"{stats['writes']} written, {stats['evicted']} evicted, {stats['corrupt']} damaged; "
        + (f"restored from {restored}" if restored else "nothing restored")
        + ("" if changed else "; nothing new to save")
    )


def stage_publish():
    if mode() == "install":
        runner.log("mode install: nothing to publish")
        return
    with open(_state_path(), encoding="utf-8") as handle:
        state = json.load(handle)
    if state.get("skipped"):
        return
    out = analyse.report_dir()
    with open(os.path.join(out, "report.md"), encoding="utf-8", errors="replace") as handle:
        report = handle.read()
    if state["mode"] == "drift":
        by_severity, changes = analyse.counts(os.path.join(out, "report.json"))
        empty = sum(by_severity.values()) == 0 and changes == 0
        publish.publish_drift(state, report, empty)
    else:
        publish.publish_comment(state, report)


def stage_gate():
    if runner.get("mode", "auto") == "install":
        runner.log("mode install: no findings to gate")
        return 0
    path = _state_path()
    if not os.path.isfile(path):
        return 0
    with open(path, encoding="utf-8") as handle:
        state = json.load(handle)
    fail_on = runner.get("fail-on")
    if state.get("gate"):
        runner.annotate("error", f"findings of a `fail-on` kind ({fail_on}) are present; see the report")
        return 1
    return 0


def main(argv):
    stages = {"install": stage_install, "analyse": stage_analyse, "publish": stage_publish, "gate": stage_gate}
    if len(argv) != 2 or argv[1] not in stages:
        print("usage: main.py install|analyse|publish|gate", file=sys.stderr)
        return 2
    # Children get a scrubbed environment (runner.scrubbed_env): the token and the API key reach
    # no program but the one that needs it, and action.yml gives the key to the analyse stage only.
    try:
        return stages[argv[1]]() or 0
    except ActionError as error:
        runner.annotate("error", runner.redact_paths(str(error)))
        return 2
    except Exception as error:  # noqa: BLE001 - one clear line instead of a traceback
        if os.environ.get("RUNNER_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        runner.annotate("error", runner.redact_paths(f"the {argv[1]} step failed unexpectedly ({type(error).__name__}: {error}); re-run with debug logging for details"))
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
