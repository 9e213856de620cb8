"""The golden models (written from the papers, independently of the RTL).

``parse(frame)`` gives the parser's header vector as a dict;
``Ingress(config)`` is the ingress pipelines' model: ``process(port, frame)``
(the frame with its FCS) gives ``(out_port, bytes)`` as the frame leaves the
switch when nothing congests (the egress rewrite applied; ``egress=False``:
as it leaves the ingress), or ``None`` for a frame the ingress drops.
``config_writes(config)`` lists the AXI4-Lite writes (address, value) that
load the configuration's ingress tables, as ``Switch`` does after reset.
"""
from ._native import IngressModelPy as Ingress
from ._native import config_writes, parse

__all__ = ["Ingress", "parse", "config_writes"]
