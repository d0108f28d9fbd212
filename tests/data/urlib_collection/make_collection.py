"""Writes ``collection.jsonl`` (one item a line): a URLib Archive's collection in URLib's own shapes, for the test of a
collection moving in, out and on (tests/web/items/test_collection_move.py). Run from the repository's
root: ``.venv/bin/python tests/data/urlib_collection/make_collection.py``. The output is the same
every time (a seeded random generator); the file is kept in the repository, and the test reads it.

Each item's two forms are one IBI: the repository name is written here (its server's prefix,
``@80`` on port-80 servers before August 2010 as file 004 says, then none), the IBIp is the
portal's conversion of it, checked to convert back; two items are the standard's own and a
public thesis's (file 003 Example 9.2, Koja 2019). See README.md beside this file.
"""
from __future__ import annotations

import json
import random
import sys
import unicodedata
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from ibiportal.ibi.conversion import convert  # noqa: E402
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS  # noqa: E402

OUT = Path(__file__).with_name("collection.jsonl")
#: The servers of the collection: the repository-name prefix (spelt with @80 before August 2010
#: where the server is on port 80), its host, and the years of its items.
SERVERS = [
    ("sid.inpe.br/mtc-m18", True, "mtc-m18.sid.inpe.br", (2003, 2012)),
    ("sid.inpe.br/mtc-m19", True, "mtc-m19.sid.inpe.br", (2005, 2013)),
    ("sid.inpe.br/mtc-m21c", False, "mtc-m21c.sid.inpe.br", (2016, 2020)),
    ("sid.inpe.br/mtc-m21d", False, "mtc-m21d.sid.inpe.br", (2020, 2025)),
    ("iconet.com.br/banon", False, "iconet.com.br", (1998, 2003)),
]
PER_SERVER = 60
AUGUST_2010 = datetime(2010, 8, 1, tzinfo=timezone.utc)
FIRST_NAMES = ["João", "Maria", "José", "Ana", "Gérald", "Lúcia", "Sérgio", "Conceição", "Inês", "Antônio", "Márcia",
               "Célia", "Rian", "Thaís", "Ângela"]
LAST_NAMES = ["Souza", "Conceição", "Araújo", "Guimarães", "Banon", "Simões", "Magalhães", "Koja", "Gonçalves",
              "Brandão", "Falcão", "Assunção", "Peixoto", "Lemos", "Câmara"]
TOPICS = ["séries temporais", "previsão numérica do tempo", "cintilação ionosférica", "sensoriamento remoto",
          "propulsão de satélites", "dinâmica orbital", "queimadas na Amazônia", "modelagem hidrológica",
          "física de plasmas", "processamento de imagens", "mudanças climáticas", "combustão catalítica"]
KINDS = [("Tese", "Tese (Doutorado em {course})"), ("Dissertação", "Dissertação (Mestrado em {course})"),
         ("Relatório", None), ("Artigo", None)]
COURSES = ["Computação Aplicada", "Meteorologia", "Geofísica Espacial", "Engenharia e Tecnologia Espaciais",
           "Sensoriamento Remoto"]
FILES = [["publicacao.pdf"], ["publicacao.pdf", "anexos/dados de observação.csv"],
         ["publicacao.pdf", "figuras/órbita 1.png", "capítulos/cap 2/seção 2.1.txt"], ["leia-me.txt"]]


def rep_name(prefix: str, port80: bool, moment: datetime, seconds: bool) -> str:
    spelt = f"{prefix}@80" if port80 and moment < AUGUST_2010 else prefix
    suffix = moment.strftime("%Y/%m.%d.%H.%M") + (moment.strftime(".%S") if seconds else "")
    return f"{spelt}/{suffix}"


def other_form(rep: str) -> str:
    ibip = convert(rep, KNOWN_PREFIX_PAIRS).to_dict()["ibip"]
    assert convert(ibip, KNOWN_PREFIX_PAIRS).to_dict()["rep"] == rep, rep
    return ibip


def item(number: int, rep: str, host: str, rng: random.Random, moment: datetime) -> dict:
    ibip = other_form(rep)
    kind, description = KINDS[number % len(KINDS)]
    language = "pt" if number % 3 else "en"
    topic = TOPICS[number % len(TOPICS)]
    title = (f"Estudo de {topic}: ação, reação e análise nº {number}" if language == "pt"
             else f"A study of {topic} (number {number})")
    creators = [f"{rng.choice(LAST_NAMES)}, {rng.choice(FIRST_NAMES)}" for _ in range(1 + number % 3)]
    files = FILES[number % len(FILES)] if number % 5 in (0, 2) else []
    # how the record names its IBI, in turn: as URLib's Archives and their harvesters publish it
    style = number % 4
    if style == 0:
        oai_identifier, named = f"oai:urlib.net:{rep}", [f"http://urlib.net/ibi/{ibip}"]
    elif style == 1:
        oai_identifier, named = f"oai:urlib.net:{ibip}", [f"http://{host}/col/{rep}/doc/{(files or ['publicacao.pdf'])[0]}"]
    elif style == 2:
        oai_identifier, named = f"oai:{host}:{rep}", []
    else:
        oai_identifier, named = f"oai:urlib.net:{ibip}", [f"ibi:{ibip}"]
    dc = [("title", title), *(("creator", name) for name in creators), ("date", str(moment.year)), ("type", kind)]
    if description:
        dc.append(("description", description.format(course=COURSES[number % len(COURSES)])))
    dc += [("language", language), ("publisher", "Instituto Nacional de Pesquisas Espaciais (INPE)"),
           *(("identifier", text) for text in named)]
    stamp = (moment + timedelta(days=number % 40, hours=number % 7)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "rep": rep, "ibip": ibip, "oai_identifier": oai_identifier, "datestamp": stamp, "dc": dc,
        "title": title, "creators": creators, "date": str(moment.year), "language": language,
        "files": [{"path": path, "text": f"{path} de {rep}\n" * (1 + number % 4),
                   # one name written decomposed on disk, as a Mac writes it: imported composed (NFC)
                   "on_disk": unicodedata.normalize("NFD", path) if number == 10 and path != "publicacao.pdf" else path}
                  for path in files],
    }


def main() -> None:
    rng = random.Random(34)
    items = [item(0, "sid.inpe.br/mtc-m18@80/2009/07.21.13.23", "mtc-m18.sid.inpe.br", rng,  # file 003 Example 9.2
                  datetime(2009, 7, 21, 13, 23, tzinfo=timezone.utc)),
             item(1, "sid.inpe.br/mtc-m21c/2019/02.06.02.41", "mtc-m21c.sid.inpe.br", rng,  # Koja 2019 (tests/data/import)
                  datetime(2019, 2, 6, 2, 41, tzinfo=timezone.utc))]
    seen = {entry["ibip"] for entry in items}
    number = 2
    for prefix, port80, host, (first, last) in SERVERS:
        made = 0
        while made < PER_SERVER:
            moment = datetime(first, 1, 1, tzinfo=timezone.utc) + timedelta(
                minutes=rng.randrange(int((datetime(last, 1, 1) - datetime(first, 1, 1)).total_seconds() // 60)),
                seconds=rng.randrange(1, 60))  # a name with seconds :00 is the name without them
            rep = rep_name(prefix, port80, moment, seconds=number % 2 == 0)
            entry = item(number, rep, host, rng, moment)
            if entry["ibip"] in seen:
                continue
            seen.add(entry["ibip"])
            items.append(entry)
            made += 1
            number += 1
    deleted = next(entry for entry in items if "mtc-m19@80" in entry["rep"] and not entry["files"])
    deleted.update(deleted=True, dc=[])  # a deleted record: a header with status="deleted" only
    OUT.write_text("".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in items), encoding="utf-8")
    print(f"{len(items)} items, {sum(len(entry['files']) for entry in items)} files -> {OUT}")


if __name__ == "__main__":
    main()
