"""The shapes of both IBI forms, written once as pattern text (file 004, Tables 6.1 and 7.1).

Three readers look for IBIs by pattern: the fast path of conversion (fast.py), the finder of
IBIs in a text (extract.py) and the recogniser of pasted links (recognise.py). Each composes
its own expression from these pieces, so that a digit class or the shape of a repository name
is decided here and nowhere else. The precise parsers (repository.py, ibip.py) judge every
character for the error message; the pieces below only say what a well-formed IBI looks like.

Every piece is a fragment of ``re`` syntax without groups of its own, meant for
``re.IGNORECASE`` (both forms are case-insensitive: Tables 6.1 and 7.1) and ``re.ASCII``.
"""
from __future__ import annotations

from ibiportal.ibi.numerals import BASE27_DIGITS
from ibiportal.ibi.ibip import IPV4_SEPARATOR, IPV6_SEPARATOR

# -- IBIp (Table 7.1) ------------------------------------------------------------------------------
#: One base-27 digit (Table 7.6): ``2``-``9`` and the letters but I O V W X Y Z.
IBIP_DIGIT = f"[{BASE27_DIGITS}]"
#: The separator after the coded IP: ``W`` for IPv4, ``X`` for IPv6.
IBIP_SEPARATOR = f"[{IPV4_SEPARATOR}{IPV6_SEPARATOR}]"
#: Coded IP, separator, coded port (none for port 800).
IBIP_PREFIX = f"{IBIP_DIGIT}+{IBIP_SEPARATOR}{IBIP_DIGIT}*"
#: Coded seconds since 1995-08-01, then ``W`` and the coded fraction of a second.
IBIP_SUFFIX = f"{IBIP_DIGIT}+(?:{IPV4_SEPARATOR}{IBIP_DIGIT}+)?"

# -- Repository name (Table 6.1) ------------------------------------------------------------------
#: One host-name label (RFC 1034): letters, digits and inner ``-``.
LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
#: The prefix's first part: a domain (Algorithm 1 takes the host's first label off it).
SUBDOMAIN = rf"{LABEL}(?:\.{LABEL})*"
#: The prefix's second part: the host's first label, then ``.`` or ``@`` (before 2010) and a port.
WORD_PORT = rf"{LABEL}(?:[.@][0-9]{{1,5}})?"
#: A year: four or more digits (Table 6.1 ``4*DIGIT``; STANDARD.md §7).
YEAR = r"[0-9]{4,}"
#: ``month.day.hour.minute``, two digits each.
MINUTE = r"[0-9]{2}\.[0-9]{2}\.[0-9]{2}\.[0-9]{2}"
#: The optional ``.second`` and ``.fraction`` after the minute.
SECOND = r"(?:\.[0-9]{2}(?:\.[0-9]+)?)?"
#: The whole suffix: ``2009/02.16.17.46[.SS[.fraction]]``.
REP_SUFFIX = rf"{YEAR}/{MINUTE}{SECOND}"
#: The whole prefix: ``sid.inpe.br/mtc-m18@80``.
REP_PREFIX = rf"{SUBDOMAIN}/{WORD_PORT}"
#: A repository name as Algorithms 1-2 write it (a prefix with a dot in its first part).
REPOSITORY_NAME = rf"{REP_PREFIX}/{REP_SUFFIX}"

#: INPE's report-number suffix after a repository name's minute or second (STANDARD.md §6):
#: ``-NTC``, ``-TDI``; upper case only, as the library prints it.
REPORT_NUMBER = "(?-i:-[A-Z]{2,5})"
