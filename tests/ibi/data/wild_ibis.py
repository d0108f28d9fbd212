"""IBIs as they were found in public texts: the string as printed, the IBI a person means by it.

Every ``text`` was copied from a public GitHub file found with the ``search`` tool's exact-string
index (queries ``urlib.net/ibi/``, ``urlib.net/rep/``, ``IBI: <``, ``ibiurl.backgroundlanguage``,
``sid.inpe.br/mtc-m``, ``/col/sid.inpe.br/``, ``.sid.inpe.br/rep/``, ``/ibi/sid.inpe.br/``,
``urlib.net/8JMKD3MGP``, ``8JMKD3MGPEW34M/``); ``source`` names the index entry (its id, for
``read_file``) and the reference or sentence around the string, so each can be found again.
``ibi`` is read off the string by a person; ``notes`` are words each note list must contain.
"""
from __future__ import annotations

TATHU = "UBA, D. M. et al. TATHU - Software para rastreio e análise do ciclo de vida de sistemas convectivos. INPE, 2022 (README of the TATHU package), index id 1498508966"
REIS = "M. S. Reis. Detection and analysis of forest regeneration trajectories in the lower Tapajós region. 2022 (README reference list), index id 27923067917"
ROBLEDO = "ROBLEDO ASENCIO, J. C. Estudo numérico do processo de decomposição em câmaras catalíticas de propulsores monopropelentes. Tese, INPE, 2019 (README), index id 35482774929"
MIRANDA = "MIRANDA, M. S. AI4LUC: pixel-based classification of land use and land cover via deep learning. Dissertação, INPE, 2023 (README), index id 7022148129"
SIBGRAPI_2022 = "High-Spatial Resolution Dataset and Few-shot Deep Learning Benchmark, SIBGRAPI 2022 (README), index id 12946850784"
RESOLUTION = "Methodology note: 'IBI: `sid.inpe.br/mtc-m21d/2022/08.25.11.46-NTC`; URL: `http://urlib.net/ibi/8JMKD3MGP3W34T/47GAF6S`', index id 62449496105"

U = "urlib.net/"

#: (text as found, IBI meant, form, fragments the notes must contain, source)
RECOGNISED: list[tuple[str, str, str, tuple[str, ...], str]] = [
    # -- printed references: label, angle brackets, parentheses, report-number suffixes ----------
    ("IBI: <8JMKD3MGP3W34T/47AF772>.", "8JMKD3MGP3W34T/47AF772", "ibip", ("label `IBI:`", "`<…>`", "`.`"), TATHU),
    ("(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC).", "sid.inpe.br/mtc-m21d/2022/07.20.15.45", "rep", ("`-NTC`", "`(…)`"), TATHU),
    ("<http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.", "8JMKD3MGP3W34T/47AF772", "ibip", ("`/ibi/`", "`<…>`"), TATHU),
    ("Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.", "8JMKD3MGP3W34T/47AF772", "ibip", ("`Disponível em:`", "`/ibi/`"), TATHU),
    ("IBI: <8JMKD3MGP3W34T/47E2TRB>.", "8JMKD3MGP3W34T/47E2TRB", "ibip", ("label `IBI:`",), REIS),
    ("(sid.inpe.br/mtc-m21d/2022/08.11.11.21-TDI).", "sid.inpe.br/mtc-m21d/2022/08.11.11.21", "rep", ("`-TDI`", "theses and dissertations"), REIS),
    ("Available at: <http://urlib.net/ibi/8JMKD3MGP3W34T/47E2TRB>.", "8JMKD3MGP3W34T/47E2TRB", "ibip", ("`Available at:`", "`/ibi/`"), REIS),
    ("IBI: <8JMKD3MGP3W34R/3UGHFGH>.", "8JMKD3MGP3W34R/3UGHFGH", "ibip", ("label `IBI:`",), ROBLEDO),
    ("(sid.inpe.br/mtc-m21c/2019/12.04.15.16-TDI).", "sid.inpe.br/mtc-m21c/2019/12.04.15.16", "rep", ("`-TDI`",), ROBLEDO),
    ("Disponível em: <ibi:8JMKD3MGP3W34R/3UGHFGH>.", "8JMKD3MGP3W34R/3UGHFGH", "ibip", ("`ibi:` is the URI scheme",), ROBLEDO),
    ("<ibi:8JMKD3MGP3W34R/3UGHFGH>", "8JMKD3MGP3W34R/3UGHFGH", "ibip", ("`ibi:` is the URI scheme",), ROBLEDO),
    ("IBI: <8JMKD3MGP3W34T/48QQB65>.", "8JMKD3MGP3W34T/48QQB65", "ibip", ("label `IBI:`",), MIRANDA),
    ('"http://urlib.net/ibi/8JMKD3MGP3W34T/48QQB65",', "8JMKD3MGP3W34T/48QQB65", "ibip", ("`/ibi/`", '`"…"`', "`,`"), MIRANDA + " (its BibTeX url field)"),
    ('"8JMKD3MGP3W34T/48QQB65",', "8JMKD3MGP3W34T/48QQB65", "ibip", ('`"…"`',), MIRANDA + " (its BibTeX ibi field)"),
    ("IBI: <8JMKD3MGPEW34M/47JU8TS>.", "8JMKD3MGPEW34M/47JU8TS", "ibip", ("label `IBI:`",), SIBGRAPI_2022),
    ("Available from: <http://urlib.net/ibi/8JMKD3MGPEW34M/47JU8TS>.", "8JMKD3MGPEW34M/47JU8TS", "ibip", ("`Available from:`",), SIBGRAPI_2022),
    ("`sid.inpe.br/mtc-m21d/2022/08.25.11.46-NTC`;", "sid.inpe.br/mtc-m21d/2022/08.25.11.46", "rep", ("`-NTC`", "`;`"), RESOLUTION),
    ("`http://urlib.net/ibi/8JMKD3MGP3W34T/47GAF6S`.", "8JMKD3MGP3W34T/47GAF6S", "ibip", ("`/ibi/`",), RESOLUTION),
    ("<<http://urlib.net/ibi/8JMKD3MGP3W34T/4B9G5HL>>.", "8JMKD3MGP3W34T/4B9G5HL", "ibip", ("`<…>`", "`/ibi/`"),
     "Reference list of an INPE thesis template ('Available from: <<http://urlib.net/ibi/…>>.'), index id 58049282653"),
    ("Available from: \n<<http://urlib.net/ibi/8JMKD3MGP3W34T/4B9G5HL>>.", "8JMKD3MGP3W34T/4B9G5HL", "ibip", ("line break", "`Available from:`"),
     "Same reference, as printed over two lines, index id 58049282653"),
    # -- the current resolver's /ibi/ and /rep/ ----------------------------------------------------
    ("http://urlib.net/ibi/8JMKD3MGP3W34R/3SMGTAP", "8JMKD3MGP3W34R/3SMGTAP", "ibip", ("`/ibi/`",),
     "BibTeX of a master's thesis on in-flight alignment of inertial navigation systems (url field), index id 70092285964"),
    ("http://urlib.net/ibi/8JMKD3MGP8W/SFA8LH", "8JMKD3MGP8W/SFA8LH", "ibip", ("`/ibi/`",),
     "List of INPE thesis templates and guides, index id 70938974621"),
    ("http://urlib.net/ibi/8JMKD3MGPEW34M/49SPD9L", "8JMKD3MGPEW34M/49SPD9L", "ibip", ("`/ibi/`",),
     "BibTeX of a SIBGRAPI 2023 work-in-progress paper, index id 43425957524"),
    ("url = {http://urlib.net/ibi/8JMKD3MGPEW34M/4C22QAL}".split(" = ", 1)[1], "8JMKD3MGPEW34M/4C22QAL", "ibip", ("`{…}`", "`/ibi/`"),
     "BibTeX url field of a SIBGRAPI 2024 paper on OCR of fiscal receipts, index id 47691151707"),
    ("[📄 View Thesis](http://urlib.net/ibi/8JMKD3MGP3W34R/44HGF8E)", "8JMKD3MGP3W34R/44HGF8E", "ibip", ("Markdown link", "`/ibi/`"),
     "Publication list in a researcher's README, index id 10006810738"),
    ("[Paper](http://urlib.net/ibi/8JMKD3MGPEW34M/4BU46CP)", "8JMKD3MGPEW34M/4BU46CP", "ibip", ("Markdown link",),
     "README of 'A Multimodal Frame Sampling Algorithm for Semantic Hyperlapses with Musical Alignment', index id 26412954385"),
    ("http://urlib.net/rep/8JMKD3MGP7W/3FB2RJE?ibiurl.language=pt-BR", "8JMKD3MGP7W/3FB2RJE", "ibip", ("`/rep/`", "`ibiurl.language`"),
     "BibTeX of a master's dissertation in space systems engineering (url field), index id 3588555601"),
    ("[Biblioteca Digital do INPE](http://urlib.net/rep/8JMKD3MGP3W34R/3T3PTLP?ibiurl.backgroundlanguage=pt-BR)", "8JMKD3MGP3W34R/3T3PTLP", "ibip",
     ("Markdown link", "`/rep/`", "`ibiurl.backgroundlanguage`"), "README linking a dissertation at INPE's digital library, index id 40019331083"),
    ("http://urlib.net/rep/8JMKD3MGP3W34R/3T3PTLP?ibiurl.backgroundlanguage=pt-BR", "8JMKD3MGP3W34R/3T3PTLP", "ibip",
     ("`ibiurl.backgroundlanguage`",), "Same link, index id 40019331083"),
    ("http://urlib.net/rep/8JMKD3MGP3W34P/3NQ5D2P", "8JMKD3MGP3W34P/3NQ5D2P", "ibip", ("`/rep/`",),
     "Ph.D. thesis cited 'Available online: http://urlib.net/rep/… (accessed on 10 August 2022)', index id 47276226486"),
    ("http://urlib.net/rep/8JMKD3MGPDW34P/43PLBGP", "8JMKD3MGPDW34P/43PLBGP", "ibip", ("`/rep/`",),
     "GeoInfo 2020 paper on satellite image time series, index id 49196330374"),
    ("[Link](http://urlib.net/rep/8JMKD3MGP6W34M/3JM4CC8).", "8JMKD3MGP6W34M/3JM4CC8", "ibip", ("Markdown link", "`.`"),
     "SBSR 2015 proceedings paper, ISBN 978-85-17-0076-8, index id 48982144177"),
    ("[full paper](http://urlib.net/rep/8JMKD3MGPAW/3PFBDPL?ibiurl.language=en)", "8JMKD3MGPAW/3PFBDPL", "ibip", ("`ibiurl.language`",),
     "Facial Expression Recognition Based on Fine-Tuned Deep Convolutional Network, SIBGRAPI library, index id 15214007119"),
    ("[<i class='fas fa-file-download'></i> Download thesis](http://urlib.net/rep/8JMKD3MGP3W34R/3RKQRSE)", "8JMKD3MGP3W34R/3RKQRSE", "ibip",
     ("Markdown link",), "Researcher's page offering a thesis download, index id 49479541076"),
    # -- the standard's form, printed in the wild ---------------------------------------------------
    ("<http://urlib.net/8JMKD3MGP3W34R/3SME6J2>", "8JMKD3MGP3W34R/3SME6J2", "ibip", ("`<…>`",),
     "Fortran documentation header of a CPTEC model ('For theoretical information…'), index id 45279898741"),
    ("http://urlib.net/8JMKD3MGP3W34P/3PAAHQ5", "8JMKD3MGP3W34P/3PAAHQ5", "ibip", (),
     "Dal'Asta et al. As Comunidades De Terra Firme Do Sudoeste Do Pará, cited as source, index id 39307738867"),
    ("http://urlib.net/8JMKD3MGP3W34T/44STMLE", "8JMKD3MGP3W34T/44STMLE", "ibip", (),
     "Souza et al. Paisagens e Uso da Terra em Núcleos Populacionais, cited as source, index id 38825300123"),
    ("http://urlib.net/8JMKD3MGP3W/3HDPRRS.", "8JMKD3MGP3W/3HDPRRS", "ibip", ("`.`",),
     "Master's dissertation by Henrique Rennó de Azeredo Freitas, 'available from http://urlib.net/8JMKD3MGP3W/3HDPRRS.', index id 30571814165"),
    ("urlib.net/8JMKD3MGP3W/3HDPRRS", "8JMKD3MGP3W/3HDPRRS", "ibip", ("no scheme",), "Same, without its scheme, index id 30571814165"),
    ("urlib.net/ibi/8JMKD3MGP3W34T/47AF772", "8JMKD3MGP3W34T/47AF772", "ibip", ("no scheme", "`/ibi/`"), TATHU + " (without its scheme)"),
    # -- Archive hosts: /ibi/, /rep/, the item's repository name and URLib's pairs -------------------
    ("http://mtc-m16c.sid.inpe.br/ibi/sid.inpe.br/mtc-m18/2010/10.19.13.42", "sid.inpe.br/mtc-m18/2010/10.19.13.42", "rep", ("`/ibi/`",),
     "Project page: 'Project's main article', index id 61493183474"),
    ("[Santos and Adami (2025)](http://mtc-m16c.sid.inpe.br/ibi/sid.inpe.br/mtc-m18/2010/10.19.13.42?ibiurl.clientinformation.citingitem=sid.inpe.br/mtc-m18/2010/12.15.11.49&linktype=relative);",
     "sid.inpe.br/mtc-m18/2010/10.19.13.42", "rep", ("`ibiurl.clientinformation.citingitem`", "`linktype`", "`;`"),
     "Project README: 'Project's main article: [Santos and Adami (2025)](…)', index id 46405717897"),
    ("[SIBGRAPI](http://sibgrapi.sid.inpe.br/rep/sid.inpe.br/sibgrapi/2018/09.03.21.36?metadatarepository=sid.inpe.br/sibgrapi/2018/09.03.21.36.30&ibiurl.backgroundlanguage=en&ibiurl.requiredsite=sibgrapi.sid.inpe.br+802&requiredmirror=sid.inpe.br/banon/2001/03.30.15.38.24&searchsite=sibgrapi.sid.inpe.br:80&searchmirror=sid.inpe.br/banon/2001/03.30.15.38.24)",
     "sid.inpe.br/sibgrapi/2018/09.03.21.36", "rep",
     ("`/rep/`", "`metadatarepository`", "`ibiurl.backgroundlanguage`", "`ibiurl.requiredsite`", "`requiredmirror`", "`searchsite`", "`searchmirror`"),
     "README of 'A deep learning-based compatibility score for reconstruction of strip-shredded text documents' (SIBGRAPI 2018), index id 37663346445"),
    ("http://sibgrapi.sid.inpe.br/rep/sid.inpe.br/sibgrapi/2018/10.17.13.54?metadatarepository=sid.inpe.br/sibgrapi/2018/10.17.13.54.46&ibiurl.backgroundlanguage=pt&ibiurl.requiredsite=sibgrapi.sid.inpe.br+800&requiredmirror=sid.inpe.br/banon/2001/03.30.15.38.24&searchsite=sibgrapi.sid.inpe.br:80&searchmirror=sid.inpe.br/banon/2001/03.30.15.38.24",
     "sid.inpe.br/sibgrapi/2018/10.17.13.54", "rep", ("`ibiurl.requiredsite`",), "SIBGRAPI 2018 paper list in a web page's data, index id 2333227909"),
    ("[SNMA](http://mtc-m21c.sid.inpe.br/ibi/sid.inpe.br/mtc-m21c/2019/05.16.15.18?metadatarepository=sid.inpe.br/mtc-m21c/2019/05.16.15.18.01&ibiurl.backgroundlanguage=pt-BR&ibiurl.requiredsite=mtc-m21c.sid.inpe.br+806&requiredmirror=urlib.net/www/2017/11.22.19.04.03&searchsite=bibdigital.sid.inpe.br:80&searchmirror=sid.inpe.br/bibdigital@80/2006/04.07.15.50.13&searchinputvalue=sistema+de+modelagem+num%E9rica+e+assimila%E7%E3o&parentidentifiercitedby=6qtX3pFwXQZ4iE8KMKjdY/KFQ6T&forcerecentflag=0)",
     "sid.inpe.br/mtc-m21c/2019/05.16.15.18", "rep", ("`/ibi/`", "`ibiurl.requiredsite`", "`metadatarepository`"),
     "Minutes of a CPTEC data-assimilation meeting (MONAN), index id 10872204431"),
    ("http://sibgrapi.sid.inpe.br/sid.inpe.br/sibgrapi/2013/02.18.16.52.29?ibiurl.backgroundlanguage=en", "sid.inpe.br/sibgrapi/2013/02.18.16.52.29", "rep",
     ("`ibiurl.backgroundlanguage`",), "SIBGRAPI author-list scraper's known URL, index id 45564215453"),
    ("http://mtc-m19.sid.inpe.br/rep/sid.inpe.br/mtc-m19@80/2010/07.26.20.24?languagebutton=pt-BR&searchsite=bibdigital.sid.inpe.br:80",
     "sid.inpe.br/mtc-m19@80/2010/07.26.20.24", "rep", ("`/rep/`", "`languagebutton`", "`searchsite`"),
     "Researcher's site, 'Teses e dissertações' link, index id 60740630748"),
    ("(http://marte2.sid.inpe.br/rep/sid.inpe.br/marte2/2017/10.23.17.08.52)", "sid.inpe.br/marte2/2017/10.23.17.08.52", "rep", ("`(…)`", "`/rep/`"),
     "Daily precipitation gridded data set for Brazil, SBSR 2017, index id 30312337810"),
    ("http://mtc-m21b.sid.inpe.br/rep/8JMKD3MGP3W34P/3PAAHQ5", "8JMKD3MGP3W34P/3PAAHQ5", "ibip", ("`/rep/`",),
     "Dal'Asta et al. (2015), cited as 'Fonte', index id 38810256956"),
    ("http://sibgrapi.sid.inpe.br/rep/8JMKD3MGPEW34M/45CS7CS", "8JMKD3MGPEW34M/45CS7CS", "ibip", ("`/rep/`",),
     "Musical Hyperlapse - A Multimodal Approach to Accelerate First Person Videos (SIBGRAPI 2021), index id 40609884681"),
    ("http://mtc-m12e.sid.inpe.br/rep/sid.inpe.br/mtc-m12e/2026/01.02.12.20?mirror=urlib.net/www/2025/02.16.04.07.51&metadatarepository=sid.inpe.br/mtc-m12e/2026/01.02.12.20.17",
     "sid.inpe.br/mtc-m12e/2026/01.02.12.20", "rep", ("`mirror`", "`metadatarepository`"), "SQL update of a thesis note's link, index id 59566680027"),
    # -- URLib's upn: URI of 2026 (STANDARD.md §8): its local part is the IBI -----------------------
    ("http://urlib.net/upn:EEAFFE:8JMKD2USNRW34M/4GBJQNB", "8JMKD2USNRW34M/4GBJQNB", "ibip", ("`upn:EEAFFE:`", "ResolverID EEAFFE"),
     "VILCA-QUISPE, E.; GOMEZ-NIETO, E. UrbanLib (SIBGRAPI 2026), 'URI: <upn:…>', index id 68401300488"),
    # -- direct Archive links /col/<rep>/doc/<file>: not persistent ----------------------------------
    ("http://mtc-m21b.sid.inpe.br/col/sid.inpe.br/mtc-m21b/2017/08.10.22.44/doc/publicacao.pdf#page=105", "sid.inpe.br/mtc-m21b/2017/08.10.22.44", "rep",
     ("direct link", "not a persistent URL"), "Rust module docs linking a thesis ('Good Explination'), index id 44599586960"),
    ("http://mtc-m21b.sid.inpe.br/col/sid.inpe.br/mtc-m21b/2017/08.25.17.52/doc/poster_ionik%20%5BSomente%20leitura%5D.pdf", "sid.inpe.br/mtc-m21b/2017/08.25.17.52", "rep",
     ("direct link",), "Scintillation index script comment, index id 10104843752"),
    ("http://mtc-m21d.sid.inpe.br/col/sid.inpe.br/mtc-m21d/2026/05.19.14.25/doc/Atlas_Mata_Atlantica_2024-2025.pdf", "sid.inpe.br/mtc-m21d/2026/05.19.14.25", "rep",
     ("direct link",), "Atlas dos Remanescentes Florestais da Mata Atlântica 2024-2025, index id 68954801780"),
    ("http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/05.14.17.42/doc/publicacao.pdf", "sid.inpe.br/mtc-m19/2013/05.14.17.42", "rep",
     ("direct link",), "Publication list (a 2013 thesis), index id 61370562299"),
    ("<http://mtc-m21c.sid.inpe.br/col/sid.inpe.br/mtc-m21c/2020/10.02.15.11/doc/publicacao.pdf>", "sid.inpe.br/mtc-m21c/2020/10.02.15.11", "rep",
     ("direct link", "`<…>`"), "reStructuredText link to the COAWST user guide, index id 19595541748"),
    ("http://mtc-m21c.sid.inpe.br/col/sid.inpe.br/mtc-m21c/2019/02.06.02.41/doc/publicacao.pdf", "sid.inpe.br/mtc-m21c/2019/02.06.02.41", "rep",
     ("direct link",), "Koja, Rian. On methods for in-flight alignment of inertial navigation systems. Master's thesis, INPE, 2019, index id 70104020862"),
    ("http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2025/09.12.20.06/doc/cardoso_111_inpe.pdf", "sid.inpe.br/sibgrapi/2025/09.12.20.06", "rep",
     ("direct link",), "MALSumm README, 'Paper (PDF)', index id 63496015337"),
    ("http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24/doc/mirrorget.cgi?metadatarepository=sid.inpe.br/mtc-m16c/2022/12.16.15.14.35&choice=full&languagebutton=en",
     "sid.inpe.br/mtc-m16c/2022/12.16.15.14", "rep", ("mirror sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24", "metadata is kept in repository"),
     "Metadata scraper's URL list (a mirror's page about the item; the item is named by its metadata repository), index id 54972469307"),
    ("http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2016/07.08.22.47/doc/opf-sibgrapi16.pdf", "sid.inpe.br/sibgrapi/2016/07.08.22.47", "rep",
     ("direct link",), "Research log citing a SIBGRAPI 2016 paper's channel list, index id 71265399800"),
    ("http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2010/09.15.18.18/doc/texture-based_wireframe_rendering.pdf", "sid.inpe.br/sibgrapi/2010/09.15.18.18", "rep",
     ("direct link",), "Shader comment citing texture-based wireframe rendering, index id 2974107737"),
    ("http://sibgrapi.sid.inpe.br/col/sid.inpe.br/sibgrapi/2022/09.16.03.51/doc/paper.pdf", "sid.inpe.br/sibgrapi/2022/09.16.03.51", "rep",
     ("direct link",), "Publication page front matter (links), index id 21195243454"),
    ("http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2012/03.15.15.49/doc/publicacao.pdf", "sid.inpe.br/mtc-m19/2012/03.15.15.49", "rep",
     ("direct link",), "INPE MSc Dissertation (2012) cited as source, index id 46581466096"),
    ("http://sibgrapi.sid.inpe.br/col/sid.inpe.br/banon/2002/10.23.11.34/doc/35.pdf", "sid.inpe.br/banon/2002/10.23.11.34", "rep",
     ("direct link",), "Rocha, Velho, Carvalho, image moments paper cited in code, index id 12601160420"),
]

#: Real strings that are not IBIs, and the message and 1-based position each must get.
NOT_RECOGNISED: list[tuple[str, str, int, str]] = [
    # A link whose identifier is URLib's compact code (mixed case), not an IBI: said so, never guessed.
    ("http://marte3.sid.inpe.br/rep/6qtX3pFwXQZ4PKzA/r3xLT", "is in URLib's compact encoding", 31,
     "Reference to an INPE report on star identification, index id 1813969904"),
]
