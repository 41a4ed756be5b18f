"""The multi-axis rotary family ``multiaxis-rope``: 1-D rotary sections over k position
axes (Qwen-VL M-RoPE, Qwen3-VL interleaved M-RoPE, Flux; SPEC §9.7).

Modules: :mod:`~pespec.multiaxis.rope.config` (sections, slots and the published layouts),
:mod:`~pespec.multiaxis.rope.positions` (the position ids models build),
:mod:`~pespec.multiaxis.rope.presets`,
:mod:`~pespec.multiaxis.rope.reference` (reference, oracle and bounds from :mod:`pespec.rope`,
section by section), :mod:`~pespec.multiaxis.rope.run` and :mod:`~pespec.multiaxis.rope.stages`
(the engine's
run), :mod:`~pespec.multiaxis.rope.report` (report hooks, diagnosis), :mod:`pespec.cli.mrope`.
"""
