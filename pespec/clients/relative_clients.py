"""Relative sinusoidal tables of transformers and ESPnet (issue 43 item 2; SPEC §10.10) as
clients: the adapters of both, and ESPnet's declarations (:data:`ESPNET_CLIENTS`; ESPnet has no
other client; transformers' are in :mod:`pespec.clients.transformers_clients`).

Each adapter returns ``build() -> (rows, d_model)`` NumPy array: the library's relative
table, computed by its real code; the client's ``options["relative"]`` declares the rows'
positions, d_model, the row convention and the input scaling the model applies outside the
table (:class:`pespec.sinusoidal.relative.RelativeTable`). ``pespec check --client NAME`` judges
it with the table-only check (:func:`pespec.sinusoidal.relative.check_relative`).

* ``xlnet``: ``XLNetModel.relative_positional_encoding(qlen, klen)`` of a one-layer model
  (the method reads only ``d_model``, ``attn_type``, ``bi_data``, ``clamp_len``):
  positions klen … −qlen+1 (``bi``) or klen … 0 (``uni``), [all sin | all cos].
* ``conformer``: an ESPnet-style ``RelPositionalEncoding`` module of transformers (the
  FastSpeech2-Conformer, SeamlessM4T and Parakeet (NeMo) ports) called on zeros of shape
  (1, P, d): the returned relative table, P−1 … −(P−1), interleaved; FastSpeech2's module also
  returns x·√d (its xscale), which the adapter checks is the input times √d, apart from the
  table.
* ``espnet``: ESPnet's own ``RelPositionalEncoding`` (``latest``) and
  ``LegacyRelPositionalEncoding`` (``legacy``; espnet PR #2816), called the same way.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

from pespec.clients.model import Client

__all__ = [
    "ESPNET_CLIENTS",
    "conformer",
    "espnet",
    "relative_declaration",
    "xlnet",
]


def relative_declaration(client: Client) -> Any:
    """The client's :class:`~pespec.sinusoidal.relative.RelativeTable` (its ``relative``
    option: position_range, length, d_model, convention preset, xscale)."""
    from pespec.sinusoidal.reference.conventions import preset
    from pespec.sinusoidal.relative import RelativeTable

    spec = dict(client.options["relative"])
    spec["convention"] = preset(str(spec.get("convention", "marian")))
    return RelativeTable(**spec)


def xlnet(client: Client, dtype: str, config: Any) -> Callable[[], Any]:
    """``XLNetModel.relative_positional_encoding(P, P)``[:, 0] (options: ``attn_type``)."""
    torch = importlib.import_module("torch")
    xlnet_module = importlib.import_module("transformers.models.xlnet.modeling_xlnet")
    config_module = importlib.import_module("transformers.models.xlnet.configuration_xlnet")
    decl = relative_declaration(client)
    d = decl.d_model
    cfg = config_module.XLNetConfig(
        vocab_size=8, d_model=d, n_layer=1, n_head=d // 64, d_inner=64,
        attn_type=client.options["attn_type"],
    )  # fmt: skip
    model = xlnet_module.XLNetModel(cfg).eval()

    def build() -> Any:
        with torch.no_grad():
            return model.relative_positional_encoding(decl.length, decl.length)[:, 0].numpy()

    return build


def conformer(client: Client, dtype: str, config: Any) -> Callable[[], Any]:
    """An ESPnet-style relative module of transformers (options: ``module`` the dotted class,
    ``config`` the dotted config class, ``module_config``: True for FastSpeech2's second
    argument)."""
    decl = relative_declaration(client)
    cpath, _, cname = str(client.options["config"]).rpartition(".")
    cfg = getattr(importlib.import_module(cpath), cname)(hidden_size=decl.d_model)
    extra = ({"positional_dropout_rate": 0.0},) if client.options.get("module_config") else ()
    return _module_table(_class(client)(cfg, *extra).eval(), decl)


def espnet(client: Client, dtype: str, config: Any) -> Callable[[], Any]:
    """ESPnet's ``RelPositionalEncoding`` or ``LegacyRelPositionalEncoding(d_model,
    dropout_rate=0)`` (options: ``module`` the dotted class)."""
    decl = relative_declaration(client)
    return _module_table(_class(client)(decl.d_model, 0.0).eval(), decl)


def _class(client: Client) -> Any:
    path, _, name = str(client.options["module"]).rpartition(".")
    return getattr(importlib.import_module(path), name)


def _module_table(module: Any, decl: Any) -> Callable[[], Any]:
    """``build()`` calling ``module`` on (1, P, d) zeros (one column of ones): its relative
    table; a module returning (x·xscale, table) must have scaled x by its declared xscale."""
    torch = importlib.import_module("torch")
    x = torch.zeros((1, decl.length, decl.d_model), dtype=torch.float32)
    x[0, :, 0] = 1.0  # a nonzero input, to see where the xscale goes
    scale = math.sqrt(decl.d_model) if decl.xscale == "sqrt(d)" else 1.0

    def build() -> Any:
        with torch.no_grad():
            out = module(x)
        if isinstance(out, tuple):  # (x·xscale, table)
            scaled, table = out
            if not torch.equal(scaled, x * scale):
                raise ValueError(f"the module's first output is not x·{decl.xscale}")
            out = table
        return out[0].numpy()  # a NumPy array (the catalog imports no NumPy)

    return build


_ADAPTERS = "pespec.clients.relative_clients"
_P = 512  # rows P−1 … −(P−1) (or XLNet's klen … −qlen+1): 1023 or 1024 positions


def _espnet(name: str, position_range: str) -> Client:
    return Client(
        name=f"espnet:{name}",
        family="sinusoidal",
        library="espnet",
        requires=("torch",),
        entry=f"espnet.nets.pytorch_backend.transformer.embedding.{name}",
        source="espnet/espnet espnet/nets/pytorch_backend/transformer/embedding.py",
        adapter=f"{_ADAPTERS}:espnet",
        configs=("declared",),
        options={
            "module": f"espnet.nets.pytorch_backend.transformer.embedding.{name}",
            "relative": {
                "position_range": position_range,
                "length": _P,
                "d_model": 256,
                "convention": "canonical",
                "xscale": "sqrt(d)",
            },
        },
        note=f"a relative table: {position_range} positions, interleaved; xscale √d on the "
        "input, apart from the table",
    )


ESPNET_CLIENTS = (
    _espnet("RelPositionalEncoding", "two-sided"),
    _espnet("LegacyRelPositionalEncoding", "descending"),
)
"""ESPnet's relative tables, in table order (``latest`` and ``legacy``, d_model 256 as its
Conformer recipes; both declared as Transformer-XL's ranges: two-sided P−1 … −(P−1),
descending P−1 … 0). transformers' relative tables, run by :func:`xlnet` and
:func:`conformer`, are declared in :mod:`pespec.clients.transformers_clients`."""
