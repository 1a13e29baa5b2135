"""Runs a composite action's steps (and a workflow job's) the way the GitHub runner does, for the
harness.

It reads action.yml (parsed to JSON by lint.mjs), evaluates the `${{ }}` expressions it uses
(inputs, github, runner, steps, env contexts; ==, !=, &&, ||, !, always/success/failure), runs each
`run:` step with `bash --noprofile --norc -eo pipefail` and the environment a runner gives a step
(GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH, GITHUB_EVENT_PATH, GITHUB_ACTION_PATH, RUNNER_*,
...), and records `uses:` steps instead of running them (a test may give their outputs, or a
handler that plays the action: fake_actions_cache.py plays actions/cache's restore and save).
run_job does the same for one job of a workflow (one matrix cell), with the matrix and needs
contexts, job and workflow `env:`, and every `uses:` step played by a handler.
"""

import json
import os
import re
import subprocess
import tempfile
import time
import uuid

_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_TOKEN = re.compile(r"\s*(?:(==|!=|&&|\|\||[!(),\[\]])|'((?:[^']|'')*)'|([A-Za-z_][A-Za-z0-9_.\-]*(?:\[\*\])?)|(\d+(?:\.\d+)?))")


class Expression:
    """A small evaluator for the subset of the Actions expression language the action uses."""

    def __init__(self, text, context):
        self.tokens = self._tokenise(text)
        self.position = 0
        self.context = context

    @staticmethod
    def _tokenise(text):
        tokens, index = [], 0
        text = text.strip()
        while index < len(text):
            match = _TOKEN.match(text, index)
            if not match or match.end() == index:
                raise ValueError(f"cannot parse expression near {text[index:index + 20]!r}")
            op, string, name, number = match.groups()
            if op:
                tokens.append(("op", op))
            elif string is not None:
                tokens.append(("str", string.replace("''", "'")))
            elif name:
                tokens.append(("name", name))
            else:
                tokens.append(("num", float(number)))
            index = match.end()
        return tokens

    def _peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else (None, None)

    def _take(self):
        token = self._peek()
        self.position += 1
        return token

    def evaluate(self):
        value = self._or()
        if self.position != len(self.tokens):
            raise ValueError("trailing tokens in expression")
        return value

    def _or(self):
        value = self._and()
        while self._peek() == ("op", "||"):
            self._take()
            right = self._and()
            value = value if truthy(value) else right
        return value

    def _and(self):
        value = self._unary()
        while self._peek() == ("op", "&&"):
            self._take()
            right = self._unary()
            value = right if truthy(value) else value
        return value

    def _unary(self):
        if self._peek() == ("op", "!"):
            self._take()
            return not truthy(self._unary())
        return self._comparison()

    def _comparison(self):
        left = self._primary()
        kind, op = self._peek()
        if kind == "op" and op in ("==", "!="):
            self._take()
            right = self._primary()
            equal = _loose(left) == _loose(right)
            return equal if op == "==" else not equal
        return left

    def _primary(self):
        kind, value = self._take()
        if kind == "op" and value == "(":
            inner = self._or()
            self._take()
            return inner
        if kind in ("str", "num"):
            return value
        if kind == "name":
            if value in ("true", "false"):
                return value == "true"
            if value == "null":
                return None
            if self._peek() == ("op", "("):
                self._take()
                self._take()  # the functions used take no arguments
                return self.context["functions"][value]()
            current = self.context
            for part in value.split("."):
                current = current.get(part) if isinstance(current, dict) else None
            while self._peek() == ("op", "["):  # an index: needs.revisions.outputs[matrix.side]
                self._take()
                index = self._or()
                if self._take() != ("op", "]"):
                    raise ValueError("expected ] after an index")
                current = current.get(to_text(index)) if isinstance(current, dict) else None
            return current
        raise ValueError(f"unexpected token {value!r}")


def truthy(value):
    return value not in (None, False, "", 0, 0.0)


def _loose(value):
    if isinstance(value, str):
        return value.lower()
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def to_text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def interpolate(text, context):
    if not isinstance(text, str):
        return text
    return _EXPR.sub(lambda m: to_text(Expression(m.group(1), context).evaluate()), text)


def parse_outputs(path):
    outputs = {}
    if not os.path.isfile(path):
        return outputs
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            index += 1
            while index < len(lines) and lines[index] != delimiter:
                value.append(lines[index])
                index += 1
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        index += 1
    return outputs


class Result:
    def __init__(self):
        self.success = True
        self.outputs = {}
        self.summary = ""
        self.annotations = []  # (level, message)
        self.uses = []  # {"id", "uses", "with", "ran"}
        self.steps = []  # {"id", "name", "status", "stdout", "stderr", "exit"}
        self.step_outputs = {}

    def errors(self):
        return [message for level, message in self.annotations if level == "error"]


def run_action(action, *, action_path, workspace, event_name, event, inputs, env, uses_outputs=None, uses_handlers=None, runner_temp=None):
    """Runs the composite `action` (a dict) and returns a Result. A `uses:` step is recorded; its
    outputs are `uses_outputs[name]`, or what `uses_handlers[name](with_values)` returns (name: the
    `uses:` value before `@`)."""
    uses_outputs = uses_outputs or {}
    uses_handlers = uses_handlers or {}
    runner_temp = runner_temp or tempfile.mkdtemp(prefix="runner-temp-")
    os.makedirs(runner_temp, exist_ok=True)
    files = tempfile.mkdtemp(prefix="runner-files-", dir=runner_temp)
    event_path = os.path.join(files, "event.json")
    with open(event_path, "w", encoding="utf-8") as handle:
        json.dump(event, handle)
    result = Result()
    job_env = dict(env)
    job_env.update(
        {
            "GITHUB_ACTIONS": "true",
            "CI": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": event_path,
            "GITHUB_WORKSPACE": workspace,
            "GITHUB_ACTION_PATH": action_path,
            "RUNNER_TEMP": runner_temp,
        }
    )
    job_env.setdefault("RUNNER_OS", "Linux")
    job_env.setdefault("RUNNER_ARCH", "X64")
    token = inputs.get("github-token") or job_env.pop("HARNESS_GITHUB_TOKEN", "")
    github = {
        "token": token,
        "action_path": action_path,
        "event_name": event_name,
        "event": event,
        "workspace": workspace,
        "repository": job_env.get("GITHUB_REPOSITORY", ""),
        "run_id": job_env.get("GITHUB_RUN_ID", ""),
        "run_attempt": job_env.get("GITHUB_RUN_ATTEMPT", ""),
        "job": job_env.get("GITHUB_JOB", ""),
        "server_url": job_env.get("GITHUB_SERVER_URL", ""),
        "api_url": job_env.get("GITHUB_API_URL", ""),
    }
    steps_context = {}
    state = {"failed": False}
    context = {
        "github": github,
        "runner": {"os": job_env["RUNNER_OS"], "arch": job_env["RUNNER_ARCH"], "temp": runner_temp},
        "steps": steps_context,
        "env": job_env,
        "functions": {
            "always": lambda: True,
            "success": lambda: not state["failed"],
            "failure": lambda: state["failed"],
            "cancelled": lambda: False,
        },
    }
    # Inputs: declared defaults (expressions evaluated), then the caller's `with:`.
    resolved = {}
    for name, spec in (action.get("inputs") or {}).items():
        default = (spec or {}).get("default", "")
        resolved[name] = interpolate(to_text(default), context)
    for name, value in inputs.items():
        if name not in (action.get("inputs") or {}):
            raise ValueError(f"`with:` names {name}, which action.yml does not declare")
        resolved[name] = to_text(value)
    context["inputs"] = resolved
    path_additions = []
    summary_parts = []
    for index, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id") or f"__step{index}"
        condition = step.get("if", "success()")
        condition = _EXPR.sub(lambda m: m.group(1), str(condition))
        if not re.search(r"\b(always|success|failure|cancelled)\(", condition):
            condition = f"success() && ({condition})"
        if not truthy(Expression(condition, context).evaluate()):
            steps_context[step_id] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
            result.steps.append({"id": step_id, "name": step.get("name"), "status": "skipped"})
            continue
        if "uses" in step:
            with_values = {k: interpolate(to_text(v), context) for k, v in (step.get("with") or {}).items()}
            name = step["uses"].split("@")[0]
            outputs = dict(uses_outputs.get(name, {}))
            if name in uses_handlers:
                outputs.update(uses_handlers[name](with_values) or {})
            result.uses.append({"id": step_id, "uses": step["uses"], "with": with_values})
            steps_context[step_id] = {"outputs": outputs, "outcome": "success", "conclusion": "success"}
            result.steps.append({"id": step_id, "name": step.get("name"), "status": "recorded"})
            continue
        step_env = dict(job_env)
        if path_additions:
            step_env["PATH"] = os.pathsep.join(reversed(path_additions)) + os.pathsep + job_env.get("PATH", "")
        for key, value in (step.get("env") or {}).items():
            step_env[key] = interpolate(to_text(value), context)
        output_file = os.path.join(files, f"output-{uuid.uuid4().hex}")
        summary_file = os.path.join(files, f"summary-{uuid.uuid4().hex}")
        path_file = os.path.join(files, f"path-{uuid.uuid4().hex}")
        env_file = os.path.join(files, f"env-{uuid.uuid4().hex}")
        for name in (output_file, summary_file, path_file, env_file):
            open(name, "w").close()
        step_env.update({"GITHUB_OUTPUT": output_file, "GITHUB_STEP_SUMMARY": summary_file, "GITHUB_PATH": path_file, "GITHUB_ENV": env_file})
        script = os.path.join(files, f"step-{index}.sh")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(step["run"])
        if step.get("shell") != "bash":
            raise ValueError(f"step {step_id}: the harness runs bash steps only")
        cwd = os.path.join(workspace, interpolate(step.get("working-directory", "."), context))
        started = time.monotonic()
        completed = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
            cwd=cwd,
            env=step_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )
        for line in completed.stdout.splitlines():
            match = re.match(r"^::(error|warning|notice)[^:]*::(.*)$", line)
            if match:
                result.annotations.append((match.group(1), match.group(2).replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")))
        outputs = parse_outputs(output_file)
        with open(summary_file, encoding="utf-8") as handle:
            summary_parts.append(handle.read())
        with open(path_file, encoding="utf-8") as handle:
            path_additions.extend(line.strip() for line in handle if line.strip())
        status = "success" if completed.returncode == 0 else "failure"
        steps_context[step_id] = {"outputs": outputs, "outcome": status, "conclusion": status}
        result.steps.append({"id": step_id, "name": step.get("name"), "status": status, "exit": completed.returncode, "stdout": completed.stdout, "stderr": completed.stderr, "seconds": time.monotonic() - started})
        result.step_outputs[step_id] = outputs
        if completed.returncode != 0:
            state["failed"] = True
            result.success = False
    result.summary = "".join(summary_parts)
    for name, spec in (action.get("outputs") or {}).items():
        result.outputs[name] = interpolate(spec.get("value", ""), context)
    return result


def _run_bash(script_text, *, files, index, cwd, env, result, bash):
    """Runs one `run:` script like the runner (`bash` is its command line, the GITHUB_* files); returns
    (exit code, outputs, summary, PATH additions) and records the step in `result`."""
    output_file = os.path.join(files, f"output-{uuid.uuid4().hex}")
    summary_file = os.path.join(files, f"summary-{uuid.uuid4().hex}")
    path_file = os.path.join(files, f"path-{uuid.uuid4().hex}")
    env_file = os.path.join(files, f"env-{uuid.uuid4().hex}")
    for name in (output_file, summary_file, path_file, env_file):
        open(name, "w").close()
    env = dict(env, GITHUB_OUTPUT=output_file, GITHUB_STEP_SUMMARY=summary_file, GITHUB_PATH=path_file, GITHUB_ENV=env_file)
    script = os.path.join(files, f"step-{index}.sh")
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(script_text)
    completed = subprocess.run(
        [*bash, script], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600,
    )
    for line in completed.stdout.splitlines():
        match = re.match(r"^::(error|warning|notice)[^:]*::(.*)$", line)
        if match:
            result.annotations.append((match.group(1), match.group(2)))
    with open(summary_file, encoding="utf-8") as handle:
        summary = handle.read()
    with open(path_file, encoding="utf-8") as handle:
        additions = [line.strip() for line in handle if line.strip()]
    return completed, parse_outputs(output_file), summary, additions


def run_job(workflow, job_name, *, workspace, runner_temp, env, github, matrix=None, needs=None, handlers=None):
    """Runs one job of a parsed workflow (one matrix cell: `matrix` gives its values) and returns a
    Result whose `outputs` are the job's outputs. Every `run:` step runs with bash; every `uses:`
    step is played by `handlers[name](with_values, context)` (name: the `uses:` value before `@`),
    which returns the step's outputs; a `uses:` with no handler is an error."""
    job = workflow["jobs"][job_name]
    handlers = handlers or {}
    os.makedirs(runner_temp, exist_ok=True)
    files = tempfile.mkdtemp(prefix="runner-files-", dir=runner_temp)
    result = Result()
    state = {"failed": False}
    steps_context = {}
    job_env = dict(env)
    job_env.update({"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_WORKSPACE": workspace, "RUNNER_TEMP": runner_temp})
    job_env.setdefault("RUNNER_OS", "Linux")
    job_env.setdefault("RUNNER_ARCH", "X64")
    context = {
        "github": dict(github, workspace=workspace),
        "runner": {"os": job_env["RUNNER_OS"], "arch": job_env["RUNNER_ARCH"], "temp": runner_temp},
        "matrix": dict(matrix or {}),
        "needs": dict(needs or {}),
        "steps": steps_context,
        "env": {},
        "functions": {
            "always": lambda: True,
            "success": lambda: not state["failed"],
            "failure": lambda: state["failed"],
            "cancelled": lambda: False,
        },
    }
    # Workflow `env:`, then the job's: each may use the contexts evaluated so far.
    for scope in (workflow.get("env") or {}, job.get("env") or {}):
        for key, value in scope.items():
            context["env"][key] = interpolate(to_text(value), context)
    path_additions = []
    summary_parts = []
    for index, step in enumerate(job.get("steps") or []):
        step_id = step.get("id") or f"__step{index}"
        condition = _EXPR.sub(lambda m: m.group(1), str(step.get("if", "success()")))
        if not re.search(r"\b(always|success|failure|cancelled)\(", condition):
            condition = f"success() && ({condition})"
        if not truthy(Expression(condition, context).evaluate()):
            steps_context[step_id] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
            result.steps.append({"id": step_id, "name": step.get("name"), "status": "skipped"})
            continue
        step_env = {key: interpolate(to_text(value), context) for key, value in (step.get("env") or {}).items()}
        if "uses" in step:
            name = step["uses"].split("@")[0]
            if name not in handlers:
                raise ValueError(f"job {job_name}: no handler plays {step['uses']}")
            with_values = {k: interpolate(to_text(v), dict(context, env=dict(context["env"], **step_env))) for k, v in (step.get("with") or {}).items()}
            outputs = handlers[name](with_values, context) or {}
            result.uses.append({"id": step_id, "uses": step["uses"], "with": with_values})
            steps_context[step_id] = {"outputs": outputs, "outcome": "success", "conclusion": "success"}
            result.steps.append({"id": step_id, "name": step.get("name"), "status": "recorded"})
            result.step_outputs[step_id] = outputs
            continue
        # The runner's default shell on Linux is `bash -e {0}`; `shell: bash` adds pipefail.
        shell = step.get("shell") or (job.get("defaults") or {}).get("run", {}).get("shell") or (workflow.get("defaults") or {}).get("run", {}).get("shell")
        if shell not in (None, "bash"):
            raise ValueError(f"job {job_name}, step {step_id}: the harness runs bash steps only")
        bash = ["bash", "-e"] if shell is None else ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
        run_env = dict(job_env, **context["env"], **step_env)
        if path_additions:
            run_env["PATH"] = os.pathsep.join(reversed(path_additions)) + os.pathsep + job_env.get("PATH", "")
        completed, outputs, summary, additions = _run_bash(
            step["run"], files=files, index=index, env=run_env, result=result, bash=bash,
            cwd=os.path.join(workspace, interpolate(step.get("working-directory", "."), context)),
        )
        summary_parts.append(summary)
        path_additions.extend(additions)
        status = "success" if completed.returncode == 0 else "failure"
        steps_context[step_id] = {"outputs": outputs, "outcome": status, "conclusion": status}
        result.steps.append({"id": step_id, "name": step.get("name"), "status": status, "exit": completed.returncode, "stdout": completed.stdout, "stderr": completed.stderr})
        result.step_outputs[step_id] = outputs
        if completed.returncode != 0:
            state["failed"] = True
            result.success = False
    result.summary = "".join(summary_parts)
    for name, value in (job.get("outputs") or {}).items():
        result.outputs[name] = interpolate(to_text(value), context)
    return result
