"""The protocol wire format of file 003 §6 (pair lists, request messages), pure Python.

No Flask, no network: values in, text out, and back. Three layers:

* :mod:`.pairlist` – answers (Table 6.2): :func:`parse_pair_list`, :func:`read_answer`
  (never raises, for the resolver), :class:`PairList`, :class:`Pair`.
* :mod:`.query` – Table 6.1 encoding of request pairs: :func:`encode_query_value`,
  :func:`parse_query`.
* :mod:`.messages` – typed requests (:class:`UrlRequest`, :class:`Acknowledgment`,
  :class:`InclusionRequest`, :class:`ExclusionRequest`,
  :class:`InclusionConfirmationRequest`), :func:`request_url`, :func:`parse_request`,
  :func:`parse_request_url`, :class:`RegistrationKey`.
* :mod:`.status` – the constant answers of §7.2/§9.2 and :func:`refused`.

Typical use::

    url = request_url(address, service_ibi, UrlRequest(client_ips=(ip,), ibi=ibi))
    answer = read_answer(body)              # PairList | UnreadableAnswer
    if isinstance(answer, PairList) and answer:
        redirect_to = answer.get("url")     # raw: the real URL, %hh kept
        shown = answer.text("url")          # decoded for people (ISO-8859-1)
        ack = Acknowledgment.from_answer(answer, client_ips=(ip,), url_persistent=purl)

    message = parse_request(query_string)   # in an Archive service or the resolver
"""
from __future__ import annotations

from ibiportal.protocol.messages import (
    RESOLVER_ADDRESS,
    RESOLVER_SERVICE_IBI,
    SUBJECTS,
    Acknowledgment,
    AddressedRequest,
    ExclusionRequest,
    InclusionConfirmationRequest,
    InclusionRequest,
    RegistrationKey,
    Request,
    UrlRequest,
    check_key,
    parse_request,
    parse_request_url,
    request_url,
)
from ibiportal.protocol.pairlist import Pair, PairList, UnreadableAnswer, parse_pair_list, read_answer
from ibiportal.protocol.status import (
    ACKNOWLEDGMENT_NOTICE,
    CONFIRMATION,
    EXCLUDED,
    INCLUDED_CONFIRMED,
    INCLUDED_UNCONFIRMED,
    included,
    refused,
)

__all__ = [
    "ACKNOWLEDGMENT_NOTICE",
    "CONFIRMATION",
    "EXCLUDED",
    "INCLUDED_CONFIRMED",
    "INCLUDED_UNCONFIRMED",
    "RESOLVER_ADDRESS",
    "RESOLVER_SERVICE_IBI",
    "SUBJECTS",
    "Acknowledgment",
    "AddressedRequest",
    "ExclusionRequest",
    "InclusionConfirmationRequest",
    "InclusionRequest",
    "Pair",
    "PairList",
    "UnreadableAnswer",
    "RegistrationKey",
    "Request",
    "UrlRequest",
    "check_key",
    "included",
    "parse_pair_list",
    "parse_request",
    "parse_request_url",
    "read_answer",
    "refused",
    "request_url",
]
