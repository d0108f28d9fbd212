"""Links to URLib items as published, beyond the persistent URL: direct Archive links, CGI links,
Markdown and HTML around them, and the forms of URLib's own pair lists.

Collected with the ``search`` tool's exact-string index (queries ``attachment.cgi/sid.inpe.br``,
``/archive.cgi/``, ``mirrorget.cgi``, ``doc/mirror.cgi``, ``.sid.inpe.br/col/``, ``ePrint@1905``,
``Metadadossid.inpe.br``, ``](http://urlib.net/``, ``href="http://urlib.net/``, ``](http://mtc-m``,
``/doc/publicacao.pdf``, ``mtc-m16c.sid.inpe.br/``, ``https://urlib.net/``, ``dpi.inpe.br/``);
``source`` names the index entry (its id, for ``read_file``) and the text around the string. The
strings of URLib's pair lists come from the standard (file 003) and the issue that asked for them,
since no published page prints them.

``meant`` is what a person reads the string as: the item's IBI in the case it was published in
(compared without case), :data:`MIRROR` for a mirror's own page, or None for no IBI at all.
"""
from __future__ import annotations

MIRROR = "mirror page"

#: (text as found, what it means, fragments the notes or error must contain, source)
LINKS: list[tuple[str, str | None, tuple[str, ...], str]] = [
    # -- attachment.cgi and archive.cgi --------------------------------------------------------------
    ("http://marte2.sid.inpe.br/attachment.cgi/sid.inpe.br/marte2/2025/08.16.16.54.21/doc/@individualPDF.pdf",
     "sid.inpe.br/marte2/2025/08.16.16.54.21", ("attachment",),
     "Publication list, '[📄 View Paper](…)' after an SBSR 2025 paper, index id 10006810738"),
    ("[link](http://mtc-m21c.sid.inpe.br/attachment.cgi/sid.inpe.br/mtc-m21c/2019/08.07.15.41/doc/publicacao.pdf).",
     "sid.inpe.br/mtc-m21c/2019/08.07.15.41", ("Markdown link", "attachment"),
     "README of a doctoral thesis' code: 'O documento da tese pode ser visto … neste [link](…).', index id 39241853106"),
    ('<a href="http://sibgrapi.sid.inpe.br/attachment.cgi/sid.inpe.br/sibgrapi/2012/07.04.00.56/doc/sib.pdf" target="\\_blank">',
     "sid.inpe.br/sibgrapi/2012/07.04.00.56", ("HTML link", "attachment"),
     "Blog page 'Approximating implicit curves on triangulations with affine arithmetic' (SIBGRAPI 2012), index id 34174621392"),
    ('<a href="mtc-m16d.sid.inpe.br/archive.cgi/sid.inpe.br/mtc-m19@80/2010/ 01.20.19.25">Recozimento Simulado</a>',
     "sid.inpe.br/mtc-m19@80/2010/01.20.19.25", ("HTML link", "space", "archive"),
     "Reference [4] SOEIRO, BECCENERI, SILVA Neto. Recozimento Simulado (Simulated Annealing), index id 44800256652"),
    ("[download](http://mtc-m16c.sid.inpe.br/archive.cgi/sid.inpe.br/iris@1905/2005/08.25.14.01)",
     "sid.inpe.br/iris@1905/2005/08.25.14.01", ("Markdown link", "archive"),
     "Guide to INPE's LaTeX style: 'clique no *link* [download](…) do estilo', index id 21224436288"),
    # -- mirrorget.cgi: a mirror's page about the item whose metadata repository is named ---------------
    ("http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24/doc/mirrorget.cgi?metadatarepository=sid.inpe.br/mtc-m16c/2025/05.29.18.05.45&choice=full&languagebutton=en",
     "sid.inpe.br/mtc-m16c/2025/05.29.18.05", ("mirror", "metadata"),
     "Scraper of an INPE record's metadata page (URL constant), index id 54626639495"),
    ("[Access](http://mtc-m21d.sid.inpe.br/col/urlib.net/www/2021/06.04.03.40.25/doc/mirrorget.cgi?languagebutton=pt-BR&metadatarepository=sid.inpe.br/mtc-m21d/2024/09.03.22.32.35&index=0&serveraddress=mtc-m21d.sid.inpe.br+808&choice=full&lastupdate=2024:09.04.13.03.22+urlib.net/www/2021/06.04.03.40+pubtc@inpe.br+%7BD+%7B%7D%7D)",
     "sid.inpe.br/mtc-m21d/2024/09.03.22.32", ("Markdown link", "mirror", "metadata"),
     "Data set list: Souza, Monteiro, Escada, 'Os sistemas do açaí na paisagem amazônica', 2024, '[Access](…)', index id 14452449700"),
    ("http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24/doc/mirrorget.cgi",
     MIRROR, ("mirror",),
     "Metadata scraper's base URL, before its query is added, index id 54860401505"),
    # -- mirror.cgi: the mirror's own page -----------------------------------------------------------------
    ("http://sibgrapi.sid.inpe.br/col/sid.inpe.br/banon/2001/03.30.15.38.24/doc/mirror.cgi/About?languagebutton=en&languagerep1=sid.inpe.br/banon/2001/05.04.15.05&languagerep2=dpi.inpe.br/banon/1999/05.03.22.11&firstlanguagerep=sid.inpe.br/banon/2001/05.04.15.05&submissionformrep=dpi.inpe.br/banon-pc2@80/2006/08.30.19.42&returnbutton=yes",
     MIRROR, ("mirror",),
     "SIBGRAPI paper-list scraper's start page, index id 45527485925"),
    # -- /col/<rep>/doc/<file> in Markdown, HTML and text ----------------------------------------------------
    ("[http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2021/09.04.19.00/doc/103.pdf](http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2021/09.04.19.00/doc/103.pdf).",
     "sid.inpe.br/sibgrapi/2021/09.04.19.00", ("Markdown link", "direct link"),
     "Course notes: '- Bias and fairness in face detection. [url](url).', index id 53271085263"),
    ("http://bibdigital.sid.inpe.br/col/iconet.com.br/banon/2003/11.21.21.08/doc/oai.cgi",
     "iconet.com.br/banon/2003/11.21.21.08", ("direct link",),
     "List of Brazilian repositories: INPE's oaiUrl, index id 34124714265"),
    ("Disponível em: http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/ePrint@1905/2006/08.03.20.37/doc/wilson_yamaguti.pdf.",
     "sid.inpe.br/ePrint@1905/2006/08.03.20.37", ("direct link", "case"),
     "Reference 'BRAZILIAN SPACE-BASED ENVIRONMENTAL DATA COLLECTION SYSTEM. INPE, 2015.', index id 16100498041"),
    ("[ForTraCC algorithm](http://mtc-m16b.sid.inpe.br/col/sid.inpe.br/mtc-m15@80/2008/06.02.17.27/doc/ForTraCC_Published.pdf)",
     "sid.inpe.br/mtc-m15@80/2008/06.02.17.27", ("direct link",), "ForTraCC module README, index id 13713038113"),
    ("[Introdução ao Climate Data Operators (CDO). Autor: Guilherme Martins. Versão oficial](http://mtc-m21b.sid.inpe.br/col/sid.inpe.br/mtc-m21b/2016/11.18.17.34/doc/publicacao.pdf)",
     "sid.inpe.br/mtc-m21b/2016/11.18.17.34", ("direct link",), "CDO tutorials list, index id 5693647753"),
    ("http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2011/11.15.22.02/doc/publicacao.pdf",
     "sid.inpe.br/mtc-m19/2011/11.15.22.02", ("direct link",),
     "'The related thesis can be found at …', index id 30213002404"),
    ("'http://mtc-m21c.sid.inpe.br/col/sid.inpe.br/mtc-m21c/2021/04.21.18.47/doc/publicacao.pdf',",
     "sid.inpe.br/mtc-m21c/2021/04.21.18.47", ("direct link",), "SQL insert of a master's dissertation link, index id 59597381518"),
    ("http://mtc-m17.sid.inpe.br/col/sid.inpe.br/jeferson/2005/06.01.18.47/doc/publicacao.pdf",
     "sid.inpe.br/jeferson/2005/06.01.18.47", ("direct link",), "MultiSeg segmentation code comment, index id 49654323514"),
    ("[A new Adaptive Evolutionary Algorithm for Design Optimization (Barroca, 2019)](http://mtc-m21c.sid.inpe.br/col/sid.inpe.br/mtc-m21c/2019/05.15.23.22/doc/publicacao.pdf).",
     "sid.inpe.br/mtc-m21c/2019/05.15.23.22", ("direct link", "Markdown link"), "README of an optimization package, index id 11989242175"),
    ("🔗 **Dissertação disponível em:** [Repositório INPE](http://mtc-m21d.sid.inpe.br/col/sid.inpe.br/mtc-m21d/2024/02.15.16.13/doc/thisInformationItemHomePage.html)",
     "sid.inpe.br/mtc-m21d/2024/02.15.16.13", ("direct link",),
     "README of a dissertation on flood-image classification, index id 36911526461"),
    ("> [Publication info/link](http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m16c/2025/06.04.13.53/doc/thisInformationItemHomePage.html)",
     "sid.inpe.br/mtc-m16c/2025/06.04.13.53", ("direct link",), "README citing a DGGS paper, index id 10946517207"),
    ('link="http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2010/07.21.13.53/doc/Renata_Rocha.pdf"',
     "sid.inpe.br/mtc-m18@80/2010/07.21.13.53", ("direct link",), "React ReferencesCard of a galaxy-cluster study, index id 2489356423"),
    ('<a href="http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m16c/2026/02.16.17.56/doc/thisInformationItemHomePage.html" target="_blank" rel="noopener noreferrer" className="block bg-slate-95">',
     "sid.inpe.br/mtc-m16c/2026/02.16.17.56", ("HTML link", "direct link"), "Project page's publication card, index id 69614496914"),
    ("[http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2011/04.11.15.04/doc/LADC%202011_A_RELIABLE_COMPUTATIONAL_SYSTEM_FINAL_ENTREGA.pdf]",
     "sid.inpe.br/mtc-m18/2011/04.11.15.04", ("direct link",), "'[1] PMDC Motor Reliability study: [url]', index id 5657697901"),
    # -- persistent URLs in Markdown and HTML -----------------------------------------------------------------
    ("[here](http://mtc-m16c.sid.inpe.br/ibi/8JMKD3MGPDW34P/45U7J5H)).",
     "8JMKD3MGPDW34P/45U7J5H", ("Markdown link", "`/ibi/`"), "gridbr README: '(short paper available [here](…)).', index id 8605907478"),
    ('<a href="http://mtc-m16c.sid.inpe.br/ibi/sid.inpe.br/mtc-m18/2010/10.19.13.42" target="_blank" rel="noopener noreferrer" className="text-blue-600 hover:underline">',
     "sid.inpe.br/mtc-m18/2010/10.19.13.42", ("HTML link", "`/ibi/`"), "Project page, 'Project's main article', index id 61493183474"),
    ("[Web Services for Big Earth Observation Data](http://urlib.net/8JMKD3MGP3W34P/3N2U9JL).",
     "8JMKD3MGP3W34P/3N2U9JL", ("Markdown link",), "VINHAS et al., GEOINFO 2016, README reference, index id 5690411788"),
    ("[our paper](http://urlib.net/sid.inpe.br/sibgrapi/2017/08.21.23.41).",
     "sid.inpe.br/sibgrapi/2017/08.21.23.41", ("Markdown link",), "Senna, Drummond, Bastos, SIBGRAPI 2017, README, index id 1239385979"),
    ("[SIBGRAPI Digital Library](http://urlib.net/8JMKD3MGPAW/3RPBD6H).",
     "8JMKD3MGPAW/3RPBD6H", ("Markdown link",), "xHiPP README, index id 9359506679"),
    ('<PublicationLink href="http://urlib.net/8JMKD3MGP7W/3E57SM2" target="_blank">',
     "8JMKD3MGP7W/3E57SM2", ("HTML link",), "Researcher's page, publication by AUGUSTO-SILVA, P. B., index id 20366825061"),
    ('<a href = "http://urlib.net/8JMKD3MGP3W34T/44STMLE" target="_blank">',
     "8JMKD3MGP3W34T/44STMLE", ("HTML link",), "Souza et al., Paisagens e Uso da Terra, data set source, index id 38825300123"),
    ("Instituto Nacional de Pesquisas Espaciais. http://urlib.net/ibi/8JMKD3MGP3W34T/46L9G6P**",
     "8JMKD3MGP3W34T/46L9G6P", ("`**`",), "Bold Markdown citation of an INPE doctoral thesis, index id 17996607079"),
    # -- URLib's pair-list forms (file 003 Table 9.4; the issue asking for them) ---------------------------------
    ("ibi {rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5}",
     "sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ("pair",), "file 003, Example 9.2 (an Archive's answer), line 666"),
    ("{rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}",
     "sid.inpe.br/mtc-m18@80/2009/07.21.13.23", ("pair",), "file 003, §10.1 trace (an Archive's answer), line 1841"),
    ("ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}",
     "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", ("pair",), "file 003, §10.1 trace, line 1842"),
    ("ibip 8JMKD3MGP7W/3EPGUE5", "8JMKD3MGP7W/3EPGUE5", ("pair",), "file 003, Table 9.4 form 'ibip' IBIp, Example 9.4's IBI"),
    ("ibi 8JMKD3MGPCW/3DT298S", "8JMKD3MGPCW/3DT298S", ("pair",), "issue 22 point 3 (a pair 'ibi <IBIp>' as URLib prints it), index id none"),
    # -- not IBIs -----------------------------------------------------------------------------------------------
    ("Repositório de Metadadossid.inpe.br/mtc-m16c/2015/11.26.17.42.49", None, ("glued",),
     "Scraper's raw data, 'Repositório de Metadados' glued to the repository name, index id 54693094770"),
    ("https://urlib.net/sid.inpe.br", None, (), "List of Brazilian repositories, 'INPE - Repositório', index id 54840753111"),
    ("https://terrabrasilis.dpi.inpe.br/geoserver/ams1h/ows", None, (), "Active-fire feed URL, index id 56972364808"),
    ("http://www.dpi.inpe.br/gilberto/references/max_comparison_4_9_intersection.pdf", None, (),
     "Reading list, item 38, index id 52507374898"),
]

#: (passage as found, the IBIs a person reads in it in order, source)
PASSAGES: list[tuple[str, tuple[str, ...], str]] = [
    ("- Bias and fairness in face detection. [http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2021/09.04.19.00/doc/103.pdf](http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2021/09.04.19.00/doc/103.pdf).\n"
     "- AI fairness. [https://www.kaggle.com/code/alexisbcook/ai-fairness](https://www.kaggle.com/code/alexisbcook/ai-fairness).",
     ("sid.inpe.br/sibgrapi/2021/09.04.19.00", "sid.inpe.br/sibgrapi/2021/09.04.19.00"), "Course notes, index id 53271085263"),
    ("[4] SOEIRO, F. J. C. P; BECCENERI, J. C.; SILVA Neto, A. J. Recozimento Simulado (Simulated Annealing). Disponível em: "
     '<a href="mtc-m16d.sid.inpe.br/archive.cgi/sid.inpe.br/mtc-m19@80/2010/ 01.20.19.25">Recozimento Simulado</a>. Acesso em: 28/04/2019.<br>',
     ("sid.inpe.br/mtc-m19@80/2010/01.20.19.25",), "Reference list of a parallel-computing report, index id 44800256652"),
    ("  [📄 View Paper](http://marte2.sid.inpe.br/attachment.cgi/sid.inpe.br/marte2/2025/08.16.16.54.21/doc/@individualPDF.pdf)\n\n"
     "- **SILVA, Milton Borges da et al. (2025)**. AVALIAÇÃO DAS ESTIMATIVAS DE CHUVA DA MISSÃO GPM",
     ("sid.inpe.br/marte2/2025/08.16.16.54.21",), "Publication list, index id 10006810738"),
    ("VINHAS, L.; QUEIROZ, G. R.; FERREIRA, K. R.; CÂMARA, G. [Web Services for Big Earth Observation Data](http://urlib.net/8JMKD3MGP3W34P/3N2U9JL). "
     "In: BRAZILIAN SYMPOSIUM ON GEOINFORMATICS, 17. (GEOINFO), 2016, Campos do Jordão, SP. Proceedings... 2016.",
     ("8JMKD3MGP3W34P/3N2U9JL",), "README reference, index id 5690411788"),
    ("(short paper available\n[here](http://mtc-m16c.sid.inpe.br/ibi/8JMKD3MGPDW34P/45U7J5H)).",
     ("8JMKD3MGPDW34P/45U7J5H",), "gridbr README, index id 8605907478"),
    ("Source: <a href=\"http://urlib.net/8JMKD3MGP3W34P/3PAAHQ5\"  target=\"_blank\">Dal'Asta et al. As Comunidades De Terra Firme Do Sudoeste Do Pará</a>",
     ("8JMKD3MGP3W34P/3PAAHQ5",), "Data set description, index id 38979182421"),
    ("- BRAZILIAN SPACE-BASED ENVIRONMENTAL DATA COLLECTION SYSTEM. INPE, 2015. Disponível em: "
     "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/ePrint@1905/2006/08.03.20.37/doc/wilson_yamaguti.pdf. Acesso em: 10 out. 2025.",
     ("sid.inpe.br/ePrint@1905/2006/08.03.20.37",), "Reference list, index id 16100498041"),
    ('dados_brutos = [\n    "Repositório de Metadadossid.inpe.br/mtc-m16c/2015/11.26.17.42.49",\n'
     '    "Repositório de Metadadossid.inpe.br/mtc-m16c/2015/11.26.17.39.41"\n]',
     (), "Scraper's raw data (host glued to a word), index id 54693094770"),
    ("URL = f\"http://mtc-m16c.sid.inpe.br/col/urlib.net/www/2011/03.29.20.55/doc/mirrorget.cgi?languagebutton=en&metadatarepository={repositorio}&choice=full\"",
     (), "Scraper's URL template: a mirror page with no item named, index id 54693094770"),
    ("    @('INPE - Repositório', 'https://urlib.net/sid.inpe.br'),\n    @('FGV - Repositório', 'https://repositorio.fgv.br'),",
     (), "List of Brazilian repositories, index id 54840753111"),
    ("ibi {rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5}\nibi.archiveservice {rep sid.inpe.br/mtc-m19@80/2009/08.21.17.02}",
     ("sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "sid.inpe.br/mtc-m19@80/2009/08.21.17.02"),
     "file 003, Example 9.2, lines 666-667 (both forms of one item count as one IBI found)"),
]


#: Collected after the code above was written and measured once before any change for them
#: (queries ``marte.sid.inpe.br/``, ``/rep/sid.inpe.br/``, ``mtc-m17.sid.inpe.br/``,
#: ``urlib.net/ibi/8JMKD3MGPEW``): how the recogniser does on strings it was not built on.
#: (text as found, the IBI meant, source)
HELD_OUT: list[tuple[str, str, str]] = [
    ("Ref2: http://marte.sid.inpe.br/col/dpi.inpe.br/sbsr@80/2008/11.18.12.46/doc/2001-2008.pdf", "dpi.inpe.br/sbsr@80/2008/11.18.12.46", "CBERS-4 AWFI camera product note, index id 18672462899"),
    ("Reference: http://marte.sid.inpe.br/col/sid.inpe.br/deise/1999/02.05.09.30/doc/T205.pdf", "sid.inpe.br/deise/1999/02.05.09.30", "Segmentation function docstring, index id 10550384328"),
    ("URL: http://marte.sid.inpe.br/col/ltid.inpe.br/sbsr/2004/10.27.15.15/doc/3357.pdf", "ltid.inpe.br/sbsr/2004/10.27.15.15", "Dinamica EGO notes (Bonham-Carter), index id 68502624349"),
    ("[^14]: http://marte.sid.inpe.br/col/dpi.inpe.br/sbsr@80/2008/11.17.22.53/doc/2041-2048.pdf", "dpi.inpe.br/sbsr@80/2008/11.17.22.53", "Footnote 14 of a survey, index id 38972045025"),
    ('link: "http://mtc-m17.sid.inpe.br/rep/sid.inpe.br/mtc-m17@80/2007/02.15.17.09?languagebutton=pt-BR&searchsite=bibdigital.sid.inpe.br:80",', "sid.inpe.br/mtc-m17@80/2007/02.15.17.09", "Publication list data (JS object), index id 61381078813"),
    ("| [Paper](http://urlib.net/ibi/8JMKD3MGPEW34M/4BU46CP) | [Project page](https://mavilab-ufv.github.io/projects) |", "8JMKD3MGPEW34M/4BU46CP", "README table of links, index id 26412954385"),
    ("    url = {http://urlib.net/ibi/8JMKD3MGPEW34M/4C22QAL}", "8JMKD3MGPEW34M/4C22QAL", "BibTeX url field, index id 47280936835"),
    ("IBI: <8JMKD3MGPEW34M/47JU8TS>. Available from: <http://urlib.net/ibi/8JMKD3MGPEW34M/47JU8TS>.", "8JMKD3MGPEW34M/47JU8TS", "SIBGRAPI 2022 reference, index id 12946850784"),
    ('href="http://mtc-m19.sid.inpe.br/rep/sid.inpe.br/mtc-m19@80/2010/07.26.20.24?languagebutton=pt-BR&searchsite=bibdigital.sid.inpe.br:80"', "sid.inpe.br/mtc-m19@80/2010/07.26.20.24", "Researcher page JSX, index id 20366825061"),
    ('<a href="http://mtc-m17.sid.inpe.br/rep/sid.inpe.br/mtc-m17@80/2007/02.15.17.09?languagebutton=pt-BR&searchsite=bibdigital.sid.inpe.br:80"', "sid.inpe.br/mtc-m17@80/2007/02.15.17.09", "Researcher page, index id 20138478348"),
]
