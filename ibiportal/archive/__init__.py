"""The Archive side of the protocol (file 003 §9): the Archive service over an item store.

Pure Python, no Flask, no network:

* :mod:`.model` – what an Archive knows about an item (:class:`~.model.Item`, its
  :class:`~.model.Metadata`, IBI forms of Table 9.4) and who the Archive is
  (:class:`~.model.ArchiveIdentity`);
* :mod:`.relation` – the relations of Table 9.5 that qualify answer pairs;
* :mod:`.store` – the :class:`~.store.ItemStore` interface and an in-memory store;
* :mod:`.service` – :class:`~.service.ArchiveService`: Algorithm 1 (MONTARRESPOSTA),
  Algorithm 2 (MONTARLISTADEURL) and FILTRARLISTADEURL;
* :mod:`.oai_dc` – the oai_dc record an item's ``:(oai_dc)`` URL serves;
* :mod:`.demo` – the demo Archives of ``data/demo_archives.json`` (the standard's two and
  the scenario Archives) and their loader.
"""
