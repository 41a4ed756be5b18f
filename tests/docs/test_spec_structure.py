"""SPEC.md is a normative core of numbered requirements followed by informative annexes.

Measured on the generated SPEC.md (issue 13 item 7): the normative part (everything before the
first annex heading) stays readable: the shared core and the absolute family (§1–§7) under
40 KB, as issue 13 set when they were the whole normative part, and each family section added
since (§8 rotary, issue 21; the next ones) under 16 KB of its own (decided in issue 26: one
total bound made each new family cut the explanations of the last one); requirements
R<section>.<n> are numbered 1, 2, 3 … within their section and never repeated; every annex
heading says "(informative)"; the definition comes before the versioning text; and the
property subsections of §5 correspond one to one with the registered properties.
"""

from __future__ import annotations

import re

import pytest
from paths import ROOT

SPEC = ROOT / "SPEC.md"

NORMATIVE_LIMIT_BYTES = 40_000
"""Issue 13's bound on the core normative part, §1–§7 ("under about 40 KB"), in UTF-8 bytes."""

FAMILY_SECTION_LIMIT_BYTES = 16_000
"""The bound on each family section after §7 (§8 rotary, ...), in UTF-8 bytes."""

CORE_SECTIONS = 7
"""The sections of the shared core and the absolute family."""

_ANNEX = re.compile(r"^## Annex (?P<letter>[A-Z])\b(?P<rest>.*)$", re.MULTILINE)
_SECTION = re.compile(r"^## (?P<number>\d+)\. ", re.MULTILINE)
_REQUIREMENT = re.compile(r"\*\*R(?P<section>\d+)\.(?P<number>\d+)\*\*")


def _spec() -> str:
    return SPEC.read_text(encoding="utf-8")


def normative_part(text: str) -> str:
    """Everything before the first annex heading."""
    match = _ANNEX.search(text)
    assert match is not None, "SPEC.md has no annex heading"
    return text[: match.start()]


def requirement_problems(text: str) -> list[str]:
    """Requirements out of order, repeated, or under the wrong section heading."""
    problems: list[str] = []
    seen: dict[int, list[int]] = {}
    sections = list(_SECTION.finditer(text))
    for index, heading in enumerate(sections):
        section = int(heading.group("number"))
        end = sections[index + 1].start() if index + 1 < len(sections) else len(text)
        for match in _REQUIREMENT.finditer(text, heading.end(), end):
            number = (int(match.group("section")), int(match.group("number")))
            if number[0] != section:
                problems.append(f"R{number[0]}.{number[1]} stands in §{section}")
            seen.setdefault(number[0], []).append(number[1])
    for section, numbers in sorted(seen.items()):
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"§{section}: requirements numbered {numbers}")
    return problems


def property_headings(text: str) -> dict[str, str]:
    """{property name: section} from the ``### 5.N name`` headings of the normative part."""
    return {
        match.group("name"): match.group("section")
        for match in re.finditer(r"^### (?P<section>5\.\d+) (?P<name>\w+)\s*$", text, re.MULTILINE)
    }


def section_sizes(text: str) -> tuple[int, dict[int, int]]:
    """(bytes of the preamble and §1–§7, {later section number: its bytes}) of the normative
    part ``text``."""
    headings = list(_SECTION.finditer(text))
    later: dict[int, int] = {}
    core = len(text.encode("utf-8"))
    for index, heading in enumerate(headings):
        number = int(heading.group("number"))
        if number <= CORE_SECTIONS:
            continue
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        later[number] = len(text[heading.start() : end].encode("utf-8"))
        core -= later[number]
    return core, later


def test_normative_core_is_under_40_kb() -> None:
    core, _ = section_sizes(normative_part(_spec()))
    assert core < NORMATIVE_LIMIT_BYTES, f"the normative core (§1–§7) is {core} bytes"


def test_each_family_section_is_under_16_kb() -> None:
    _, later = section_sizes(normative_part(_spec()))
    assert later, "no family section after §7"
    over = {f"§{n}": size for n, size in later.items() if size >= FAMILY_SECTION_LIMIT_BYTES}
    assert not over, f"family sections over {FAMILY_SECTION_LIMIT_BYTES} bytes: {over}"


def test_section_sizes_split_the_normative_part() -> None:
    text = "pre\n## 1. a\nxx\n## 7. b\nyyy\n## 8. c\nzzzz\n## 9. d\nw\n"
    core, later = section_sizes(text)
    assert later == {8: len("## 8. c\nzzzz\n"), 9: len("## 9. d\nw\n")}
    assert core + sum(later.values()) == len(text)


def test_normative_part_has_requirements_in_every_section() -> None:
    normative = normative_part(_spec())
    sections = {int(m.group("number")) for m in _SECTION.finditer(normative)}
    with_requirements = {int(m.group("section")) for m in _REQUIREMENT.finditer(normative)}
    assert sections and sections == with_requirements, (sections, with_requirements)
    assert "RFC 2119" in normative and "RFC 8174" in normative


def test_requirements_are_numbered_uniquely_and_in_order() -> None:
    assert requirement_problems(_spec()) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("## 4. E\n**R4.1** a\n**R4.3** b\n", "§4: requirements numbered [1, 3]"),
        ("## 4. E\n**R4.1** a\n**R4.1** b\n", "§4: requirements numbered [1, 1]"),
        ("## 4. E\n**R4.1** a\n## 5. P\n**R4.2** b\n", "R4.2 stands in §5"),
    ],
)
def test_requirement_check_catches_bad_numbering(text: str, problem: str) -> None:
    assert problem in requirement_problems(text)


def test_no_requirement_numbers_in_the_annexes() -> None:
    text = _spec()
    annexes = text[len(normative_part(text)) :]
    assert _REQUIREMENT.findall(annexes) == []


def test_every_annex_heading_says_informative() -> None:
    annexes = list(_ANNEX.finditer(_spec()))
    assert len(annexes) >= 5
    letters = [m.group("letter") for m in annexes]
    assert letters == [chr(ord("A") + k) for k in range(len(letters))], letters
    for match in annexes:
        assert "(informative)" in match.group("rest"), match.group(0)


def test_nothing_normative_after_the_first_annex() -> None:
    text = _spec()
    annexes = text[len(normative_part(text)) :]
    assert _SECTION.search(annexes) is None


def test_definition_precedes_the_versioning_text() -> None:
    text = _spec()
    definition = text.index("## 1. Definition and parameter domain")
    versions = text.index("Two version numbers")
    assert definition < versions
    assert definition == _SECTION.search(text).start()  # type: ignore[union-attr]


def test_property_sections_match_the_registered_properties() -> None:
    # PROPERTIES maps each property's name to an object that knows its SPEC section.
    from pespec.sinusoidal.properties import PROPERTIES

    registered = {name: str(prop.section) for name, prop in PROPERTIES.items()}
    assert property_headings(normative_part(_spec())) == registered
    # ...and in the registry's order.
    assert list(property_headings(normative_part(_spec()))) == list(PROPERTIES)
