"""The Convert page (file 004 Algorithms 1-2 and 5-6 and their inverses; STANDARD.md §1.4).

* ``GET /convert?ibi=…``: one identifier, its anatomy in both forms and its warnings;
* ``POST /convert``: a batch, pasted or a CSV file (ibiportal.ibi.batch), shown as a table;
* ``POST /convert/batch.csv``: the same batch as a CSV download;
* ``/convert/prefixes``: the table of known prefix pairs and those Archives reported; administrators
  add pairs there, and confirm or reject the reported ones.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from ...errors import ParseError
from ...i18n import N_
from ...ibi.batch import (
    MAX_BYTES,
    InputRow,
    check_size,
    convert_rows,
    decode_upload,
    rows_from_csv,
    rows_from_lines,
    to_csv,
)
from ...ibi.classify import ibi_of
from ...ibi.conversion import convert
from ...ibi.ibip import decode_ibip_prefix
from ...ibi.prefixes import check_prefix_pair, is_claim
from ...ibi.repository import decode_rep_prefix
from ...ibi.servers import KNOWN_SERVERS, KnownServer
from ..auth.session import admin_required, current_admin
from ...application.prefix_pairs import PAIR_CONFIRMED, PAIR_REJECTED, PrefixPairRecord
from .. import limits
from ..context import application, known_prefix_pairs
from ..form_errors import add_error, show_error
from ..i18n import error_text, gettext
from ..inputs import optional_port
from .anatomy import anatomy
from .forms import BatchDownloadForm, BatchForm, ConvertForm, PairDecisionForm, PrefixPairForm

bp = Blueprint("convert", __name__)

CSV_FILENAME = "ibi-conversions.csv"
#: The download form shares the page with the batch form: its fields get their own names and ids.
DOWNLOAD_PREFIX = "download"
#: Room for a batch's text fields (pasted text, or the text posted again for the download): up
#: to the batch limit, and beyond it up to this size, so that an input a little over the limit
#: is refused next to its field rather than by Flask's default 500 kB cap (a bare 413 page).
BATCH_FORM_MEMORY = 4 * MAX_BYTES
_BATCH_ENDPOINTS = frozenset({"convert.convert_page", "convert.download_csv"})


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """A batch (posted, or posted again for its download) reads a text: ``RATELIMIT_TEXT``."""
    rules.text_read(lambda: request.method == "POST" and request.endpoint in _BATCH_ENDPOINTS)(bp)


@bp.url_value_preprocessor
def _room_for_batch_text(endpoint: str | None, _values: dict | None) -> None:
    """Raise the form-field size limit for the batch endpoints.

    A URL value preprocessor runs before every ``before_request`` function, in particular
    before CSRFProtect's, which is the first to read the form.
    """
    if endpoint in _BATCH_ENDPOINTS:
        request.max_form_memory_size = BATCH_FORM_MEMORY


@bp.route("/convert", methods=["GET", "POST"])
def convert_page():
    """GET: one identifier with its anatomy (a shareable URL). POST: a batch, as a table."""
    form = ConvertForm(request.args)
    conversion = None
    notes: tuple = ()
    if form.ibi.data:
        try:
            ibi, notes = ibi_of(form.ibi.data, "ibi")
            conversion = convert(
                ibi,
                known_prefix_pairs(),
                host=form.host.data or None,
                ip=form.ip.data or None,
                port=optional_port(form.port.data),
            )
        except ParseError as exc:
            show_error(form, exc, default_field="ibi")
    batch_form = BatchForm()
    batch = download = None
    if request.method == "POST" and batch_form.validate():
        read = _batch_input(batch_form)
        if read is not None:
            rows, download = read
            batch = convert_rows(rows, known_prefix_pairs())
    status = 400 if form.errors or batch_form.errors else 200
    return (
        render_template(
            "convert/convert.html",
            form=form,
            conversion=conversion,
            anatomy=anatomy(conversion) if conversion else None,
            notes=notes,
            batch_form=batch_form,
            batch=batch,
            download=download,
        ),
        status,
    )


def _batch_input(form: BatchForm) -> tuple[list[InputRow], BatchDownloadForm] | None:
    """The batch's rows, and the download form carrying the same input; ``None`` after an
    error, shown next to the field it is about (nothing is converted then)."""
    upload = form.csv_file.data
    pasted = form.identifiers.data or ""
    if upload and upload.filename:
        if pasted.strip():
            add_error(form.csv_file, gettext("Paste identifiers or choose a file, not both: clear the text box to use the file."))
            return None
        try:
            text = _read_upload(upload.stream)
            rows = rows_from_csv(text)
        except ParseError as exc:
            add_error(form.csv_file, error_text(exc))
            return None
        return rows, BatchDownloadForm(formdata=None, prefix=DOWNLOAD_PREFIX, kind="csv", text=text)
    if not pasted.strip():
        add_error(form.identifiers, gettext("Paste identifiers, one per line, or choose a CSV file."))
        return None
    try:
        rows = rows_from_lines(pasted)
    except ParseError as exc:
        add_error(form.identifiers, error_text(exc))
        return None
    return rows, BatchDownloadForm(formdata=None, prefix=DOWNLOAD_PREFIX, kind="lines", text=pasted)


def _read_upload(stream: io.IOBase) -> str:
    """The uploaded file's text; its size is checked before it is read."""
    stream.seek(0, io.SEEK_END)
    check_size(stream.tell(), N_("the file"))
    stream.seek(0)
    return decode_upload(stream.read())


@bp.post("/convert/batch.csv")
def download_csv():
    """The batch result as a CSV file: its input posted again by the result's Download button."""
    form = BatchDownloadForm(prefix=DOWNLOAD_PREFIX)
    if not form.validate():
        raise ParseError(N_("post the batch again from the Convert page"), field="kind")
    reader = rows_from_csv if form.kind.data == "csv" else rows_from_lines
    result = convert_rows(reader(form.text.data or ""), known_prefix_pairs())
    return Response(
        to_csv(result),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{CSV_FILENAME}"'},
    )


@dataclass(frozen=True)
class PairRow:
    """A row of the prefix table: both prefixes, what each decodes to, where it came from; for a
    pair an Archive reported, its standing and whether conversion uses it meanwhile."""

    rep_prefix: str
    ibip_prefix: str
    host: str
    rep_port: int
    ip: str
    ibip_port: int
    source: str
    added_at: str | None
    item: tuple[str, str] | None = None
    found_in: str | None = None
    record: PrefixPairRecord | None = None
    in_use: bool = True


def _pair_row(rep: str, ibip: str, source: str, added_at: str | None, server: KnownServer | None = None,
              record: PrefixPairRecord | None = None, in_use: bool = True) -> PairRow:
    host, rep_port = decode_rep_prefix(rep)
    ip, ibip_port = decode_ibip_prefix(ibip)
    item = (server.item_rep, server.item_ibip) if server else None
    return PairRow(rep, ibip, host, rep_port, ip, ibip_port, source, added_at, item,
                   server.found_in if server else None, record, in_use)


def _prefix_table() -> tuple[list[PairRow], list[PairRow]]:
    """The facts (the real servers of the data file, each with the reference printing one item in
    both forms, then the pairs administrators gave or confirmed), and the pairs Archives reported,
    each saying whether conversion uses it meanwhile (only where no fact speaks of its prefixes)."""
    standard = [_pair_row(server.rep_prefix, server.ibip_prefix, server.reference, None, server) for server in KNOWN_SERVERS]
    records = application().prefix_pairs().records()
    in_use = {(pair[0], pair[1]) for pair in known_prefix_pairs() if is_claim(pair)}
    confirmed = [_pair_row(r.rep_prefix, r.ibip_prefix, r.source, r.added_at, record=r)
                 for r in records if r.status == PAIR_CONFIRMED]
    reported = [_pair_row(r.rep_prefix, r.ibip_prefix, r.source, r.added_at, record=r,
                          in_use=(r.rep_prefix, r.ibip_prefix) in in_use)
                for r in records if r.status != PAIR_CONFIRMED]
    return standard + confirmed, reported


def _render_prefixes(form: PrefixPairForm | None, status: int = 200):
    pairs, reported = _prefix_table()
    decision = PairDecisionForm() if current_admin() else None
    return render_template("convert/prefixes.html", pairs=pairs, reported=reported, form=form,
                           decision=decision), status


@bp.get("/convert/prefixes")
def prefixes_page():
    """The known prefix pairs and those Archives reported; administrators also get the form to add
    one and the buttons to confirm or reject a reported one."""
    return _render_prefixes(PrefixPairForm() if current_admin() else None)


@bp.post("/convert/prefixes")
@admin_required
def add_prefix_pair():
    """Add a pair, checked exactly as ``flask ibi prefix-pair`` checks it."""
    form = PrefixPairForm()
    if form.validate():
        try:
            rep, ibip = check_prefix_pair(form.rep_prefix.data, form.ibip_prefix.data)
        except ParseError as exc:
            show_error(form, exc)
        else:
            if (rep, ibip) in {tuple(pair[:2]) for pair in known_prefix_pairs() if not is_claim(pair)}:
                flash(gettext("%(rep)s = %(ibip)s is already in the table.", rep=rep, ibip=ibip))
            elif application().prefix_pairs().add(rep, ibip, current_admin()):
                flash(gettext("Added %(rep)s = %(ibip)s.", rep=rep, ibip=ibip))
            else:
                flash(gettext("%(rep)s = %(ibip)s was rejected before: it stays rejected.", rep=rep, ibip=ibip))
            return redirect(url_for("convert.prefixes_page"))
    return _render_prefixes(form, 400)


@bp.post("/convert/prefixes/decision")
@admin_required
def decide_prefix_pair():
    """Confirm a pair an Archive reported (it becomes a fact of the table) or reject it (it is
    never used, and the Archive's answer cannot bring it back)."""
    form = PairDecisionForm()
    if not form.validate():
        raise ParseError(N_("post the decision again from the prefix table"), field="rep_prefix")
    rep, ibip = form.rep_prefix.data, form.ibip_prefix.data
    status = PAIR_CONFIRMED if form.confirm.data else PAIR_REJECTED
    if not application().prefix_pairs().decide(rep, ibip, status, current_admin()):
        flash(gettext("%(rep)s = %(ibip)s awaits no decision.", rep=rep, ibip=ibip))
    elif status == PAIR_CONFIRMED:
        flash(gettext("Confirmed %(rep)s = %(ibip)s.", rep=rep, ibip=ibip))
    else:
        flash(gettext("Rejected %(rep)s = %(ibip)s.", rep=rep, ibip=ibip))
    return redirect(url_for("convert.prefixes_page"))
