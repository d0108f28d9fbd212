"""The resolver service (file 003 §6.1, §7.2): Archives register themselves here."""
