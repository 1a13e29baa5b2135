"""Structural checks of action/action.yml, which actionlint does not lint.

- composite; every `run:` step sets `shell:` and holds no `${{ }}` (inputs reach scripts via env);
- `${{ inputs.X }}` appears only in a step's `env:` values (or an `if:` condition), and X is
  declared; every declared input is used; every input has a description and a string default;
- `${{ steps.ID.outputs.Y }}` names an earlier step with that id; action outputs name steps that
  exist; every `uses:` is pinned to a full commit SHA, and the actions of one repository (such as
  actions/cache/restore and actions/cache/save) to one commit;
- every CARTOGRAPH_* variable a script reads (runner.get / flag) is set on the step that runs it;
- every output has a description; the `mode` input's description names every mode main.py accepts,
  and every stage step is given the mode (each stage decides by it).

Usage: python3 check_action.py ACTION_JSON (the output of `node lint.mjs json action.yml`).
"""

import json
import os
import re
import sys

_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_INPUT = re.compile(r"\binputs\.([A-Za-z0-9_-]+)")
_STEP = re.compile(r"\bsteps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)")
_SHA_PIN = re.compile(r"^[^@\s]+@[0-9a-f]{40}$")


def _strings(value, where):
    """Yields (where, string) for every string inside `value`."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def _script_inputs(scripts_dir):
    """The input names the scripts read through runner.get()/runner.flag()."""
    names = set()
    for name in os.listdir(scripts_dir):
        if name.endswith(".py"):
            with open(os.path.join(scripts_dir, name), encoding="utf-8") as handle:
                names.update(re.findall(r'runner\.(?:get|flag)\("([a-z0-9-]+)"', handle.read()))
    return names


def _script_modes(scripts_dir):
    """The modes main.py accepts (its `_MODES` tuple)."""
    with open(os.path.join(scripts_dir, "main.py"), encoding="utf-8") as handle:
        found = re.search(r"^_MODES = \(([^)]*)\)", handle.read(), re.M)
    return re.findall(r'"([a-z-]+)"', found.group(1)) if found else []


def check(action, scripts_dir=None):
    problems = []
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        problems.append("runs.using must be composite")
    declared = action.get("inputs") or {}
    for name, spec in declared.items():
        if not (spec or {}).get("description"):
            problems.append(f"input {name} has no description")
        if not isinstance((spec or {}).get("default", ""), str):
            problems.append(f"input {name}: the default must be a string")
    used = set()
    step_ids = []
    env_by_step = {}
    pins = {}  # owner/repo -> {commit}
    for index, step in enumerate(runs.get("steps") or []):
        label = step.get("id") or f"step {index + 1}"
        if "run" in step:
            if not step.get("shell"):
                problems.append(f"{label}: a run step must set shell")
            if "${{" in step["run"]:
                problems.append(f"{label}: `${{{{ }}}}` inside run: (pass it through env:)")
            env_by_step[label] = (step["run"], set((step.get("env") or {}).keys()))
        elif "uses" in step:
            if not _SHA_PIN.match(step["uses"]) and not step["uses"].startswith("./"):
                problems.append(f"{label}: uses {step['uses']} is not pinned to a full commit SHA")
            elif _SHA_PIN.match(step["uses"]):
                name, commit = step["uses"].split("@")
                pins.setdefault("/".join(name.split("/")[:2]), set()).add(commit)
        else:
            problems.append(f"{label}: neither run nor uses")
        for where, text in _strings(step, label):
            in_env = ".env." in where + "."
            in_if = where == f"{label}.if"
            expressions = _EXPR.findall(text) if not in_if else [text]
            for expression in expressions:
                for name in _INPUT.findall(expression):
                    used.add(name)
                    if name not in declared:
                        problems.append(f"{where}: inputs.{name} is not declared")
                    if not (in_env or in_if):
                        problems.append(f"{where}: inputs.{name} used outside env:/if:")
                for step_id, _ in _STEP.findall(expression):
                    if step_id not in step_ids:
                        problems.append(f"{where}: steps.{step_id} is not an earlier step")
        if step.get("id"):
            step_ids.append(step["id"])
    for repository, commits in sorted(pins.items()):
        if len(commits) > 1:
            problems.append(f"the actions of {repository} are pinned to {len(commits)} different commits")
    for name in declared:
        if name not in used:
            problems.append(f"input {name} is declared but never used")
    for name, spec in (action.get("outputs") or {}).items():
        if not (spec or {}).get("description"):
            problems.append(f"output {name} has no description")
        for step_id, _ in _STEP.findall((spec or {}).get("value", "")):
            if step_id not in step_ids:
                problems.append(f"output {name} names a missing step {step_id}")
    if scripts_dir:
        modes = _script_modes(scripts_dir)
        if not modes:
            problems.append("main.py declares no _MODES")
        described = ((declared.get("mode") or {}).get("description") or "")
        for name in modes:
            if f"`{name}`" not in described:
                problems.append(f"the mode input's description does not name mode `{name}`")
        read = _script_inputs(scripts_dir)
        stage_env = {}
        for label, (run, env) in env_by_step.items():
            stage = run.strip().split()[-1]
            stage_env[stage] = env
            if "CARTOGRAPH_MODE" not in env:
                problems.append(f"{label}: the {stage} stage is not given CARTOGRAPH_MODE")
        for name in sorted(read):
            variable = "CARTOGRAPH_" + name.upper().replace("-", "_")
            if not any(variable in env for env in stage_env.values()):
                problems.append(f"scripts read input {name} ({variable}) but no step sets it")
            if name not in declared:
                problems.append(f"scripts read input {name}, which action.yml does not declare")
    return problems


def main(argv):
    with open(argv[1], encoding="utf-8") as handle:
        action = json.load(handle)
    scripts = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts")
    problems = check(action, scripts)
    for problem in problems:
        print(f"action.yml: {problem}", file=sys.stderr)
    print(f"action.yml structure {'ok' if not problems else 'FAILED'}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
