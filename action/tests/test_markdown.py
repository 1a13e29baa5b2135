"""The neutralising and cutting of reports before they are posted (action/scripts/report_markdown.py)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))

import report_markdown as markdown  # noqa: E402


class MarkdownSafety(unittest.TestCase):
    """The neutralising and cutting of a report (action/scripts/report_markdown.py)."""

    md = markdown

    def test_neutralise_breaks_mentions_and_references_outside_code_only(self):
        text = "ping @alice, see org/repo#5; mail a@b.io <code>@router.get</code> `@x` <!-- cartograph-report -->\n```\n@bob\n```\n"
        out = self.md.neutralise(text)
        self.assertIn("@\u200balice", out)
        self.assertIn("org/repo\u200b#5", out)
        self.assertIn("a@b.io", out)
        self.assertIn("<code>@router.get</code>", out)
        self.assertIn("`@x`", out)
        self.assertIn("```\n@bob\n```", out)
        self.assertNotIn("<!--", out)
        self.assertIn("&#64;\u200bbob &#x40;\u200bcarol &commat;\u200bdave", self.md.neutralise("&#64;bob &#x40;carol &commat;dave"))

    def test_fit_keeps_short_text_and_cuts_long_text_at_a_section(self):
        self.assertEqual(self.md.fit("short\n", 100), ("short\n", False))
        sections = "".join(f"<details><summary>s{i}</summary>\n\n```\n{'x' * 50}\n```\n\n</details>\n\n" for i in range(100))
        out, cut = self.md.fit("# Title\n\n" + sections, 2_000, note=lambda shown, total: f"CUT {shown}/{total}\n")
        self.assertTrue(cut)
        self.assertLessEqual(len(out), 2_000)
        self.assertEqual(out.count("```") % 2, 0)
        self.assertEqual(out.count("<details>"), out.count("</details>"))
        self.assertTrue(out.rstrip().endswith("/" + str(len("# Title\n\n" + sections))))

    def test_fit_closes_a_fence_when_no_section_boundary_fits(self):
        text = "```text\n" + "line\n" * 5_000 + "```\n"
        out, cut = self.md.fit(text, 1_000, note=lambda shown, total: "CUT\n")
        self.assertTrue(cut)
        self.assertLessEqual(len(out), 1_000)
        self.assertEqual(out.count("```") % 2, 0)
        one_line, _ = self.md.fit("y" * 10_000, 500, note=lambda shown, total: "CUT\n")
        self.assertLessEqual(len(one_line), 500)

    def test_summary_cap_is_counted_in_bytes(self):
        text = "# é\n\n" + "".join(f"## part {i}\n\n" + "é" * 1_000 + "\n\n" for i in range(1_000))
        out, cut = self.md.fit(text, self.md.SUMMARY_LIMIT_BYTES, measure=self.md.utf8_bytes)
        self.assertTrue(cut)
        self.assertLessEqual(len(out.encode("utf-8")), self.md.SUMMARY_LIMIT_BYTES)
