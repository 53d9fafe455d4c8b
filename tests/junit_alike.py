"""What the JUnit report of every gate command shows alike when a run fails in its
second phase: verify's and diff's report tests check it here, once."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from packcheck._gate import Outcome, text


def failed_in_generated(suite: ET.Element, outcome: Outcome) -> ET.Element:
    """Check ``suite``, the JUnit report of ``outcome`` (failed in its generated cases,
    timed 0.25 s and 1.5 s): a testcase per phase, the failure carrying the text report,
    the phases after it skipped.  The failure, for each command's own checks."""
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["skipped"]) == (
        "4",
        "1",
        "2",
    )
    cases = suite.findall("testcase")
    names = [c.attrib["name"] for c in cases]
    assert names == ["fixtures", "generated", "wide ranges", "long lists"]
    assert [c.attrib["time"] for c in cases] == ["0.250", "1.500", "0.000", "0.000"]
    assert (cases[0].find("failure"), cases[0].find("skipped")) == (None, None)
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.text == text(outcome)
    for later in cases[2:]:
        skipped = later.find("skipped")
        assert skipped is not None
        assert skipped.attrib["message"] == "an earlier phase failed"
    return failure
