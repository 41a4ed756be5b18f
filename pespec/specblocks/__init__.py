"""The generated blocks of SPEC.md, README.md and docs/*.md: one module per SPEC area.

Every public function takes no required argument and returns Markdown for a
``<!-- GENERATED: pespec.specblocks.MODULE:FUNCTION -->`` block (filled by
``tools/generate_docs.py``, checked by the tests). The name says what the block holds:
``<thing>_table`` for a block with a Markdown table, ``<thing>_text`` for prose or a list.
The computations live in the modules they describe; only the rendering is here.

* :mod:`.conventions`: the presets of SPEC §3;
* :mod:`.errormodel`: the error model's constants and ranges (§4, Annex A);
* :mod:`.conformance`: the contract probes, the suite and the report schema (§6);
* :mod:`.fixtures`: the shipped golden fixture sets (Annex F);
* :mod:`.oracle`: the oracle's working precision and decimal rounding (Annex B);
* :mod:`.diagnosis`: the diagnosis probes, precision classes and named mistakes (Annex D);
* :mod:`.rope`: the rotary presets, reference errors and long-context reach (§8, Annexes);
* :mod:`.tables`: the certified constant tables (Annex H), also printed by ``pespec constants``.

Generators that read files of the source checkout (benchmark results) are not installed:
they are in ``tools/docgen/``. Nothing below the command line imports this package.
"""
