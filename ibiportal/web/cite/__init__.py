"""The Cite page: citations of any IBI from its oai_dc metadata."""
