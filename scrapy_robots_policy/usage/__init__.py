"""Usage signals: what sites say their content may be used for (no Scrapy import).

One reader per source, each mapping its vocabulary onto :data:`PURPOSES` and returning a
:class:`Reading` (signals with their evidence, and the problems met): :mod:`.robots`
(Content-Signal and Content-Usage lines of robots.txt), :mod:`.headers` (the
Content-Usage, tdm-reservation and tdm-policy response headers), :mod:`.tdmrep`
(/.well-known/tdmrep.json, and TDMRep's order between the file, the headers and the meta
tags), :mod:`.noai` (noai / noimageai directives); :mod:`.aipref` parses the aipref
vocabulary for the first two; :mod:`.purposes` decides. docs/usage-signals.md says which
rule of which specification each one follows.
"""

from .headers import HeaderReading, header_signals
from .noai import noai_signals
from .purposes import PURPOSES, Signal, UsageDecision, decide, refused
from .reading import Reading
from .robots import robots_signals
from .tdmrep import TdmDeclaration, TdmRep, tdm_meta, tdm_signals

__all__ = [
    "PURPOSES", "HeaderReading", "Reading", "Signal", "TdmDeclaration", "TdmRep",
    "UsageDecision", "decide", "header_signals", "noai_signals", "refused",
    "robots_signals", "tdm_meta", "tdm_signals",
]
