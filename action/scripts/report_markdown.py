"""Making a report safe and small enough to post.

`neutralise` treats the report as untrusted text (it quotes names from the analysed trees, and in
the fork-safe pair it comes from an artifact a fork can forge): every HTML comment opener is
escaped, so nothing in it can pass for our hidden marker, and @-mentions and cross-repository
references outside code are broken with a zero-width space, so a report cannot ping people or
link into other repositories. `fit` cuts a document to a size limit at a section boundary outside
code fences and `<details>` blocks, and says so with a note.
"""

import re

ZERO_WIDTH_SPACE = "\u200b"
COMMENT_LIMIT = 65_536  # GitHub rejects a longer comment or issue body (422).
SUMMARY_LIMIT_BYTES = 1_048_576  # GitHub's cap on one step's job summary.

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(<code>.*?</code>|`+[^`]*`+)", re.IGNORECASE)
_MENTION = re.compile(r"(?<![\w@`/.-])@(?=[A-Za-z0-9])")
# The same sign written as an HTML character reference renders as @ too.
_MENTION_ENTITY = re.compile(r"(&#0*64;|&#[xX]0*40;|&commat;)(?=[A-Za-z0-9])")
_CROSS_REF_LONG = re.compile(r"([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9_.-]+)(#)(?=\d)")
_SECTION_START = re.compile(r"^(<details|#{1,6} )", re.IGNORECASE)


def utf16_units(text):
    """GitHub counts a body's length in UTF-16 code units (never fewer than characters)."""
    return len(text.encode("utf-16-le")) // 2


def utf8_bytes(text):
    return len(text.encode("utf-8"))


def _neutralise_prose(segment):
    segment = segment.replace("<!--", "&lt;!--")
    segment = _MENTION.sub("@" + ZERO_WIDTH_SPACE, segment)
    segment = _MENTION_ENTITY.sub(lambda m: m.group(1) + ZERO_WIDTH_SPACE, segment)
    segment = _CROSS_REF_LONG.sub(lambda m: m.group(1) + ZERO_WIDTH_SPACE + m.group(2), segment)
    return segment


def neutralise(markdown):
    """Escapes HTML comment openers everywhere, and breaks mentions and cross-references in prose
    (code spans and fenced blocks render no mentions, so they keep their text)."""
    out = []
    fence = None
    for line in markdown.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            out.append(line.replace("<!--", "&lt;!--"))
            continue
        if match:
            fence = match.group(1)
            out.append(line.replace("<!--", "&lt;!--"))
            continue
        parts = _CODE_SPAN.split(line)
        for index, part in enumerate(parts):
            # Odd indexes are code spans; comment openers are escaped there too.
            parts[index] = part.replace("<!--", "&lt;!--") if index % 2 else _neutralise_prose(part)
        out.append("".join(parts))
    return "".join(out)


class _State:
    """Open fences and `<details>` depth before each line of a document."""

    def __init__(self, lines):
        self.before = []
        fence = None
        depth = 0
        for line in lines:
            self.before.append((fence, depth))
            match = _FENCE.match(line)
            if fence is not None:
                if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                    fence = None
                continue
            if match:
                fence = match.group(1)
                continue
            lowered = line.lower()
            depth += lowered.count("<details")
            depth = max(0, depth - lowered.count("</details>"))
        self.before.append((fence, depth))


def _closing(fence, depth):
    text = ""
    if fence is not None:
        text += "\n" + fence + "\n"
    text += "\n</details>\n" * depth
    return text


def fit(markdown, limit, measure=utf16_units, note=lambda shown, total: ""):
    """Returns (text, truncated). `text` is `markdown` when it fits in `limit` (as counted by
    `measure`); otherwise the longest prefix that ends at a clean section boundary (outside any
    fence or `<details>`), plus `note(shown, total)`. If no clean boundary fits, the cut is made at
    a line (then a character) with the open fence and blocks closed."""
    total = measure(markdown)
    if total <= limit:
        return markdown, False
    lines = markdown.splitlines(keepends=True)
    state = _State(lines)

    def assemble(prefix, fence, depth):
        shown = measure(prefix)
        return prefix.rstrip("\n") + "\n" + _closing(fence, depth) + "\n" + note(shown, total)

    prefixes = [0]
    for line in lines:
        prefixes.append(prefixes[-1] + measure(line))

    def size(index):
        # An upper bound of assemble()'s length (rstrip only shortens), without building it.
        fence, depth = state.before[index]
        return prefixes[index] + 2 + measure(_closing(fence, depth)) + measure(note(prefixes[index], total))

    # Three kinds of cut, best first: before a `<details>` block or a heading; after a blank
    # line; anywhere between lines. A better kind wins while it keeps at least half the room.
    latest = {}
    for index in range(len(lines), 0, -1):
        if prefixes[index] > limit or size(index) > limit:
            continue
        fence, depth = state.before[index]
        clean = fence is None and depth == 0
        if index == len(lines) or (clean and _SECTION_START.match(lines[index])):
            kind = 0
        elif clean and not lines[index - 1].strip():
            kind = 1
        else:
            kind = 2
        latest.setdefault(kind, index)
        if 0 in latest:
            break
    if latest:
        chosen = max(latest.values())
        for kind in (0, 1):
            if kind in latest and prefixes[latest[kind]] >= limit // 2:
                chosen = latest[kind]
                break
        fence, depth = state.before[chosen]
        return assemble("".join(lines[:chosen]), fence, depth), True
    # Not even the first line fits: cut inside it, by characters.
    first_fence = _FENCE.match(lines[0]).group(1) if _FENCE.match(lines[0]) else None
    low, high = 0, len(lines[0])
    while low < high:
        middle = (low + high + 1) // 2
        if measure(assemble(lines[0][:middle], first_fence, 0)) <= limit:
            low = middle
        else:
            high = middle - 1
    return assemble(lines[0][:low], first_fence, 0), True
