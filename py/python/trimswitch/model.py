"""The golden models (written from the papers, independently of the RTL).

``parse(frame)`` gives the parser's header vector as a dict;
``Ingress(config)`` is the ingress pipelines' model: ``process(port, frame)``
(the frame with its FCS) gives ``(out_port, bytes)`` as the frame leaves the
switch when nothing congests (the egress rewrite applied; ``egress=False``:
as it leaves the ingress), or ``None`` for a frame the ingress drops.
``Ingress.trim(port, frame, rts=False)`` (and ``trim(config, port, frame)``)
gives the frame as the traffic manager's trimmer cuts it (the
configuration's trim lengths and DSCP), or ``None`` when the switch would
not trim it (dropped at ingress; not IP or not trimmable).
``config_writes(config)`` lists the AXI4-Lite writes (address, value) that
load the configuration's ingress tables, as ``Switch`` does after reset.
"""
from ._native import IngressModelPy as Ingress
from ._native import config_writes, parse

__all__ = ["Ingress", "parse", "trim", "config_writes"]


def trim(config, port: int, frame: bytes, rts: bool = False, egress: bool = True, set=None):
    """``Ingress(config, set).trim(port, frame, rts, egress)``: the trimmed
    frame as ``(out_port, bytes)``, or ``None``."""
    return Ingress(str(config), set).trim(port, frame, rts, egress)
