"""The report forms CI reads: GitHub Actions workflow commands and JUnit XML."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .._rule.jsonio import one_line

__all__ = ["FORMATS", "JSON_VERSION", "Failure", "TestCase", "github", "junit_xml"]

#: The values of ``--format``.
FORMATS = ("text", "json", "github")
#: ``"format"`` in the JSON reports: raised only if a key changes meaning or goes away.
JSON_VERSION = 1


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(command: str, *, passed: bool, title: str, message: str, text: str) -> str:
    """A ``::notice`` (``passed``) or ``::error`` workflow command, then ``text``."""
    kind = "notice" if passed else "error"
    heading = _escape_property(one_line(f"packcheck {command}: {title}"))
    message = "\n".join(map(one_line, message.split("\n")))
    return f"::{kind} title={heading}::{_escape_data(message)}\n{text}"


#: What XML 1.0 cannot hold, even escaped: control characters, lone surrogates, U+FFFE/F.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(value: str) -> str:
    """``value`` with what XML cannot hold written as ``\\xNN`` / ``\\uNNNN``."""
    return _NOT_XML.sub(lambda m: ascii(m.group())[1:-1], value)


@dataclass(frozen=True, slots=True)
class Failure:
    """A JUnit ``failure``: its ``message``, ``type`` and report."""

    message: str
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class TestCase:
    """A phase as a JUnit ``testcase``: a ``failure``, else ``skipped``, else ``out``."""

    __test__ = False  # not a test class of pytest's

    name: str
    seconds: float
    out: str = ""
    failure: Failure | None = None
    skipped: str | None = None


def junit_xml(
    command: str,
    subject: str,
    seconds: float,
    properties: Mapping[str, object],
    cases: Sequence[TestCase],
) -> bytes:
    """JUnit XML: one ``testsuite`` for the run, ``properties`` and a ``testcase`` each."""
    root = ET.Element("testsuites", name=f"packcheck {command}")
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_xml(f"packcheck {command} ({subject})"),
        tests=str(len(cases)),
        failures=str(sum(case.failure is not None for case in cases)),
        errors="0",
        skipped=str(sum(case.failure is None and case.skipped is not None for case in cases)),
        time=f"{seconds:.3f}",
    )
    listed = ET.SubElement(suite, "properties")
    for key, value in properties.items():
        shown = value if isinstance(value, str) else json.dumps(value)
        ET.SubElement(listed, "property", name=str(key), value=_xml(shown))
    for case in cases:
        element = ET.SubElement(
            suite,
            "testcase",
            classname=f"packcheck.{command}",
            name=case.name,
            time=f"{case.seconds:.3f}",
        )
        if case.failure is not None:
            failure = ET.SubElement(
                element, "failure", message=_xml(case.failure.message), type=case.failure.kind
            )
            failure.text = _xml(case.failure.text)
        elif case.skipped is not None:
            ET.SubElement(element, "skipped", message=case.skipped)
        else:
            ET.SubElement(element, "system-out").text = case.out
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"
