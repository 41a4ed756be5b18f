"""A family's golden format of preset sets as one declaration (SPEC §7); the engine's code.

A family that ships certified sets of its presets declares a :class:`PresetSetFormat`: its
tag, its generator and definition texts, the fields its files hold after the common head
(:class:`Field`: JSON key, the set's attribute, how it is written), how a preset's set is
computed, how a set is built (and its shapes checked) from its parsed fields, and how its
values are recomputed. From that entry this module renders the files byte for byte, parses
and verifies them, finds a preset's set, exports it and registers the format's
:class:`~pespec.conformance.fixtures.FixtureFormat`: adding a family's fixtures is adding
an entry, never a code path. It names no family.

Every file opens with the same head: ``format``, ``spec_version``, ``generator``, ``name``,
``preset``, ``definition``; the declared fields follow in order (fixed key order, one matrix
row per line, every float also as its exact ``float.hex``, checked equal bit for bit).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from pespec._version import SPEC_VERSION
from pespec.conformance.fixture_json import (
    csv_bytes,
    dump,
    exact_floats,
    from_hex,
    hex_rows,
    json_object,
    malformed,
    matrix,
    npz_bytes,
)
from pespec.conformance.fixtures import (
    FixtureCheck,
    FixtureError,
    FixtureFormat,
    FixtureProgress,
    bit_differences,
    files_of_format,
    register_fixture_format,
    verified_directory,
)

__all__ = [
    "Field",
    "PresetRows",
    "PresetSet",
    "PresetSetFormat",
    "computed",
    "constant",
    "floats",
    "grid_csv",
    "hexes",
    "ints",
    "value",
]


class PresetSet(Protocol):
    """What the engine reads of any set: its name (file name without ``.json``), its preset."""

    @property
    def name(self) -> str: ...

    @property
    def preset(self) -> str: ...


T = TypeVar("T", bound=PresetSet)

Kind = Literal["value", "ints", "floats", "hex", "constant"]


def _same(item: Any) -> Any:
    return item


@dataclass(frozen=True)
class Field:
    """One key of a set's file after the head: ``key`` in the JSON, ``attr`` of the set.

    Kinds: ``value`` (``write``/``read`` convert the attribute to and from its JSON value),
    ``ints`` (an integer array), ``floats`` (an array or, ``scalar``, a float: ``key`` holds
    the decimals and ``key_hex`` the exact hex), ``hex`` (``key`` holds the hex only),
    ``constant`` (``text`` in every file; a file holding another is malformed).
    """

    key: str
    kind: Kind
    attr: str
    write: Callable[[Any], Any] = _same
    read: Callable[[Any], Any] = _same
    scalar: bool = False
    text: str = ""

    def render(self, fixture: Any) -> list[tuple[str, str]]:
        """(key, JSON text) pairs of this field of ``fixture``."""
        if self.kind == "constant":
            return [(self.key, dump(self.text))]
        if self.kind == "value":
            return [(self.key, dump(self.write(getattr(fixture, self.attr))))]
        array = np.asarray(getattr(fixture, self.attr))
        as_text = matrix if array.ndim == 2 else dump
        if self.kind == "ints":
            return [(self.key, as_text(array.tolist()))]
        hex_text = as_text(hex_rows(array) if array.ndim == 2 else _hex_list(array))
        if self.kind == "hex":
            return [(self.key, hex_text)]
        return [(self.key, as_text(array.tolist())), (f"{self.key}_hex", hex_text)]

    def parse(self, file: str, doc: dict[str, Any], error: type[FixtureError]) -> Any:
        """This field's attribute value read from ``doc`` (file ``file``)."""
        if self.kind == "constant":
            if doc.get(self.key) != self.text:
                raise error(f"{file}: {self.key} must be {self.text!r}")
            return None
        if self.kind == "value":
            return self.read(doc[self.key])
        if self.kind == "ints":
            return np.array(doc[self.key], dtype=np.int64)
        if self.kind == "hex":
            return np.array(from_hex(doc[self.key]), dtype=np.float64)
        exact = exact_floats(file, doc[self.key], doc[f"{self.key}_hex"], self.key, error)
        return float(exact) if self.scalar else exact


def _hex_list(array: NDArray[Any]) -> Any:
    """The exact hex of a float (0-D) or of each value of a 1-D array."""
    if array.ndim == 0:
        return float(array).hex()
    return [float(v).hex() for v in array.tolist()]


def value(
    key: str,
    attr: str | None = None,
    write: Callable[[Any], Any] = _same,
    read: Callable[[Any], Any] = _same,
) -> Field:
    """A JSON value (a configuration, a list): ``write(attribute)`` stored, ``read`` back."""
    return Field(key, "value", attr or key, write=write, read=read)


def ints(key: str, attr: str | None = None) -> Field:
    """An integer array (int64): one row per line when 2-D."""
    return Field(key, "ints", attr or key)


def floats(key: str, attr: str | None = None, scalar: bool = False) -> Field:
    """A float64 array (or a float) as decimals under ``key`` and exact hex under ``key_hex``."""
    return Field(key, "floats", attr or key, scalar=scalar)


def hexes(key: str, attr: str) -> Field:
    """A float64 array as exact hex only (a value whose decimals say nothing more)."""
    return Field(key, "hex", attr)


def constant(key: str, text: str) -> Field:
    """A text every file of the format holds (such as the stated formula of the inputs)."""
    return Field(key, "constant", key, text=text)


def computed(data: Mapping[str, Any]) -> dict[str, Any]:
    """A preset's configuration as its set holds it: all but its provenance (``source``,
    which lives in the preset table: a set holds what is computed)."""
    return {k: v for k, v in data.items() if k != "source"}


@dataclass(frozen=True)
class PresetRows:
    """A set of some rows of a preset's inputs: its name (the file name without ``.json``),
    its preset, the preset's configuration as computed (``data``) and the rows (n,); a
    family's set adds its arrays, one row each. :attr:`FIELDS` are the first fields of its
    files: the configuration (key ``preset_config``) and the rows."""

    FIELDS: ClassVar[tuple[Field, ...]] = (value("preset_config", "data", read=dict), ints("rows"))

    name: str
    preset: str
    data: dict[str, Any]
    rows: NDArray[np.int64]


def grid_csv(
    rows: str, positions: str, values: str, prefix: str, coordinate: Callable[[Any], str] = repr
) -> Callable[[Any], bytes]:
    """A CSV writer of sets with row ids (attribute ``rows``), coordinates and values: one
    line per row (:func:`pespec.conformance.fixture_json.csv_bytes`)."""

    def write(fixture: Any) -> bytes:
        return csv_bytes(
            getattr(fixture, rows),
            getattr(fixture, positions),
            getattr(fixture, values),
            prefix,
            coordinate,
        )

    return write


@dataclass(frozen=True)
class PresetSetFormat(Generic[T]):
    """A family's golden format of preset sets, declared (see the module's docstring).

    ``presets``: the names with a set (file ``prefix`` + ``slug(preset)`` + ``.json`` each,
    :meth:`file_name`; ``compute(preset)`` its set, named :meth:`set_name`);
    ``build(file, parsed)`` makes a set of the parsed fields ({attr: value}, with ``name``
    and ``preset``) and checks its shapes (``error`` naming the file otherwise); ``noun``
    names a set in the "malformed" message. Verification recomputes ``certify(set)`` and
    compares it bit for bit with the set's ``compared`` attribute, a row per ``rows`` id of
    ``row_word`` (or ``verify``, the family's own check, replaces that). ``npz`` maps each
    export member to an attribute (plus ``config``: the JSON of the field ``config_key``);
    ``csv`` writes the CSV.
    """

    tag: str
    description: str
    noun: str
    generator: Mapping[str, str]
    definition: str
    fields: tuple[Field, ...]
    presets: Mapping[str, Any]
    prefix: str
    compute: Callable[[str], T]
    build: Callable[[str, dict[str, Any]], T]
    npz: Mapping[str, str]
    csv: Callable[[T], bytes]
    slug: Callable[[str], str] = _same
    config_key: str = "preset_config"
    certify: Callable[[T], NDArray[np.float64]] | None = None
    compared: str = "values"
    row_word: str = "input"
    verify: Callable[[T, int], FixtureCheck] | None = None
    error: type[FixtureError] = FixtureError
    handler: FixtureFormat = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.certify is None) == (self.verify is None):
            raise ValueError(f"{self.tag}: declare one of certify and verify, not both or neither")
        handler = FixtureFormat(
            format=self.tag,
            description=self.description,
            parse=self.parse,
            verify=self._check,
            writers={"npz": self.npz_bytes, "csv": self.csv},
            render=self.render_files,
            planned=lambda: len(self.presets),
        )
        object.__setattr__(self, "handler", handler)

    def file_name(self, preset: str) -> str:
        """The file name of ``preset``'s set: ``prefix``, ``slug(preset)``, ``.json``."""
        return f"{self.set_name(preset)}.json"

    def set_name(self, preset: str) -> str:
        """The name of ``preset``'s set (its file name without ``.json``)."""
        return f"{self.prefix}{self.slug(preset)}"

    def register(self) -> FixtureFormat:
        """Register the format's handler (:mod:`pespec.conformance.fixtures`); returns it."""
        return register_fixture_format(self.handler)

    def render(self, fixture: T) -> bytes:
        """The set's JSON file, byte-deterministic: the head, then the fields in order."""
        head = [
            ("format", dump(self.tag)),
            ("spec_version", dump(SPEC_VERSION)),
            ("generator", dump(self.generator)),
            ("name", dump(fixture.name)),
            ("preset", dump(fixture.preset)),
            ("definition", dump(self.definition)),
        ]
        body = [pair for declared in self.fields for pair in declared.render(fixture)]
        return json_object([*head, *body])

    def render_files(self, on_progress: FixtureProgress | None = None) -> dict[str, bytes]:
        """Every preset's set, in memory: {file name: bytes}; ``on_progress(name)`` after each."""
        files = {}
        for preset in self.presets:
            name = self.file_name(preset)
            files[name] = self.render(self.compute(preset))
            if on_progress is not None:
                on_progress(name[:-5])
        return files

    def parse(self, file: str, data: bytes) -> T:
        """Read one set file ``file`` (``json`` only, never pickle): its format, every field
        (decimals = hex bit for bit), then the family's ``build`` (shapes); an ``error``
        naming the file otherwise."""
        with malformed(file, self.noun, self.error):
            doc = json.loads(data.decode("ascii"))
            if not isinstance(doc, dict) or doc.get("format") != self.tag:
                raise self.error(f"{file}: format must be {self.tag!r}")
            parsed: dict[str, Any] = {"name": str(doc["name"]), "preset": str(doc["preset"])}
            for declared in self.fields:
                item = declared.parse(file, doc, self.error)
                if declared.kind != "constant":
                    parsed[declared.attr] = item
            return self.build(file, parsed)

    def load(self, directory: Path | None = None) -> list[T]:
        """Every set of the format in ``directory`` (default: the shipped ones), sorted by
        file name; the folder's MANIFEST is verified first (a changed file raises
        :class:`~pespec.conformance.fixtures.FixtureError` naming it)."""
        target = verified_directory(directory)
        return [self.parse(p.name, p.read_bytes()) for p in files_of_format(target, self.tag)]

    def find(self, matches: Callable[[T], bool], directory: Path | None = None) -> T | None:
        """The first verified set of ``directory`` for which ``matches`` holds, or None."""
        return next((f for f in self.load(directory) if matches(f)), None)

    def matching(
        self,
        data: Mapping[str, Any],
        directory: Path | None = None,
        key: Callable[[Mapping[str, Any]], dict[str, Any]] = computed,
    ) -> T | None:
        """The verified set whose ``data`` (a :class:`PresetRows`'), seen through ``key``, is
        ``data``'s (a preset's configuration), or None."""
        wanted = key(data)
        return self.find(lambda fixture: key(cast(PresetRows, fixture).data) == wanted, directory)

    def differences(self, fixture: T) -> tuple[int, list[str]]:
        """Recompute the set's ``compared`` values with ``certify``: (how many differ,
        messages: 5 at most itemised, then a count)."""
        if self.certify is None:
            raise ValueError(f"{self.tag}: its sets are checked by its own verify")
        stored = (self.compared, getattr(fixture, self.compared))
        rows = (self.row_word, cast(PresetRows, fixture).rows)
        return bit_differences(fixture.name, stored, self.certify(fixture), rows)

    def _check(self, fixture: T, file: str, limit: int) -> FixtureCheck:
        if self.verify is not None:
            return self.verify(fixture, limit)
        wrong, problems = self.differences(fixture)
        checked = int(np.asarray(getattr(fixture, self.compared)).size)
        return FixtureCheck(checked, wrong, tuple(problems[:limit]))

    def npz_bytes(self, fixture: T) -> bytes:
        """The set's ``.npz``: the ``npz`` members in order, then ``config``."""
        arrays = {member: getattr(fixture, attr) for member, attr in self.npz.items()}
        (config,) = [f for f in self.fields if f.key == self.config_key]
        return npz_bytes(arrays, config.write(getattr(fixture, config.attr)))
