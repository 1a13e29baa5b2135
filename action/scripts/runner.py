"""What the GitHub Actions runner gives a step, and how a step answers it.

Inputs arrive as CARTOGRAPH_* environment variables (action.yml maps each input there through
`env:`, never into a script). Outputs go to the file named by GITHUB_OUTPUT, the job summary to
GITHUB_STEP_SUMMARY, annotations to stdout as workflow commands. Subprocesses get a scrubbed
environment: no token, no API key, unless a call site hands one over on purpose.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid

# Windows looks for an executable in the current directory before PATH; the current directory
# is the analysed repository, so switch that lookup off before resolving any program.
os.environ["NoDefaultCurrentDirectoryInExePath"] = "1"

# Variables no subprocess of ours ever needs to see.
_SECRET_VARIABLES = ("CARTOGRAPH_GITHUB_TOKEN", "CARTOGRAPH_ASK_API_KEY", "GITHUB_TOKEN", "GH_TOKEN")


class ActionError(Exception):
    """A failure the user must act on; its message is one sentence with no path or secret."""


def get(name, default=""):
    """An input passed through env (CARTOGRAPH_<NAME>), stripped; `default` when unset or empty."""
    value = os.environ.get("CARTOGRAPH_" + name.upper().replace("-", "_"), "")
    value = value.strip()
    return value if value else default


def flag(name, default):
    """A boolean input: true/false (yes/no, 1/0 accepted)."""
    value = get(name, "true" if default else "false").lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise ActionError(f"input `{name}` must be true or false")


def runner_temp():
    base = os.environ.get("RUNNER_TEMP") or os.path.join(os.getcwd(), ".cartograph-tmp")
    path = os.path.join(base, "cartograph-action")
    os.makedirs(path, exist_ok=True)
    return path


def workspace():
    root = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
    sub = get("working-directory", ".")
    return os.path.normpath(os.path.join(root, sub))


def event():
    path = os.environ.get("GITHUB_EVENT_PATH", "")
    if not path or not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def run_url():
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    if not repo or not run_id:
        return ""
    return f"{server}/{repo}/actions/runs/{run_id}"


def set_output(name, value):
    """Appends one output; multi-line values use the heredoc form with a random delimiter."""
    path = os.environ.get("GITHUB_OUTPUT")
    value = "" if value is None else str(value)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        if "\n" in value:
            delimiter = "ghadelimiter_" + uuid.uuid4().hex
            handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            handle.write(f"{name}={value}\n")


def add_path(directory):
    path = os.environ.get("GITHUB_PATH")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(directory + "\n")


def _command_escape(text):
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def annotate(level, message):
    """Writes an ::error::/::warning::/::notice:: line (shown on the run page)."""
    print(f"::{level} title=Cartograph::{_command_escape(message)}", flush=True)


def log(message):
    print(f"cartograph-action: {message}", flush=True)


def scrubbed_env(extra=None):
    env = {k: v for k, v in os.environ.items() if k not in _SECRET_VARIABLES}
    env.update(extra or {})
    return env


def which(program):
    found = shutil.which(program)
    if not found:
        raise ActionError(f"`{program}` is not on PATH")
    return found


def run(argv, cwd=None, env=None, check=True, capture=True):
    """Runs a program by absolute path; stdout/stderr captured unless `capture` is False."""
    argv = [which(argv[0]) if not os.path.isabs(argv[0]) else argv[0]] + list(argv[1:])
    completed = subprocess.run(
        argv,
        cwd=cwd,
        env=env if env is not None else scrubbed_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE if capture else None,
        text=True,
        encoding="utf-8",
        errors="replace",
        check=False,
    )
    if check and completed.returncode != 0:
        name = os.path.basename(argv[0])
        detail = (completed.stderr or "").strip().splitlines()
        tail = f": {redact_paths(detail[-1])}" if detail else ""
        raise ActionError(f"`{name} {argv[1] if len(argv) > 1 else ''}` failed{tail}")
    return completed


def redact_paths(text):
    """Replaces the runner's absolute roots in a message with short names."""
    roots = [
        (os.environ.get("GITHUB_WORKSPACE", ""), "<workspace>"),
        (os.environ.get("RUNNER_TEMP", ""), "<runner-temp>"),
        (os.environ.get("GITHUB_ACTION_PATH", ""), "<action>"),
        (os.environ.get("HOME", ""), "~"),
    ]
    for root, name in sorted(roots, key=lambda pair: -len(pair[0])):
        if len(root) > 1:
            text = text.replace(root, name)
    return text


def fail(message, code=2):
    annotate("error", message)
    sys.exit(code)
