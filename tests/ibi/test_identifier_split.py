"""split_ibi: the IBI at the start of a persistent-URL path, and where it ends."""
from __future__ import annotations

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.identifier import split_ibi


@pytest.mark.parametrize(
    ("path", "ibi", "rest"),
    [
        ("8JMKD3MGP8W/35MMLL8!:(oai_dc)", "8JMKD3MGP8W/35MMLL8", "!:(oai_dc)"),
        ("8JMKD3MGP8W/35MMLL8", "8JMKD3MGP8W/35MMLL8", ""),
        ("8jmkd3mgp8w/35mmll8/doc/a.pdf", "8JMKD3MGP8W/35MMLL8", "/doc/a.pdf"),
        ("LK47B6W/362SFKH+?ibiurl.verblist=GetMetadata", "LK47B6W/362SFKH", "+?ibiurl.verblist=GetMetadata"),
        ("LK47B6W/362SFKH+(pt-BR):", "LK47B6W/362SFKH", "+(pt-BR):"),
        ("sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf", "sid.inpe.br/mtc-m18@80/2009/07.21.14.43", "/doc/a.pdf"),
        ("iconet.com.br/banon/2009/09.09.22.01:", "iconet.com.br/banon/2009/09.09.22.01", ":"),
        ("sid.inpe.br/iris@1912/2005/07.20.00.37.33?x=1", "sid.inpe.br/iris@1912/2005/07.20.00.37.33", "?x=1"),
        ("br/inpe/2009/09.09.22.01.15.5!", "br/inpe/2009/09.09.22.01.15.5", "!"),
    ],
)
def test_split(path, ibi, rest):
    identifier, end = split_ibi(path)
    assert str(identifier) == ibi
    assert path[end:] == rest
    assert path[:end].upper() == ibi.upper() or path[:end].lower() == ibi.lower()


@pytest.mark.parametrize(
    ("path", "position", "words"),
    [
        ("8JMKD3MGP8W/35MMLL8O", 20, "'O' is not in the IBIp alphabet"),
        ("8JMKD3MGP8W/35MMLL8z/doc", 20, "'z' is not in the IBIp alphabet"),
        ("sid.inpe.br/x/2009/07.21.14.43a", 31, "cannot follow the date"),
        ("sid.inpe.br/x/2009/07.21!", 25, "hour missing"),
        ("sid.inpe.br/x", 14, "4 '/'-separated parts"),
        ("8JMKD3MGP8W!", 13, "missing '/'"),
        ("8JMKD3MGP8W/!", 13, "coded date missing"),
        ("8JMKD3MGP8W/ZZZZZZZ", 13, "character 'Z' is not in the IBIp alphabet"),
        ("", None, "empty"),
    ],
)
def test_split_errors(path, position, words):
    with pytest.raises(ParseError) as caught:
        split_ibi(path)
    assert words in caught.value.message
    assert caught.value.position == position
