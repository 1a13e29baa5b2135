"""The publish stage: the job summary, the sticky pull-request comment, the drift issue.

The comment (or issue) body is our hidden marker, the neutralised report cut to fit GitHub's
65,536-character limit at a section boundary (with a link to the full report), and a footer. Our
comment is the first one that both starts with the marker and was written by the token's own login;
anything else — a comment by someone else that quotes the marker, say — is never edited. The
comment is updated in place (the body is replaced, never appended to). When the token may not
comment (a fork's pull request, a read-only token: 403), the report stays in the job summary and
the job does not fail.
"""

import os

import report_markdown as markdown
import runner
from github_api import ApiError, GitHub

MARKER = "<!-- cartograph-report -->"
DRIFT_MARKER = "<!-- cartograph-drift -->"
DRIFT_LABEL = "architecture-drift"
DEFAULT_BOT = "github-actions[bot]"


def _links(state):
    """Markdown naming where the full report is: the artifact (when uploaded) and the run."""
    parts = []
    artifact_url = os.environ.get("CARTOGRAPH_ARTIFACT_URL", "").strip()
    run = state.get("source_run_url") or runner.run_url()
    if artifact_url.startswith("https://"):
        parts.append(f"the [`{runner.get('artifact-name', 'cartograph-report')}` artifact]({artifact_url})")
    if run:
        parts.append(f"the [workflow run's job summary and artifacts]({run})")
    return " and ".join(parts) if parts else "the workflow run's job summary"


def _truncation_note(state):
    def note(shown, total):
        return (
            "> [!WARNING]\n"
            f"> This report was cut to fit one GitHub comment ({shown:,} of {total:,} characters shown). "
            f"The full report is in {_links(state)}.\n"
        )

    return note


def _footer(state):
    bits = []
    if state.get("base") and state.get("head"):
        bits.append(f"<code>{state['base'][:12]}</code> → <code>{state['head'][:12]}</code>")
    if state.get("baseline"):
        bits.append(f"baseline <code>{state['baseline'][:80].replace('<', '&lt;')}</code>")
    run = runner.run_url()
    if run:
        bits.append(f"[workflow run]({run})")
    return "<sub>Cartograph architecture report · " + " · ".join(bits) + "</sub>\n" if bits else ""


def body(report, state, marker=MARKER):
    """The full comment or issue body, at most 65,536 characters."""
    footer = "\n" + _footer(state)
    head = marker + "\n"
    room = markdown.COMMENT_LIMIT - markdown.utf16_units(head + footer) - 64
    text, truncated = markdown.fit(markdown.neutralise(report), room, note=_truncation_note(state))
    return head + text.rstrip("\n") + "\n" + footer, truncated


def write_summary(text):
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    used = os.path.getsize(path) if os.path.isfile(path) else 0
    room = markdown.SUMMARY_LIMIT_BYTES - used - 4096
    note = lambda shown, total: f"> [!WARNING]\n> The report was cut to fit the job summary; the full report is in the `{runner.get('artifact-name', 'cartograph-report')}` artifact.\n"  # noqa: E731
    fitted, _ = markdown.fit(markdown.neutralise(text), max(room, 0), measure=markdown.utf8_bytes, note=note)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(fitted.rstrip("\n") + "\n\n")


def _own(item, login, marker):
    return (item.get("user") or {}).get("login") == login and (item.get("body") or "").lstrip().startswith(marker)


def _own_comments(api, repo, number, login):
    return [c for c in api.paginate(f"/repos/{repo}/issues/{number}/comments") if _own(c, login, MARKER)]


def sticky_comment(api, repo, number, text, login):
    """Creates or updates our one comment; returns (action, id, url).

    Two runs racing on one pull request can each create a comment. Whenever more than one of
    ours exists (never anyone else's), the oldest is kept and updated and the others deleted."""
    mine = _own_comments(api, repo, number, login)
    if not mine:
        created = api.post(f"/repos/{repo}/issues/{number}/comments", {"body": text}) or {}
        mine = _own_comments(api, repo, number, login)
        if len(mine) <= 1:
            return "created", created.get("id", ""), created.get("html_url", "")
        action = "created"
    else:
        action = None
    keep, extra = mine[0], mine[1:]
    for duplicate in extra:
        try:
            api.delete(f"/repos/{repo}/issues/comments/{duplicate['id']}")
        except ApiError as error:
            if error.status != 404:  # another run deleted it first
                raise
    if keep.get("body") == text:
        return action or "unchanged", keep.get("id", ""), keep.get("html_url", "")
    updated = api.patch(f"/repos/{repo}/issues/comments/{keep['id']}", {"body": text}) or {}
    return action or "updated", updated.get("id", keep["id"]), updated.get("html_url", keep.get("html_url", ""))


def _api_and_login(token):
    api = GitHub(token)
    login = runner.get("comment-author") or api.login(DEFAULT_BOT)
    return api, login


def publish_comment(state, report):
    """Summary always; the comment when allowed. Never fails the job over the comment."""
    write_summary(report)
    text, truncated = body(report, state)
    runner.set_output("truncated", "true" if truncated else "false")
    if not runner.flag("comment", True):
        runner.set_output("comment-action", "disabled")
        return
    if state.get("fork"):
        runner.annotate("notice", "pull request from a fork: the token is read-only, so the report is in the job summary only")
        _summary_note("The token of a pull request from a fork cannot comment: the report is above, in the job summary.")
        runner.set_output("comment-action", "skipped-fork")
        return
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    try:
        api, login = _api_and_login(runner.get("github-token"))
        action, comment_id, url = sticky_comment(api, repo, state["pr"], text, login)
    except ApiError as error:
        if error.status in (401, 403, 404):
            runner.annotate("warning", f"the token may not comment on this pull request ({error.status}); the report is in the job summary")
            _summary_note("The token cannot comment on this pull request (read-only): the report is above, in the job summary.")
            runner.set_output("comment-action", "skipped-forbidden")
            return
        runner.annotate("warning", f"the report could not be posted: {error}")
        runner.set_output("comment-action", "failed")
        return
    runner.log(f"comment {action} on #{state['pr']}")
    runner.set_output("comment-action", action)
    runner.set_output("comment-id", comment_id)
    runner.set_output("comment-url", url)


def _summary_note(sentence):
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"> [!NOTE]\n> {sentence}\n\n")


def publish_drift(state, report, drift_empty):
    """Opens or updates our one open drift issue; closes it when there is no drift."""
    write_summary(report)
    if not runner.flag("issue", True):
        runner.set_output("issue-action", "disabled")
        return
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    try:
        api, login = _api_and_login(runner.get("github-token"))
        mine = None
        for issue in api.paginate(f"/repos/{repo}/issues", {"state": "open", "labels": DRIFT_LABEL}):
            if "pull_request" not in issue and _own(issue, login, DRIFT_MARKER):
                mine = issue
                break
        baseline = state.get("baseline", "the baseline")
        if drift_empty:
            if mine is None:
                runner.set_output("issue-action", "none")
                runner.log("no architecture drift; no open drift issue")
                return
            text, _ = body(f"No architecture drift since `{baseline}` any more: closing.\n", state, DRIFT_MARKER)
            api.patch(f"/repos/{repo}/issues/{mine['number']}", {"body": text, "state": "closed", "state_reason": "completed"})
            action, issue = "closed", mine
        else:
            text, truncated = body(report, state, DRIFT_MARKER)
            runner.set_output("truncated", "true" if truncated else "false")
            title = f"Architecture drift since {baseline}"[:200]
            if mine is None:
                _ensure_label(api, repo)
                issue = api.post(f"/repos/{repo}/issues", {"title": title, "body": text, "labels": [DRIFT_LABEL]}) or {}
                action = "opened"
            else:
                issue = api.patch(f"/repos/{repo}/issues/{mine['number']}", {"title": title, "body": text}) or mine
                action = "updated"
    except ApiError as error:
        runner.annotate("warning", f"the drift issue could not be written: {error}")
        runner.set_output("issue-action", "failed")
        return
    runner.log(f"drift issue {action}")
    runner.set_output("issue-action", action)
    runner.set_output("issue-number", issue.get("number", ""))
    runner.set_output("issue-url", issue.get("html_url", ""))


def _ensure_label(api, repo):
    try:
        api.get(f"/repos/{repo}/labels/{DRIFT_LABEL}")
    except ApiError as error:
        if error.status != 404:
            raise
        api.post(f"/repos/{repo}/labels", {"name": DRIFT_LABEL, "color": "d93f0b", "description": "Opened by Cartograph's scheduled architecture drift report"})
